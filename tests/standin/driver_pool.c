/* Memory pools and stream-ordered allocation (the stand-in keeps no
 * freed memory in its pools). */
#include "driver_internal.h"

#include <stdlib.h>

static CUresult alloc_async(CUdeviceptr *dptr, size_t bytesize, struct spool *pool, CUstream s)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dptr)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c;
    CUresult r = stream_ctx(s, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (pool && pool->magic != POOL_MAGIC)
        return CUDA_ERROR_INVALID_VALUE;
    struct sgraph *captured = capture_graph(s);
    if (captured) /* an allocation node of the capture's graph (driver_capture.c) */
        return graph_add_alloc(captured, bytesize, pool ? pool->device : c->device, dptr, NULL);
    uintptr_t p;
    /* A pool's memory lives on the pool's device and goes with that
     * device's primary context (cuDevicePrimaryCtxReset), not the stream's. */
    r = do_alloc(&p, bytesize, pool && pool->host ? K_HOST : K_DEVICE,
                 pool ? pool->device : c->device, pool ? &g_dev[pool->device].primary : c);
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)p;
    return r;
}

EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    standin_log("cuMemAllocAsync %zu", bytesize);
    return alloc_async(dptr, bytesize, NULL, hStream);
}

EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    standin_log("cuMemAllocAsync_ptsz %zu", bytesize);
    return alloc_async(dptr, bytesize, NULL, hStream);
}

EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                        CUstream hStream)
{
    standin_log("cuMemAllocFromPoolAsync %zu", bytesize);
    if (!pool)
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    return alloc_async(dptr, bytesize, (struct spool *)pool, hStream);
}

EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
                                             CUmemoryPool pool, CUstream hStream)
{
    standin_log("cuMemAllocFromPoolAsync_ptsz %zu", bytesize);
    if (!pool)
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    return alloc_async(dptr, bytesize, (struct spool *)pool, hStream);
}

static CUresult free_async(CUdeviceptr dptr, CUstream s)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct sctx *c;
    CUresult r = stream_ctx(s, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (dptr == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct sgraph *captured = capture_graph(s);
    if (captured)
        return graph_add_free(captured, dptr, NULL);
    r = do_free((uintptr_t)dptr, K_DEVICE | K_MANAGED | K_HOST);
    return r == CUDA_ERROR_INVALID_VALUE ? graph_free((uintptr_t)dptr) : r;
}

EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    standin_log("cuMemFreeAsync");
    return free_async(dptr, hStream);
}
EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    standin_log("cuMemFreeAsync_ptsz");
    return free_async(dptr, hStream);
}

EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pool_out)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    *pool_out = (CUmemoryPool)&g_dev[dev].default_pool;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pool || !props || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED)
        return CUDA_ERROR_INVALID_VALUE;
    int device = location_device(&props->location);
    if (device == -2)
        return props->location.type == CU_MEM_LOCATION_TYPE_DEVICE ? CUDA_ERROR_INVALID_DEVICE
                                                                    : CUDA_ERROR_INVALID_VALUE;
    struct spool *p = calloc(1, sizeof *p);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    p->magic = POOL_MAGIC;
    /* A host pool's memory is page-locked host memory, of the current
     * context's device as far as its owner goes. */
    struct sctx *c = live_ctx();
    p->host = device == -1;
    p->device = device >= 0 ? device : c ? c->device : 0;
    *pool = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct spool *p = (struct spool *)pool;
    if (!p || p->magic != POOL_MAGIC)
        return CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; i < g_ndev; i++)
        if (p == &g_dev[i].default_pool)
            return CUDA_ERROR_INVALID_VALUE;
    p->magic = 0;
    free(p);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    (void)minBytesToKeep; /* the stand-in keeps no freed memory in its pools */
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct spool *p = (struct spool *)pool;
    return p && p->magic == POOL_MAGIC ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC_PTSZ("cuMemAllocAsync", 11020, cuMemAllocAsync)
PROC_PTSZ("cuMemAllocFromPoolAsync", 11020, cuMemAllocFromPoolAsync)
PROC_PTSZ("cuMemFreeAsync", 11020, cuMemFreeAsync)
PROC("cuDeviceGetDefaultMemPool", 11020, cuDeviceGetDefaultMemPool)
PROC("cuMemPoolCreate", 11020, cuMemPoolCreate)
PROC("cuMemPoolDestroy", 11020, cuMemPoolDestroy)
PROC("cuMemPoolTrimTo", 11020, cuMemPoolTrimTo)
/* SPDX-License-Identifier: MIT */
