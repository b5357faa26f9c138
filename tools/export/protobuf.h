/* SPDX-License-Identifier: MIT */
/* A tiny protocol buffers encoder: varint and length-delimited fields into
 * a growing buffer; nested messages are encoded into their own buffer and
 * appended. Enough for profile.proto. */
#ifndef VT_PROTOBUF_H
#define VT_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

struct vt_pb {
    uint8_t *data;
    size_t len, cap;
};

/* A varint field (uint64, or int64 as its two's complement), always written. */
void vt_pb_uint(struct vt_pb *b, unsigned field, uint64_t v);
void vt_pb_int(struct vt_pb *b, unsigned field, int64_t v);
void vt_pb_bytes(struct vt_pb *b, unsigned field, const void *data, size_t len);
void vt_pb_string(struct vt_pb *b, unsigned field, const char *s);
void vt_pb_message(struct vt_pb *b, unsigned field, const struct vt_pb *m);
/* A packed repeated varint field (written only when N > 0). */
void vt_pb_packed(struct vt_pb *b, unsigned field, const uint64_t *v, size_t n);
/* Appends fields already encoded in RAW. */
void vt_pb_append(struct vt_pb *b, const struct vt_pb *raw);
/* Empties B, keeping its memory for the next message. */
void vt_pb_clear(struct vt_pb *b);
void vt_pb_free(struct vt_pb *b);

#endif
