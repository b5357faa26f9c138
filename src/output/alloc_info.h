/* SPDX-License-Identifier: MIT */
/* One allocation as the tracer knows it: what a hook describes and the
 * live table keeps. */
#ifndef VRAMTRACE_ALLOC_INFO_H
#define VRAMTRACE_ALLOC_INFO_H

#include "format.h"

#include <stdint.h>

/* Key spaces: device pointers, opaque handles (cuMemCreate, arrays), and
 * tensors inside the segments of a framework's allocator (format.h's
 * vt_api_in_segment: their bytes are the segment's on the device). */
enum vt_space {
    VT_SPACE_POINTER = 0,
    VT_SPACE_HANDLE = 1,
    VT_SPACE_TENSOR = 2,
    VT_SPACE_COUNT = 3
};

/* 40 bytes: with the live table's own fields, an entry fills one cache
 * line (alloc_table.h). */
struct vt_alloc_info {
    uint64_t key;
    uint64_t size;
    void *ctx;
    uint64_t stream;
    int32_t device;
    uint8_t api;       /* enum vt_api (all under VT_API_LIMIT) */
    uint8_t kind;      /* VT_KIND_* */
    uint8_t space;     /* enum vt_space */
    uint8_t graph : 1; /* a graph's allocation: freed, its memory stays in the graph memory pool */
    /* a segment of a framework's cache whose tensors are traced: the
     * per-checkpoint figures count the tensors, not it (track.c) */
    uint8_t cache_segment : 1;
    uint8_t nvtx_heap : 1; /* ... and that segment an NVTX memory heap */
};
_Static_assert(sizeof(struct vt_alloc_info) == 40 && VT_API_LIMIT <= 256,
               "an allocation in 40 bytes");

/* The ALLOC / FREE flag of a key space (format.h). */
static inline unsigned vt_space_flag(enum vt_space space)
{
    return space == VT_SPACE_HANDLE ? VT_ADDR_HANDLE : 0;
}

#endif
