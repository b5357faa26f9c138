/* SPDX-License-Identifier: MIT */
#include "pickle.h"

#include <string.h>

#include "utf8.h"

/* The opcodes used (Lib/pickletools.py names them). */
enum {
    OP_MARK = '(',
    OP_STOP = '.',
    OP_NONE = 'N',
    OP_BININT = 'J',
    OP_BININT1 = 'K',
    OP_BININT2 = 'M',
    OP_BINUNICODE = 'X',
    OP_EMPTY_DICT = '}',
    OP_SETITEMS = 'u',
    OP_EMPTY_LIST = ']',
    OP_APPENDS = 'e',
    OP_LONG_BINPUT = 'r',
    OP_LONG_BINGET = 'j',
    OP_PROTO = 0x80,
    OP_TUPLE2 = 0x86,
    OP_NEWTRUE = 0x88,
    OP_NEWFALSE = 0x89,
    OP_LONG1 = 0x8a,
};

static void put_u32(FILE *out, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        fputc((int)(v >> (8 * i) & 0xff), out);
}

void vt_pickle_begin(struct vt_pickle *p, FILE *out)
{
    p->out = out;
    p->next_memo = 0;
    fputc(OP_PROTO, out);
    fputc(2, out);
}

void vt_pickle_end(struct vt_pickle *p)
{
    fputc(OP_STOP, p->out);
}

void vt_pickle_dict_begin(struct vt_pickle *p)
{
    fputc(OP_EMPTY_DICT, p->out);
    fputc(OP_MARK, p->out);
}

void vt_pickle_dict_end(struct vt_pickle *p)
{
    fputc(OP_SETITEMS, p->out);
}

void vt_pickle_list_begin(struct vt_pickle *p)
{
    fputc(OP_EMPTY_LIST, p->out);
    fputc(OP_MARK, p->out);
}

void vt_pickle_list_end(struct vt_pickle *p)
{
    fputc(OP_APPENDS, p->out);
}

/* S's length once invalid bytes become U+FFFD (3 bytes each). */
static size_t clean_length(const unsigned char *s)
{
    size_t n = 0, len;
    for (; *s; s += len ? len : 1)
        n += (len = vt_utf8_sequence_length(s)) ? len : 3;
    return n;
}

void vt_pickle_str(struct vt_pickle *p, const char *text)
{
    static const char replacement[] = "\xef\xbf\xbd";
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    size_t len;
    fputc(OP_BINUNICODE, p->out);
    put_u32(p->out, (uint32_t)clean_length(s));
    for (; *s; s += len ? len : 1) {
        len = vt_utf8_sequence_length(s);
        if (len)
            fwrite(s, 1, len, p->out);
        else
            fwrite(replacement, 1, 3, p->out);
    }
}

/* LONG1: little-endian two's complement in N bytes. */
static void put_long1(FILE *out, uint64_t bits, size_t n)
{
    fputc(OP_LONG1, out);
    fputc((int)n, out);
    for (size_t i = 0; i < n; i++)
        fputc(i < 8 ? (int)(bits >> (8 * i) & 0xff) : 0, out);
}

/* In as few bytes as V takes, sign included. */
static void put_long(FILE *out, int64_t v)
{
    size_t n = 1;
    while (n < 8 && (int64_t)((uint64_t)v << (64 - 8 * n)) >> (64 - 8 * n) != v)
        n++;
    put_long1(out, (uint64_t)v, n);
}

void vt_pickle_int(struct vt_pickle *p, int64_t v)
{
    if (v >= 0 && v <= 0xff) {
        fputc(OP_BININT1, p->out);
        fputc((int)v, p->out);
    } else if (v >= 0 && v <= 0xffff) {
        fputc(OP_BININT2, p->out);
        fputc((int)(v & 0xff), p->out);
        fputc((int)(v >> 8), p->out);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        fputc(OP_BININT, p->out);
        put_u32(p->out, (uint32_t)v);
    } else {
        put_long(p->out, v);
    }
}

void vt_pickle_uint(struct vt_pickle *p, uint64_t v)
{
    if (v <= INT64_MAX)
        vt_pickle_int(p, (int64_t)v);
    else
        put_long1(p->out, v, 9); /* a ninth byte keeps it positive */
}

void vt_pickle_bool(struct vt_pickle *p, bool v)
{
    fputc(v ? OP_NEWTRUE : OP_NEWFALSE, p->out);
}

void vt_pickle_none(struct vt_pickle *p)
{
    fputc(OP_NONE, p->out);
}

void vt_pickle_int_pair(struct vt_pickle *p, int64_t a, int64_t b)
{
    vt_pickle_int(p, a);
    vt_pickle_int(p, b);
    fputc(OP_TUPLE2, p->out);
}

uint32_t vt_pickle_memo_put(struct vt_pickle *p)
{
    fputc(OP_LONG_BINPUT, p->out);
    put_u32(p->out, p->next_memo);
    return p->next_memo++;
}

void vt_pickle_memo_get(struct vt_pickle *p, uint32_t id)
{
    fputc(OP_LONG_BINGET, p->out);
    put_u32(p->out, id);
}

void vt_pickle_interned(struct vt_pickle *p, uint32_t *id, const char *s)
{
    if (*id) {
        vt_pickle_memo_get(p, *id - 1);
        return;
    }
    vt_pickle_str(p, s);
    *id = vt_pickle_memo_put(p) + 1;
}
