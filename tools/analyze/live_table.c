/* SPDX-License-Identifier: MIT */
/* Linear probing with backward-shift deletion (no tombstones), at most
 * half full. */
#include "live_table.h"

#include <stdio.h>
#include <stdlib.h>

/* splitmix64's finalizer: allocation addresses differ in few, high bits. */
static size_t hash_key(uint64_t address, unsigned space)
{
    uint64_t x = address ^ ((uint64_t)space << 62);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return (size_t)(x ^ (x >> 31));
}

struct vt_live_entry *vt_live_find(const struct vt_live_table *t, uint64_t address, unsigned space)
{
    if (!t->slots)
        return NULL;
    for (size_t i = hash_key(address, space) & t->mask;; i = (i + 1) & t->mask) {
        struct vt_live_entry *e = &t->slots[i];
        if (!e->used)
            return NULL;
        if (e->address == address && e->space == space)
            return e;
    }
}

static void place(struct vt_live_table *t, const struct vt_live_entry *e)
{
    size_t i = hash_key(e->address, e->space) & t->mask;
    while (t->slots[i].used)
        i = (i + 1) & t->mask;
    t->slots[i] = *e;
    t->slots[i].used = 1;
}

static void grow(struct vt_live_table *t)
{
    size_t old_size = t->slots ? t->mask + 1 : 0, size = old_size ? 2 * old_size : 1024;
    struct vt_live_entry *old = t->slots;
    t->slots = calloc(size, sizeof *t->slots);
    if (!t->slots) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    t->mask = size - 1;
    for (size_t i = 0; i < old_size; i++)
        if (old[i].used)
            place(t, &old[i]);
    free(old);
}

void vt_live_insert(struct vt_live_table *t, const struct vt_live_entry *e)
{
    if (!t->slots || 2 * (t->count + 1) > t->mask + 1)
        grow(t);
    place(t, e);
    t->count++;
}

/* Moves later entries of the probe run back into the hole, so lookups
 * never stop early at it. */
void vt_live_remove(struct vt_live_table *t, struct vt_live_entry *e)
{
    size_t hole = (size_t)(e - t->slots);
    for (size_t i = (hole + 1) & t->mask; t->slots[i].used; i = (i + 1) & t->mask) {
        size_t home = hash_key(t->slots[i].address, t->slots[i].space) & t->mask;
        /* movable if its home is not in (hole, i], cyclically */
        if (((i - home) & t->mask) >= ((i - hole) & t->mask)) {
            t->slots[hole] = t->slots[i];
            hole = i;
        }
    }
    t->slots[hole].used = 0;
    t->count--;
}

void vt_live_free(struct vt_live_table *t)
{
    free(t->slots);
    t->slots = NULL;
    t->mask = t->count = 0;
}
