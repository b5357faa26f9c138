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

EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phStream || Flags > CU_STREAM_NON_BLOCKING)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c = live_ctx();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct sstream *s = calloc(1, sizeof *s);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->magic = STREAM_MAGIC;
    s->ctx = c;
    *phStream = (CUstream)s;
    return CUDA_SUCCESS;
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

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuStreamGetCtx", 9020, cuStreamGetCtx)
PROC("cuStreamCreate", 2000, cuStreamCreate)
PROC("cuStreamDestroy", 4000, cuStreamDestroy_v2)
PROC("cuStreamSynchronize", 2000, cuStreamSynchronize)
/* SPDX-License-Identifier: MIT */
