/* SPDX-License-Identifier: MIT */
/* What a pointer is (the driver's pointer attributes), and IPC handles of
 * allocations: the stand-in GPUs' memory is each process's own, so a handle
 * opens in no other process (not supported). */
#include "cudart_internal.h"

#include <string.h>

static CUresult (*pointer_attribute)(void *, int, CUdeviceptr);
RT_DRIVER_FN(pointer_attribute, "cuPointerGetAttribute", 4000)

EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                            const void *ptr)
{
    if (!attributes)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(deviceGetAttribute);
    if (!pointer_attribute)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)ptr;
    unsigned type = 0;
    int managed = 0, device = -2;
    memset(attributes, 0, sizeof *attributes);
    if (pointer_attribute(&type, 2, p) != CUDA_SUCCESS) { /* memory CUDA does not know */
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2;
        attributes->hostPointer = (void *)ptr;
        return cudaSuccess;
    }
    pointer_attribute(&managed, 8, p);
    pointer_attribute(&device, 9, p);
    attributes->type = managed ? cudaMemoryTypeManaged
                       : type == 1 ? cudaMemoryTypeHost
                                   : cudaMemoryTypeDevice;
    attributes->device = device;
    attributes->devicePointer = (void *)ptr;
    attributes->hostPointer = type == 1 || managed ? (void *)ptr : NULL;
    return cudaSuccess;
}

struct ipc_mem {
    void *base;
    int pid;
};

EXPORT cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)
{
    if (!handle || !devPtr)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    struct ipc_mem m = {devPtr, 0};
    memset(handle, 0, sizeof *handle);
    memcpy(handle->reserved, &m, sizeof m);
    return cudaSuccess;
}

EXPORT cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle,
                                        unsigned int flags)
{
    (void)devPtr, (void)handle, (void)flags;
    return rt_error(cudaErrorNotSupported);
}

EXPORT cudaError_t cudaIpcCloseMemHandle(void *devPtr)
{
    (void)devPtr;
    return rt_error(cudaErrorInvalidValue);
}
