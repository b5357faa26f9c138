/* SPDX-License-Identifier: MIT */
/* Allocation that ends the CLI with one line when memory runs out. */
#ifndef VT_XALLOC_H
#define VT_XALLOC_H

#include <stdio.h>
#include <stdlib.h>

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

/* Room for one more element after N in an array only ever grown by this:
 * its capacity doubles (reallocated when N is 0 or a power of two), so
 * appending N elements copies O(N) in all, not O(N^2). */
static inline void *vt_xgrow(void *p, size_t n, size_t size)
{
    return n & (n - 1) ? p : vt_xrealloc(p, n ? 2 * n : 1, size);
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

#endif
