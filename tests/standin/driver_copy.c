/* Copies and sets: every kind of memory here is host memory. */
#include "driver_internal.h"

#include <string.h>

EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if ((!dst || !src) && ByteCount)
        return CUDA_ERROR_INVALID_VALUE;
    if (ByteCount)
        memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, ByteCount);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if ((!dstDevice || !srcHost) && ByteCount)
        return CUDA_ERROR_INVALID_VALUE;
    if (ByteCount)
        memmove((void *)(uintptr_t)dstDevice, srcHost, ByteCount);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if ((!dstHost || !srcDevice) && ByteCount)
        return CUDA_ERROR_INVALID_VALUE;
    if (ByteCount)
        memmove(dstHost, (const void *)(uintptr_t)srcDevice, ByteCount);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dstDevice && N)
        return CUDA_ERROR_INVALID_VALUE;
    if (N)
        memset((void *)(uintptr_t)dstDevice, uc, N);
    return CUDA_SUCCESS;
}

/* The asynchronous ones: in stream order, which is now (every operation
 * completes when issued). */
static CUresult stream_ok(CUstream s)
{
    struct sctx *c;
    return initialized() ? stream_ctx(s, &c) : CUDA_ERROR_NOT_INITIALIZED;
}

EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
    CUresult r = stream_ok(hStream);
    return r != CUDA_SUCCESS ? r : cuMemcpy(dst, src, ByteCount);
}

EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                     CUstream hStream)
{
    CUresult r = stream_ok(hStream);
    return r != CUDA_SUCCESS ? r : cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount);
}

EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                     CUstream hStream)
{
    CUresult r = stream_ok(hStream);
    return r != CUDA_SUCCESS ? r : cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount);
}

EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                     size_t ByteCount, CUstream hStream)
{
    CUresult r = stream_ok(hStream);
    return r != CUDA_SUCCESS ? r : cuMemcpy(dstDevice, srcDevice, ByteCount);
}

EXPORT CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                CUstream hStream)
{
    CUresult r = stream_ok(hStream);
    return r != CUDA_SUCCESS ? r : cuMemsetD8_v2(dstDevice, uc, N);
}

EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if ((!dstDevice && N) || dstDevice % 4)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned int *p = (unsigned int *)(uintptr_t)dstDevice;
    for (size_t i = 0; i < N; i++)
        p[i] = ui;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N,
                                 CUstream hStream)
{
    CUresult r = stream_ok(hStream);
    return r != CUDA_SUCCESS ? r : cuMemsetD32_v2(dstDevice, ui, N);
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuMemcpy", 4000, cuMemcpy)
PROC("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2)
PROC("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2)
PROC("cuMemsetD8", 3020, cuMemsetD8_v2)
PROC("cuMemcpyAsync", 4000, cuMemcpyAsync)
PROC("cuMemcpyHtoDAsync", 3020, cuMemcpyHtoDAsync_v2)
PROC("cuMemcpyDtoHAsync", 3020, cuMemcpyDtoHAsync_v2)
PROC("cuMemcpyDtoDAsync", 3020, cuMemcpyDtoDAsync_v2)
PROC("cuMemsetD8Async", 3020, cuMemsetD8Async)
PROC("cuMemsetD32", 3020, cuMemsetD32_v2)
PROC("cuMemsetD32Async", 3020, cuMemsetD32Async)
/* SPDX-License-Identifier: MIT */
