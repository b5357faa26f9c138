/* The stand-in driver's table of allocations: host memory standing for
 * device, managed, page-locked and array memory, charged to the GPU's
 * capacity, freed by kind or with the context that owns it. */
#include "driver_internal.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

struct salloc *g_allocs;


/* The GPU's memory is shared with every process using it. */
CUresult reserve_capacity_locked(int device, size_t bytes)
{
    return sg_charge(g_dev[device].physical, bytes) == 0 ? CUDA_SUCCESS
                                                        : CUDA_ERROR_OUT_OF_MEMORY;
}

void return_capacity_locked(int device, size_t bytes)
{
    sg_uncharge(g_dev[device].physical, bytes);
}

static int counts_capacity(int kind)
{
    return kind != K_HOST;
}

/* Device memory takes whole pages, so that an IPC handle can map shared
 * memory over it in place (driver_ipc.c); the rest is 512-byte aligned. */
static size_t alignment(int kind)
{
    return kind == K_DEVICE ? (size_t)sysconf(_SC_PAGESIZE) : 512;
}

static size_t whole_pages(int kind, size_t bytes)
{
    size_t a = alignment(kind);
    return kind == K_DEVICE ? (bytes + a - 1) / a * a : bytes;
}

/* Allocates `bytes` of host memory standing for `kind` memory of `device`,
 * owned by `ctx`, and records it.  *key receives the address. */
CUresult do_alloc(uintptr_t *key, size_t bytes, int kind, int device, struct sctx *ctx)
{
    if (bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (counts_capacity(kind)) {
        pthread_mutex_lock(&g_lock);
        CUresult r = reserve_capacity_locked(device, bytes);
        pthread_mutex_unlock(&g_lock);
        if (r != CUDA_SUCCESS)
            return r;
    }
    void *mem = NULL;
    if (kind == K_V1) {
#ifdef MAP_32BIT
        mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
                   -1, 0);
        if (mem == MAP_FAILED || (uintptr_t)mem + bytes > 0xffffffffu) {
            if (mem != MAP_FAILED)
                munmap(mem, bytes);
            mem = NULL;
        }
#endif
    } else if (posix_memalign(&mem, alignment(kind), whole_pages(kind, bytes)) != 0) {
        mem = NULL;
    }
    struct salloc *a = mem ? calloc(1, sizeof *a) : NULL;
    if (!a) {
        if (mem)
            kind == K_V1 ? (void)munmap(mem, bytes) : free(mem);
        if (counts_capacity(kind)) {
            pthread_mutex_lock(&g_lock);
            return_capacity_locked(device, bytes);
            pthread_mutex_unlock(&g_lock);
        }
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->key = (uintptr_t)mem;
    a->bytes = bytes;
    a->kind = kind;
    a->device = device;
    a->ctx = ctx;
    pthread_mutex_lock(&g_lock);
    HASH_ADD(hh, g_allocs, key, sizeof a->key, a);
    pthread_mutex_unlock(&g_lock);
    *key = (uintptr_t)mem; /* not a->key: a teardown on another thread may free it now */
    return CUDA_SUCCESS;
}

static void release_locked(struct salloc *a)
{
    HASH_DEL(g_allocs, a);
    if (counts_capacity(a->kind))
        return_capacity_locked(a->device, a->bytes);
}

static void release_memory(struct salloc *a)
{
    if (a->ipc_fd)
        ipc_unshare(a->key, whole_pages(a->kind, a->bytes), a->ipc_fd - 1);
    if (a->kind == K_V1)
        munmap((void *)a->key, a->bytes);
    else
        free((void *)a->key);
    free(a);
}

/* Frees the allocation at `key` if it is one of `kinds`. */
CUresult do_free(uintptr_t key, int kinds)
{
    struct salloc *a;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_allocs, &key, sizeof key, a);
    if (!a || !(a->kind & kinds)) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    release_locked(a);
    pthread_mutex_unlock(&g_lock);
    release_memory(a);
    return CUDA_SUCCESS;
}

/* Everything `c` owns goes; capacity returns. */
void teardown(struct sctx *c)
{
    struct salloc *a, *tmp, *dead = NULL;
    pthread_mutex_lock(&g_lock);
    if (c->primary)
        graph_teardown_locked(c->device);
    HASH_ITER(hh, g_allocs, a, tmp) {
        if (a->ctx == c) {
            release_locked(a);
            a->hh.next = dead;
            dead = a;
        }
    }
    pthread_mutex_unlock(&g_lock);
    while (dead) {
        struct salloc *next = dead->hh.next;
        release_memory(dead);
        dead = next;
    }
}

/* The allocation that contains ADDRESS, lock held. */
struct salloc *containing_locked(uintptr_t address)
{
    struct salloc *a, *tmp;
    HASH_FIND(hh, g_allocs, &address, sizeof address, a);
    if (a)
        return a;
    HASH_ITER(hh, g_allocs, a, tmp) {
        if (address > a->key && address - a->key < a->bytes && !(a->kind & (K_ARRAY | K_MIPMAP)))
            return a;
    }
    return NULL;
}
/* SPDX-License-Identifier: MIT */
