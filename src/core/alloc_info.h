/* SPDX-License-Identifier: MIT */
/* One allocation as the tracer knows it: what a hook describes and the
 * live table keeps. */
#ifndef VRAMTRACE_ALLOC_INFO_H
#define VRAMTRACE_ALLOC_INFO_H

#include "format.h"

#include <stdint.h>

/* Key spaces: device pointers, and opaque handles (cuMemCreate, arrays). */
enum vt_space { VT_SPACE_POINTER = 0, VT_SPACE_HANDLE = 1 };

struct vt_alloc_info {
    uint64_t key;
    uint64_t size;
    unsigned api;
    unsigned kind;
    enum vt_space space;
    int device;
    void *ctx;
    uint64_t stream;
    int graph; /* a graph's allocation: freed, its memory stays in the graph memory pool */
};

/* The ALLOC / FREE flag of a key space (format.h). */
static inline unsigned vt_space_flag(enum vt_space space)
{
    return space == VT_SPACE_HANDLE ? VT_ADDR_HANDLE : 0;
}

#endif
