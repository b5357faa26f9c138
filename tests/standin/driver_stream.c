/* Streams: created on the current context; the legacy and per-thread
 * default streams stand for the current context's. */
#include "driver_internal.h"

#include <stdlib.h>

/* The context a stream belongs to: the stream's own, else the current one. */
CUresult stream_ctx(CUstream s, struct sctx **out)
{
    struct sctx *c = live_ctx();
    if (s && s != CU_STREAM_LEGACY && s != CU_STREAM_PER_THREAD) {
        struct sstream *st = (struct sstream *)s;
        if (st->magic != STREAM_MAGIC)
            return CUDA_ERROR_INVALID_HANDLE;
        c = st->ctx;
        pthread_mutex_lock(&g_lock);
        int alive = c->alive;
        pthread_mutex_unlock(&g_lock);
        if (!alive)
            return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    }
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    *out = c;
    return CUDA_SUCCESS;
}

#define LEAST_PRIORITY 0
#define GREATEST_PRIORITY (-5)

EXPORT CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phStream || flags > CU_STREAM_NON_BLOCKING)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c = live_ctx();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct sstream *s = calloc(1, sizeof *s);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->magic = STREAM_MAGIC;
    s->ctx = c;
    s->flags = flags;
    /* out of range: clamped, as the driver documents */
    s->priority = priority > LEAST_PRIORITY      ? LEAST_PRIORITY
                  : priority < GREATEST_PRIORITY ? GREATEST_PRIORITY
                                                 : priority;
    *phStream = (CUstream)s;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    return cuStreamCreateWithPriority(phStream, Flags, LEAST_PRIORITY);
}

EXPORT CUresult cuStreamDestroy_v2(CUstream hStream)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct sstream *s = (struct sstream *)hStream;
    if (!s || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD ||
        s->magic != STREAM_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    s->magic = 0;
    free(s);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamSynchronize(CUstream hStream)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct sctx *c;
    return stream_ctx(hStream, &c);
}

EXPORT CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c;
    CUresult r = stream_ctx(hStream, &c);
    if (r == CUDA_SUCCESS)
        *pctx = (CUcontext)c;
    return r;
}

/* A created stream, or NULL for the default streams (or an invalid one:
 * *R says which). */
static struct sstream *own_stream(CUstream hStream, CUresult *r)
{
    struct sctx *c;
    *r = stream_ctx(hStream, &c);
    if (*r != CUDA_SUCCESS || !hStream || hStream == CU_STREAM_LEGACY ||
        hStream == CU_STREAM_PER_THREAD)
        return NULL;
    return (struct sstream *)hStream;
}

EXPORT CUresult cuStreamGetPriority(CUstream hStream, int *priority)
{
    CUresult r;
    if (!priority)
        return CUDA_ERROR_INVALID_VALUE;
    struct sstream *s = own_stream(hStream, &r);
    if (r == CUDA_SUCCESS)
        *priority = s ? s->priority : LEAST_PRIORITY;
    return r;
}

EXPORT CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags)
{
    CUresult r;
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    struct sstream *s = own_stream(hStream, &r);
    if (r == CUDA_SUCCESS)
        *flags = s ? s->flags : CU_STREAM_DEFAULT;
    return r;
}

EXPORT CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (leastPriority)
        *leastPriority = LEAST_PRIORITY;
    if (greatestPriority)
        *greatestPriority = GREATEST_PRIORITY;
    return CUDA_SUCCESS;
}

/* Everything issued has completed. */
EXPORT CUresult cuStreamQuery(CUstream hStream)
{
    struct sctx *c;
    return initialized() ? stream_ctx(hStream, &c) : CUDA_ERROR_NOT_INITIALIZED;
}

/* The event's work is done: nothing to wait for. An event recorded in a
 * capture joins the stream into that capture (driver_capture.c). */
EXPORT CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    struct sctx *c;
    cuuint64_t capture;
    CUstream recorded_on;
    if (!hEvent || Flags > 1) /* CU_EVENT_WAIT_EXTERNAL */
        return hEvent ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_HANDLE;
    if (!event_capture(hEvent, &capture, &recorded_on))
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = initialized() ? stream_ctx(hStream, &c) : CUDA_ERROR_NOT_INITIALIZED;
    return r == CUDA_SUCCESS && capture ? capture_wait(hStream, capture, recorded_on) : r;
}

/* In stream order, which is now: FN runs on the caller's thread. */
EXPORT CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    struct sctx *c;
    if (!fn)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = initialized() ? stream_ctx(hStream, &c) : CUDA_ERROR_NOT_INITIALIZED;
    if (r == CUDA_SUCCESS)
        fn(userData);
    return r;
}

EXPORT CUresult cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,
                                        unsigned int flags)
{
    struct sctx *c;
    (void)flags;
    if (!addr || addr % 4)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = initialized() ? stream_ctx(stream, &c) : CUDA_ERROR_NOT_INITIALIZED;
    if (r == CUDA_SUCCESS)
        __atomic_store_n((cuuint32_t *)(uintptr_t)addr, value, __ATOMIC_RELEASE);
    return r;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuStreamGetCtx", 9020, cuStreamGetCtx)
PROC("cuStreamCreate", 2000, cuStreamCreate)
PROC("cuStreamDestroy", 4000, cuStreamDestroy_v2)
PROC("cuStreamSynchronize", 2000, cuStreamSynchronize)
PROC("cuStreamCreateWithPriority", 5050, cuStreamCreateWithPriority)
PROC("cuStreamGetPriority", 5050, cuStreamGetPriority)
PROC("cuStreamGetFlags", 5050, cuStreamGetFlags)
PROC("cuCtxGetStreamPriorityRange", 5050, cuCtxGetStreamPriorityRange)
PROC("cuStreamQuery", 2000, cuStreamQuery)
PROC("cuStreamWaitEvent", 3020, cuStreamWaitEvent)
PROC("cuLaunchHostFunc", 10000, cuLaunchHostFunc)
PROC("cuStreamWriteValue32", 11070, cuStreamWriteValue32_v2)
/* SPDX-License-Identifier: MIT */
