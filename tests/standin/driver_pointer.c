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
    else if (a && attribute == 9)     /* CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL */
        *(int *)data = a->device;
    else if (a)
        r = CUDA_ERROR_NOT_SUPPORTED;
    pthread_mutex_unlock(&g_lock);
    return r;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuPointerGetAttribute", 4000, cuPointerGetAttribute)
/* SPDX-License-Identifier: MIT */
