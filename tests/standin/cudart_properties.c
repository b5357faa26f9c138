/* SPDX-License-Identifier: MIT */
/* Devices' attributes and properties, from the driver's attributes as the
 * real runtime reads them; peers and their access, the devices' flags, PCI
 * bus ids, the profiler. */
#include "cudart_internal.h"

#include <string.h>

static CUresult (*pci_bus_id)(char *, int, CUdevice);
static CUresult (*can_access_peer)(int *, CUdevice, CUdevice);
RT_DRIVER_FN(pci_bus_id, "cuDeviceGetPCIBusId", 4010)
RT_DRIVER_FN(can_access_peer, "cuDeviceCanAccessPeer", 4000)
static CUresult (*p2p_attribute)(int *, CUdevice_P2PAttribute, CUdevice, CUdevice);
RT_DRIVER_FN(p2p_attribute, "cuDeviceGetP2PAttribute", 8000)

static cudaError_t valid_device(int device)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return e;
    return device >= 0 && device < rt_ndev ? cudaSuccess : cudaErrorInvalidDevice;
}

EXPORT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (!value)
        return rt_error(cudaErrorInvalidValue);
    cudaError_t e = valid_device(device);
    if (e != cudaSuccess)
        return rt_error(e);
    return rt_error(rt_map_error(rt_drv.deviceGetAttribute(value, (int)attr, device)));
}

/* The driver's attribute ATTR of DEVICE (0 where it has none). */
static int attribute(int attr, int device)
{
    int v = 0;
    rt_drv.deviceGetAttribute(&v, attr, device);
    return v;
}

static void fill_limits(struct cudaDeviceProp *p, int d)
{
    p->sharedMemPerBlock = (size_t)attribute(8, d);
    p->regsPerBlock = attribute(12, d);
    p->warpSize = attribute(10, d);
    p->memPitch = (size_t)attribute(11, d);
    p->maxThreadsPerBlock = attribute(1, d);
    for (int i = 0; i < 3; i++) {
        p->maxThreadsDim[i] = attribute(2 + i, d);
        p->maxGridSize[i] = attribute(5 + i, d);
    }
    p->totalConstMem = (size_t)attribute(9, d);
    p->major = attribute(75, d);
    p->minor = attribute(76, d);
    p->textureAlignment = (size_t)attribute(14, d);
    p->texturePitchAlignment = (size_t)attribute(51, d);
    p->multiProcessorCount = attribute(16, d);
    p->integrated = attribute(18, d);
    p->canMapHostMemory = attribute(19, d);
    p->surfaceAlignment = (size_t)attribute(30, d);
    p->concurrentKernels = attribute(31, d);
    p->ECCEnabled = attribute(32, d);
    p->pciBusID = attribute(33, d);
    p->pciDeviceID = attribute(34, d);
    p->pciDomainID = attribute(50, d);
    p->asyncEngineCount = attribute(40, d);
    p->unifiedAddressing = attribute(41, d);
    p->memoryBusWidth = attribute(37, d);
    p->l2CacheSize = attribute(38, d);
    p->persistingL2CacheMaxSize = attribute(108, d);
    p->maxThreadsPerMultiProcessor = attribute(39, d);
}

static void fill_features(struct cudaDeviceProp *p, int d)
{
    p->streamPrioritiesSupported = attribute(78, d);
    p->globalL1CacheSupported = attribute(79, d);
    p->localL1CacheSupported = attribute(80, d);
    p->sharedMemPerMultiprocessor = (size_t)attribute(81, d);
    p->regsPerMultiprocessor = attribute(82, d);
    p->managedMemory = attribute(83, d);
    p->concurrentManagedAccess = attribute(89, d);
    p->computePreemptionSupported = attribute(90, d);
    p->canUseHostPointerForRegisteredMem = attribute(91, d);
    p->cooperativeLaunch = attribute(95, d);
    p->sharedMemPerBlockOptin = (size_t)attribute(97, d);
    p->maxBlocksPerMultiProcessor = attribute(106, d);
    p->accessPolicyMaxWindowSize = attribute(109, d);
    p->reservedSharedMemPerBlock = (size_t)attribute(111, d);
    p->hostRegisterSupported = attribute(99, d);
    p->sparseCudaArraySupported = attribute(112, d);
    p->hostRegisterReadOnlySupported = attribute(113, d);
    p->timelineSemaphoreInteropSupported = attribute(114, d);
    p->memoryPoolsSupported = attribute(115, d);
    p->gpuDirectRDMASupported = attribute(116, d);
    p->memoryPoolSupportedHandleTypes = (unsigned)attribute(119, d);
    p->clusterLaunch = attribute(120, d);
    p->ipcEventSupported = attribute(125, d);
    p->unifiedFunctionPointers = attribute(129, d);
    p->deviceNumaId = attribute(131, d);
    p->hostNumaId = attribute(134, d);
}

EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (!prop)
        return rt_error(cudaErrorInvalidValue);
    cudaError_t e = valid_device(device);
    if (e != cudaSuccess)
        return rt_error(e);
    memset(prop, 0, sizeof *prop);
    rt_drv.deviceGetName(prop->name, (int)sizeof prop->name, device);
    rt_drv.deviceTotalMem(&prop->totalGlobalMem, device);
    if (rt_drv.deviceGetUuid)
        rt_drv.deviceGetUuid(&prop->uuid, device);
    fill_limits(prop, device);
    fill_features(prop, device);
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return rt_error(e);
    if (!can_access_peer)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return rt_error(rt_map_error(can_access_peer(canAccessPeer, device, peerDevice)));
}

/* The runtime's attributes of a link are the driver's, by the same numbers. */
EXPORT cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr,
                                             int srcDevice, int dstDevice)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return rt_error(e);
    if (!p2p_attribute)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return rt_error(rt_map_error(
        p2p_attribute(value, (CUdevice_P2PAttribute)attr, srcDevice, dstDevice)));
}

/* Which peers each device's context may reach (bit p: device p), and the
 * flags cudaSetDeviceFlags gave each device's primary context. */
static unsigned peer_access[MAX_DEVICES];
static unsigned device_flags[MAX_DEVICES];

static cudaError_t peer_of_current(int peerDevice, int *device)
{
    cudaError_t e = rt_context();
    if (e == cudaSuccess)
        e = valid_device(peerDevice);
    if (e == cudaSuccess && peerDevice == rt_device)
        e = cudaErrorInvalidDevice;
    *device = rt_device;
    return e;
}

EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    int device;
    if (flags)
        return rt_error(cudaErrorInvalidValue);
    cudaError_t e = peer_of_current(peerDevice, &device);
    if (e != cudaSuccess)
        return rt_error(e);
    unsigned bit = 1u << peerDevice;
    unsigned before = __atomic_fetch_or(&peer_access[device], bit, __ATOMIC_ACQ_REL);
    return before & bit ? rt_error(cudaErrorPeerAccessAlreadyEnabled) : cudaSuccess;
}

EXPORT cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    int device;
    cudaError_t e = peer_of_current(peerDevice, &device);
    if (e != cudaSuccess)
        return rt_error(e);
    unsigned bit = 1u << peerDevice;
    unsigned before = __atomic_fetch_and(&peer_access[device], ~bit, __ATOMIC_ACQ_REL);
    return before & bit ? cudaSuccess : rt_error(cudaErrorPeerAccessNotEnabled);
}

/* The scheduling policy (one of them), cudaDeviceMapHost,
 * cudaDeviceLmemResizeToMax, cudaDeviceSyncMemops. */
#define DEVICE_FLAGS_VALID 0x9fu

EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    unsigned schedule = flags & 0x07u;
    if ((flags & ~DEVICE_FLAGS_VALID) || (schedule && schedule != 1 && schedule != 2 &&
                                          schedule != 4))
        return rt_error(cudaErrorInvalidValue);
    int device = rt_device < 0 ? 0 : rt_device;
    cudaError_t e = valid_device(device);
    if (e != cudaSuccess)
        return rt_error(e);
    __atomic_store_n(&device_flags[device], flags, __ATOMIC_RELEASE);
    return cudaSuccess;
}

/* Host memory is always mapped (unified addressing), as the real runtime
 * reports. */
EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags)
        return rt_error(cudaErrorInvalidValue);
    int device = rt_device < 0 ? 0 : rt_device;
    cudaError_t e = valid_device(device);
    if (e != cudaSuccess)
        return rt_error(e);
    *flags = __atomic_load_n(&device_flags[device], __ATOMIC_ACQUIRE) | cudaDeviceMapHost;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    cudaError_t e = valid_device(device);
    if (e != cudaSuccess)
        return rt_error(e);
    if (!pci_bus_id)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return rt_error(rt_map_error(pci_bus_id(pciBusId, len, device)));
}

/* No profiler is attached to the stand-ins: starting and stopping it
 * succeed and do nothing, as without one. */
EXPORT cudaError_t cudaProfilerStart(void)
{
    return cudaSuccess;
}

EXPORT cudaError_t cudaProfilerStop(void)
{
    return cudaSuccess;
}
