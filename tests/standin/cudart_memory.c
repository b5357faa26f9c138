/* Allocations through the driver: device, pitched, 3D, managed and
 * page-locked memory and their frees; copies and sets. */
#include "cudart_internal.h"


EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    if (!devPtr)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (size == 0) {
        *devPtr = NULL;
        return cudaSuccess;
    }
    CUdeviceptr d;
    NEED(memAlloc);
    CUresult r = rt_drv.memAlloc(&d, size);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *devPtr = (void *)(uintptr_t)d;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    if (!devPtr || !pitch)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (width == 0 || height == 0) {
        *devPtr = NULL;
        *pitch = 0;
        return cudaSuccess;
    }
    CUdeviceptr d;
    size_t p;
    NEED(memAllocPitch);
    CUresult r = rt_drv.memAllocPitch(&d, &p, width, height, 4);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *devPtr = (void *)(uintptr_t)d;
    *pitch = p;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    if (!pitchedDevPtr)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    size_t rows = extent.height * extent.depth;
    if (extent.width == 0 || rows == 0) {
        *pitchedDevPtr = make_cudaPitchedPtr(NULL, 0, extent.width, extent.height);
        return cudaSuccess;
    }
    CUdeviceptr d;
    size_t p;
    NEED(memAllocPitch);
    CUresult r = rt_drv.memAllocPitch(&d, &p, extent.width, rows, 4);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *pitchedDevPtr = make_cudaPitchedPtr((void *)(uintptr_t)d, p, extent.width, extent.height);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    if (!devPtr || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (size == 0) {
        *devPtr = NULL;
        return cudaSuccess;
    }
    CUdeviceptr d;
    NEED(memAllocManaged);
    CUresult r = rt_drv.memAllocManaged(&d, size, flags);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *devPtr = (void *)(uintptr_t)d;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFree(void *devPtr)
{
    /* cudaFree(NULL) initializes the context (a common idiom) and frees
     * nothing: the driver's free is not called. */
    CTX_OR_RETURN();
    if (!devPtr)
        return cudaSuccess;
    NEED(memFree);
    return rt_error(rt_map_error(rt_drv.memFree((CUdeviceptr)(uintptr_t)devPtr)));
}

EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    if (!ptr)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (size == 0) {
        *ptr = NULL;
        return cudaSuccess;
    }
    NEED(memHostAlloc);
    return rt_error(rt_map_error(rt_drv.memHostAlloc(ptr, size, 0))); /* not cuMemAllocHost_v2 */
}

EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    if (!pHost)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (size == 0) {
        *pHost = NULL;
        return cudaSuccess;
    }
    NEED(memHostAlloc);
    return rt_error(rt_map_error(rt_drv.memHostAlloc(pHost, size, flags)));
}

EXPORT cudaError_t cudaFreeHost(void *ptr)
{
    CTX_OR_RETURN();
    if (!ptr)
        return cudaSuccess;
    NEED(memFreeHost);
    return rt_error(rt_map_error(rt_drv.memFreeHost(ptr)));
}

EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(memcpy_);
    return rt_error(rt_map_error(rt_drv.memcpy_((CUdeviceptr)(uintptr_t)dst,
                                     (CUdeviceptr)(uintptr_t)src, count)));
}

EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    CTX_OR_RETURN();
    NEED(memsetD8);
    return rt_error(rt_map_error(rt_drv.memsetD8((CUdeviceptr)(uintptr_t)devPtr, (unsigned char)value,
                                      count)));
}
/* SPDX-License-Identifier: MIT */
