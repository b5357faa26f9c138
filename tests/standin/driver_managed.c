/* SPDX-License-Identifier: MIT */
/* What a program tells the driver of its managed memory: which stream
 * uses it (cuStreamAttachMemAsync), where it will be used (cuMemAdvise),
 * where to move it now (cuMemPrefetchAsync). Here all memory is host
 * memory, so each only checks its range and arguments. */
#include "driver_internal.h"

/* [address, address + bytes) lies in one live managed allocation (bytes
 * 0: the rest of it). */
static CUresult managed_range(CUdeviceptr address, size_t bytes)
{
    pthread_mutex_lock(&g_lock);
    struct salloc *a = containing_locked((uintptr_t)address);
    int ok = a && a->kind == K_MANAGED && (uintptr_t)address - a->key + bytes <= a->bytes;
    pthread_mutex_unlock(&g_lock);
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length,
                                       unsigned int flags)
{
    struct sctx *c;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = stream_ctx(hStream, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST &&
        flags != CU_MEM_ATTACH_SINGLE)
        return CUDA_ERROR_INVALID_VALUE;
    return managed_range(dptr, length);
}

EXPORT CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                      unsigned int flags, CUstream hStream)
{
    struct sctx *c;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = stream_ctx(hStream, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (flags != 0 || location_device(&location) == -2)
        return CUDA_ERROR_INVALID_VALUE;
    return managed_range(devPtr, count);
}

EXPORT CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                               CUmemLocation location)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (advice < CU_MEM_ADVISE_SET_READ_MOSTLY || advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY)
        return CUDA_ERROR_INVALID_VALUE;
    int read_mostly = advice == CU_MEM_ADVISE_SET_READ_MOSTLY ||
                      advice == CU_MEM_ADVISE_UNSET_READ_MOSTLY;
    if (!read_mostly && location_device(&location) == -2) /* the others name a location */
        return CUDA_ERROR_INVALID_VALUE;
    return managed_range(devPtr, count);
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuStreamAttachMemAsync", 6000, cuStreamAttachMemAsync)
PROC("cuMemPrefetchAsync", 12020, cuMemPrefetchAsync_v2)
PROC("cuMemAdvise", 12020, cuMemAdvise_v2)
