/* Another library that wraps the CUDA allocation API, as GPU-sharing layers
 * (HAMi-core), vendor profilers and accounting shims do: it exports
 * cudaMalloc/cudaFree and cuMemAlloc_v2/cuMemFree_v2, counts each call and
 * forwards it. Built twice (CHAIN_NAME "A" and "B") for chains of two.
 *
 * How it finds the next function (CHAIN_LOOKUP in the environment):
 *   unset or "next"  dlsym(RTLD_NEXT, name), for all four;
 *   "handle"         the runtime functions by RTLD_NEXT, the driver ones
 *                    from dlopen("libcuda.so.1") + dlsym(handle), as
 *                    HAMi-core does;
 *   "vsym"           the runtime functions by dlvsym(RTLD_NEXT, name,
 *                    "libcudart.so.13"), the driver ones by RTLD_NEXT.
 * At exit (after any call) it prints "chain NAME: cudaMalloc=N cudaFree=N cuMemAlloc_v2=N
 * cuMemFree_v2=N" on stderr: each call it forwarded, counted once. A call
 * that comes back into the same wrapper while it forwards (a loop) stops the
 * program with status 98. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define LOOP_FAILURE 98

typedef int (*malloc_fn)(void **, size_t);
typedef int (*free_fn)(void *);
typedef int (*drv_alloc_fn)(unsigned long long *, size_t);
typedef int (*drv_free_fn)(unsigned long long);

static unsigned long counts[4];
static __thread int forwarding[4];
static const char *const names[4] = {"cudaMalloc", "cudaFree", "cuMemAlloc_v2", "cuMemFree_v2"};

static void *next_of(int which)
{
    static void *next[4];
    const char *how = getenv("CHAIN_LOOKUP");
    if (next[which])
        return next[which];
    if (which >= 2 && how && !strcmp(how, "handle")) {
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        next[which] = h ? dlsym(h, names[which]) : NULL;
    } else if (which < 2 && how && !strcmp(how, "vsym")) {
        next[which] = dlvsym(RTLD_NEXT, names[which], "libcudart.so.13");
    } else {
        next[which] = dlsym(RTLD_NEXT, names[which]);
    }
    if (!next[which]) {
        fprintf(stderr, "chain %s: no next %s\n", CHAIN_NAME, names[which]);
        exit(LOOP_FAILURE);
    }
    return next[which];
}

/* Counts one call and marks it in flight; a nested call of the same
 * function on this thread is a loop. */
static void enter(int which)
{
    if (forwarding[which]) {
        fprintf(stderr, "chain %s: %s re-entered: the calls loop\n", CHAIN_NAME, names[which]);
        exit(LOOP_FAILURE);
    }
    forwarding[which] = 1;
    counts[which]++;
}

EXPORT int cudaMalloc(void **p, size_t n)
{
    enter(0);
    int r = ((malloc_fn)next_of(0))(p, n);
    forwarding[0] = 0;
    return r;
}

EXPORT int cudaFree(void *p)
{
    enter(1);
    int r = ((free_fn)next_of(1))(p);
    forwarding[1] = 0;
    return r;
}

EXPORT int cuMemAlloc_v2(unsigned long long *p, size_t n)
{
    enter(2);
    int r = ((drv_alloc_fn)next_of(2))(p, n);
    forwarding[2] = 0;
    return r;
}

EXPORT int cuMemFree_v2(unsigned long long p)
{
    enter(3);
    int r = ((drv_free_fn)next_of(3))(p);
    forwarding[3] = 0;
    return r;
}

/* Silent in processes that made no call (vramtrace's own CLI, say). */
__attribute__((destructor)) static void report(void)
{
    if (counts[0] + counts[1] + counts[2] + counts[3] == 0)
        return;
    fprintf(stderr, "chain %s: cudaMalloc=%lu cudaFree=%lu cuMemAlloc_v2=%lu cuMemFree_v2=%lu\n",
            CHAIN_NAME, counts[0], counts[1], counts[2], counts[3]);
}
/* SPDX-License-Identifier: MIT */
