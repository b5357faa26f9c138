/* Memory pools and stream-ordered allocation. */
#include "cudart_internal.h"

static cudaError_t malloc_async(void **devPtr, size_t size, cudaStream_t s, int ptsz)
{
    if (!devPtr)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (!(ptsz ? rt_drv.memAllocAsync_ptsz : rt_drv.memAllocAsync))
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUdeviceptr d;
    CUresult r = (ptsz ? rt_drv.memAllocAsync_ptsz : rt_drv.memAllocAsync)(&d, size, (CUstream)s);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *devPtr = (void *)(uintptr_t)d;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    return malloc_async(devPtr, size, hStream, 0);
}

EXPORT cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
    return malloc_async(devPtr, size, hStream, 1);
}

static cudaError_t malloc_from_pool(void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t s,
                                    int ptsz)
{
    if (!ptr || !pool)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (!(ptsz ? rt_drv.memAllocFromPoolAsync_ptsz : rt_drv.memAllocFromPoolAsync))
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUdeviceptr d;
    CUresult r = (ptsz ? rt_drv.memAllocFromPoolAsync_ptsz : rt_drv.memAllocFromPoolAsync)(
        &d, size, (CUmemoryPool)pool, (CUstream)s);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *ptr = (void *)(uintptr_t)d;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                           cudaStream_t stream)
{
    return malloc_from_pool(ptr, size, memPool, stream, 0);
}

EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
                                                cudaStream_t stream)
{
    return malloc_from_pool(ptr, size, memPool, stream, 1);
}

static cudaError_t free_async(void *devPtr, cudaStream_t s, int ptsz)
{
    CTX_OR_RETURN();
    if (!devPtr)
        return cudaSuccess;
    if (!(ptsz ? rt_drv.memFreeAsync_ptsz : rt_drv.memFreeAsync))
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return rt_error(rt_map_error((ptsz ? rt_drv.memFreeAsync_ptsz : rt_drv.memFreeAsync)(
        (CUdeviceptr)(uintptr_t)devPtr, (CUstream)s)));
}

EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    return free_async(devPtr, hStream, 0);
}

EXPORT cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream)
{
    return free_async(devPtr, hStream, 1);
}

EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    if (!memPool)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(deviceGetDefaultMemPool);
    CUmemoryPool p;
    CUresult r = rt_drv.deviceGetDefaultMemPool(&p, device);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *memPool = (cudaMemPool_t)p;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *props)
{
    if (!memPool || !props)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(memPoolCreate);
    CUmemoryPool p;
    CUresult r = rt_drv.memPoolCreate(&p, (const CUmemPoolProps *)props);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *memPool = (cudaMemPool_t)p;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    CTX_OR_RETURN();
    NEED(memPoolDestroy);
    return rt_error(rt_map_error(rt_drv.memPoolDestroy((CUmemoryPool)memPool)));
}

EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    CTX_OR_RETURN();
    NEED(memPoolTrimTo);
    return rt_error(rt_map_error(rt_drv.memPoolTrimTo((CUmemoryPool)memPool, minBytesToKeep)));
}
/* Pool attributes: the reuse policies read as enabled and are accepted; the
 * stand-in driver's pools keep nothing after a free (the threshold is
 * accepted and kept nowhere), so the memory counters read 0. */
EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                           void *value)
{
    if (!memPool || !value || attr < cudaMemPoolReuseFollowEventDependencies ||
        attr > cudaMemPoolAttrUsedMemHigh)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                           void *value)
{
    if (!memPool || !value || attr < cudaMemPoolReuseFollowEventDependencies ||
        attr > cudaMemPoolAttrUsedMemHigh)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (attr <= cudaMemPoolReuseAllowInternalDependencies)
        *(int *)value = 1;
    else
        *(uint64_t *)value = 0;
    return cudaSuccess;
}

/* Every device reaches every pool (cudaDeviceCanAccessPeer). */
EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc *descList,
                                        size_t count)
{
    if (!memPool || (!descList && count))
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    return cudaSuccess;
}
/* SPDX-License-Identifier: MIT */
