/* SPDX-License-Identifier: MIT */
/* The live allocations of one key space, by key: open addressing with the
 * entries in the slots (a lookup reads one or two cache lines, no chain of
 * separately allocated entries), linear probing, at most half full, grown
 * by doubling. Not thread-safe: the tracer lock is held. */
#ifndef VRAMTRACE_ALLOC_TABLE_H
#define VRAMTRACE_ALLOC_TABLE_H

#include "alloc_info.h"

#include <stddef.h>
#include <stdint.h>

struct vt_live {
    struct vt_alloc_info info; /* info.key is the table's key */
    uint64_t seq;              /* allocation number, for checkpoints */
    uint32_t stack;
    uint32_t mappings; /* cuMemCreate: live cuMemMap mappings */
    uint8_t released;  /* cuMemCreate: cuMemRelease was called */
    uint8_t used;      /* the slot holds an entry */
};

struct vt_alloc_table {
    struct vt_live *slots; /* NULL until the first insert */
    size_t mask;           /* slot count - 1 (a power of two) */
    unsigned shift;        /* 64 - log2(slot count): a key's home slot is its hash's top bits */
    size_t count;
};

/* The entry of KEY, or NULL. */
static inline struct vt_live *vt_alloc_table_find(const struct vt_alloc_table *t, uint64_t key)
{
    if (!t->count)
        return NULL;
    for (size_t i = (size_t)((key * 0x9E3779B97F4A7C15u) >> t->shift);; i = (i + 1) & t->mask) {
        struct vt_live *e = &t->slots[i];
        if (!e->used)
            return NULL;
        if (e->info.key == key)
            return e;
    }
}

/* Puts a copy of E in (its key must not be in the table): its slot, valid
 * until the next insert or remove, or NULL when memory ran out (nothing
 * changed then). */
struct vt_live *vt_alloc_table_insert(struct vt_alloc_table *t, const struct vt_live *e);
/* Takes out an entry that find or insert returned. Entries after it may
 * move into its slot: iterating over the slots, look at the same slot
 * again after a remove (an entry may then be seen twice, never missed). */
void vt_alloc_table_remove(struct vt_alloc_table *t, struct vt_live *e);
/* Forgets every entry and the slots. */
void vt_alloc_table_free(struct vt_alloc_table *t);

#endif
