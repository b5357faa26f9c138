/* SPDX-License-Identifier: MIT */
/* UTF-8 validation shared by the writers of text formats (JSON, pickle). */
#ifndef VT_UTF8_H
#define VT_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Length of the valid UTF-8 sequence at S, or 0 if it is not one. */
static inline size_t vt_utf8_sequence_length(const unsigned char *s)
{
    unsigned c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, cp = c & 0x07;
    else
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    bool surrogate = cp >= 0xd800 && cp <= 0xdfff;
    return overlong || surrogate || cp > 0x10ffff ? 0 : len;
}

#endif
