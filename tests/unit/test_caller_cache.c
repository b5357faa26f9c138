/* SPDX-License-Identifier: MIT */
/* The caller cache (src/reach/caller_cache.c) under contention: 8 threads
 * look up and fill one cache for more calling objects than it holds (64 and
 * then 100: entries replaced in turn) while another empties it again and
 * again, as a dlclose does. A lookup must never answer with another
 * object's function (the race of an entry read while it was written), and
 * nothing answers after it was emptied with what was put before. Also run
 * under TSan (suite 'threaded'). */
#include "caller_cache.h"
#include "unit_check.h"

#include <pthread.h>
#include <stdint.h>

#define THREADS 8
#define ROUNDS 2000
#define OBJECT_SPAN 0x10000u
#define BASE 0x700000000000u

static struct vt_caller_cache cache;
static unsigned objects;
static int stop;
static long wrong, hits;

/* Object I spans [BASE + I * SPAN, + SPAN); its "function" is I + 1. */
static uintptr_t object_start(unsigned i)
{
    return BASE + (uintptr_t)i * OBJECT_SPAN;
}

static void *caller_thread(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg, local_wrong = 0, local_hits = 0;
    for (int round = 0; round < ROUNDS; round++)
        for (unsigned k = 0; k < objects; k++) {
            unsigned i = (k + seed * 7) % objects;
            uintptr_t at = object_start(i) + (seed * 131 + k) % OBJECT_SPAN;
            void *real;
            unsigned epoch = vt_caller_caches_epoch();
            if (vt_caller_cache_find(&cache, (const void *)at, &real)) {
                local_hits++;
                local_wrong += real != (void *)(uintptr_t)(i + 1);
            } else {
                vt_caller_cache_put(&cache, object_start(i), object_start(i) + OBJECT_SPAN,
                                    (void *)(uintptr_t)(i + 1), epoch);
            }
        }
    __atomic_add_fetch(&wrong, local_wrong, __ATOMIC_RELAXED);
    __atomic_add_fetch(&hits, local_hits, __ATOMIC_RELAXED);
    return NULL;
}

static void *unloading_thread(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        vt_caller_caches_forget();
        for (volatile int pause = 0; pause < 20000; pause++)
            ;
    }
    return NULL;
}

static void contend(unsigned n)
{
    pthread_t callers[THREADS], unloader;
    objects = n;
    wrong = hits = 0;
    stop = 0;
    pthread_create(&unloader, NULL, unloading_thread, NULL);
    for (uintptr_t t = 0; t < THREADS; t++)
        pthread_create(&callers[t], NULL, caller_thread, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(callers[t], NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(unloader, NULL);
    CHECK_EQ("lookups answered with another object's function", wrong, 0);
    CHECK("some lookups hit", hits > 0);
}

/* Single-threaded: what was put is found; after forgetting, nothing is;
 * an entry resolved before a forget is not kept. */
static void exact(void)
{
    void *real = NULL;
    unsigned epoch = vt_caller_caches_epoch();
    vt_caller_caches_forget();
    vt_caller_cache_put(&cache, object_start(1), object_start(2), (void *)1, epoch);
    CHECK("stale entry dropped",
          !vt_caller_cache_find(&cache, (const void *)(object_start(1) + 5), &real));
    epoch = vt_caller_caches_epoch();
    vt_caller_cache_put(&cache, object_start(1), object_start(2), (void *)7, epoch);
    CHECK("found", vt_caller_cache_find(&cache, (const void *)(object_start(1) + 5), &real));
    CHECK_EQ("its function", (uintptr_t)real, 7);
    CHECK("not found outside", !vt_caller_cache_find(&cache, (const void *)object_start(2), &real));
    vt_caller_caches_forget();
    CHECK("forgotten", !vt_caller_cache_find(&cache, (const void *)(object_start(1) + 5), &real));
}

int main(void)
{
    exact();
    contend(VT_CALLER_CACHE_SIZE);
    contend(100);
    return unit_result("caller_cache");
}
