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

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuMemcpy", 4000, cuMemcpy)
PROC("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2)
PROC("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2)
PROC("cuMemsetD8", 3020, cuMemsetD8_v2)
/* SPDX-License-Identifier: MIT */
