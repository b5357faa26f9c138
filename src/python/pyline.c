/* SPDX-License-Identifier: MIT */
#include "pyline.h"

/* 3.8, 3.9: (address increment, signed line increment) byte pairs. */
static int lnotab_line(const uint8_t *p, long len, int line, long addr)
{
    long at = 0;
    for (long i = 0; i + 1 < len; i += 2) {
        at += p[i];
        if (at > addr)
            break;
        line += (int8_t)p[i + 1];
    }
    return line;
}

/* 3.10: (address length, signed line delta) pairs; -128 means "no line";
 * zero-length entries only move the line. */
static int linetable_310_line(const uint8_t *p, long len, int line, long addr)
{
    long start = 0;
    for (long i = 0; i + 1 < len; i += 2) {
        long end = start + p[i];
        int delta = (int8_t)p[i + 1];
        int here = -1;
        if (delta != -128) {
            line += delta;
            here = line;
        }
        if (end > start && addr < end)
            return here;
        start = end;
    }
    return -1;
}

/* Location table varints: 6 bits a byte, low bits first, 0x40 = more. */
static unsigned varint(const uint8_t *p, const uint8_t *end)
{
    unsigned value = 0, shift = 0;
    while (p < end) {
        unsigned b = *p++;
        value |= (b & 63) << shift;
        if (!(b & 64))
            break;
        shift += 6;
    }
    return value;
}

static int signed_varint(const uint8_t *p, const uint8_t *end)
{
    unsigned v = varint(p, end);
    return v & 1 ? -(int)(v >> 1) : (int)(v >> 1);
}

enum { NO_COLUMNS = 13, LONG_FORM = 14, NO_LOCATION = 15, ONE_LINE0 = 10, ONE_LINE2 = 12 };

/* 3.11+: entries start with a byte 1cccclll (code c, length l+1 units). */
static int locations_line(const uint8_t *p, long len, int line, long addr)
{
    const uint8_t *end = p + len;
    long start = 0;
    while (p < end) {
        unsigned first = *p, code = (first >> 3) & 15;
        if (code == NO_COLUMNS || code == LONG_FORM)
            line += signed_varint(p + 1, end);
        else if (code >= ONE_LINE0 && code <= ONE_LINE2)
            line += (int)code - ONE_LINE0;
        start += ((first & 7) + 1) * 2;
        if (addr < start)
            return code == NO_LOCATION ? -1 : line;
        do
            p++;
        while (p < end && !(*p & 128));
    }
    return -1;
}

int vt_pyline(enum vt_py_lines format, const uint8_t *table, long len, int firstlineno, long addr)
{
    if (addr < 0)
        return firstlineno;
    switch (format) {
    case VT_PY_LNOTAB:
        return lnotab_line(table, len, firstlineno, addr);
    case VT_PY_LINETABLE_310:
        return linetable_310_line(table, len, firstlineno, addr);
    case VT_PY_LOCATIONS:
        return locations_line(table, len, firstlineno, addr);
    }
    return -1;
}
