/* SPDX-License-Identifier: MIT */
/* Green contexts: a device's streaming multiprocessors (CU_DEV_RESOURCE_TYPE_SM)
 * handed to a context of their own. A green context converts to a context
 * of its device (cuCtxFromGreenCtx) that owns what is allocated on its
 * streams: a reset of the device's primary context leaves that memory
 * alone; destroying the green context frees it. */
#include "driver_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define GREEN_MAGIC 0x47524e43u
#define STANDIN_SMS 132 /* every stand-in GPU's */

struct sgreen {
    unsigned magic;
    struct sctx ctx; /* what it converts to */
    unsigned sms;
};

struct CUdevResourceDesc_st {
    unsigned sms;
};

EXPORT CUresult cuDeviceGetDevResource(CUdevice device, CUdevResource *resource,
                                       CUdevResourceType type)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (device < 0 || device >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!resource || type != CU_DEV_RESOURCE_TYPE_SM)
        return CUDA_ERROR_INVALID_VALUE;
    memset(resource, 0, sizeof *resource);
    resource->type = CU_DEV_RESOURCE_TYPE_SM;
    resource->sm.smCount = STANDIN_SMS;
    resource->sm.minSmPartitionSize = 2;
    resource->sm.smCoscheduledAlignment = 2;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevResourceGenerateDesc(CUdevResourceDesc *phDesc, CUdevResource *resources,
                                          unsigned int nbResources)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phDesc || !resources || nbResources == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUdevResourceDesc_st *d = calloc(1, sizeof *d);
    if (!d)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (unsigned i = 0; i < nbResources; i++)
        if (resources[i].type == CU_DEV_RESOURCE_TYPE_SM)
            d->sms += resources[i].sm.smCount;
    *phDesc = d;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGreenCtxCreate(CUgreenCtx *phCtx, CUdevResourceDesc desc, CUdevice dev,
                                 unsigned int flags)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phCtx || !desc || !(flags & CU_GREEN_CTX_DEFAULT_STREAM))
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    struct sgreen *g = calloc(1, sizeof *g);
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    g->magic = GREEN_MAGIC;
    g->sms = desc->sms;
    g->ctx.magic = CTX_MAGIC;
    g->ctx.device = dev;
    g->ctx.alive = 1;
    g->ctx.green = 1;
    *phCtx = (CUgreenCtx)g;
    return CUDA_SUCCESS;
}

static struct sgreen *green(CUgreenCtx h)
{
    struct sgreen *g = (struct sgreen *)h;
    return g && g->magic == GREEN_MAGIC ? g : NULL;
}

/* What was allocated in it goes. */
EXPORT CUresult cuGreenCtxDestroy(CUgreenCtx hCtx)
{
    struct sgreen *g = green(hCtx);
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!g)
        return CUDA_ERROR_INVALID_HANDLE;
    g->magic = 0;
    pthread_mutex_lock(&g_lock);
    g->ctx.alive = 0;
    pthread_mutex_unlock(&g_lock);
    teardown(&g->ctx);
    return CUDA_SUCCESS; /* the context stays recognisably dead: never freed */
}

EXPORT CUresult cuCtxFromGreenCtx(CUcontext *pContext, CUgreenCtx hCtx)
{
    struct sgreen *g = green(hCtx);
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pContext || !g)
        return CUDA_ERROR_INVALID_VALUE;
    *pContext = (CUcontext)&g->ctx;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGreenCtxStreamCreate(CUstream *phStream, CUgreenCtx greenCtx, unsigned int flags,
                                       int priority)
{
    (void)priority;
    struct sgreen *g = green(greenCtx);
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phStream || !g || flags != CU_STREAM_NON_BLOCKING)
        return CUDA_ERROR_INVALID_VALUE;
    struct sstream *s = calloc(1, sizeof *s);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->magic = STREAM_MAGIC;
    s->ctx = &g->ctx;
    *phStream = (CUstream)s;
    return CUDA_SUCCESS;
}

/* A green context's stream: the green context, and the device's primary
 * context as the regular one (cuStreamGetCtx answers the converted one). */
EXPORT CUresult cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    struct sctx *c;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pCtx || !pGreenCtx)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = stream_ctx(hStream, &c);
    if (r != CUDA_SUCCESS)
        return r;
    struct sgreen *g = c->green ? (struct sgreen *)((char *)c - offsetof(struct sgreen, ctx)) : NULL;
    *pCtx = g ? (CUcontext)&g_dev[c->device].primary : (CUcontext)c;
    *pGreenCtx = (CUgreenCtx)g;
    return CUDA_SUCCESS;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuDeviceGetDevResource", 12040, cuDeviceGetDevResource)
PROC("cuDevResourceGenerateDesc", 12040, cuDevResourceGenerateDesc)
PROC("cuGreenCtxCreate", 12040, cuGreenCtxCreate)
PROC("cuGreenCtxDestroy", 12040, cuGreenCtxDestroy)
PROC("cuCtxFromGreenCtx", 12040, cuCtxFromGreenCtx)
PROC("cuGreenCtxStreamCreate", 12040, cuGreenCtxStreamCreate)
PROC("cuStreamGetCtx", 12050, cuStreamGetCtx_v2)
