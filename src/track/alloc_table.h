/* SPDX-License-Identifier: MIT */
/* The live allocations of one key space, by key: open addressing with the
 * entries in the slots, one cache line each (a lookup reads one or two
 * lines, no chain of separately allocated entries), linear probing, at
 * most half full, grown by doubling. Not thread-safe: the tracer lock is
 * held. */
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
_Static_assert(sizeof(struct vt_live) == 64, "an entry a cache line");

struct vt_alloc_table {
    struct vt_live *slots; /* NULL until the first insert; at a cache line's start in block */
    void *block;
    size_t mask;    /* slot count - 1 (a power of two) */
    unsigned shift; /* 64 - log2(slot count): a key's home slot is its hash's top bits */
    size_t count;
};

/* The slot where KEY's probe starts: its hash's top bits (allocation
 * addresses differ in few bits; one multiply spreads them). */
static inline size_t vt_alloc_table_home(const struct vt_alloc_table *t, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15u) >> t->shift);
}

/* The entry of KEY, or NULL. */
static inline struct vt_live *vt_alloc_table_find(const struct vt_alloc_table *t, uint64_t key)
{
    if (!t->count)
        return NULL;
    for (size_t i = vt_alloc_table_home(t, key);; i = (i + 1) & t->mask) {
        struct vt_live *e = &t->slots[i];
        if (!e->used)
            return NULL;
        if (e->info.key == key)
            return e;
    }
}

/* Doubles T's slots (makes its first ones): 0, or -1 when memory ran out. */
int vt_alloc_table_grow(struct vt_alloc_table *t);

/* The entry of KEY, found or else added (FRESH 1: only its key and used
 * set, the rest left for the caller to fill in), valid until the next add
 * or remove; NULL when memory ran out (nothing changed then). Inline: one
 * probe per allocation. */
static inline struct vt_live *vt_alloc_table_add(struct vt_alloc_table *t, uint64_t key, int *fresh)
{
    if ((!t->slots || 2 * (t->count + 1) > t->mask + 1) && vt_alloc_table_grow(t) < 0)
        return NULL;
    size_t i = vt_alloc_table_home(t, key);
    for (; t->slots[i].used; i = (i + 1) & t->mask)
        if (t->slots[i].info.key == key) {
            *fresh = 0;
            return &t->slots[i];
        }
    t->count++;
    t->slots[i].info.key = key;
    t->slots[i].used = 1;
    *fresh = 1;
    return &t->slots[i];
}
/* Takes out an entry that find or add returned. Entries after it may
 * move into its slot: iterating over the slots, look at the same slot
 * again after a remove (an entry may then be seen twice, never missed). */
void vt_alloc_table_remove(struct vt_alloc_table *t, struct vt_live *e);
/* Forgets every entry and the slots. */
void vt_alloc_table_free(struct vt_alloc_table *t);

#endif
