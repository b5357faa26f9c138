/* SPDX-License-Identifier: MIT */
/* cudaHostRegister / cudaHostUnregister, and the device's address and the
 * allocation flags of page-locked memory: the driver's, through
 * cuGetProcAddress as the real runtime reaches them. */
#include "cudart_internal.h"

typedef CUresult (*register_fn)(void *, size_t, unsigned int);
typedef CUresult (*unregister_fn)(void *);

static register_fn host_register;
static unregister_fn host_unregister;
RT_DRIVER_FN(host_register, "cuMemHostRegister", 6050)
RT_DRIVER_FN(host_unregister, "cuMemHostUnregister", 4000)
static CUresult (*device_pointer)(CUdeviceptr *, void *, unsigned int);
RT_DRIVER_FN(device_pointer, "cuMemHostGetDevicePointer", 3020)
static CUresult (*host_get_flags)(unsigned int *, void *);
RT_DRIVER_FN(host_get_flags, "cuMemHostGetFlags", 2030)

EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    CTX_OR_RETURN();
    if (!host_register)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUresult r = host_register(ptr, size, flags);
    return r == CUDA_SUCCESS ? cudaSuccess : rt_error(rt_map_error(r));
}

EXPORT cudaError_t cudaHostUnregister(void *ptr)
{
    CTX_OR_RETURN();
    if (!host_unregister)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUresult r = host_unregister(ptr);
    return r == CUDA_SUCCESS ? cudaSuccess : rt_error(rt_map_error(r));
}

EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    if (!pDevice)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (!device_pointer)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUdeviceptr d;
    CUresult r = device_pointer(&d, pHost, flags);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *pDevice = (void *)(uintptr_t)d;
    return cudaSuccess;
}

/* cudaHostAlloc's flags (cudaMallocHost's: none); registered memory has
 * none to give. */
EXPORT cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    RT_CALL_DRIVER(host_get_flags, pFlags, pHost);
}
