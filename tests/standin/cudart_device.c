/* Versions and devices: the thread's device, reset, synchronization and
 * memory information. */
#include "cudart_internal.h"

EXPORT cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return rt_error(cudaErrorInvalidValue);
    if (rt_init() != cudaSuccess) {
        *driverVersion = 0;
        return cudaSuccess;
    }
    return rt_error(rt_map_error(rt_drv.driverGetVersion(driverVersion)));
}

EXPORT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        return rt_error(cudaErrorInvalidValue);
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}


EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return rt_error(cudaErrorInvalidValue);
    cudaError_t e = rt_init();
    if (e != cudaSuccess) {
        *count = 0;
        return rt_error(e);
    }
    *count = rt_ndev;
    return cudaSuccess;
}

EXPORT cudaError_t cudaSetDevice(int device)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return rt_error(e);
    if (device < 0 || device >= rt_ndev)
        return rt_error(cudaErrorInvalidDevice);
    rt_device = device;
    pthread_mutex_lock(&rt_lock);
    if (!rt_retained[device]) {
        CUresult r = rt_drv.primaryCtxRetain(&rt_primary[device], device);
        if (r != CUDA_SUCCESS) {
            pthread_mutex_unlock(&rt_lock);
            return rt_error(rt_map_error(r));
        }
        rt_retained[device] = 1;
    }
    CUcontext c = rt_primary[device];
    pthread_mutex_unlock(&rt_lock);
    CUresult r = rt_drv.ctxSetCurrent(c);
    if (r == CUDA_SUCCESS)
        rt_ready = __atomic_load_n(&rt_generation, __ATOMIC_ACQUIRE) + 1;
    return rt_error(rt_map_error(r));
}

EXPORT cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    CUdevice d;
    CUresult r = rt_drv.ctxGetDevice_v2(&d, NULL);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *device = d;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceReset(void)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return rt_error(e);
    NEED(primaryCtxReset);
    int dev = rt_device < 0 ? 0 : rt_device;
    unsigned api_version;
    if (rt_drv.ctxGetApiVersion)
        rt_drv.ctxGetApiVersion(NULL, &api_version);
    pthread_mutex_lock(&rt_lock);
    CUresult r = rt_drv.primaryCtxReset(dev);
    rt_retained[dev] = 0; /* the next call retains it again */
    __atomic_add_fetch(&rt_generation, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rt_lock);
    return rt_error(rt_map_error(r));
}

EXPORT cudaError_t cudaDeviceSynchronize(void)
{
    CTX_OR_RETURN();
    NEED(ctxSynchronize);
    CUcontext cur;
    rt_drv.ctxGetCurrent(&cur);
    return rt_error(rt_map_error(rt_drv.ctxSynchronize()));
}

EXPORT cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    CTX_OR_RETURN();
    NEED(memGetInfo);
    return rt_error(rt_map_error(rt_drv.memGetInfo(free_bytes, total)));
}
/* SPDX-License-Identifier: MIT */
