/* SPDX-License-Identifier: MIT */
/* Events: every operation here completes as it is issued, so an event is
 * complete once recorded; it keeps the time it was recorded at, for
 * cuEventElapsedTime. */
#include "driver_internal.h"

#include <stdlib.h>
#include <time.h>

#define EVENT_MAGIC 0x45564e54u

struct sevent {
    unsigned magic;
    unsigned flags;
    int recorded;
    struct timespec at;
    /* recorded in a capture: its id, and the stream it was recorded on */
    cuuint64_t capture;
    CUstream captured_on;
};

static struct sevent *event_of(CUevent e)
{
    struct sevent *ev = (struct sevent *)e;
    return ev && ev->magic == EVENT_MAGIC ? ev : NULL;
}

EXPORT CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phEvent || Flags & ~(unsigned)(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING |
                                        CU_EVENT_INTERPROCESS))
        return CUDA_ERROR_INVALID_VALUE;
    if (!live_ctx())
        return CUDA_ERROR_INVALID_CONTEXT;
    struct sevent *ev = calloc(1, sizeof *ev);
    if (!ev)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ev->magic = EVENT_MAGIC;
    ev->flags = Flags;
    *phEvent = (CUevent)ev;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventDestroy_v2(CUevent hEvent)
{
    struct sevent *ev = event_of(hEvent);
    if (!ev)
        return CUDA_ERROR_INVALID_HANDLE;
    ev->magic = 0;
    free(ev);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    struct sevent *ev = event_of(hEvent);
    struct sctx *c;
    if (!ev || flags > 1) /* CU_EVENT_RECORD_EXTERNAL */
        return ev ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_HANDLE;
    CUresult r = stream_ctx(hStream, &c);
    if (r != CUDA_SUCCESS)
        return r;
    ev->recorded = 1;
    clock_gettime(CLOCK_MONOTONIC, &ev->at);
    ev->capture = capture_id(hStream);
    ev->captured_on = hStream;
    return CUDA_SUCCESS;
}

int event_capture(CUevent hEvent, cuuint64_t *capture, CUstream *stream)
{
    struct sevent *ev = event_of(hEvent);
    if (!ev)
        return 0;
    *capture = ev->capture;
    *stream = ev->captured_on;
    return 1;
}

EXPORT CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    return cuEventRecordWithFlags(hEvent, hStream, 0);
}

/* Complete (recorded or never recorded, as the real driver says). */
EXPORT CUresult cuEventQuery(CUevent hEvent)
{
    return event_of(hEvent) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

EXPORT CUresult cuEventSynchronize(CUevent hEvent)
{
    return event_of(hEvent) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

EXPORT CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    struct sevent *a = event_of(hStart), *b = event_of(hEnd);
    if (!pMilliseconds)
        return CUDA_ERROR_INVALID_VALUE;
    if (!a || !b)
        return CUDA_ERROR_INVALID_HANDLE;
    if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!a->recorded || !b->recorded)
        return CUDA_ERROR_NOT_READY;
    *pMilliseconds = (float)((double)(b->at.tv_sec - a->at.tv_sec) * 1e3 +
                             (double)(b->at.tv_nsec - a->at.tv_nsec) / 1e6);
    return CUDA_SUCCESS;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuEventCreate", 2000, cuEventCreate)
PROC("cuEventDestroy", 4000, cuEventDestroy_v2)
PROC("cuEventRecord", 2000, cuEventRecord)
PROC("cuEventRecordWithFlags", 11010, cuEventRecordWithFlags)
PROC("cuEventQuery", 2000, cuEventQuery)
PROC("cuEventSynchronize", 2000, cuEventSynchronize)
PROC("cuEventElapsedTime", 12080, cuEventElapsedTime_v2)
