/* Pointer attributes of the allocations the driver knows and of cuMemMap'ped
 * ranges; an allocation's address range. */
#include "driver_internal.h"

#include <string.h>

/* A cuMemMap'ped address: device memory of its handle's device (or host
 * memory), in the current context. */
static CUresult mapped_attribute(void *data, int attribute, CUdeviceptr ptr)
{
    int device = vmm_mapped_device((uintptr_t)ptr);
    if (device == -2)
        return CUDA_ERROR_INVALID_VALUE;
    switch (attribute) {
    case 1: *(CUcontext *)data = (CUcontext)live_ctx(); break;  /* CONTEXT */
    case 2: *(unsigned *)data = device >= 0 ? 2u : 1u; break;   /* MEMORY_TYPE */
    case 3: case 4: *(CUdeviceptr *)data = ptr; break;          /* DEVICE_, HOST_POINTER */
    case 8: *(int *)data = 0; break;                            /* IS_MANAGED */
    case 9: *(int *)data = device >= 0 ? device : 0; break;     /* DEVICE_ORDINAL */
    default: return CUDA_ERROR_NOT_SUPPORTED;
    }
    return CUDA_SUCCESS;
}

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
    return a ? r : mapped_attribute(data, attribute, ptr);
}

/* Several at once; an address CUDA does not know is no error: its
 * attributes read as zeros (the driver's documented answer). */
EXPORT CUresult cuPointerGetAttributes(unsigned int numAttributes, int *attributes, void **data,
                                       CUdeviceptr ptr)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!numAttributes || !attributes || !data)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < numAttributes; i++) {
        if (!data[i])
            return CUDA_ERROR_INVALID_VALUE;
        CUresult r = cuPointerGetAttribute(data[i], attributes[i], ptr);
        if (r == CUDA_ERROR_INVALID_VALUE)
            memset(data[i], 0, attributes[i] == 1 || attributes[i] == 3 || attributes[i] == 4
                                   ? sizeof(void *)
                                   : sizeof(int));
        else if (r != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
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
PROC("cuPointerGetAttributes", 7000, cuPointerGetAttributes)
/* SPDX-License-Identifier: MIT */
