/* SPDX-License-Identifier: MIT */
/* Asynchronous copies and sets, in stream order (the stand-in driver
 * completes each when issued), and the symbols of registered variables. */
#include "cudart_internal.h"

static CUresult (*memcpy_async)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
static CUresult (*memset_async)(CUdeviceptr, unsigned char, size_t, CUstream);
RT_DRIVER_FN(memcpy_async, "cuMemcpyAsync", 4000)
RT_DRIVER_FN(memset_async, "cuMemsetD8Async", 3020)

EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                   enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if ((unsigned)kind > cudaMemcpyDefault)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (!memcpy_async)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return rt_error(rt_map_error(memcpy_async((CUdeviceptr)(uintptr_t)dst,
                                              (CUdeviceptr)(uintptr_t)src, count, (CUstream)stream)));
}

EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                       size_t count, cudaStream_t stream)
{
    if (dstDevice < 0 || srcDevice < 0 || dstDevice >= rt_ndev || srcDevice >= rt_ndev)
        return rt_error(cudaErrorInvalidDevice);
    return cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToDevice, stream);
}

EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                  size_t count)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return rt_error(e);
    if (dstDevice < 0 || srcDevice < 0 || dstDevice >= rt_ndev || srcDevice >= rt_ndev)
        return rt_error(cudaErrorInvalidDevice);
    return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}

EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    CTX_OR_RETURN();
    if (!memset_async)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return rt_error(rt_map_error(memset_async((CUdeviceptr)(uintptr_t)devPtr, (unsigned char)value,
                                              count, (CUstream)stream)));
}

/* A registered variable's device copy is its host shadow (the stand-in's
 * device memory is host memory). */
EXPORT cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    if (!devPtr || !symbol)
        return rt_error((cudaError_t)cudaErrorInvalidSymbol);
    CTX_OR_RETURN();
    *devPtr = (void *)symbol;
    return cudaSuccess;
}

/* The device address of SYMBOL plus OFFSET, for a copy of KIND to it
 * (TO_SYMBOL) or from it: the kinds that put the symbol on the host are
 * refused. */
static cudaError_t symbol_at(const void *symbol, size_t offset, enum cudaMemcpyKind kind,
                             int to_symbol, char **at)
{
    enum cudaMemcpyKind own = to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    *at = NULL;
    if (kind != own && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return rt_error(cudaErrorInvalidMemcpyDirection);
    void *p = NULL;
    cudaError_t e = cudaGetSymbolAddress(&p, symbol);
    *at = (char *)p + offset;
    return e;
}

EXPORT cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                      size_t offset, enum cudaMemcpyKind kind)
{
    char *dst;
    cudaError_t e = symbol_at(symbol, offset, kind, 1, &dst);
    return e != cudaSuccess ? e : cudaMemcpy(dst, src, count, kind);
}

EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                        size_t offset, enum cudaMemcpyKind kind)
{
    char *src;
    cudaError_t e = symbol_at(symbol, offset, kind, 0, &src);
    return e != cudaSuccess ? e : cudaMemcpy(dst, src, count, kind);
}

EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind,
                                           cudaStream_t stream)
{
    char *dst;
    cudaError_t e = symbol_at(symbol, offset, kind, 1, &dst);
    return e != cudaSuccess ? e : cudaMemcpyAsync(dst, src, count, kind, stream);
}

EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                             size_t offset, enum cudaMemcpyKind kind,
                                             cudaStream_t stream)
{
    char *src;
    cudaError_t e = symbol_at(symbol, offset, kind, 0, &src);
    return e != cudaSuccess ? e : cudaMemcpyAsync(dst, src, count, kind, stream);
}
