/* SPDX-License-Identifier: MIT */
/* Copies of two and three dimensions (cuMemcpy2D, cuMemcpy3D) and sets of
 * pitched memory (cuMemsetD2D8): Depth layers of Height rows of
 * WidthInBytes, each side's rows its pitch apart and its layers its pitch
 * times its height apart; an array's rows are its width of texels apart,
 * its layers its height of rows. Every kind of memory here is host memory. */
#include "driver_internal.h"

#include <string.h>

/* One side of a copy: the address of its first byte, its rows' pitch and
 * its layers' distance. */
struct side {
    char *base;
    size_t pitch, layer;
};

/* What a copy's side says: where it starts and how its memory is laid out
 * (a CUDA_MEMCPY3D's src* or dst* fields). */
struct side_desc {
    CUmemorytype type;
    const void *host;
    CUdeviceptr device;
    CUarray array;
    size_t pitch, height; /* of linear memory */
    size_t x, y, z;       /* x in bytes */
};

/* The extent of a copy: WIDTH bytes, HEIGHT rows, DEPTH layers. */
struct extent {
    size_t width, height, depth;
};

static CUresult array_side(CUarray array, const struct side_desc *d, const struct extent *e,
                           struct side *out)
{
    pthread_mutex_lock(&g_lock);
    struct salloc *a = containing_locked((uintptr_t)array);
    int is_array = a && a->kind == K_ARRAY && a->key == (uintptr_t)array;
    size_t row = is_array ? array_row_bytes(a) : 0, rows = is_array ? array_rows(a) : 0;
    int fits = row && d->x + e->width <= row && d->y + e->height <= rows &&
               (d->z + e->depth) * row * rows <= a->bytes;
    pthread_mutex_unlock(&g_lock);
    if (!fits)
        return CUDA_ERROR_INVALID_VALUE;
    out->pitch = row;
    out->layer = row * rows;
    out->base = (char *)array + d->z * out->layer + d->y * row + d->x;
    return CUDA_SUCCESS;
}

/* Linear memory: its height matters only between layers. */
static CUresult side_of(const struct side_desc *d, const struct extent *e, struct side *out)
{
    if (d->type == CU_MEMORYTYPE_ARRAY)
        return array_side(d->array, d, e, out);
    const void *p = d->type == CU_MEMORYTYPE_HOST ? d->host
                    : d->type == CU_MEMORYTYPE_DEVICE || d->type == CU_MEMORYTYPE_UNIFIED
                        ? (const void *)(uintptr_t)d->device
                        : NULL;
    if (!p || d->x + e->width > d->pitch ||
        (e->depth > 1 && d->y + e->height > d->height))
        return CUDA_ERROR_INVALID_VALUE;
    out->pitch = d->pitch;
    out->layer = d->pitch * d->height;
    out->base = (char *)(uintptr_t)p + d->z * out->layer + d->y * d->pitch + d->x;
    return CUDA_SUCCESS;
}

static CUresult copy(const struct side_desc *from, const struct side_desc *to,
                     const struct extent *e)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (e->width == 0 || e->height == 0 || e->depth == 0)
        return CUDA_SUCCESS;
    struct side src, dst;
    CUresult r = side_of(from, e, &src);
    if (r == CUDA_SUCCESS)
        r = side_of(to, e, &dst);
    if (r != CUDA_SUCCESS)
        return r;
    for (size_t z = 0; z < e->depth; z++)
        for (size_t row = 0; row < e->height; row++)
            memmove(dst.base + z * dst.layer + row * dst.pitch,
                    src.base + z * src.layer + row * src.pitch, e->width);
    return CUDA_SUCCESS;
}

#define SIDE(c, s, z_, height_)                                                     \
    {                                                                               \
        (c)->s##MemoryType, (c)->s##Host, (c)->s##Device, (c)->s##Array, (c)->s##Pitch, \
            (height_), (c)->s##XInBytes, (c)->s##Y, (z_)                            \
    }

EXPORT CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *c)
{
    if (!c)
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    struct side_desc from = SIDE(c, src, 0, 0), to = SIDE(c, dst, 0, 0);
    struct extent e = {c->WidthInBytes, c->Height, 1};
    return copy(&from, &to, &e);
}

/* Mipmap levels (srcLOD, dstLOD) are not addressed by this driver's copies:
 * a level other than 0 is refused. */
EXPORT CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *c)
{
    if (!c || c->reserved0 || c->reserved1 || c->srcLOD || c->dstLOD)
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    struct side_desc from = SIDE(c, src, c->srcZ, c->srcHeight),
                     to = SIDE(c, dst, c->dstZ, c->dstHeight);
    struct extent e = {c->WidthInBytes, c->Height, c->Depth};
    return copy(&from, &to, &e);
}

/* HEIGHT rows of WIDTH bytes, PITCH apart. */
EXPORT CUresult cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                size_t Width, size_t Height)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if ((!dstDevice && Width && Height) || (Height > 1 && Width > dstPitch))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t row = 0; row < Height; row++)
        memset((char *)(uintptr_t)dstDevice + row * dstPitch, uc, Width);
    return CUDA_SUCCESS;
}

/* In stream order, which is now (every operation completes when issued). */
static CUresult stream_ok(CUstream s)
{
    struct sctx *ctx;
    return initialized() ? stream_ctx(s, &ctx) : CUDA_ERROR_NOT_INITIALIZED;
}

EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *c, CUstream hStream)
{
    CUresult r = stream_ok(hStream);
    return r != CUDA_SUCCESS ? r : cuMemcpy2D_v2(c);
}

EXPORT CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *c, CUstream hStream)
{
    CUresult r = stream_ok(hStream);
    return r != CUDA_SUCCESS ? r : cuMemcpy3D_v2(c);
}

EXPORT CUresult cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                  size_t Width, size_t Height, CUstream hStream)
{
    CUresult r = stream_ok(hStream);
    return r != CUDA_SUCCESS ? r : cuMemsetD2D8_v2(dstDevice, dstPitch, uc, Width, Height);
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuMemcpy2D", 3020, cuMemcpy2D_v2)
PROC("cuMemcpy2DAsync", 3020, cuMemcpy2DAsync_v2)
PROC("cuMemcpy3D", 3020, cuMemcpy3D_v2)
PROC("cuMemcpy3DAsync", 3020, cuMemcpy3DAsync_v2)
PROC("cuMemsetD2D8", 3020, cuMemsetD2D8_v2)
PROC("cuMemsetD2D8Async", 3020, cuMemsetD2D8Async)
