/* SPDX-License-Identifier: MIT */
/* What each calling object resolved a hooked name to, found by the caller's
 * address on every hooked call without a lock or dladdr. An entry is written
 * under its sequence number (odd while written), so a reader never takes a
 * range half written; when every entry is used, they are replaced in turn.
 * When an object is unloaded, another may be loaded at its addresses and the
 * resolved functions may be gone: vt_caller_caches_forget empties them all. */
#ifndef VRAMTRACE_CALLER_CACHE_H
#define VRAMTRACE_CALLER_CACHE_H

#include <stdint.h>

#define VT_CALLER_CACHE_SIZE 64

struct vt_caller_entry {
    unsigned seq;         /* even: stable; odd: being written */
    uintptr_t start, end; /* the calling object's address range */
    void *real;
};

/* `used` first, aligned: on every hooked call it and the first entry are
 * read, in one cache line. */
struct __attribute__((aligned(64))) vt_caller_cache {
    unsigned used;                /* entries ever claimed: the readers' bound */
    unsigned turn;                /* which to replace next once all are used */
    int listed;                   /* in the list vt_caller_caches_forget empties */
    struct vt_caller_cache *next; /* that list */
    struct vt_caller_entry entries[VT_CALLER_CACHE_SIZE];
};

/* 1 and *REAL when CACHE holds the object at CALLER (this runs on every
 * hooked call). */
static inline int vt_caller_cache_find(struct vt_caller_cache *cache, const void *caller,
                                       void **real)
{
    unsigned used = __atomic_load_n(&cache->used, __ATOMIC_ACQUIRE);
    uintptr_t at = (uintptr_t)caller;
    for (unsigned i = 0; i < used && i < VT_CALLER_CACHE_SIZE; i++) {
        struct vt_caller_entry *e = &cache->entries[i];
        /* fields stored with release after the odd sequence: one seen means
         * the sequence read again is no longer SEQ (no fences: TSan) */
        unsigned seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
        uintptr_t start = __atomic_load_n(&e->start, __ATOMIC_ACQUIRE);
        uintptr_t end = __atomic_load_n(&e->end, __ATOMIC_ACQUIRE);
        void *found = __atomic_load_n(&e->real, __ATOMIC_ACQUIRE);
        if ((seq & 1) || __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != seq)
            continue; /* being written: resolve again rather than wait */
        if (at >= start && at < end) {
            *real = found;
            return 1;
        }
    }
    return 0;
}

/* Taken before resolving what goes into a cache: an entry resolved before an
 * unload that vt_caller_caches_forget has since handled is not kept. */
unsigned vt_caller_caches_epoch(void);

/* Keeps REAL for callers in [START, END), resolved at EPOCH. */
void vt_caller_cache_put(struct vt_caller_cache *cache, uintptr_t start, uintptr_t end, void *real,
                         unsigned epoch);

/* Empties every cache (after an object was unloaded). */
void vt_caller_caches_forget(void);

#endif
