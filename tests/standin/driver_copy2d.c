/* SPDX-License-Identifier: MIT */
/* Copies of two dimensions (cuMemcpy2D): HEIGHT rows of WidthInBytes, each
 * side's rows its pitch apart; an array's rows are its width of texels
 * apart. Every kind of memory here is host memory. */
#include "driver_internal.h"

#include <string.h>

/* One side of a copy: the address of its first byte and its rows' pitch,
 * checked against the array it is in, if it is one. */
struct side {
    char *base;
    size_t pitch;
};

static CUresult array_side(CUarray array, size_t x, size_t y, size_t width, size_t height,
                           struct side *out)
{
    pthread_mutex_lock(&g_lock);
    struct salloc *a = containing_locked((uintptr_t)array);
    int fits = a && a->kind == K_ARRAY && a->key == (uintptr_t)array && a->row_bytes &&
               x + width <= a->row_bytes && (y + height) * a->row_bytes <= a->bytes;
    size_t row = fits ? a->row_bytes : 0;
    pthread_mutex_unlock(&g_lock);
    if (!fits)
        return CUDA_ERROR_INVALID_VALUE;
    out->base = (char *)array + y * row + x;
    out->pitch = row;
    return CUDA_SUCCESS;
}

static CUresult side_of(CUmemorytype type, const void *host, CUdeviceptr device, CUarray array,
                        size_t pitch, size_t x, size_t y, size_t width, size_t height,
                        struct side *out)
{
    if (type == CU_MEMORYTYPE_ARRAY)
        return array_side(array, x, y, width, height, out);
    const void *p = type == CU_MEMORYTYPE_HOST ? host
                    : type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED
                        ? (const void *)(uintptr_t)device
                        : NULL;
    if (!p || x + width > pitch)
        return CUDA_ERROR_INVALID_VALUE;
    out->base = (char *)(uintptr_t)p + y * pitch + x;
    out->pitch = pitch;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *c)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!c)
        return CUDA_ERROR_INVALID_VALUE;
    if (c->WidthInBytes == 0 || c->Height == 0)
        return CUDA_SUCCESS;
    struct side src, dst;
    CUresult r = side_of(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcPitch,
                         c->srcXInBytes, c->srcY, c->WidthInBytes, c->Height, &src);
    if (r == CUDA_SUCCESS)
        r = side_of(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstPitch,
                    c->dstXInBytes, c->dstY, c->WidthInBytes, c->Height, &dst);
    if (r != CUDA_SUCCESS)
        return r;
    for (size_t row = 0; row < c->Height; row++)
        memmove(dst.base + row * dst.pitch, src.base + row * src.pitch, c->WidthInBytes);
    return CUDA_SUCCESS;
}

/* In stream order, which is now (every operation completes when issued). */
EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *c, CUstream hStream)
{
    struct sctx *ctx;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = stream_ctx(hStream, &ctx);
    return r != CUDA_SUCCESS ? r : cuMemcpy2D_v2(c);
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuMemcpy2D", 3020, cuMemcpy2D_v2)
PROC("cuMemcpy2DAsync", 3020, cuMemcpy2DAsync_v2)
