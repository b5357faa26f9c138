/* Streams. */
#include "cudart_internal.h"


EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    if (!pStream)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    CUstream s;
    NEED(streamCreate);
    CUresult r = rt_drv.streamCreate(&s, 0);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *pStream = (cudaStream_t)s;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    CTX_OR_RETURN();
    NEED(streamDestroy);
    return rt_error(rt_map_error(rt_drv.streamDestroy((CUstream)stream)));
}

EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    CTX_OR_RETURN();
    NEED(streamSynchronize);
    return rt_error(rt_map_error(rt_drv.streamSynchronize((CUstream)stream)));
}
/* SPDX-License-Identifier: MIT */
