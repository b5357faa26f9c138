/* SPDX-License-Identifier: MIT */
/* A small streaming JSON writer: indentation, commas, and string escaping
 * that always yields valid JSON (control characters escaped, bytes that
 * are not valid UTF-8 replaced by U+FFFD). */
#ifndef VT_JSON_WRITER_H
#define VT_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define VT_JSON_MAX_DEPTH 32
#define VT_JSON_BUFFER 16384

/* Output is gathered here and written when full and when the outermost
 * value is closed (a report writes gigabytes in small pieces: one stdio
 * call per piece cost more than the rest of the writing). */
struct vt_json_memo;

struct vt_json {
    FILE *out;
    size_t len;
    char buf[VT_JSON_BUFFER];
    int depth;
    bool has_items[VT_JSON_MAX_DEPTH]; /* per level: a comma is due */
    bool after_key;
    size_t flushes;            /* how often BUF went out */
    struct vt_json_memo *memo; /* values kept by vt_json_memo_begin */
    struct vt_json_memo *recording;
    size_t recording_from, recording_flushes;
};

void vt_json_init(struct vt_json *j, FILE *out);
/* Closing the outermost value writes the buffer out: nothing else needs to. */
void vt_json_begin_object(struct vt_json *j);
void vt_json_end_object(struct vt_json *j);
void vt_json_begin_array(struct vt_json *j);
void vt_json_end_array(struct vt_json *j);
void vt_json_key(struct vt_json *j, const char *key);
void vt_json_string(struct vt_json *j, const char *s); /* NULL writes null */
void vt_json_uint(struct vt_json *j, uint64_t v);
void vt_json_int(struct vt_json *j, int64_t v);
/* Nanoseconds written as microseconds with three decimals, exactly. */
void vt_json_ns_as_us(struct vt_json *j, uint64_t ns);
void vt_json_bool(struct vt_json *j, bool v);
void vt_json_null(struct vt_json *j);

/* A value written alike wherever it appears at one depth (a frame, shared
 * by the stacks of many sites), written once per document: when KEY named
 * one at this depth before, its text is put again and this returns true;
 * else false, and the value written next, up to vt_json_memo_end, is kept
 * under KEY. A report of 100,000 sites writes gigabytes of frames. */
bool vt_json_memo_begin(struct vt_json *j, const void *key);
void vt_json_memo_end(struct vt_json *j);

#endif
