/* SPDX-License-Identifier: MIT */
/* Copies of two dimensions between memory and arrays, through the
 * driver's cuMemcpy2D (in stream order: cuMemcpy2DAsync), and sets of
 * pitched memory, row by row. */
#include "cudart_internal.h"

#include <string.h>

static CUresult (*memcpy_2d)(const CUDA_MEMCPY2D *);
static CUresult (*memcpy_2d_async)(const CUDA_MEMCPY2D *, CUstream);
RT_DRIVER_FN(memcpy_2d, "cuMemcpy2D", 3020)
RT_DRIVER_FN(memcpy_2d_async, "cuMemcpy2DAsync", 3020)

/* The memory types of a copy's two sides (the driver tells a unified
 * pointer's kind by itself). */
static int memory_types(enum cudaMemcpyKind kind, CUmemorytype *src, CUmemorytype *dst)
{
    static const CUmemorytype from[] = {CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_HOST,
                                        CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_DEVICE,
                                        CU_MEMORYTYPE_UNIFIED};
    static const CUmemorytype to[] = {CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_DEVICE,
                                      CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_DEVICE,
                                      CU_MEMORYTYPE_UNIFIED};
    if ((unsigned)kind > cudaMemcpyDefault)
        return -1;
    *src = from[kind];
    *dst = to[kind];
    return 0;
}

static void set_source(CUDA_MEMCPY2D *c, CUmemorytype type, const void *p, size_t pitch)
{
    c->srcMemoryType = type;
    c->srcHost = p;
    c->srcDevice = (CUdeviceptr)(uintptr_t)p;
    c->srcPitch = pitch;
}

static void set_destination(CUDA_MEMCPY2D *c, CUmemorytype type, void *p, size_t pitch)
{
    c->dstMemoryType = type;
    c->dstHost = p;
    c->dstDevice = (CUdeviceptr)(uintptr_t)p;
    c->dstPitch = pitch;
}

/* Issues C (on STREAM when ASYNC). */
static cudaError_t copy_2d(const CUDA_MEMCPY2D *c, int async, cudaStream_t stream)
{
    CTX_OR_RETURN();
    if (!(async ? (void *)memcpy_2d_async : (void *)memcpy_2d))
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUresult r = async ? memcpy_2d_async(c, (CUstream)stream) : memcpy_2d(c);
    return rt_error(rt_map_error(r));
}

static cudaError_t memory_to_memory(void *dst, size_t dpitch, const void *src, size_t spitch,
                                    size_t width, size_t height, enum cudaMemcpyKind kind,
                                    int async, cudaStream_t stream)
{
    CUDA_MEMCPY2D c;
    CUmemorytype from, to;
    if (memory_types(kind, &from, &to) < 0)
        return rt_error(cudaErrorInvalidMemcpyDirection);
    if (width > dpitch || width > spitch)
        return rt_error((cudaError_t)cudaErrorInvalidPitchValue);
    memset(&c, 0, sizeof c);
    set_source(&c, from, src, spitch);
    set_destination(&c, to, dst, dpitch);
    c.WidthInBytes = width;
    c.Height = height;
    return copy_2d(&c, async, stream);
}

EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                size_t width, size_t height, enum cudaMemcpyKind kind)
{
    return memory_to_memory(dst, dpitch, src, spitch, width, height, kind, 0, NULL);
}

EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                     size_t width, size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream)
{
    return memory_to_memory(dst, dpitch, src, spitch, width, height, kind, 1, stream);
}

EXPORT cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                       const void *src, size_t spitch, size_t width,
                                       size_t height, enum cudaMemcpyKind kind)
{
    CUDA_MEMCPY2D c;
    CUmemorytype from, to;
    if (memory_types(kind, &from, &to) < 0)
        return rt_error(cudaErrorInvalidMemcpyDirection);
    if (width > spitch)
        return rt_error((cudaError_t)cudaErrorInvalidPitchValue);
    memset(&c, 0, sizeof c);
    set_source(&c, from, src, spitch);
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = (CUarray)dst;
    c.dstXInBytes = wOffset;
    c.dstY = hOffset;
    c.WidthInBytes = width;
    c.Height = height;
    return copy_2d(&c, 0, NULL);
}

EXPORT cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                         size_t wOffset, size_t hOffset, size_t width,
                                         size_t height, enum cudaMemcpyKind kind)
{
    CUDA_MEMCPY2D c;
    CUmemorytype from, to;
    if (memory_types(kind, &from, &to) < 0)
        return rt_error(cudaErrorInvalidMemcpyDirection);
    if (width > dpitch)
        return rt_error((cudaError_t)cudaErrorInvalidPitchValue);
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = (CUarray)(uintptr_t)src;
    c.srcXInBytes = wOffset;
    c.srcY = hOffset;
    set_destination(&c, to, dst, dpitch);
    c.WidthInBytes = width;
    c.Height = height;
    return copy_2d(&c, 0, NULL);
}

/* HEIGHT rows of WIDTH bytes, PITCH apart. */
EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                size_t height)
{
    if (width > pitch)
        return rt_error((cudaError_t)cudaErrorInvalidPitchValue);
    for (size_t row = 0; row < height; row++) {
        cudaError_t e = cudaMemset((char *)devPtr + row * pitch, value, width);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}
