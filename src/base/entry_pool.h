/* SPDX-License-Identifier: MIT */
/* Fixed-size entries for the tracer's tables, recycled through a free list:
 * an allocation and its free then cost no malloc/free pair of our own in
 * the traced process (which also kept glibc consolidating its bins around
 * the program's own frees). Not thread-safe: the tracer lock is held. */
#ifndef VRAMTRACE_ENTRY_POOL_H
#define VRAMTRACE_ENTRY_POOL_H

#include <stddef.h>

struct vt_entry_pool {
    size_t entry_size;
    void *free_list; /* entries handed back, linked through their first word */
    void *slabs;     /* every slab, linked through its first word */
    char *next;      /* unused part of the newest slab */
    size_t left;     /* entries left there */
};

#define VT_ENTRY_POOL(type)        \
    {                              \
        .entry_size = sizeof(type) \
    }

/* A zeroed entry, or NULL when memory ran out. */
void *vt_entry_get(struct vt_entry_pool *pool);
void vt_entry_put(struct vt_entry_pool *pool, void *entry);

#endif
