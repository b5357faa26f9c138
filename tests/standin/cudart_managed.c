/* SPDX-License-Identifier: MIT */
/* What a program tells CUDA of its managed memory (attach to a stream,
 * advise, prefetch), through the driver's functions of the same names. */
#include "cudart_internal.h"

static CUresult (*attach_mem)(CUstream, CUdeviceptr, size_t, unsigned int);
static CUresult (*prefetch)(CUdeviceptr, size_t, CUmemLocation, unsigned int, CUstream);
static CUresult (*advise)(CUdeviceptr, size_t, CUmem_advise, CUmemLocation);
RT_DRIVER_FN(attach_mem, "cuStreamAttachMemAsync", 6000)
RT_DRIVER_FN(prefetch, "cuMemPrefetchAsync", 12020)
RT_DRIVER_FN(advise, "cuMemAdvise", 12020)

static CUmemLocation location_of(struct cudaMemLocation l)
{
    CUmemLocation out = {(CUmemLocationType)l.type, l.id};
    return out;
}

EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                            unsigned int flags)
{
    CTX_OR_RETURN();
    if (!attach_mem)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return rt_error(rt_map_error(
        attach_mem((CUstream)stream, (CUdeviceptr)(uintptr_t)devPtr, length, flags)));
}

EXPORT cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                        struct cudaMemLocation location, unsigned int flags,
                                        cudaStream_t stream)
{
    CTX_OR_RETURN();
    if (!prefetch)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return rt_error(rt_map_error(prefetch((CUdeviceptr)(uintptr_t)devPtr, count,
                                          location_of(location), flags, (CUstream)stream)));
}

EXPORT cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                                 struct cudaMemLocation location)
{
    CTX_OR_RETURN();
    if (!advise)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return rt_error(rt_map_error(advise((CUdeviceptr)(uintptr_t)devPtr, count,
                                        (CUmem_advise)advice, location_of(location))));
}
