/* SPDX-License-Identifier: MIT */
/* Sets of pitched memory, of two dimensions and of three (a 2D set per
 * slice), through the driver's cuMemsetD2D8 (in stream order:
 * cuMemsetD2D8Async). */
#include "cudart_internal.h"

static CUresult (*memset_2d)(CUdeviceptr, size_t, unsigned char, size_t, size_t);
static CUresult (*memset_2d_async)(CUdeviceptr, size_t, unsigned char, size_t, size_t, CUstream);
RT_DRIVER_FN(memset_2d, "cuMemsetD2D8", 3020)
RT_DRIVER_FN(memset_2d_async, "cuMemsetD2D8Async", 3020)

/* HEIGHT rows of WIDTH bytes, PITCH apart (on STREAM when ASYNC). */
static cudaError_t set_2d(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                          int async, cudaStream_t stream)
{
    CTX_OR_RETURN();
    if (!(async ? (void *)memset_2d_async : (void *)memset_2d))
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)devPtr;
    CUresult r = async ? memset_2d_async(p, pitch, (unsigned char)value, width, height,
                                         (CUstream)stream)
                       : memset_2d(p, pitch, (unsigned char)value, width, height);
    return rt_error(rt_map_error(r));
}

/* EXTENT's depth slices of its height rows, the slices the pointer's
 * height of rows (ysize) apart; the pitch is not used when there is one row
 * to set. */
static cudaError_t set_3d(struct cudaPitchedPtr p, int value, struct cudaExtent extent, int async,
                          cudaStream_t stream)
{
    CTX_OR_RETURN();
    if (extent.height == 1 && extent.depth == 1)
        return set_2d(p.ptr, extent.width, value, extent.width, 1, async, stream);
    if (extent.depth > 1 && extent.height > p.ysize)
        return rt_error(cudaErrorInvalidValue);
    cudaError_t e = cudaSuccess;
    for (size_t z = 0; z < extent.depth && e == cudaSuccess; z++)
        e = set_2d((char *)p.ptr + z * p.pitch * p.ysize, p.pitch, value, extent.width,
                   extent.height, async, stream);
    return e;
}

EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                size_t height)
{
    return set_2d(devPtr, pitch, value, width, height, 0, NULL);
}

EXPORT cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                     size_t height, cudaStream_t stream)
{
    return set_2d(devPtr, pitch, value, width, height, 1, stream);
}

EXPORT cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value,
                                struct cudaExtent extent)
{
    return set_3d(pitchedDevPtr, value, extent, 0, NULL);
}

EXPORT cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                                     struct cudaExtent extent, cudaStream_t stream)
{
    return set_3d(pitchedDevPtr, value, extent, 1, stream);
}
