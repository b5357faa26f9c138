/* SPDX-License-Identifier: MIT */
/* Copies of three dimensions (cudaMemcpy3D) between pitched memory and
 * arrays, through the driver's cuMemcpy3D (in stream order:
 * cuMemcpy3DAsync). Positions and the extent count an array's elements
 * where an array takes part, bytes elsewhere. */
#include "cudart_internal.h"

#include <limits.h>
#include <string.h>

static CUresult (*memcpy_3d)(const CUDA_MEMCPY3D *);
static CUresult (*memcpy_3d_async)(const CUDA_MEMCPY3D *, CUstream);
RT_DRIVER_FN(memcpy_3d, "cuMemcpy3D", 3020)
RT_DRIVER_FN(memcpy_3d_async, "cuMemcpy3DAsync", 3020)

/* The most a pitch may be (the H100's cudaDevAttrMaxPitch). */
#define MAX_PITCH ((size_t)INT_MAX)

/* One side of a copy as the driver takes it. */
struct side {
    CUmemorytype type;
    void *ptr;
    CUarray array;
    size_t x, y, z, pitch, height;
    size_t element; /* bytes: an array's texel, 1 for memory */
};

/* The side of ARRAY or PTR (exactly one of them) at POS; memory is of
 * TYPE. */
static cudaError_t side_of(cudaArray_t array, struct cudaPos pos, struct cudaPitchedPtr ptr,
                           CUmemorytype type, struct side *s)
{
    if (!array == !ptr.ptr)
        return cudaErrorInvalidValue;
    memset(s, 0, sizeof *s);
    s->element = 1;
    if (array) {
        CUDA_ARRAY3D_DESCRIPTOR d;
        cudaError_t e = rt_array_descriptor(array, &d);
        if (e != cudaSuccess)
            return e;
        s->element = d.NumChannels * array_format_bytes(d.Format);
        if (s->element == 0)
            return cudaErrorInvalidValue;
        s->type = CU_MEMORYTYPE_ARRAY;
        s->array = (CUarray)array;
    } else {
        if (ptr.pitch > MAX_PITCH)
            return cudaErrorInvalidPitchValue;
        s->type = type;
        s->ptr = ptr.ptr;
        s->pitch = ptr.pitch;
        s->height = ptr.ysize;
    }
    s->x = pos.x * s->element;
    s->y = pos.y;
    s->z = pos.z;
    return cudaSuccess;
}

static void set_source(CUDA_MEMCPY3D *c, const struct side *s)
{
    c->srcMemoryType = s->type;
    c->srcHost = s->ptr;
    c->srcDevice = (CUdeviceptr)(uintptr_t)s->ptr;
    c->srcArray = s->array;
    c->srcPitch = s->pitch;
    c->srcHeight = s->height;
    c->srcXInBytes = s->x;
    c->srcY = s->y;
    c->srcZ = s->z;
}

static void set_destination(CUDA_MEMCPY3D *c, const struct side *s)
{
    c->dstMemoryType = s->type;
    c->dstHost = s->ptr;
    c->dstDevice = (CUdeviceptr)(uintptr_t)s->ptr;
    c->dstArray = s->array;
    c->dstPitch = s->pitch;
    c->dstHeight = s->height;
    c->dstXInBytes = s->x;
    c->dstY = s->y;
    c->dstZ = s->z;
}

cudaError_t rt_describe_3d(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *c)
{
    CUmemorytype from, to;
    struct side src, dst;
    if (!p)
        return cudaErrorInvalidValue;
    if (rt_memory_types(p->kind, &from, &to) < 0)
        return cudaErrorInvalidMemcpyDirection;
    cudaError_t e = side_of(p->srcArray, p->srcPos, p->srcPtr, from, &src);
    if (e == cudaSuccess)
        e = side_of(p->dstArray, p->dstPos, p->dstPtr, to, &dst);
    if (e != cudaSuccess)
        return e;
    if (src.array && dst.array && src.element != dst.element)
        return cudaErrorInvalidValue;
    memset(c, 0, sizeof *c);
    set_source(c, &src);
    set_destination(c, &dst);
    c->WidthInBytes = p->extent.width * (src.array ? src.element : dst.element);
    c->Height = p->extent.height;
    c->Depth = p->extent.depth;
    return cudaSuccess;
}

static cudaError_t copy_3d(const struct cudaMemcpy3DParms *p, int async, cudaStream_t stream)
{
    CUDA_MEMCPY3D c;
    CTX_OR_RETURN();
    cudaError_t e = rt_describe_3d(p, &c);
    if (e != cudaSuccess)
        return rt_error(e);
    if (!(async ? (void *)memcpy_3d_async : (void *)memcpy_3d))
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUresult r = async ? memcpy_3d_async(&c, (CUstream)stream) : memcpy_3d(&c);
    return rt_error(rt_map_error(r));
}

EXPORT cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    return copy_3d(p, 0, NULL);
}

EXPORT cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return copy_3d(p, 1, stream);
}
