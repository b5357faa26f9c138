/* SPDX-License-Identifier: MIT */
/* Linear probing with backward-shift removal: no tombstones, so a program
 * that allocates and frees for ever leaves no debris for lookups to walk. */
#include "alloc_table.h"

#include <stdint.h>
#include <stdlib.h>

#define FIRST_SLOTS 64

static void place(struct vt_alloc_table *t, const struct vt_live *e)
{
    size_t i = vt_alloc_table_home(t, e->info.key);
    while (t->slots[i].used)
        i = (i + 1) & t->mask;
    t->slots[i] = *e;
}

int vt_alloc_table_grow(struct vt_alloc_table *t)
{
    size_t old_size = t->slots ? t->mask + 1 : 0, size = old_size ? 2 * old_size : FIRST_SLOTS;
    struct vt_live *old = t->slots, *slots;
    void *old_block = t->block, *block = calloc(size + 1, sizeof *slots); /* zeroed lazily */
    unsigned shift = 64;
    if (!block)
        return -1;
    slots = (struct vt_live *)(((uintptr_t)block + 63) & ~(uintptr_t)63);
    for (size_t n = size; n > 1; n >>= 1)
        shift--;
    t->slots = slots;
    t->block = block;
    t->mask = size - 1;
    t->shift = shift;
    for (size_t i = 0; i < old_size; i++)
        if (old[i].used)
            place(t, &old[i]);
    free(old_block);
    return 0;
}

/* Moves later entries of the probe run back into the hole, so that a
 * lookup never stops early at it. */
void vt_alloc_table_remove(struct vt_alloc_table *t, struct vt_live *e)
{
    size_t hole = (size_t)(e - t->slots);
    for (size_t i = (hole + 1) & t->mask; t->slots[i].used; i = (i + 1) & t->mask) {
        size_t h = vt_alloc_table_home(t, t->slots[i].info.key);
        /* movable when its home is not in (hole, i], cyclically */
        if (((i - h) & t->mask) >= ((i - hole) & t->mask)) {
            t->slots[hole] = t->slots[i];
            hole = i;
        }
    }
    t->slots[hole].used = 0;
    t->count--;
}

void vt_alloc_table_free(struct vt_alloc_table *t)
{
    free(t->block);
    *t = (struct vt_alloc_table){0};
}
