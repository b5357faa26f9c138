/* Python line tables (src/python/pyline.c), one per format, each with
 * what CPython itself answers for it (code.replace(co_linetable=...) and
 * co_lines() on 3.10 and 3.11, dis.findlinestarts on 3.8). */
#include <stdint.h>

#include "pyline.h"
#include "unit_check.h"

#define LINE(format, table, addr) vt_pyline(format, table, (long)sizeof table, 10, addr)

/* (byte increment, signed line increment) pairs; a zero increment moves
 * the line only: [0,6) line 10, [6,10) line 11, 10.. line 13 - 1 = 12 */
static void lnotab(void)
{
    static const uint8_t t[] = {6, 1, 4, 2, 0, 0xff};
    CHECK_EQ("3.8 offset 0", LINE(VT_PY_LNOTAB, t, 0), 10);
    CHECK_EQ("3.8 offset 5", LINE(VT_PY_LNOTAB, t, 5), 10);
    CHECK_EQ("3.8 offset 6", LINE(VT_PY_LNOTAB, t, 6), 11);
    CHECK_EQ("3.8 offset 9", LINE(VT_PY_LNOTAB, t, 9), 11);
    CHECK_EQ("3.8 offset 10", LINE(VT_PY_LNOTAB, t, 10), 12);
    CHECK_EQ("3.8 past the table", LINE(VT_PY_LNOTAB, t, 400), 12);
}

/* (length, signed line delta) pairs, -128 = no line; a zero length moves
 * the line only: [0,6) 10, [6,10) 11, [10,18) none, [18,20) 10+1+3+2 = 16 */
static void linetable_310(void)
{
    static const uint8_t t[] = {6, 0, 4, 1, 8, 0x80, 0, 3, 2, 2};
    CHECK_EQ("3.10 offset 0", LINE(VT_PY_LINETABLE_310, t, 0), 10);
    CHECK_EQ("3.10 offset 6", LINE(VT_PY_LINETABLE_310, t, 6), 11);
    CHECK_EQ("3.10 offset 9", LINE(VT_PY_LINETABLE_310, t, 9), 11);
    CHECK_EQ("3.10 offset 10 (no line)", LINE(VT_PY_LINETABLE_310, t, 10), -1);
    CHECK_EQ("3.10 offset 17 (no line)", LINE(VT_PY_LINETABLE_310, t, 17), -1);
    CHECK_EQ("3.10 offset 18", LINE(VT_PY_LINETABLE_310, t, 18), 16);
    CHECK_EQ("3.10 offset 19", LINE(VT_PY_LINETABLE_310, t, 19), 16);
    CHECK_EQ("3.10 past the table", LINE(VT_PY_LINETABLE_310, t, 20), -1);
}

/* 3.11+ location entries 1cccclll (length l+1 code units of 2 bytes):
 *   0xEA 0x00            no columns, 3 units, line +0    [0,6)   10
 *   0xD9 0x04 0x08       one line (code 11: +1), 2 units [6,10)  11
 *   0xF8                 no location, 1 unit             [10,12) none
 *   0xF0 0x0A 0 0 0      long form, line +5              [12,14) 16
 *   0xE8 0x03            no columns, line -1             [14,16) 15 */
static void locations(void)
{
    static const uint8_t t[] = {0xea, 0x00, 0xd9, 0x04, 0x08, 0xf8, 0xf0,
                                0x0a, 0x00, 0x00, 0x00, 0xe8, 0x03};
    CHECK_EQ("3.11 offset 0", LINE(VT_PY_LOCATIONS, t, 0), 10);
    CHECK_EQ("3.11 offset 5", LINE(VT_PY_LOCATIONS, t, 5), 10);
    CHECK_EQ("3.11 offset 6", LINE(VT_PY_LOCATIONS, t, 6), 11);
    CHECK_EQ("3.11 offset 10 (no location)", LINE(VT_PY_LOCATIONS, t, 10), -1);
    CHECK_EQ("3.11 offset 12", LINE(VT_PY_LOCATIONS, t, 12), 16);
    CHECK_EQ("3.11 offset 14", LINE(VT_PY_LOCATIONS, t, 14), 15);
    CHECK_EQ("3.11 past the table", LINE(VT_PY_LOCATIONS, t, 16), -1);
}

/* A frame that has not started (negative offset) is on the first line. */
static void not_started(void)
{
    static const uint8_t t[] = {0xf8};
    CHECK_EQ("negative offset", LINE(VT_PY_LOCATIONS, t, -1), 10);
}

int main(void)
{
    lnotab();
    linetable_310();
    locations();
    not_started();
    return unit_result("pyline");
}
/* SPDX-License-Identifier: MIT */
