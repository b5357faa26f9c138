/* Stand-in CUDA runtime (libcudart.so.13, and the same sources as a static
 * library standing for nvcc's default cudart_static); what its source files
 * (cudart_*.c) share, not exported.
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
 * Everything but the cuda* API is hidden (and named rt_*: the static
 * runtime is linked into programs); the shared library is linked with
 * -Bsymbolic-functions, so its own calls never go through an interposable
 * exported name. */
#ifndef STANDIN_CUDART_INTERNAL_H
#define STANDIN_CUDART_INTERNAL_H

#include "array_format.h"
#include "cuda.h"
#include "cuda_runtime_api.h"

#include <pthread.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVICES 16

/* The driver's entry points, as the runtime calls them. */
typedef CUresult (*cuGetProcAddress_v2_fn)(const char *, void **, int, cuuint64_t,
                                           CUdriverProcAddressQueryResult *);
typedef CUresult (*cuDevicePrimaryCtxRelease_v2_fn)(CUdevice);
typedef CUresult (*cuDevicePrimaryCtxReset_v2_fn)(CUdevice);
typedef CUresult (*cuCtxGetCurrent_fn)(CUcontext *);
typedef CUresult (*cuCtxGetDevice_fn)(CUdevice *);
typedef CUresult (*cuMemGetInfo_v2_fn)(size_t *, size_t *);
typedef CUresult (*cuMemAlloc_v2_fn)(CUdeviceptr *, size_t);
typedef CUresult (*cuMemAllocPitch_v2_fn)(CUdeviceptr *, size_t *, size_t, size_t, unsigned int);
typedef CUresult (*cuMemAllocManaged_fn)(CUdeviceptr *, size_t, unsigned int);
typedef CUresult (*cuMemAllocAsync_fn)(CUdeviceptr *, size_t, CUstream);
typedef CUresult (*cuMemAllocFromPoolAsync_fn)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
typedef CUresult (*cuMemFree_v2_fn)(CUdeviceptr);
typedef CUresult (*cuMemFreeAsync_fn)(CUdeviceptr, CUstream);
typedef CUresult (*cuMemAllocHost_v2_fn)(void **, size_t);
typedef CUresult (*cuMemHostAlloc_fn)(void **, size_t, unsigned int);
typedef CUresult (*cuMemFreeHost_fn)(void *);
typedef CUresult (*cuArrayCreate_v2_fn)(CUarray *, const CUDA_ARRAY_DESCRIPTOR *);
typedef CUresult (*cuArray3DCreate_v2_fn)(CUarray *, const CUDA_ARRAY3D_DESCRIPTOR *);
typedef CUresult (*cuArrayDestroy_fn)(CUarray);
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
struct rt_driver {
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
};
extern struct rt_driver rt_drv;

/* A driver function the runtime fetches through cuGetProcAddress at
 * start-up into SLOT (NULL when the driver lacks it). Each file lists those
 * it uses with RT_DRIVER_FN (RT_DRIVER_FN_PTSZ: the per-thread default
 * stream variant), at file scope; the linker gathers them into the section
 * standin_rt_fetch, which cudart_init.c reads. */
struct rt_fetch {
    void **slot;
    const char *name;
    int version;
    int flags;
};
#define RT_CAT2(a, b) a##b
#define RT_CAT(a, b) RT_CAT2(a, b)
#define RT_FETCH_ENTRY(slot, name, ver, flags)                                           \
    static const struct rt_fetch RT_CAT(rt_fetch_, __COUNTER__)                          \
        __attribute__((used, section("standin_rt_fetch"), aligned(sizeof(void *)))) = { \
            (void **)&(slot), name, ver, flags};
#define RT_DRIVER_FN(slot, name, ver) RT_FETCH_ENTRY(slot, name, ver, CU_GET_PROC_ADDRESS_DEFAULT)
#define RT_DRIVER_FN_PTSZ(slot, name, ver) \
    RT_FETCH_ENTRY(slot, name, ver, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)

/* ---- start-up and contexts (cudart_init.c) ---- */

extern int rt_ndev;
extern pthread_mutex_t rt_lock;
extern CUcontext rt_primary[MAX_DEVICES]; /* stays known after a reset */
extern int rt_retained[MAX_DEVICES];
extern __thread int rt_device; /* cudaSetDevice's, -1 before */
/* The thread's context is set up (as of teardown generation rt_ready - 1). */
extern __thread unsigned rt_ready;
extern unsigned rt_generation;

/* Loads the driver once; the start-up's error. */
cudaError_t rt_init(void);
/* The calling thread's context, made ready as the runtime's lazy
 * initialization does. */
cudaError_t rt_context(void);
cudaError_t rt_map_error(CUresult r);

/* Registers STUB as a launchable kernel, once (cudart_launch.c). */
void rt_register_kernel(const void *stub);

/* The driver's format and channel count for a runtime channel descriptor;
 * -1 for one the driver has no format for (cudart_array.c). */
int rt_channel_format(const struct cudaChannelFormatDesc *desc, CUarray_format *fmt,
                      unsigned *channels);

/* The descriptor of ARRAY as the driver gives it (cudart_array.c). */
cudaError_t rt_array_descriptor(cudaArray_const_t array, CUDA_ARRAY3D_DESCRIPTOR *d);

/* The memory types of a copy's two sides for KIND (the driver tells a
 * unified pointer's kind by itself); -1 for a kind there is none
 * (cudart_copy2d.c). */
int rt_memory_types(enum cudaMemcpyKind kind, CUmemorytype *src, CUmemorytype *dst);
/* The driver's copy of P (cudart_copy3d.c): a kind that puts an array on
 * the host is corrected (an array is on the device), as the runtime
 * documents. */
cudaError_t rt_describe_3d(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *c);

/* Records a failure as cudaGetLastError reports it; returns E
 * (cudart_errors.c). */
cudaError_t rt_error(cudaError_t e);

/* A driver function the runtime did not get from the driver. */
#define NEED(fn)                                                           \
    do {                                                                   \
        if (!rt_drv.fn)                                                    \
            return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver); \
    } while (0)

#define CTX_OR_RETURN()                  \
    do {                                 \
        cudaError_t e_ = rt_context();   \
        if (e_ != cudaSuccess)           \
            return rt_error(e_);         \
    } while (0)

/* Returns what the driver's SLOT answers to the arguments, as the runtime's
 * error (a driver without it: cudaErrorCallRequiresNewerDriver). */
#define RT_CALL_DRIVER(slot, ...)                                           \
    do {                                                                    \
        CTX_OR_RETURN();                                                    \
        if (!(slot))                                                        \
            return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver); \
        return rt_error(rt_map_error((slot)(__VA_ARGS__)));                 \
    } while (0)

#endif
/* SPDX-License-Identifier: MIT */
