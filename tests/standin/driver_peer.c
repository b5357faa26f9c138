/* SPDX-License-Identifier: MIT */
/* Peer access between contexts (cuCtxEnablePeerAccess), as the driver
 * documents it: the current context gets access to the memory of a
 * context on another device (cuDeviceCanAccessPeer: every other device
 * here); enabling it twice is CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
 * disabling it when not enabled CUDA_ERROR_PEER_ACCESS_NOT_ENABLED. The
 * stand-in's memory is the host's, so access needs nothing more, and a
 * copy between two contexts' memory (cuMemcpyPeer) is a copy. */
#include "driver_internal.h"

#define MAX_PEER_PAIRS 64

static struct {
    struct sctx *from, *to;
} g_peers[MAX_PEER_PAIRS];
static size_t g_npeers;

/* The pair's index, or g_npeers; lock held. */
static size_t find_locked(const struct sctx *from, const struct sctx *to)
{
    size_t i = 0;
    while (i < g_npeers && !(g_peers[i].from == from && g_peers[i].to == to))
        i++;
    return i;
}

static int live_context(CUcontext ctx)
{
    struct sctx *c = (struct sctx *)ctx;
    pthread_mutex_lock(&g_lock);
    int live = c && valid_ctx_locked(c) && c->alive;
    pthread_mutex_unlock(&g_lock);
    return live;
}

/* The current context and PEER, both live. */
static CUresult pair_of(CUcontext peer, struct sctx **from, struct sctx **to)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    *from = live_ctx();
    *to = (struct sctx *)peer;
    return *from && live_context(peer) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    struct sctx *from, *to;
    CUresult r = pair_of(peerContext, &from, &to);
    if (r != CUDA_SUCCESS)
        return r;
    if (Flags)
        return CUDA_ERROR_INVALID_VALUE;
    if (from->device == to->device)
        return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
    pthread_mutex_lock(&g_lock);
    size_t i = find_locked(from, to);
    r = i < g_npeers                   ? CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
        : g_npeers == MAX_PEER_PAIRS ? CUDA_ERROR_TOO_MANY_PEERS
                                     : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS) {
        g_peers[g_npeers].from = from;
        g_peers[g_npeers++].to = to;
    }
    pthread_mutex_unlock(&g_lock);
    return r;
}

EXPORT CUresult cuCtxDisablePeerAccess(CUcontext peerContext)
{
    struct sctx *from, *to;
    CUresult r = pair_of(peerContext, &from, &to);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&g_lock);
    size_t i = find_locked(from, to);
    r = i < g_npeers ? CUDA_SUCCESS : CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
    if (r == CUDA_SUCCESS)
        g_peers[i] = g_peers[--g_npeers];
    pthread_mutex_unlock(&g_lock);
    return r;
}

EXPORT CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                             CUcontext srcContext, size_t ByteCount)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!live_context(dstContext) || !live_context(srcContext))
        return CUDA_ERROR_INVALID_CONTEXT;
    return cuMemcpy(dstDevice, srcDevice, ByteCount);
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuCtxEnablePeerAccess", 4000, cuCtxEnablePeerAccess)
PROC("cuCtxDisablePeerAccess", 4000, cuCtxDisablePeerAccess)
PROC("cuMemcpyPeer", 4000, cuMemcpyPeer)
