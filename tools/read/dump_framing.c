/* SPDX-License-Identifier: MIT */
#include "dump_framing.h"

#include <stdio.h>
#include <string.h>

#include "format.h"

int vt_frame_header(const uint8_t *data, size_t size, struct vt_header *header, char *error,
                    size_t error_size, size_t *error_offset)
{
    *error_offset = 0;
    if (size == 0) {
        snprintf(error, error_size, "empty file");
        return -1;
    }
    if (size < VT_MAGIC_LEN || memcmp(data, VT_MAGIC, VT_MAGIC_LEN) != 0) {
        snprintf(error, error_size, "not a vramtrace dump");
        return -1;
    }
    if (size < VT_HEADER_LEN) {
        snprintf(error, error_size, "truncated header");
        *error_offset = size;
        return -1;
    }
    const uint8_t *v = data + VT_MAGIC_LEN;
    header->version =
        (uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24;
    header->aggregated = (v[4] & VT_FLAG_AGGREGATED) != 0;
    *error_offset = VT_MAGIC_LEN;
    if (header->version > VT_VERSION) {
        snprintf(error, error_size,
                 "dump format version %u is newer than this vramtrace reads (%u); "
                 "upgrade vramtrace",
                 header->version, VT_VERSION);
        return -1;
    }
    if (header->version == 0) {
        snprintf(error, error_size, "unsupported dump format version 0");
        return -1;
    }
    if (header->aggregated && header->version < VT_VERSION_AGGREGATED) {
        snprintf(error, error_size, "aggregate-mode flag in a version %u dump", header->version);
        return -1;
    }
    *error_offset = 0;
    return 0;
}

size_t vt_frame_offset(const struct vt_framer *f)
{
    return f->base_offset + (size_t)(f->p - f->base);
}

static bool only_zeros(const uint8_t *p, const uint8_t *end)
{
    for (; p < end; p++)
        if (*p)
            return false;
    return true;
}

/* The record length varint at *P: 1 read, 0 the data ends inside it, -1
 * malformed. */
static int read_length(const uint8_t **p, const uint8_t *end, uint64_t *len)
{
    const uint8_t *q = *p;
    size_t n = 0;
    while (q + n < end && n < VT_VARINT_MAX && (q[n] & 0x80))
        n++;
    if (q + n >= end)
        return 0;
    return vt_get_varint(p, end, len) == 0 ? 1 : -1;
}

enum vt_frame_status vt_frame_next(struct vt_framer *f, struct vt_frame *frame)
{
    const uint8_t *record = f->p, *q = f->p + 1;
    uint64_t len;
    frame->offset = vt_frame_offset(f);
    frame->payload = frame->end = NULL;
    if (record >= f->end)
        return VT_FRAME_END;
    frame->type = f->live ? __atomic_load_n(record, __ATOMIC_ACQUIRE) : *record;
    if (frame->type == VT_REC_PAD)
        return f->live || only_zeros(q, f->end) ? VT_FRAME_END : VT_FRAME_TRAILING;
    int got = read_length(&q, f->end, &len);
    if (got < 0)
        return VT_FRAME_BAD_LENGTH;
    if (got == 0 || len > (uint64_t)(f->end - q))
        return VT_FRAME_CUT;
    frame->payload = q;
    frame->end = q + len;
    f->p = frame->end;
    return VT_FRAME_RECORD;
}
