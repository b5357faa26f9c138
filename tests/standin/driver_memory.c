/* Context-bound allocations: device, pitched, managed, the 32-bit v1 ABI
 * and page-locked host memory, and their frees. */
#include "driver_internal.h"

#include <stdlib.h>
#include <time.h>


EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    standin_log("cuMemGetInfo_v2");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!free_bytes || !total)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c = live_ctx();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    /* every process's use of the GPU, as the real driver counts it */
    int physical = g_dev[c->device].physical;
    size_t used = sg_used(physical);
    *total = sg_gpu(physical)->capacity;
    *free_bytes = used < *total ? *total - used : 0;
    return CUDA_SUCCESS;
}

/* The real cuMemAlloc and cuMemFree synchronize the device: with
 * STANDIN_CUDA_SYNC_NS=N each takes N ns at least (tests of the time spent
 * inside them; 0 by default). */
static void wait_like_a_sync(void)
{
    const char *v = getenv("STANDIN_CUDA_SYNC_NS");
    long sync_ns = v ? strtol(v, NULL, 10) : 0;
    struct timespec ts = {sync_ns / 1000000000L, sync_ns % 1000000000L};
    while (sync_ns > 0 && nanosleep(&ts, &ts) != 0)
        ;
}

/* Common front of the context-bound allocation calls. */
CUresult ctx_alloc(uintptr_t *out, size_t bytes, int kind)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c = live_ctx();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    return do_alloc(out, bytes, kind, c->device, c);
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    standin_log("cuMemAlloc_v2 %zu", bytesize);
    wait_like_a_sync();
    uintptr_t p;
    CUresult r = ctx_alloc(dptr ? &p : NULL, bytesize, K_DEVICE);
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)p;
    return r;
}

/* The 32-bit ABI of CUDA < 3.2: memory below 4 GiB (x86-64 MAP_32BIT). */
EXPORT CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
    uintptr_t p;
    CUresult r = ctx_alloc(dptr ? &p : NULL, bytesize, K_V1);
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr_v1)p;
    return r;
}

EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                   size_t Height, unsigned int ElementSizeBytes)
{
    if (!pPitch || WidthInBytes == 0 || Height == 0 ||
        (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    size_t pitch = (WidthInBytes + 511) & ~(size_t)511;
    if (Height > SIZE_MAX / pitch)
        return CUDA_ERROR_OUT_OF_MEMORY;
    uintptr_t p;
    CUresult r = ctx_alloc(dptr ? &p : NULL, pitch * Height, K_DEVICE);
    if (r == CUDA_SUCCESS) {
        *dptr = (CUdeviceptr)p;
        *pPitch = pitch;
    }
    return r;
}

EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    standin_log("cuMemAllocManaged %zu %u", bytesize, flags);
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    uintptr_t p;
    CUresult r = ctx_alloc(dptr ? &p : NULL, bytesize, K_MANAGED);
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)p;
    return r;
}

static CUresult free_device(CUdeviceptr dptr)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (dptr == 0)
        return CUDA_SUCCESS;
    CUresult r = do_free((uintptr_t)dptr, K_DEVICE | K_MANAGED | K_V1);
    return r == CUDA_ERROR_INVALID_VALUE ? graph_free((uintptr_t)dptr) : r; /* a graph's */
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    standin_log("cuMemFree_v2");
    wait_like_a_sync();
    return free_device(dptr);
}
EXPORT CUresult cuMemFree(CUdeviceptr_v1 dptr) { return free_device(dptr); }


EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    standin_log("cuMemAllocHost_v2 %zu", bytesize);
    uintptr_t p;
    CUresult r = ctx_alloc(pp ? &p : NULL, bytesize, K_HOST);
    if (r == CUDA_SUCCESS)
        *pp = (void *)p;
    return r;
}

EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    standin_log("cuMemHostAlloc %zu %u", bytesize, Flags);
    if (Flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                            CU_MEMHOSTALLOC_WRITECOMBINED))
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    uintptr_t p;
    CUresult r = ctx_alloc(pp ? &p : NULL, bytesize, K_HOST);
    if (r == CUDA_SUCCESS) {
        pthread_mutex_lock(&g_lock);
        containing_locked(p)->host_flags = Flags; /* for cuMemHostGetFlags */
        pthread_mutex_unlock(&g_lock);
        *pp = (void *)p;
    }
    return r;
}

/* The flags of the page-locked allocation that holds P (cuMemAllocHost's:
 * none); memory registered with cuMemHostRegister is not one. */
EXPORT CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pFlags)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    struct salloc *a = containing_locked((uintptr_t)p);
    int found = a && a->kind == K_HOST;
    if (found)
        *pFlags = a->host_flags;
    pthread_mutex_unlock(&g_lock);
    return found ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuMemFreeHost(void *p)
{
    standin_log("cuMemFreeHost");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    return do_free((uintptr_t)p, K_HOST);
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuMemGetInfo", 3020, cuMemGetInfo_v2)
PROC("cuMemAlloc", 2000, cuMemAlloc)
PROC("cuMemAlloc", 3020, cuMemAlloc_v2)
PROC("cuMemAllocPitch", 3020, cuMemAllocPitch_v2)
PROC("cuMemAllocManaged", 6000, cuMemAllocManaged)
PROC("cuMemFree", 2000, cuMemFree)
PROC("cuMemFree", 3020, cuMemFree_v2)
PROC("cuMemAllocHost", 3020, cuMemAllocHost_v2)
PROC("cuMemHostAlloc", 2020, cuMemHostAlloc)
PROC("cuMemFreeHost", 2000, cuMemFreeHost)
PROC("cuMemHostGetFlags", 2030, cuMemHostGetFlags)
/* SPDX-License-Identifier: MIT */
