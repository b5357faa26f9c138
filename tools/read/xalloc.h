/* SPDX-License-Identifier: MIT */
/* Allocation that ends the CLI with one line when memory runs out. */
#ifndef VT_XALLOC_H
#define VT_XALLOC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* realloc for N elements of SIZE (N may be 0). */
static inline void *vt_xrealloc(void *p, size_t n, size_t size)
{
    p = realloc(p, (n ? n : 1) * size);
    if (!p) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

/* Array P of SIZE-byte elements, holding N, with room for one more: its
 * capacity doubles (reallocated only when N is 0 or a power of two), so
 * appending n elements copies O(n) bytes in all, not O(n^2) (a report of
 * 10,001 call sites took 44.6 s under ASan, whose realloc always copies,
 * with arrays grown by one). Every growth of P must go through it. */
static inline void *vt_xgrow(void *p, size_t n, size_t size)
{
    if (n & (n - 1))
        return p;
    return vt_xrealloc(p, n ? 2 * n : 1, size);
}

/* calloc for N elements of SIZE (N may be 0). */
static inline void *vt_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

/* strdup of S. */
static inline char *vt_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(vt_xcalloc(n, 1), s, n);
}

#endif
