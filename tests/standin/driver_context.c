/* Contexts: created and destroyed ones, the thread's stack of current
 * contexts, and each device's primary context with its retain count. */
#include "driver_internal.h"

#include <stdlib.h>
#include <string.h>


/* A live context costs STANDIN_CUDA_CONTEXT_BYTES of its GPU, and makes the
 * process one NVML lists there. */
static CUresult charge_context(struct sctx *c)
{
    if (reserve_capacity_locked(c->device, g_context_bytes) != CUDA_SUCCESS)
        return CUDA_ERROR_OUT_OF_MEMORY;
    sg_context_opened(g_dev[c->device].physical);
    c->charged = 1;
    return CUDA_SUCCESS;
}

static void uncharge_context(struct sctx *c)
{
    if (!c->charged)
        return;
    c->charged = 0;
    return_capacity_locked(c->device, g_context_bytes);
    sg_context_closed(g_dev[c->device].physical);
}

static CUresult ctx_create(CUcontext *pctx, CUdevice dev)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    if (t_depth >= CTX_STACK)
        return CUDA_ERROR_UNKNOWN;
    /* Never freed: a stale handle stays recognisably dead, unless reused. */
    pthread_mutex_lock(&g_lock);
    struct sctx *c = g_destroyed_ctx;
    g_destroyed_ctx = NULL;
    pthread_mutex_unlock(&g_lock);
    if (c)
        memset(c, 0, sizeof *c);
    else
        c = calloc(1, sizeof *c);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    c->device = dev;
    if (charge_context(c) != CUDA_SUCCESS) {
        free(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    c->magic = CTX_MAGIC;
    c->alive = 1;
    t_stack[t_depth++] = c;
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    (void)flags;
    return ctx_create(pctx, dev);
}

EXPORT CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
                               CUdevice dev)
{
    (void)flags;
    if (params && (params->numExecAffinityParams || params->cigParams))
        return CUDA_ERROR_NOT_SUPPORTED;
    return ctx_create(pctx, dev);
}

static void pop_everywhere_on_this_thread(struct sctx *c)
{
    int j = 0;
    for (int i = 0; i < t_depth; i++)
        if (t_stack[i] != c)
            t_stack[j++] = t_stack[i];
    t_depth = j;
}

EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct sctx *c = (struct sctx *)ctx;
    if (!c)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    int ok = c->magic == CTX_MAGIC && !c->primary && c->alive;
    if (ok)
        c->alive = 0;
    pthread_mutex_unlock(&g_lock);
    if (!ok) /* unknown, already destroyed, or a primary context */
        return CUDA_ERROR_INVALID_CONTEXT;
    teardown(c);
    uncharge_context(c);
    pop_everywhere_on_this_thread(c);
    if (g_reuse_contexts) {
        pthread_mutex_lock(&g_lock);
        g_destroyed_ctx = c;
        pthread_mutex_unlock(&g_lock);
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    standin_log("cuCtxGetCurrent");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = (CUcontext)cur_ctx();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    standin_log("cuCtxSetCurrent");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct sctx *c = (struct sctx *)ctx;
    if (!c) {
        if (t_depth > 0)
            t_depth--;
        return CUDA_SUCCESS;
    }
    pthread_mutex_lock(&g_lock);
    int ok = valid_ctx_locked(c);
    pthread_mutex_unlock(&g_lock);
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (t_depth == 0)
        t_depth = 1;
    t_stack[t_depth - 1] = c;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct sctx *c = (struct sctx *)ctx;
    pthread_mutex_lock(&g_lock);
    int ok = valid_ctx_locked(c);
    pthread_mutex_unlock(&g_lock);
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (t_depth >= CTX_STACK)
        return CUDA_ERROR_UNKNOWN;
    t_stack[t_depth++] = c;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (t_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct sctx *c = t_stack[--t_depth];
    if (pctx)
        *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetDevice(CUdevice *device)
{
    standin_log("cuCtxGetDevice");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c = live_ctx();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    *device = c->device;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSynchronize(void)
{
    standin_log("cuCtxSynchronize");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    return live_ctx() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/* CUDA 13's cuCtxGetDevice (asked for at version 13000): the device of CTX,
 * or of the current context when CTX is NULL. */
static struct sctx *given_or_current(CUcontext ctx)
{
    struct sctx *c = ctx ? (struct sctx *)ctx : live_ctx();
    int ok;
    if (!c)
        return NULL;
    pthread_mutex_lock(&g_lock);
    ok = valid_ctx_locked(c) && c->alive;
    pthread_mutex_unlock(&g_lock);
    return ok ? c : NULL;
}

EXPORT CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    standin_log("cuCtxGetDevice_v2");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c = given_or_current(ctx);
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    *device = c->device;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
    standin_log("cuCtxSynchronize_v2");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    return given_or_current(ctx) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

EXPORT CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    standin_log("cuCtxGetApiVersion");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    if (!given_or_current(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    *version = 13000;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    standin_log("cuDevicePrimaryCtxRetain %d", dev);
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    struct sctx *c = &g_dev[dev].primary;
    pthread_mutex_lock(&g_lock);
    if (!c->charged && charge_context(c) != CUDA_SUCCESS) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    c->refcount++;
    c->alive = 1;
    pthread_mutex_unlock(&g_lock);
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

static CUresult primary_release(CUdevice dev)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    struct sctx *c = &g_dev[dev].primary;
    pthread_mutex_lock(&g_lock);
    if (c->refcount <= 0) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    int destroy = --c->refcount == 0;
    if (destroy)
        c->alive = 0;
    pthread_mutex_unlock(&g_lock);
    if (destroy) {
        teardown(c); /* "destroyed regardless of how many threads it is current to" */
        pthread_mutex_lock(&g_lock);
        uncharge_context(c);
        pthread_mutex_unlock(&g_lock);
    }
    return CUDA_SUCCESS;
}

static CUresult primary_reset(CUdevice dev)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    struct sctx *c = &g_dev[dev].primary;
    pthread_mutex_lock(&g_lock);
    c->refcount = 0;
    c->alive = 0;
    pthread_mutex_unlock(&g_lock);
    teardown(c);
    pthread_mutex_lock(&g_lock);
    uncharge_context(c);
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    standin_log("cuDevicePrimaryCtxRelease_v2 %d", dev);
    return primary_release(dev);
}
EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return primary_release(dev); }
EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    standin_log("cuDevicePrimaryCtxReset_v2 %d", dev);
    return primary_reset(dev);
}
EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return primary_reset(dev); }

EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!flags || !active)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&g_lock);
    *flags = 0;
    *active = g_dev[dev].primary.alive;
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuCtxCreate", 3020, cuCtxCreate_v2)
PROC("cuCtxCreate", 12050, cuCtxCreate_v4)
PROC("cuCtxDestroy", 4000, cuCtxDestroy_v2)
PROC("cuCtxGetCurrent", 4000, cuCtxGetCurrent)
PROC("cuCtxSetCurrent", 4000, cuCtxSetCurrent)
PROC("cuCtxPushCurrent", 4000, cuCtxPushCurrent_v2)
PROC("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2)
PROC("cuCtxGetDevice", 2000, cuCtxGetDevice)
PROC("cuCtxGetDevice", 13000, cuCtxGetDevice_v2)
PROC("cuCtxSynchronize", 2000, cuCtxSynchronize)
PROC("cuCtxSynchronize", 13000, cuCtxSynchronize_v2)
PROC("cuCtxGetApiVersion", 3020, cuCtxGetApiVersion)
PROC("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain)
PROC("cuDevicePrimaryCtxRelease", 7000, cuDevicePrimaryCtxRelease)
PROC("cuDevicePrimaryCtxRelease", 11000, cuDevicePrimaryCtxRelease_v2)
PROC("cuDevicePrimaryCtxReset", 7000, cuDevicePrimaryCtxReset)
PROC("cuDevicePrimaryCtxReset", 11000, cuDevicePrimaryCtxReset_v2)
PROC("cuDevicePrimaryCtxGetState", 7000, cuDevicePrimaryCtxGetState)
/* SPDX-License-Identifier: MIT */
