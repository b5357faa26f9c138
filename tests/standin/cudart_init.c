/* The runtime's start-up: the driver loaded and its entry points fetched
 * through cuGetProcAddress as the real runtime does, the devices queried,
 * each thread's context made ready lazily, the primary contexts released
 * at exit. */
#include "cudart_internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

struct rt_driver rt_drv;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static cudaError_t g_init_error = cudaErrorInitializationError;
int rt_ndev;
pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
CUcontext rt_primary[MAX_DEVICES]; /* stays known after a reset */
int rt_retained[MAX_DEVICES];

__thread int rt_device = -1;
/* The thread's context is set up (as of teardown generation rt_ready - 1):
 * later calls go straight to the driver, as NVIDIA's runtime does; a reset
 * or the release at exit starts a new generation. */
__thread unsigned rt_ready;
unsigned rt_generation;

cudaError_t rt_map_error(CUresult r)
{
    switch (r) {
    case CUDA_SUCCESS: return cudaSuccess;
    case CUDA_ERROR_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUDA_ERROR_OUT_OF_MEMORY: return cudaErrorMemoryAllocation;
    case CUDA_ERROR_NOT_INITIALIZED: return cudaErrorInitializationError;
    case CUDA_ERROR_NO_DEVICE: return cudaErrorNoDevice;
    case CUDA_ERROR_INVALID_DEVICE: return cudaErrorInvalidDevice;
    case CUDA_ERROR_INVALID_CONTEXT: return cudaErrorDeviceUninitialized;
    case CUDA_ERROR_INVALID_HANDLE: return cudaErrorInvalidResourceHandle;
    case CUDA_ERROR_NOT_FOUND: return cudaErrorSymbolNotFound;
    case CUDA_ERROR_NOT_SUPPORTED: return cudaErrorNotSupported;
    case CUDA_ERROR_NOT_READY: return cudaErrorNotReady;
    case CUDA_ERROR_CONTEXT_IS_DESTROYED: return cudaErrorContextIsDestroyed;
    case CUDA_ERROR_ILLEGAL_STATE: return cudaErrorIllegalState;
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: return cudaErrorHostMemoryAlreadyRegistered;
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: return cudaErrorHostMemoryNotRegistered;
    default: /* stream capture's errors have the same numbers in both */
        return r >= CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED && r <= CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD
                   ? (cudaError_t)r
                   : cudaErrorUnknown;
    }
}

/* A driver function at VERSION; NULL when the driver does not have it (the
 * runtime calls that need it fail with cudaErrorCallRequiresNewerDriver). */
static void fetch(void **slot, const char *name, int version, int flags)
{
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (rt_drv.getProcAddress(name, slot, version, (cuuint64_t)flags, &st) != CUDA_SUCCESS ||
        st != CU_GET_PROC_ADDRESS_SUCCESS)
        *slot = NULL;
}

/* Every file's RT_DRIVER_FN entries, gathered by the linker. */
extern const struct rt_fetch __start_standin_rt_fetch[] __attribute__((visibility("hidden")));
extern const struct rt_fetch __stop_standin_rt_fetch[] __attribute__((visibility("hidden")));

static void fetch_driver_api(void)
{
    for (const struct rt_fetch *f = __start_standin_rt_fetch; f < __stop_standin_rt_fetch; f++)
        fetch(f->slot, f->name, f->version, f->flags);
}

/* The driver functions of rt_drv, at the versions the real CUDA 13.0
 * runtime asks for. */
RT_DRIVER_FN(rt_drv.driverGetVersion, "cuDriverGetVersion", 2020)
RT_DRIVER_FN(rt_drv.deviceGetCount, "cuDeviceGetCount", 2000)
RT_DRIVER_FN(rt_drv.deviceGet, "cuDeviceGet", 2000)
RT_DRIVER_FN(rt_drv.deviceGetName, "cuDeviceGetName", 2000)
RT_DRIVER_FN(rt_drv.deviceTotalMem, "cuDeviceTotalMem", 3020)
RT_DRIVER_FN(rt_drv.deviceGetUuid, "cuDeviceGetUuid", 11040)
RT_DRIVER_FN(rt_drv.deviceGetAttribute, "cuDeviceGetAttribute", 2000)
RT_DRIVER_FN(rt_drv.primaryCtxRetain, "cuDevicePrimaryCtxRetain", 7000)
RT_DRIVER_FN(rt_drv.primaryCtxRelease, "cuDevicePrimaryCtxRelease", 11000)
RT_DRIVER_FN(rt_drv.primaryCtxReset, "cuDevicePrimaryCtxReset", 11000)
RT_DRIVER_FN(rt_drv.ctxGetCurrent, "cuCtxGetCurrent", 4000)
RT_DRIVER_FN(rt_drv.ctxSetCurrent, "cuCtxSetCurrent", 4000)
RT_DRIVER_FN(rt_drv.ctxGetDevice, "cuCtxGetDevice", 2000)
RT_DRIVER_FN(rt_drv.ctxGetDevice_v2, "cuCtxGetDevice", 13000)
RT_DRIVER_FN(rt_drv.ctxSynchronize, "cuCtxSynchronize", 2000)
RT_DRIVER_FN(rt_drv.ctxSynchronize_v2, "cuCtxSynchronize", 13000)
RT_DRIVER_FN(rt_drv.ctxGetApiVersion, "cuCtxGetApiVersion", 3020)
RT_DRIVER_FN(rt_drv.memGetInfo, "cuMemGetInfo", 3020)
RT_DRIVER_FN(rt_drv.memAlloc, "cuMemAlloc", 3020)
RT_DRIVER_FN(rt_drv.memAllocPitch, "cuMemAllocPitch", 3020)
RT_DRIVER_FN(rt_drv.memAllocManaged, "cuMemAllocManaged", 6000)
RT_DRIVER_FN(rt_drv.memAllocAsync, "cuMemAllocAsync", 11020)
RT_DRIVER_FN_PTSZ(rt_drv.memAllocAsync_ptsz, "cuMemAllocAsync", 11020)
RT_DRIVER_FN(rt_drv.memAllocFromPoolAsync, "cuMemAllocFromPoolAsync", 11020)
RT_DRIVER_FN_PTSZ(rt_drv.memAllocFromPoolAsync_ptsz, "cuMemAllocFromPoolAsync", 11020)
RT_DRIVER_FN(rt_drv.memFree, "cuMemFree", 3020)
RT_DRIVER_FN(rt_drv.memFreeAsync, "cuMemFreeAsync", 11020)
RT_DRIVER_FN_PTSZ(rt_drv.memFreeAsync_ptsz, "cuMemFreeAsync", 11020)
RT_DRIVER_FN(rt_drv.memAllocHost, "cuMemAllocHost", 3020)
RT_DRIVER_FN(rt_drv.memHostAlloc, "cuMemHostAlloc", 2020)
RT_DRIVER_FN(rt_drv.memFreeHost, "cuMemFreeHost", 2000)
RT_DRIVER_FN(rt_drv.graphAddMemAllocNode, "cuGraphAddMemAllocNode", 11040)
RT_DRIVER_FN(rt_drv.arrayCreate, "cuArrayCreate", 3020)
RT_DRIVER_FN(rt_drv.array3DCreate, "cuArray3DCreate", 3020)
RT_DRIVER_FN(rt_drv.arrayDestroy, "cuArrayDestroy", 2000)
RT_DRIVER_FN(rt_drv.mipmappedArrayCreate, "cuMipmappedArrayCreate", 5000)
RT_DRIVER_FN(rt_drv.mipmappedArrayDestroy, "cuMipmappedArrayDestroy", 5000)
RT_DRIVER_FN(rt_drv.deviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", 11020)
RT_DRIVER_FN(rt_drv.memPoolCreate, "cuMemPoolCreate", 11020)
RT_DRIVER_FN(rt_drv.memPoolDestroy, "cuMemPoolDestroy", 11020)
RT_DRIVER_FN(rt_drv.memPoolTrimTo, "cuMemPoolTrimTo", 11020)
RT_DRIVER_FN(rt_drv.streamCreate, "cuStreamCreate", 2000)
RT_DRIVER_FN(rt_drv.streamDestroy, "cuStreamDestroy", 4000)
RT_DRIVER_FN(rt_drv.streamSynchronize, "cuStreamSynchronize", 2000)
RT_DRIVER_FN(rt_drv.memcpy_, "cuMemcpy", 4000)
RT_DRIVER_FN(rt_drv.memsetD8, "cuMemsetD8", 3020)

#define ATTRIBUTES_READ 112 /* cuDeviceGetAttribute calls per device at start-up */

/* What the runtime learns of each device on its first call. */
static void query_devices(void)
{
    char name[256];
    size_t total;
    CUuuid uuid;
    CUdevice dev;
    int value;
    for (int i = 0; i < rt_ndev; i++) {
        if (rt_drv.deviceGet(&dev, i) != CUDA_SUCCESS)
            continue;
        rt_drv.deviceGetName(name, (int)sizeof name, dev);
        rt_drv.deviceTotalMem(&total, dev);
        if (rt_drv.deviceGetUuid)
            rt_drv.deviceGetUuid(&uuid, dev);
        for (int attribute = 1; attribute <= ATTRIBUTES_READ; attribute++)
            rt_drv.deviceGetAttribute(&value, attribute, dev);
    }
}

static void release_primary_contexts(void);

static void load_driver(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        g_init_error = cudaErrorInsufficientDriver;
        return;
    }
    cuGetProcAddress_v2_fn boot = (cuGetProcAddress_v2_fn)dlsym(h, "cuGetProcAddress_v2");
    if (!boot) {
        g_init_error = cudaErrorInsufficientDriver;
        return;
    }
    void *probe = NULL, *gpa11030 = NULL, *gpa = NULL;
    CUdriverProcAddressQueryResult st;
    boot("", &probe, 0, 0, &st); /* "not found" is the expected answer */
    if (boot("cuInit", (void **)&rt_drv.init, 2000, 0, &st) != CUDA_SUCCESS || !rt_drv.init ||
        boot("cuGetProcAddress", &gpa11030, 11030, 0, &st) != CUDA_SUCCESS ||
        boot("cuGetProcAddress", &gpa, 12000, 0, &st) != CUDA_SUCCESS || !gpa) {
        g_init_error = cudaErrorInsufficientDriver;
        return;
    }
    rt_drv.getProcAddress = (cuGetProcAddress_v2_fn)gpa;
    fetch_driver_api();
    int version = 0;
    if (!rt_drv.driverGetVersion || !rt_drv.deviceGetCount || !rt_drv.deviceGet || !rt_drv.deviceGetName ||
        !rt_drv.deviceTotalMem || !rt_drv.deviceGetAttribute || !rt_drv.ctxGetCurrent ||
        !rt_drv.ctxSetCurrent || !rt_drv.primaryCtxRetain || !rt_drv.ctxGetDevice_v2 ||
        rt_drv.driverGetVersion(&version) != CUDA_SUCCESS || version < CUDART_VERSION) {
        /* NVIDIA's runtime unloads a driver it refuses */
        memset(&rt_drv, 0, sizeof rt_drv);
        dlclose(h);
        g_init_error = cudaErrorInsufficientDriver;
        return;
    }
    CUresult r = rt_drv.init(0);
    if (r != CUDA_SUCCESS) {
        g_init_error = r == CUDA_ERROR_NO_DEVICE ? cudaErrorNoDevice : rt_map_error(r);
        return;
    }
    if (rt_drv.deviceGetCount(&rt_ndev) != CUDA_SUCCESS || rt_ndev <= 0) {
        g_init_error = cudaErrorNoDevice;
        return;
    }
    if (rt_ndev > MAX_DEVICES)
        rt_ndev = MAX_DEVICES;
    query_devices();
    atexit(release_primary_contexts);
    g_init_error = cudaSuccess;
}

cudaError_t rt_init(void)
{
    pthread_once(&g_once, load_driver);
    return g_init_error;
}

/* Process exit: the primary contexts the runtime still holds are released
 * (the driver destroys them with whatever memory is left in them). */
static void release_primary_contexts(void)
{
    pthread_mutex_lock(&rt_lock);
    for (int dev = 0; dev < rt_ndev; dev++)
        if (rt_retained[dev] && rt_drv.primaryCtxRelease) {
            rt_drv.primaryCtxRelease(dev);
            rt_retained[dev] = 0;
        }
    __atomic_add_fetch(&rt_generation, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rt_lock);
}

static int is_runtime_primary(CUcontext c)
{
    for (int i = 0; i < rt_ndev; i++)
        if (rt_primary[i] && rt_primary[i] == c)
            return 1;
    return 0;
}

/* Makes sure the calling thread has a usable context, as the runtime's
 * lazy initialization does: a context the program made current through the
 * driver API is used as is; otherwise the primary context of the thread's
 * device (0 unless cudaSetDevice chose another), retained once per device
 * and again after cudaDeviceReset. */
cudaError_t rt_context(void)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return e;
    if (rt_ready == __atomic_load_n(&rt_generation, __ATOMIC_ACQUIRE) + 1)
        return cudaSuccess;
    CUcontext cur = NULL;
    CUdevice of_current;
    rt_drv.ctxGetCurrent(&cur);
    pthread_mutex_lock(&rt_lock);
    /* The program's own context (driver API) is used as is, unless it is
     * destroyed (one a runtime unloaded before this one released). */
    if (cur && !is_runtime_primary(cur) && rt_drv.ctxGetDevice_v2(&of_current, cur) == CUDA_SUCCESS) {
        pthread_mutex_unlock(&rt_lock);
        return cudaSuccess;
    }
    int dev = rt_device < 0 ? 0 : rt_device;
    if (!rt_retained[dev]) {
        CUresult r = rt_drv.primaryCtxRetain(&rt_primary[dev], dev);
        if (r != CUDA_SUCCESS) {
            pthread_mutex_unlock(&rt_lock);
            return rt_map_error(r);
        }
        rt_retained[dev] = 1;
    }
    CUcontext want = rt_primary[dev];
    pthread_mutex_unlock(&rt_lock);
    rt_device = dev;
    if (cur != want) {
        CUdevice check;
        CUresult r = rt_drv.ctxSetCurrent(want);
        if (r == CUDA_SUCCESS)
            r = rt_drv.ctxGetDevice_v2(&check, NULL);
        if (r != CUDA_SUCCESS)
            return rt_map_error(r);
    }
    rt_ready = __atomic_load_n(&rt_generation, __ATOMIC_ACQUIRE) + 1;
    return cudaSuccess;
}
/* SPDX-License-Identifier: MIT */
