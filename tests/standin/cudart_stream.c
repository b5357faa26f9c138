/* SPDX-License-Identifier: MIT */
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

static CUresult (*stream_create_prio)(CUstream *, unsigned int, int);
static CUresult (*stream_get_priority)(CUstream, int *);
static CUresult (*stream_query)(CUstream);
static CUresult (*stream_wait_event)(CUstream, CUevent, unsigned int);
static CUresult (*launch_host_func)(CUstream, CUhostFn, void *);
static CUresult (*priority_range)(int *, int *);
RT_DRIVER_FN(stream_create_prio, "cuStreamCreateWithPriority", 5050)
RT_DRIVER_FN(stream_get_priority, "cuStreamGetPriority", 5050)
RT_DRIVER_FN(stream_query, "cuStreamQuery", 2000)
RT_DRIVER_FN(stream_wait_event, "cuStreamWaitEvent", 3020)
RT_DRIVER_FN(launch_host_func, "cuLaunchHostFunc", 10000)
RT_DRIVER_FN(priority_range, "cuCtxGetStreamPriorityRange", 5050)

EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                int priority)
{
    if (!pStream)
        return rt_error(cudaErrorInvalidValue);
    RT_CALL_DRIVER(stream_create_prio, (CUstream *)pStream, flags, priority);
}

EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(pStream, flags, 0);
}

EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    RT_CALL_DRIVER(stream_get_priority, (CUstream)hStream, priority);
}

EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    RT_CALL_DRIVER(stream_query, (CUstream)stream);
}

EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    RT_CALL_DRIVER(stream_wait_event, (CUstream)stream, (CUevent)event, flags);
}

EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    RT_CALL_DRIVER(launch_host_func, (CUstream)stream, fn, userData);
}

/* The callback runs in stream order (now), told the stream's status. */
EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                         void *userData, unsigned int flags)
{
    if (!callback || flags)
        return rt_error(cudaErrorInvalidValue);
    cudaError_t e = cudaStreamQuery(stream);
    if (e == cudaSuccess)
        callback(stream, cudaSuccess, userData);
    return e;
}

EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    RT_CALL_DRIVER(priority_range, leastPriority, greatestPriority);
}
