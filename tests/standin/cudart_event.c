/* SPDX-License-Identifier: MIT */
/* Events, through the driver's. IPC event handles: the stand-in's events
 * live in one process, so opening one elsewhere is not supported. */
#include "cudart_internal.h"

#include <string.h>

static CUresult (*event_create)(CUevent *, unsigned int);
static CUresult (*event_destroy)(CUevent);
static CUresult (*event_record)(CUevent, CUstream, unsigned int);
static CUresult (*event_query)(CUevent);
static CUresult (*event_synchronize)(CUevent);
static CUresult (*event_elapsed)(float *, CUevent, CUevent);
RT_DRIVER_FN(event_create, "cuEventCreate", 2000)
RT_DRIVER_FN(event_destroy, "cuEventDestroy", 4000)
RT_DRIVER_FN(event_record, "cuEventRecordWithFlags", 11010)
RT_DRIVER_FN(event_query, "cuEventQuery", 2000)
RT_DRIVER_FN(event_synchronize, "cuEventSynchronize", 2000)
RT_DRIVER_FN(event_elapsed, "cuEventElapsedTime", 12080)

EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    RT_CALL_DRIVER(event_create, (CUevent *)event, flags);
}

EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    RT_CALL_DRIVER(event_destroy, (CUevent)event);
}

EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                            unsigned int flags)
{
    RT_CALL_DRIVER(event_record, (CUevent)event, (CUstream)stream, flags);
}

EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    return cudaEventRecordWithFlags(event, stream, 0);
}

EXPORT cudaError_t cudaEventQuery(cudaEvent_t event)
{
    RT_CALL_DRIVER(event_query, (CUevent)event);
}

EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    RT_CALL_DRIVER(event_synchronize, (CUevent)event);
}

EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    RT_CALL_DRIVER(event_elapsed, ms, (CUevent)start, (CUevent)end);
}

EXPORT cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event)
{
    if (!handle || !event)
        return rt_error(cudaErrorInvalidValue);
    memset(handle, 0, sizeof *handle);
    memcpy(handle->reserved, &event, sizeof event);
    return cudaSuccess;
}

EXPORT cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle)
{
    (void)event, (void)handle;
    return rt_error(cudaErrorNotSupported);
}
