/* SPDX-License-Identifier: MIT */
#include "caller_cache.h"

#include <stddef.h>

static unsigned epoch;
static struct vt_caller_cache *caches; /* every cache that holds an entry */

unsigned vt_caller_caches_epoch(void)
{
    return __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
}

static void list_cache(struct vt_caller_cache *cache)
{
    int unlisted = 0;
    struct vt_caller_cache *head;
    if (!__atomic_compare_exchange_n(&cache->listed, &unlisted, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return;
    head = __atomic_load_n(&caches, __ATOMIC_ACQUIRE);
    do
        __atomic_store_n(&cache->next, head, __ATOMIC_RELAXED);
    while (
        !__atomic_compare_exchange_n(&caches, &head, cache, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
}

/* A fresh entry while there are some, then each in turn. */
static struct vt_caller_entry *claim(struct vt_caller_cache *cache)
{
    unsigned used = __atomic_load_n(&cache->used, __ATOMIC_ACQUIRE);
    while (used < VT_CALLER_CACHE_SIZE)
        if (__atomic_compare_exchange_n(&cache->used, &used, used + 1, 1, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            return &cache->entries[used];
    return &cache->entries[__atomic_fetch_add(&cache->turn, 1, __ATOMIC_RELAXED) %
                           VT_CALLER_CACHE_SIZE];
}

/* Makes E's sequence odd; 0 when another writer holds it and WAIT is 0. */
static int lock_entry(struct vt_caller_entry *e, int wait, unsigned *seq)
{
    for (;;) {
        unsigned s = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
        if (!(s & 1) && __atomic_compare_exchange_n(&e->seq, &s, s + 1, 0, __ATOMIC_ACQ_REL,
                                                    __ATOMIC_ACQUIRE)) {
            *seq = s + 1;
            return 1;
        }
        if (!wait)
            return 0;
    }
}

static void write_entry(struct vt_caller_entry *e, uintptr_t start, uintptr_t end, void *real)
{
    __atomic_store_n(&e->start, start, __ATOMIC_RELEASE);
    __atomic_store_n(&e->end, end, __ATOMIC_RELEASE);
    __atomic_store_n(&e->real, real, __ATOMIC_RELEASE);
}

void vt_caller_cache_put(struct vt_caller_cache *cache, uintptr_t start, uintptr_t end, void *real,
                         unsigned resolved_at)
{
    struct vt_caller_entry *e;
    unsigned seq;
    if (start >= end)
        return;
    list_cache(cache);
    e = claim(cache);
    if (!lock_entry(e, 0, &seq))
        return; /* another thread writes it: this one just does not cache */
    if (vt_caller_caches_epoch() == resolved_at)
        write_entry(e, start, end, real);
    __atomic_store_n(&e->seq, seq + 1, __ATOMIC_RELEASE);
}

void vt_caller_caches_forget(void)
{
    __atomic_add_fetch(&epoch, 1, __ATOMIC_ACQ_REL);
    for (struct vt_caller_cache *c = __atomic_load_n(&caches, __ATOMIC_ACQUIRE); c;
         c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE)) {
        unsigned used = __atomic_load_n(&c->used, __ATOMIC_ACQUIRE), seq;
        for (unsigned i = 0; i < used && i < VT_CALLER_CACHE_SIZE; i++) {
            lock_entry(&c->entries[i], 1, &seq);
            write_entry(&c->entries[i], 0, 0, NULL);
            __atomic_store_n(&c->entries[i].seq, seq + 1, __ATOMIC_RELEASE);
        }
    }
}
