/* Initialization and the devices: cuInit, the driver version, device
 * ordinals, identities and attributes. */
#include "driver_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


EXPORT CUresult cuInit(unsigned int flags)
{
    standin_log("cuInit %u", flags);
    ensure_setup();
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (g_ndev == 0)
        return CUDA_ERROR_NO_DEVICE;
    __atomic_store_n(&g_initialized, 1, __ATOMIC_RELEASE);
    return CUDA_SUCCESS;
}

/* 13000, or STANDIN_CUDA_DRIVER_VERSION (an older driver). */
EXPORT CUresult cuDriverGetVersion(int *driverVersion)
{
    const char *version = getenv("STANDIN_CUDA_DRIVER_VERSION");
    standin_log("cuDriverGetVersion");
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = version && *version ? atoi(version) : 13000;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    standin_log("cuDeviceGet %d", ordinal);
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int *count)
{
    standin_log("cuDeviceGetCount");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = g_ndev;
    return CUDA_SUCCESS;
}

/* ---- device identity: the stand-in GPU behind each ordinal ---- */

static const struct sg_gpu *gpu_of(CUdevice dev)
{
    return dev >= 0 && dev < g_ndev ? sg_gpu(g_dev[dev].physical) : NULL;
}

/* Checks shared by the identity queries: initialized, OUT set, DEV valid. */
static CUresult identity_query(const void *out, CUdevice dev, const struct sg_gpu **gpu)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    *gpu = gpu_of(dev);
    return *gpu ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

/* Copies S into OUT (LEN bytes), cut to fit, as the driver does. */
static CUresult copy_text(char *out, int len, const char *s)
{
    if (len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(out, (size_t)len, "%s", s);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    const struct sg_gpu *gpu;
    standin_log("cuDeviceGetName %d", dev);
    CUresult r = identity_query(name, dev, &gpu);
    return r ? r : copy_text(name, len, gpu->name);
}

EXPORT CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    const struct sg_gpu *gpu;
    CUresult r = identity_query(pciBusId, dev, &gpu);
    return r ? r : copy_text(pciBusId, len, gpu->pci_bus_id);
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    const struct sg_gpu *gpu;
    standin_log("cuDeviceTotalMem_v2 %d", dev);
    CUresult r = identity_query(bytes, dev, &gpu);
    if (r == CUDA_SUCCESS)
        *bytes = gpu->capacity;
    return r;
}

EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    const struct sg_gpu *gpu;
    standin_log("cuDeviceGetUuid_v2 %d", dev);
    CUresult r = identity_query(uuid, dev, &gpu);
    if (r == CUDA_SUCCESS)
        memcpy(uuid->bytes, gpu->uuid, sizeof uuid->bytes);
    return r;
}

/* Before CUDA 11.4: the stand-in answers as _v2 does. */
EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    return cuDeviceGetUuid_v2(uuid, dev);
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuInit", 2000, cuInit)
PROC("cuDriverGetVersion", 2020, cuDriverGetVersion)
PROC("cuDeviceGet", 2000, cuDeviceGet)
PROC("cuDeviceGetCount", 2000, cuDeviceGetCount)
PROC("cuDeviceGetName", 2000, cuDeviceGetName)
PROC("cuDeviceGetPCIBusId", 4010, cuDeviceGetPCIBusId)
PROC("cuDeviceTotalMem", 3020, cuDeviceTotalMem_v2)
PROC("cuDeviceGetUuid", 9020, cuDeviceGetUuid)
PROC("cuDeviceGetUuid", 11040, cuDeviceGetUuid_v2)
/* SPDX-License-Identifier: MIT */
