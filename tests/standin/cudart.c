/* Stand-in CUDA runtime (libcudart.so.13, and the same source as a static
 * library standing for nvcc's default cudart_static).
 *
 * It reaches the driver exactly as the real CUDA 13 runtime does
 * (shared/real-runtime.md): on first use it dlopens libcuda.so.1 (RTLD_NOW |
 * RTLD_LOCAL), dlsyms "cuGetProcAddress_v2", probes it with an empty name,
 * asks it for "cuInit" and for "cuGetProcAddress" at versions 11030 and 12000,
 * and from then on gets every driver function through the 12000 pointer, at
 * the versions the real runtime asks for.  It imports no cu* symbol and calls
 * no driver function by name.  A driver below 13000 fails start-up with
 * cudaErrorInsufficientDriver; a driver function it does not get fails the
 * calls that need it with cudaErrorCallRequiresNewerDriver.  At exit it
 * releases the primary contexts it retained.
 * Everything but the cuda* API is static; the shared library is linked with
 * -Bsymbolic-functions, so its own calls never go through an interposable
 * exported name. */
#include "cuda.h"
#include "cudart_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVICES 16

typedef CUresult (*cuInit_fn)(unsigned int);
typedef CUresult (*cuDriverGetVersion_fn)(int *);
typedef CUresult (*cuDeviceGetCount_fn)(int *);
typedef CUresult (*cuDevicePrimaryCtxRetain_fn)(CUcontext *, CUdevice);
typedef CUresult (*cuCtxSetCurrent_fn)(CUcontext);
typedef CUresult (*cuCtxSynchronize_fn)(void);
typedef CUresult (*cuCtxSynchronize_v2_fn)(CUcontext);
typedef CUresult (*cuCtxGetDevice_v2_fn)(CUdevice *, CUcontext);
typedef CUresult (*cuCtxGetApiVersion_fn)(CUcontext, unsigned int *);
typedef CUresult (*cuDeviceGet_fn)(CUdevice *, int);
typedef CUresult (*cuDeviceGetName_fn)(char *, int, CUdevice);
typedef CUresult (*cuDeviceTotalMem_v2_fn)(size_t *, CUdevice);
typedef CUresult (*cuDeviceGetUuid_v2_fn)(CUuuid *, CUdevice);
typedef CUresult (*cuDeviceGetAttribute_fn)(int *, int, CUdevice);
typedef CUresult (*cuMemPoolCreate_fn)(CUmemoryPool *, const CUmemPoolProps *);
typedef CUresult (*cuMemPoolDestroy_fn)(CUmemoryPool);
typedef CUresult (*cuMemPoolTrimTo_fn)(CUmemoryPool, size_t);
typedef CUresult (*cuMipmappedArrayCreate_fn)(CUmipmappedArray *, const CUDA_ARRAY3D_DESCRIPTOR *,
                                              unsigned int);
typedef CUresult (*cuMipmappedArrayDestroy_fn)(CUmipmappedArray);
typedef CUresult (*cuDeviceGetDefaultMemPool_fn)(CUmemoryPool *, CUdevice);
typedef CUresult (*cuStreamCreate_fn)(CUstream *, unsigned int);
typedef CUresult (*cuStreamDestroy_v2_fn)(CUstream);
typedef CUresult (*cuStreamSynchronize_fn)(CUstream);
typedef CUresult (*cuMemcpy_fn)(CUdeviceptr, CUdeviceptr, size_t);
typedef CUresult (*cuMemsetD8_v2_fn)(CUdeviceptr, unsigned char, size_t);

/* The driver, as the runtime sees it: every entry through cuGetProcAddress. */
static struct {
    cuGetProcAddress_v2_fn getProcAddress;
    cuInit_fn init;
    cuDriverGetVersion_fn driverGetVersion;
    cuDeviceGetCount_fn deviceGetCount;
    cuDevicePrimaryCtxRetain_fn primaryCtxRetain;
    cuDevicePrimaryCtxRelease_v2_fn primaryCtxRelease;
    cuDevicePrimaryCtxReset_v2_fn primaryCtxReset;
    cuCtxGetCurrent_fn ctxGetCurrent;
    cuCtxSetCurrent_fn ctxSetCurrent;
    cuCtxGetDevice_fn ctxGetDevice;
    cuCtxGetDevice_v2_fn ctxGetDevice_v2;
    cuCtxSynchronize_fn ctxSynchronize;
    cuCtxSynchronize_v2_fn ctxSynchronize_v2;
    cuCtxGetApiVersion_fn ctxGetApiVersion;
    cuDeviceGet_fn deviceGet;
    cuDeviceGetName_fn deviceGetName;
    cuDeviceTotalMem_v2_fn deviceTotalMem;
    cuDeviceGetUuid_v2_fn deviceGetUuid;
    cuDeviceGetAttribute_fn deviceGetAttribute;
    cuMemPoolCreate_fn memPoolCreate;
    cuMemPoolDestroy_fn memPoolDestroy;
    cuMemPoolTrimTo_fn memPoolTrimTo;
    cuMipmappedArrayCreate_fn mipmappedArrayCreate;
    cuMipmappedArrayDestroy_fn mipmappedArrayDestroy;
    cuArray3DCreate_v2_fn array3DCreate;
    void *graphAddMemAllocNode; /* asked for, as the real runtime does; unused */
    cuMemGetInfo_v2_fn memGetInfo;
    cuMemAlloc_v2_fn memAlloc;
    cuMemAllocPitch_v2_fn memAllocPitch;
    cuMemAllocManaged_fn memAllocManaged;
    cuMemAllocAsync_fn memAllocAsync, memAllocAsync_ptsz;
    cuMemAllocFromPoolAsync_fn memAllocFromPoolAsync, memAllocFromPoolAsync_ptsz;
    cuMemFree_v2_fn memFree;
    cuMemFreeAsync_fn memFreeAsync, memFreeAsync_ptsz;
    cuMemAllocHost_v2_fn memAllocHost;
    cuMemHostAlloc_fn memHostAlloc;
    cuMemFreeHost_fn memFreeHost;
    cuArrayCreate_v2_fn arrayCreate;
    cuArrayDestroy_fn arrayDestroy;
    cuDeviceGetDefaultMemPool_fn deviceGetDefaultMemPool;
    cuStreamCreate_fn streamCreate;
    cuStreamDestroy_v2_fn streamDestroy;
    cuStreamSynchronize_fn streamSynchronize;
    cuMemcpy_fn memcpy_;
    cuMemsetD8_v2_fn memsetD8;
} drv;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static cudaError_t g_init_error = cudaErrorInitializationError;
static int g_ndev;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext g_primary[MAX_DEVICES]; /* stays known after a reset */
static int g_retained[MAX_DEVICES];

static __thread int t_device = -1;
/* The thread's context is set up (as of teardown generation t_ready - 1):
 * later calls go straight to the driver, as NVIDIA's runtime does; a reset
 * or the release at exit starts a new generation. */
static __thread unsigned t_ready;
static unsigned g_generation;
static __thread cudaError_t t_last_error;

static cudaError_t map_error(CUresult r)
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
    default: return cudaErrorUnknown;
    }
}

/* Records a failure as cudaGetLastError reports it. */
static cudaError_t ret(cudaError_t e)
{
    if (e != cudaSuccess)
        t_last_error = e;
    return e;
}

/* A driver function at VERSION; NULL when the driver does not have it (the
 * runtime calls that need it fail with cudaErrorCallRequiresNewerDriver). */
static void fetch(void **slot, const char *name, int version, int flags)
{
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (drv.getProcAddress(name, slot, version, (cuuint64_t)flags, &st) != CUDA_SUCCESS ||
        st != CU_GET_PROC_ADDRESS_SUCCESS)
        *slot = NULL;
}

/* The versions the real CUDA 13.0 runtime asks for. */
static void fetch_driver_api(void)
{
#define F(field, name, ver) fetch((void **)&drv.field, name, ver, CU_GET_PROC_ADDRESS_DEFAULT)
#define FZ(field, name, ver) \
    fetch((void **)&drv.field##_ptsz, name, ver, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
    F(driverGetVersion, "cuDriverGetVersion", 2020);
    F(deviceGetCount, "cuDeviceGetCount", 2000);
    F(deviceGet, "cuDeviceGet", 2000);
    F(deviceGetName, "cuDeviceGetName", 2000);
    F(deviceTotalMem, "cuDeviceTotalMem", 3020);
    F(deviceGetUuid, "cuDeviceGetUuid", 11040);
    F(deviceGetAttribute, "cuDeviceGetAttribute", 2000);
    F(primaryCtxRetain, "cuDevicePrimaryCtxRetain", 7000);
    F(primaryCtxRelease, "cuDevicePrimaryCtxRelease", 11000);
    F(primaryCtxReset, "cuDevicePrimaryCtxReset", 11000);
    F(ctxGetCurrent, "cuCtxGetCurrent", 4000);
    F(ctxSetCurrent, "cuCtxSetCurrent", 4000);
    F(ctxGetDevice, "cuCtxGetDevice", 2000);
    F(ctxGetDevice_v2, "cuCtxGetDevice", 13000);
    F(ctxSynchronize, "cuCtxSynchronize", 2000);
    F(ctxSynchronize_v2, "cuCtxSynchronize", 13000);
    F(ctxGetApiVersion, "cuCtxGetApiVersion", 3020);
    F(memGetInfo, "cuMemGetInfo", 3020);
    F(memAlloc, "cuMemAlloc", 3020);
    F(memAllocPitch, "cuMemAllocPitch", 3020);
    F(memAllocManaged, "cuMemAllocManaged", 6000);
    F(memAllocAsync, "cuMemAllocAsync", 11020);
    FZ(memAllocAsync, "cuMemAllocAsync", 11020);
    F(memAllocFromPoolAsync, "cuMemAllocFromPoolAsync", 11020);
    FZ(memAllocFromPoolAsync, "cuMemAllocFromPoolAsync", 11020);
    F(memFree, "cuMemFree", 3020);
    F(memFreeAsync, "cuMemFreeAsync", 11020);
    FZ(memFreeAsync, "cuMemFreeAsync", 11020);
    F(memAllocHost, "cuMemAllocHost", 3020);
    F(memHostAlloc, "cuMemHostAlloc", 2020);
    F(memFreeHost, "cuMemFreeHost", 2000);
    F(graphAddMemAllocNode, "cuGraphAddMemAllocNode", 11040);
    F(arrayCreate, "cuArrayCreate", 3020);
    F(array3DCreate, "cuArray3DCreate", 3020);
    F(arrayDestroy, "cuArrayDestroy", 2000);
    F(mipmappedArrayCreate, "cuMipmappedArrayCreate", 5000);
    F(mipmappedArrayDestroy, "cuMipmappedArrayDestroy", 5000);
    F(deviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", 11020);
    F(memPoolCreate, "cuMemPoolCreate", 11020);
    F(memPoolDestroy, "cuMemPoolDestroy", 11020);
    F(memPoolTrimTo, "cuMemPoolTrimTo", 11020);
    F(streamCreate, "cuStreamCreate", 2000);
    F(streamDestroy, "cuStreamDestroy", 4000);
    F(streamSynchronize, "cuStreamSynchronize", 2000);
    F(memcpy_, "cuMemcpy", 4000);
    F(memsetD8, "cuMemsetD8", 3020);
#undef F
#undef FZ
}

#define ATTRIBUTES_READ 112 /* cuDeviceGetAttribute calls per device at start-up */

/* What the runtime learns of each device on its first call. */
static void query_devices(void)
{
    char name[256];
    size_t total;
    CUuuid uuid;
    CUdevice dev;
    int value;
    for (int i = 0; i < g_ndev; i++) {
        if (drv.deviceGet(&dev, i) != CUDA_SUCCESS)
            continue;
        drv.deviceGetName(name, (int)sizeof name, dev);
        drv.deviceTotalMem(&total, dev);
        if (drv.deviceGetUuid)
            drv.deviceGetUuid(&uuid, dev);
        for (int attribute = 1; attribute <= ATTRIBUTES_READ; attribute++)
            drv.deviceGetAttribute(&value, attribute, dev);
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
    if (boot("cuInit", (void **)&drv.init, 2000, 0, &st) != CUDA_SUCCESS || !drv.init ||
        boot("cuGetProcAddress", &gpa11030, 11030, 0, &st) != CUDA_SUCCESS ||
        boot("cuGetProcAddress", &gpa, 12000, 0, &st) != CUDA_SUCCESS || !gpa) {
        g_init_error = cudaErrorInsufficientDriver;
        return;
    }
    drv.getProcAddress = (cuGetProcAddress_v2_fn)gpa;
    fetch_driver_api();
    int version = 0;
    if (!drv.driverGetVersion || !drv.deviceGetCount || !drv.deviceGet || !drv.deviceGetName ||
        !drv.deviceTotalMem || !drv.deviceGetAttribute || !drv.ctxGetCurrent ||
        !drv.ctxSetCurrent || !drv.primaryCtxRetain || !drv.ctxGetDevice_v2 ||
        drv.driverGetVersion(&version) != CUDA_SUCCESS || version < CUDART_VERSION) {
        g_init_error = cudaErrorInsufficientDriver;
        return;
    }
    CUresult r = drv.init(0);
    if (r != CUDA_SUCCESS) {
        g_init_error = r == CUDA_ERROR_NO_DEVICE ? cudaErrorNoDevice : map_error(r);
        return;
    }
    if (drv.deviceGetCount(&g_ndev) != CUDA_SUCCESS || g_ndev <= 0) {
        g_init_error = cudaErrorNoDevice;
        return;
    }
    if (g_ndev > MAX_DEVICES)
        g_ndev = MAX_DEVICES;
    query_devices();
    atexit(release_primary_contexts);
    g_init_error = cudaSuccess;
}

static cudaError_t rt_init(void)
{
    pthread_once(&g_once, load_driver);
    return g_init_error;
}

/* Process exit: the primary contexts the runtime still holds are released
 * (the driver destroys them with whatever memory is left in them). */
static void release_primary_contexts(void)
{
    pthread_mutex_lock(&g_lock);
    for (int dev = 0; dev < g_ndev; dev++)
        if (g_retained[dev] && drv.primaryCtxRelease) {
            drv.primaryCtxRelease(dev);
            g_retained[dev] = 0;
        }
    __atomic_add_fetch(&g_generation, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_lock);
}

static int is_runtime_primary(CUcontext c)
{
    for (int i = 0; i < g_ndev; i++)
        if (g_primary[i] && g_primary[i] == c)
            return 1;
    return 0;
}

/* Makes sure the calling thread has a usable context, as the runtime's
 * lazy initialization does: a context the program made current through the
 * driver API is used as is; otherwise the primary context of the thread's
 * device (0 unless cudaSetDevice chose another), retained once per device
 * and again after cudaDeviceReset. */
static cudaError_t rt_ctx(void)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return e;
    if (t_ready == __atomic_load_n(&g_generation, __ATOMIC_ACQUIRE) + 1)
        return cudaSuccess;
    CUcontext cur = NULL;
    CUdevice of_current;
    drv.ctxGetCurrent(&cur);
    pthread_mutex_lock(&g_lock);
    /* The program's own context (driver API) is used as is, unless it is
     * destroyed (one a runtime unloaded before this one released). */
    if (cur && !is_runtime_primary(cur) && drv.ctxGetDevice_v2(&of_current, cur) == CUDA_SUCCESS) {
        pthread_mutex_unlock(&g_lock);
        return cudaSuccess;
    }
    int dev = t_device < 0 ? 0 : t_device;
    if (!g_retained[dev]) {
        CUresult r = drv.primaryCtxRetain(&g_primary[dev], dev);
        if (r != CUDA_SUCCESS) {
            pthread_mutex_unlock(&g_lock);
            return map_error(r);
        }
        g_retained[dev] = 1;
    }
    CUcontext want = g_primary[dev];
    pthread_mutex_unlock(&g_lock);
    t_device = dev;
    if (cur != want) {
        CUdevice check;
        CUresult r = drv.ctxSetCurrent(want);
        if (r == CUDA_SUCCESS)
            r = drv.ctxGetDevice_v2(&check, NULL);
        if (r != CUDA_SUCCESS)
            return map_error(r);
    }
    t_ready = __atomic_load_n(&g_generation, __ATOMIC_ACQUIRE) + 1;
    return cudaSuccess;
}

cudaError_t standin_rt_context(void)
{
    return rt_ctx();
}

cudaError_t standin_rt_error(cudaError_t e)
{
    return ret(e);
}

/* A driver function the runtime did not get from the driver. */
#define cudaErrorCallRequiresNewerDriver 36
#define NEED(fn)                                                        \
    do {                                                                \
        if (!drv.fn)                                                    \
            return ret((cudaError_t)cudaErrorCallRequiresNewerDriver); \
    } while (0)

#define CTX_OR_RETURN()                 \
    do {                                \
        cudaError_t e_ = rt_ctx();      \
        if (e_ != cudaSuccess)          \
            return ret(e_);             \
    } while (0)

/* ---- errors, versions ---- */

static const struct { cudaError_t code; const char *name, *text; } errors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorDeviceUninitialized, "cudaErrorDeviceUninitialized", "invalid device context"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

EXPORT const char *cudaGetErrorString(cudaError_t error)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == error)
            return errors[i].text;
    return "unrecognized error code";
}

EXPORT const char *cudaGetErrorName(cudaError_t error)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == error)
            return errors[i].name;
    return "cudaErrorUnknown";
}

EXPORT cudaError_t cudaGetLastError(void)
{
    cudaError_t e = t_last_error;
    t_last_error = cudaSuccess;
    return e;
}

EXPORT cudaError_t cudaPeekAtLastError(void)
{
    return t_last_error;
}

EXPORT cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return ret(cudaErrorInvalidValue);
    if (rt_init() != cudaSuccess) {
        *driverVersion = 0;
        return cudaSuccess;
    }
    return ret(map_error(drv.driverGetVersion(driverVersion)));
}

EXPORT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        return ret(cudaErrorInvalidValue);
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

/* ---- devices ---- */

EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return ret(cudaErrorInvalidValue);
    cudaError_t e = rt_init();
    if (e != cudaSuccess) {
        *count = 0;
        return ret(e);
    }
    *count = g_ndev;
    return cudaSuccess;
}

EXPORT cudaError_t cudaSetDevice(int device)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return ret(e);
    if (device < 0 || device >= g_ndev)
        return ret(cudaErrorInvalidDevice);
    t_device = device;
    pthread_mutex_lock(&g_lock);
    if (!g_retained[device]) {
        CUresult r = drv.primaryCtxRetain(&g_primary[device], device);
        if (r != CUDA_SUCCESS) {
            pthread_mutex_unlock(&g_lock);
            return ret(map_error(r));
        }
        g_retained[device] = 1;
    }
    CUcontext c = g_primary[device];
    pthread_mutex_unlock(&g_lock);
    CUresult r = drv.ctxSetCurrent(c);
    if (r == CUDA_SUCCESS)
        t_ready = __atomic_load_n(&g_generation, __ATOMIC_ACQUIRE) + 1;
    return ret(map_error(r));
}

EXPORT cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    CUdevice d;
    CUresult r = drv.ctxGetDevice_v2(&d, NULL);
    if (r != CUDA_SUCCESS)
        return ret(map_error(r));
    *device = d;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceReset(void)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return ret(e);
    NEED(primaryCtxReset);
    int dev = t_device < 0 ? 0 : t_device;
    unsigned api_version;
    if (drv.ctxGetApiVersion)
        drv.ctxGetApiVersion(NULL, &api_version);
    pthread_mutex_lock(&g_lock);
    CUresult r = drv.primaryCtxReset(dev);
    g_retained[dev] = 0; /* the next call retains it again */
    __atomic_add_fetch(&g_generation, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_lock);
    return ret(map_error(r));
}

EXPORT cudaError_t cudaDeviceSynchronize(void)
{
    CTX_OR_RETURN();
    NEED(ctxSynchronize);
    CUcontext cur;
    drv.ctxGetCurrent(&cur);
    return ret(map_error(drv.ctxSynchronize()));
}

EXPORT cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    CTX_OR_RETURN();
    NEED(memGetInfo);
    return ret(map_error(drv.memGetInfo(free_bytes, total)));
}

/* ---- allocation ---- */

EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    if (!devPtr)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (size == 0) {
        *devPtr = NULL;
        return cudaSuccess;
    }
    CUdeviceptr d;
    NEED(memAlloc);
    CUresult r = drv.memAlloc(&d, size);
    if (r != CUDA_SUCCESS)
        return ret(map_error(r));
    *devPtr = (void *)(uintptr_t)d;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    if (!devPtr || !pitch)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (width == 0 || height == 0) {
        *devPtr = NULL;
        *pitch = 0;
        return cudaSuccess;
    }
    CUdeviceptr d;
    size_t p;
    NEED(memAllocPitch);
    CUresult r = drv.memAllocPitch(&d, &p, width, height, 4);
    if (r != CUDA_SUCCESS)
        return ret(map_error(r));
    *devPtr = (void *)(uintptr_t)d;
    *pitch = p;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    if (!pitchedDevPtr)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    size_t rows = extent.height * extent.depth;
    if (extent.width == 0 || rows == 0) {
        *pitchedDevPtr = make_cudaPitchedPtr(NULL, 0, extent.width, extent.height);
        return cudaSuccess;
    }
    CUdeviceptr d;
    size_t p;
    NEED(memAllocPitch);
    CUresult r = drv.memAllocPitch(&d, &p, extent.width, rows, 4);
    if (r != CUDA_SUCCESS)
        return ret(map_error(r));
    *pitchedDevPtr = make_cudaPitchedPtr((void *)(uintptr_t)d, p, extent.width, extent.height);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    if (!devPtr || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (size == 0) {
        *devPtr = NULL;
        return cudaSuccess;
    }
    CUdeviceptr d;
    NEED(memAllocManaged);
    CUresult r = drv.memAllocManaged(&d, size, flags);
    if (r != CUDA_SUCCESS)
        return ret(map_error(r));
    *devPtr = (void *)(uintptr_t)d;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFree(void *devPtr)
{
    /* cudaFree(NULL) initializes the context (a common idiom) and frees
     * nothing: the driver's free is not called. */
    CTX_OR_RETURN();
    if (!devPtr)
        return cudaSuccess;
    NEED(memFree);
    return ret(map_error(drv.memFree((CUdeviceptr)(uintptr_t)devPtr)));
}

static cudaError_t malloc_async(void **devPtr, size_t size, cudaStream_t s, int ptsz)
{
    if (!devPtr)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (!(ptsz ? drv.memAllocAsync_ptsz : drv.memAllocAsync))
        return ret((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUdeviceptr d;
    CUresult r = (ptsz ? drv.memAllocAsync_ptsz : drv.memAllocAsync)(&d, size, (CUstream)s);
    if (r != CUDA_SUCCESS)
        return ret(map_error(r));
    *devPtr = (void *)(uintptr_t)d;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    return malloc_async(devPtr, size, hStream, 0);
}

EXPORT cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
    return malloc_async(devPtr, size, hStream, 1);
}

static cudaError_t malloc_from_pool(void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t s,
                                    int ptsz)
{
    if (!ptr || !pool)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (!(ptsz ? drv.memAllocFromPoolAsync_ptsz : drv.memAllocFromPoolAsync))
        return ret((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUdeviceptr d;
    CUresult r = (ptsz ? drv.memAllocFromPoolAsync_ptsz : drv.memAllocFromPoolAsync)(
        &d, size, (CUmemoryPool)pool, (CUstream)s);
    if (r != CUDA_SUCCESS)
        return ret(map_error(r));
    *ptr = (void *)(uintptr_t)d;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                           cudaStream_t stream)
{
    return malloc_from_pool(ptr, size, memPool, stream, 0);
}

EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
                                                cudaStream_t stream)
{
    return malloc_from_pool(ptr, size, memPool, stream, 1);
}

static cudaError_t free_async(void *devPtr, cudaStream_t s, int ptsz)
{
    CTX_OR_RETURN();
    if (!devPtr)
        return cudaSuccess;
    if (!(ptsz ? drv.memFreeAsync_ptsz : drv.memFreeAsync))
        return ret((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return ret(map_error((ptsz ? drv.memFreeAsync_ptsz : drv.memFreeAsync)(
        (CUdeviceptr)(uintptr_t)devPtr, (CUstream)s)));
}

EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    return free_async(devPtr, hStream, 0);
}

EXPORT cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream)
{
    return free_async(devPtr, hStream, 1);
}

EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    if (!ptr)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (size == 0) {
        *ptr = NULL;
        return cudaSuccess;
    }
    NEED(memHostAlloc);
    return ret(map_error(drv.memHostAlloc(ptr, size, 0))); /* not cuMemAllocHost_v2 */
}

EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    if (!pHost)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    if (size == 0) {
        *pHost = NULL;
        return cudaSuccess;
    }
    NEED(memHostAlloc);
    return ret(map_error(drv.memHostAlloc(pHost, size, flags)));
}

EXPORT cudaError_t cudaFreeHost(void *ptr)
{
    CTX_OR_RETURN();
    if (!ptr)
        return cudaSuccess;
    NEED(memFreeHost);
    return ret(map_error(drv.memFreeHost(ptr)));
}

EXPORT struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                          enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d;
    d.x = x;
    d.y = y;
    d.z = z;
    d.w = w;
    d.f = f;
    return d;
}

/* The driver's format and channel count for a runtime channel descriptor. */
static int channel_format(const struct cudaChannelFormatDesc *desc, CUarray_format *fmt,
                          unsigned *channels)
{
    int bits = desc->x;
    *channels = (desc->x > 0) + (desc->y > 0) + (desc->z > 0) + (desc->w > 0);
    if (desc->f == cudaChannelFormatKindFloat && bits == 32)
        *fmt = CU_AD_FORMAT_FLOAT;
    else if (desc->f == cudaChannelFormatKindFloat && bits == 16)
        *fmt = CU_AD_FORMAT_HALF;
    else if (desc->f == cudaChannelFormatKindSigned && (bits == 8 || bits == 16 || bits == 32))
        *fmt = bits == 8 ? CU_AD_FORMAT_SIGNED_INT8
               : bits == 16 ? CU_AD_FORMAT_SIGNED_INT16 : CU_AD_FORMAT_SIGNED_INT32;
    else if (desc->f == cudaChannelFormatKindUnsigned && (bits == 8 || bits == 16 || bits == 32))
        *fmt = bits == 8 ? CU_AD_FORMAT_UNSIGNED_INT8
               : bits == 16 ? CU_AD_FORMAT_UNSIGNED_INT16 : CU_AD_FORMAT_UNSIGNED_INT32;
    else
        return -1;
    return 0;
}

/* The driver's descriptor of a 3D (or mipmapped) array of DESC texels; -1
 * for a format the driver has no array format for. */
static int array3d_descriptor(const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
                              CUDA_ARRAY3D_DESCRIPTOR *ad)
{
    memset(ad, 0, sizeof *ad);
    ad->Width = extent.width;
    ad->Height = extent.height;
    ad->Depth = extent.depth;
    return channel_format(desc, &ad->Format, &ad->NumChannels);
}

EXPORT cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                   size_t width, size_t height, unsigned int flags)
{
    CUarray_format fmt;
    unsigned channels;
    if (!array || !desc || width == 0 || flags != 0 || channel_format(desc, &fmt, &channels) < 0)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(arrayCreate);
    CUDA_ARRAY_DESCRIPTOR ad;
    memset(&ad, 0, sizeof ad);
    ad.Width = width;
    ad.Height = height;
    ad.Format = fmt;
    ad.NumChannels = channels;
    CUarray a;
    CUresult r = drv.arrayCreate(&a, &ad);
    if (r != CUDA_SUCCESS)
        return ret(map_error(r));
    *array = (cudaArray_t)a;
    return cudaSuccess;
}

/* Through cuArray3DCreate, as the real runtime does; a 0 height or depth
 * is a 1D or 2D array. */
EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                     struct cudaExtent extent, unsigned int flags)
{
    CUDA_ARRAY3D_DESCRIPTOR ad;
    if (!array || !desc || extent.width == 0 || flags != 0 ||
        array3d_descriptor(desc, extent, &ad) < 0)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(array3DCreate);
    CUarray a;
    CUresult r = drv.array3DCreate(&a, &ad);
    if (r != CUDA_SUCCESS)
        return ret(map_error(r));
    *array = (cudaArray_t)a;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFreeArray(cudaArray_t array)
{
    CTX_OR_RETURN();
    if (!array)
        return cudaSuccess;
    NEED(arrayDestroy);
    return ret(map_error(drv.arrayDestroy((CUarray)array)));
}

EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(memcpy_);
    return ret(map_error(drv.memcpy_((CUdeviceptr)(uintptr_t)dst,
                                     (CUdeviceptr)(uintptr_t)src, count)));
}

EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    CTX_OR_RETURN();
    NEED(memsetD8);
    return ret(map_error(drv.memsetD8((CUdeviceptr)(uintptr_t)devPtr, (unsigned char)value,
                                      count)));
}

/* ---- streams, pools ---- */

EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    if (!pStream)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    CUstream s;
    NEED(streamCreate);
    CUresult r = drv.streamCreate(&s, 0);
    if (r != CUDA_SUCCESS)
        return ret(map_error(r));
    *pStream = (cudaStream_t)s;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    CTX_OR_RETURN();
    NEED(streamDestroy);
    return ret(map_error(drv.streamDestroy((CUstream)stream)));
}

EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    CTX_OR_RETURN();
    NEED(streamSynchronize);
    return ret(map_error(drv.streamSynchronize((CUstream)stream)));
}

EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    if (!memPool)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(deviceGetDefaultMemPool);
    CUmemoryPool p;
    CUresult r = drv.deviceGetDefaultMemPool(&p, device);
    if (r != CUDA_SUCCESS)
        return ret(map_error(r));
    *memPool = (cudaMemPool_t)p;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *props)
{
    if (!memPool || !props)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(memPoolCreate);
    CUmemoryPool p;
    CUresult r = drv.memPoolCreate(&p, (const CUmemPoolProps *)props);
    if (r != CUDA_SUCCESS)
        return ret(map_error(r));
    *memPool = (cudaMemPool_t)p;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    CTX_OR_RETURN();
    NEED(memPoolDestroy);
    return ret(map_error(drv.memPoolDestroy((CUmemoryPool)memPool)));
}

EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    CTX_OR_RETURN();
    NEED(memPoolTrimTo);
    return ret(map_error(drv.memPoolTrimTo((CUmemoryPool)memPool, minBytesToKeep)));
}

EXPORT cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *array,
                                            const struct cudaChannelFormatDesc *desc,
                                            struct cudaExtent extent, unsigned int levels,
                                            unsigned int flags)
{
    CUDA_ARRAY3D_DESCRIPTOR ad;
    if (!array || !desc || extent.width == 0 || levels == 0 || flags != 0 ||
        array3d_descriptor(desc, extent, &ad) < 0)
        return ret(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(mipmappedArrayCreate);
    CUmipmappedArray a;
    CUresult r = drv.mipmappedArrayCreate(&a, &ad, levels);
    if (r != CUDA_SUCCESS)
        return ret(map_error(r));
    *array = (cudaMipmappedArray_t)a;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t array)
{
    CTX_OR_RETURN();
    NEED(mipmappedArrayDestroy);
    if (!array)
        return cudaSuccess;
    return ret(map_error(drv.mipmappedArrayDestroy((CUmipmappedArray)array)));
}

/* ---- driver entry points ---- */

static cudaError_t entry_point(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                               unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *driverStatus)
{
    if (!symbol || !funcPtr ||
        (flags & ~(unsigned long long)(cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream)))
        return ret(cudaErrorInvalidValue);
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return ret(e);
    cuuint64_t cuflags = flags & cudaEnablePerThreadDefaultStream
                             ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
                         : flags & cudaEnableLegacyStream ? CU_GET_PROC_ADDRESS_LEGACY_STREAM
                                                          : CU_GET_PROC_ADDRESS_DEFAULT;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r = drv.getProcAddress(symbol, funcPtr, (int)cudaVersion, cuflags, &st);
    if (driverStatus)
        *driverStatus = st == CU_GET_PROC_ADDRESS_SUCCESS ? cudaDriverEntryPointSuccess
                        : st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                            ? cudaDriverEntryPointVersionNotSufficent
                            : cudaDriverEntryPointSymbolNotFound;
    if (r != CUDA_SUCCESS) {
        *funcPtr = NULL;
        return ret(cudaErrorSymbolNotFound);
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                           unsigned long long flags,
                                           enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}

EXPORT cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                                unsigned long long flags,
                                                enum cudaDriverEntryPointQueryResult *driverStatus)
{
    if (!(flags & (cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream)))
        flags |= cudaEnablePerThreadDefaultStream;
    return entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}

EXPORT cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                                    unsigned int cudaVersion,
                                                    unsigned long long flags,
                                                    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus);
}

EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    if (!(flags & (cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream)))
        flags |= cudaEnablePerThreadDefaultStream;
    return entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus);
}
/* SPDX-License-Identifier: MIT */
