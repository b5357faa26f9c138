/* Pointer attributes of the allocations the driver knows. */
#include "driver_internal.h"

EXPORT CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    struct salloc *a = containing_locked((uintptr_t)ptr);
    CUresult r = a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (a && attribute == 1)          /* CU_POINTER_ATTRIBUTE_CONTEXT */
        *(CUcontext *)data = (CUcontext)a->ctx;
    else if (a && attribute == 2)     /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE: host 1, device 2 */
        *(unsigned *)data = a->kind == K_HOST ? 1u : 2u;
    else if (a && (attribute == 3 || attribute == 4)) /* DEVICE_POINTER, HOST_POINTER */
        *(CUdeviceptr *)data = (CUdeviceptr)ptr;      /* one address space */
    else if (a && attribute == 8)     /* CU_POINTER_ATTRIBUTE_IS_MANAGED */
        *(int *)data = a->kind == K_MANAGED;
    else if (a && attribute == 9)     /* CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL */
        *(int *)data = a->device;
    else if (a)
        r = CUDA_ERROR_NOT_SUPPORTED;
    pthread_mutex_unlock(&g_lock);
    return r;
}

/* The allocation holding DPTR: its base and size. */
EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    pthread_mutex_lock(&g_lock);
    struct salloc *a = containing_locked((uintptr_t)dptr);
    if (a && pbase)
        *pbase = (CUdeviceptr)a->key;
    if (a && psize)
        *psize = a->bytes;
    pthread_mutex_unlock(&g_lock);
    return a ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuPointerGetAttribute", 4000, cuPointerGetAttribute)
PROC("cuMemGetAddressRange", 3020, cuMemGetAddressRange_v2)
/* SPDX-License-Identifier: MIT */
