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
