/* SPDX-License-Identifier: MIT */
#include "freed.h"

#include <stdlib.h>

/* Enough for the frees of one teardown; a double free further back than
 * this (or one that lost its slot) is reported without its allocation. */
#define SLOTS 4096

static struct vt_freed slots[SLOTS];
/* Bumped by a reset instead of clearing the table: a forked child would
 * otherwise touch (and copy) every page of it. */
static unsigned generation = 1;

static struct vt_freed *slot_of(uint64_t key, enum vt_space space)
{
    uint64_t h = (key ^ (uint64_t)space) * 0x9E3779B97F4A7C15u;
    return &slots[(h >> 40) % SLOTS];
}

struct vt_freed *vt_freed_remember(uint64_t key, enum vt_space space)
{
    struct vt_freed *s = slot_of(key, space);
    s->key = key;
    s->space = space;
    s->generation = generation;
    return s;
}

const struct vt_freed *vt_freed_find(uint64_t key, enum vt_space space)
{
    const struct vt_freed *s = slot_of(key, space);
    return s->generation == generation && s->key == key && s->space == space ? s : NULL;
}

void vt_freed_forget(uint64_t key, enum vt_space space)
{
    struct vt_freed *s = slot_of(key, space);
    if (s->generation == generation && s->key == key && s->space == space)
        s->generation = 0;
}

void vt_freed_reset(void)
{
    generation++;
}

int vt_free_stacks_enabled(void)
{
    static int enabled = -1;
    int e = __atomic_load_n(&enabled, __ATOMIC_RELAXED);
    if (e < 0) {
        const char *v = getenv("VRAMTRACE_FREE_STACKS");
        e = v && v[0] == '1' && !v[1];
        __atomic_store_n(&enabled, e, __ATOMIC_RELAXED);
    }
    return e;
}
