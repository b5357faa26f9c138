/* SPDX-License-Identifier: MIT */
/* What a pointer is (the driver's pointer attributes), and IPC handles of
 * allocations, which open in other processes of the machine (through the
 * driver's cuIpc* functions, driver_ipc.c). */
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

static CUresult (*ipc_get)(CUipcMemHandle *, CUdeviceptr);
static CUresult (*ipc_open)(CUdeviceptr *, CUipcMemHandle, unsigned int);
static CUresult (*ipc_close)(CUdeviceptr);
RT_DRIVER_FN(ipc_get, "cuIpcGetMemHandle", 4010)
RT_DRIVER_FN(ipc_open, "cuIpcOpenMemHandle", 11000)
RT_DRIVER_FN(ipc_close, "cuIpcCloseMemHandle", 4010)

EXPORT cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)
{
    if (!handle || !devPtr)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (!ipc_get)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUipcMemHandle h;
    CUresult r = ipc_get(&h, (CUdeviceptr)(uintptr_t)devPtr);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    memcpy(handle->reserved, h.reserved, sizeof h.reserved);
    return cudaSuccess;
}

EXPORT cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle,
                                        unsigned int flags)
{
    if (!devPtr)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (!ipc_open)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUipcMemHandle h;
    CUdeviceptr p;
    memcpy(h.reserved, handle.reserved, sizeof h.reserved);
    CUresult r = ipc_open(&p, h, flags);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *devPtr = (void *)(uintptr_t)p;
    return cudaSuccess;
}

EXPORT cudaError_t cudaIpcCloseMemHandle(void *devPtr)
{
    CTX_OR_RETURN();
    if (!ipc_close)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return rt_error(rt_map_error(ipc_close((CUdeviceptr)(uintptr_t)devPtr)));
}
