/* SPDX-License-Identifier: MIT */
/* Copies of two dimensions between memory and arrays, through the
 * driver's cuMemcpy2D (in stream order: cuMemcpy2DAsync), and the
 * deprecated linear copies into and out of an array's rows. */
#include "cudart_internal.h"

#include <string.h>

static CUresult (*memcpy_2d)(const CUDA_MEMCPY2D *);
static CUresult (*memcpy_2d_async)(const CUDA_MEMCPY2D *, CUstream);
RT_DRIVER_FN(memcpy_2d, "cuMemcpy2D", 3020)
RT_DRIVER_FN(memcpy_2d_async, "cuMemcpy2DAsync", 3020)

int rt_memory_types(enum cudaMemcpyKind kind, CUmemorytype *src, CUmemorytype *dst)
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
    if (rt_memory_types(kind, &from, &to) < 0)
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
    if (rt_memory_types(kind, &from, &to) < 0)
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
    if (rt_memory_types(kind, &from, &to) < 0)
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

/* The bytes of one row of ARRAY's texels (0: a format of blocks or planes,
 * which copies do not address) and its rows. */
static cudaError_t array_shape(cudaArray_const_t array, size_t *row, size_t *rows)
{
    CUDA_ARRAY3D_DESCRIPTOR d;
    cudaError_t e = rt_array_descriptor(array, &d);
    if (e == cudaSuccess) {
        *row = d.Width * d.NumChannels * array_format_bytes(d.Format);
        *rows = d.Height ? d.Height : 1;
    }
    return e;
}

/* One part of a linear copy into (INTO_ARRAY) or out of an array: ROWS
 * rows of WIDTH bytes at byte X of row Y of the array, the linear side's
 * bytes back to back from OFFSET on. */
static cudaError_t part(CUDA_MEMCPY2D c, int into_array, size_t offset, size_t x, size_t y,
                        size_t width, size_t rows)
{
    if (into_array) {
        c.srcHost = (const char *)c.srcHost + offset;
        c.srcDevice += offset;
        c.srcPitch = width;
        c.dstXInBytes = x;
        c.dstY = y;
    } else {
        c.dstHost = (char *)c.dstHost + offset;
        c.dstDevice += offset;
        c.dstPitch = width;
        c.srcXInBytes = x;
        c.srcY = y;
    }
    c.WidthInBytes = width;
    c.Height = rows;
    return copy_2d(&c, 0, NULL);
}

/* COUNT bytes of ARRAY from byte X of row Y on, as cudaMemcpyToArray and
 * cudaMemcpyFromArray address them: the rest of the first row, whole rows,
 * then the start of the last one. */
static cudaError_t linear_in_rows(const CUDA_MEMCPY2D *c, cudaArray_const_t array,
                                  int into_array, size_t x, size_t y, size_t count)
{
    size_t row, height;
    cudaError_t e = array_shape(array, &row, &height);
    if (e != cudaSuccess)
        return e;
    if (row == 0 || x >= row || y >= height || count > (height - y) * row - x)
        return rt_error(cudaErrorInvalidValue);
    size_t head = count < row - x ? count : row - x;
    size_t whole = (count - head) / row, tail = count - head - whole * row;
    e = part(*c, into_array, 0, x, y, head, 1);
    if (e == cudaSuccess && whole)
        e = part(*c, into_array, head, 0, y + 1, row, whole);
    if (e == cudaSuccess && tail)
        e = part(*c, into_array, head + whole * row, 0, y + 1 + whole, tail, 1);
    return e;
}

EXPORT cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t count, enum cudaMemcpyKind kind)
{
    CUDA_MEMCPY2D c;
    CUmemorytype from, to;
    if (rt_memory_types(kind, &from, &to) < 0)
        return rt_error(cudaErrorInvalidMemcpyDirection);
    memset(&c, 0, sizeof c);
    set_source(&c, from, src, 0);
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = (CUarray)dst;
    return linear_in_rows(&c, dst, 1, wOffset, hOffset, count);
}

EXPORT cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t count, enum cudaMemcpyKind kind)
{
    CUDA_MEMCPY2D c;
    CUmemorytype from, to;
    if (rt_memory_types(kind, &from, &to) < 0)
        return rt_error(cudaErrorInvalidMemcpyDirection);
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = (CUarray)(uintptr_t)src;
    set_destination(&c, to, dst, 0);
    return linear_in_rows(&c, src, 0, wOffset, hOffset, count);
}
