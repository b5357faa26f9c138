/* SPDX-License-Identifier: MIT */
#include "protobuf.h"

#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "xalloc.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static void reserve(struct vt_pb *b, size_t more)
{
    if (b->len + more <= b->cap)
        return;
    while (b->cap < b->len + more)
        b->cap = b->cap ? 2 * b->cap : 256;
    b->data = vt_xrealloc(b->data, b->cap, 1);
}

static void put_varint(struct vt_pb *b, uint64_t v)
{
    reserve(b, 10);
    b->len += vt_put_varint(b->data + b->len, v);
}

static void put_tag(struct vt_pb *b, unsigned field, unsigned wire)
{
    put_varint(b, (uint64_t)field << 3 | wire);
}

void vt_pb_uint(struct vt_pb *b, unsigned field, uint64_t v)
{
    put_tag(b, field, WIRE_VARINT);
    put_varint(b, v);
}

void vt_pb_int(struct vt_pb *b, unsigned field, int64_t v)
{
    vt_pb_uint(b, field, (uint64_t)v);
}

void vt_pb_bytes(struct vt_pb *b, unsigned field, const void *data, size_t len)
{
    put_tag(b, field, WIRE_LEN);
    put_varint(b, len);
    reserve(b, len);
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
}

void vt_pb_string(struct vt_pb *b, unsigned field, const char *s)
{
    vt_pb_bytes(b, field, s, strlen(s));
}

void vt_pb_message(struct vt_pb *b, unsigned field, const struct vt_pb *m)
{
    vt_pb_bytes(b, field, m->data, m->len);
}

void vt_pb_packed(struct vt_pb *b, unsigned field, const uint64_t *v, size_t n)
{
    uint8_t tmp[10];
    size_t len = 0;
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++)
        len += vt_put_varint(tmp, v[i]);
    put_tag(b, field, WIRE_LEN);
    put_varint(b, len);
    for (size_t i = 0; i < n; i++)
        put_varint(b, v[i]);
}

void vt_pb_append(struct vt_pb *b, const struct vt_pb *raw)
{
    reserve(b, raw->len);
    if (raw->len)
        memcpy(b->data + b->len, raw->data, raw->len);
    b->len += raw->len;
}

void vt_pb_clear(struct vt_pb *b)
{
    b->len = 0;
}

void vt_pb_free(struct vt_pb *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}
