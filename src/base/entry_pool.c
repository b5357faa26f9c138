/* SPDX-License-Identifier: MIT */
#include "entry_pool.h"

#include <stdlib.h>
#include <string.h>

#define SLAB_ENTRIES 256

/* A slab: one link word (kept aligned for any entry), then the entries. */
#define SLAB_HEADER 16

static size_t slab_bytes(const struct vt_entry_pool *pool)
{
    return SLAB_HEADER + SLAB_ENTRIES * pool->entry_size;
}

static int add_slab(struct vt_entry_pool *pool)
{
    char *slab = malloc(slab_bytes(pool));
    if (!slab)
        return -1;
    memcpy(slab, &pool->slabs, sizeof pool->slabs);
    pool->slabs = slab;
    pool->next = slab + SLAB_HEADER;
    pool->left = SLAB_ENTRIES;
    return 0;
}

void *vt_entry_get(struct vt_entry_pool *pool)
{
    void *entry = pool->free_list;
    if (entry) {
        memcpy(&pool->free_list, entry, sizeof pool->free_list);
    } else {
        if (pool->left == 0 && add_slab(pool) < 0)
            return NULL;
        entry = pool->next;
        pool->next += pool->entry_size;
        pool->left--;
    }
    memset(entry, 0, pool->entry_size);
    return entry;
}

void vt_entry_put(struct vt_entry_pool *pool, void *entry)
{
    memcpy(entry, &pool->free_list, sizeof pool->free_list);
    pool->free_list = entry;
}
