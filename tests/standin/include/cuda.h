/* Stand-in cuda.h: the part of the CUDA driver API that vramtrace's tests,
 * the stand-in libcuda.so.1 and the examples use, source-compatible with
 * the real CUDA 13 cuda.h for every name declared here.  The shared types
 * come from vramtrace's own ABI declarations (src/hooks/cuda_abi.h), which
 * tests/abi_check.c proves equal to the real ones. */
#ifndef STANDIN_CUDA_H
#define STANDIN_CUDA_H

#include <stddef.h>
#include <stdint.h>
/* by its path from here: the stand-ins need only -I tests/standin/include */
#include "../../../src/hooks/cuda_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUDA_VERSION 13000
#define CUDAAPI

typedef uint32_t cuuint32_t;

/* Error codes cuda_abi.h does not already name. */
enum {
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE = 708,
    CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_UNKNOWN = 999,
};

#define CU_STREAM_LEGACY ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)

typedef enum CUmemAttach_flags_enum {
    CU_MEM_ATTACH_GLOBAL = 0x1,
    CU_MEM_ATTACH_HOST = 0x2,
    CU_MEM_ATTACH_SINGLE = 0x4
} CUmemAttach_flags;

#define CU_MEMHOSTALLOC_PORTABLE 0x01
#define CU_MEMHOSTALLOC_DEVICEMAP 0x02
#define CU_MEMHOSTALLOC_WRITECOMBINED 0x04

enum { CU_CTX_SCHED_AUTO = 0x00 };
enum { CU_STREAM_DEFAULT = 0x0, CU_STREAM_NON_BLOCKING = 0x1 };

typedef enum CUmemAccess_flags_enum {
    CU_MEM_ACCESS_FLAGS_PROT_NONE = 0x0,
    CU_MEM_ACCESS_FLAGS_PROT_READ = 0x1,
    CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3,
    CU_MEM_ACCESS_FLAGS_PROT_MAX = 0x7FFFFFFF
} CUmemAccess_flags;

typedef struct CUmemAccessDesc_st {
    CUmemLocation location;
    CUmemAccess_flags flags;
} CUmemAccessDesc;

typedef enum CUmemAllocationGranularity_flags_enum {
    CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0x0,
    CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 0x1
} CUmemAllocationGranularity_flags;

typedef struct CUmemPoolProps_st {
    CUmemAllocationType allocType;
    CUmemAllocationHandleType handleTypes;
    CUmemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} CUmemPoolProps;

typedef struct CUexecAffinityParam_st CUexecAffinityParam;
typedef struct CUctxCigParam_st CUctxCigParam;
typedef struct CUctxCreateParams_st {
    CUexecAffinityParam *execAffinityParams;
    int numExecAffinityParams;
    CUctxCigParam *cigParams;
} CUctxCreateParams;

/* The versioned names, as in the real cuda.h. */
#if !defined(__CUDA_API_VERSION_INTERNAL)
#define cuCtxCreate cuCtxCreate_v4
#define cuCtxDestroy cuCtxDestroy_v2
#define cuCtxPopCurrent cuCtxPopCurrent_v2
#define cuCtxPushCurrent cuCtxPushCurrent_v2
#define cuMemGetInfo cuMemGetInfo_v2
#define cuMemAlloc cuMemAlloc_v2
#define cuMemAllocPitch cuMemAllocPitch_v2
#define cuMemFree cuMemFree_v2
#define cuMemAllocHost cuMemAllocHost_v2
#define cuMemcpyHtoD cuMemcpyHtoD_v2
#define cuMemcpyDtoH cuMemcpyDtoH_v2
#define cuMemsetD8 cuMemsetD8_v2
#define cuArrayCreate cuArrayCreate_v2
#define cuArray3DCreate cuArray3DCreate_v2
#define cuStreamDestroy cuStreamDestroy_v2
#define cuDevicePrimaryCtxRelease cuDevicePrimaryCtxRelease_v2
#define cuDevicePrimaryCtxReset cuDevicePrimaryCtxReset_v2
#define cuDeviceTotalMem cuDeviceTotalMem_v2
#define cuGetProcAddress cuGetProcAddress_v2
#define cuDeviceTotalMem cuDeviceTotalMem_v2
#define cuDeviceGetUuid cuDeviceGetUuid_v2
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cuMemAllocAsync cuMemAllocAsync_ptsz
#define cuMemFreeAsync cuMemFreeAsync_ptsz
#define cuMemAllocFromPoolAsync cuMemAllocFromPoolAsync_ptsz
#endif
#endif

CUresult CUDAAPI cuInit(unsigned int flags);
CUresult CUDAAPI cuDriverGetVersion(int *driverVersion);
CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal);
CUresult CUDAAPI cuDeviceGetCount(int *count);
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev);
CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev);
CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr);
CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr);

CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
                                unsigned int flags, CUdevice dev);
/* Only under __CUDA_API_VERSION_INTERNAL in the real CUDA 13 cuda.h; the
 * tests call it by this name (it is what the runtime of CUDA <= 12.4 used). */
CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx);
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx);
CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx);
CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx);
CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx);
CUresult CUDAAPI cuCtxGetDevice(CUdevice *device);
CUresult CUDAAPI cuCtxSynchronize(void);
CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx);
CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx);
CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version);
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
CUresult CUDAAPI cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev);
CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext *pctx);
CUresult CUDAAPI cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr);
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active);

CUresult CUDAAPI cuMemGetInfo_v2(size_t *free, size_t *total);
CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                    size_t Height, unsigned int ElementSizeBytes);
CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags);
CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr);
CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                         CUstream hStream);
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream);
/* The per-thread-default-stream variants; the real cuda.h declares them
 * only through CUDA_API_PER_THREAD_DEFAULT_STREAM renaming. */
CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
                                              CUmemoryPool pool, CUstream hStream);
CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream);
CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize);
CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags);
CUresult CUDAAPI cuMemFreeHost(void *p);
CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount);
CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);
CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N);

CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev);
CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps);
CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool);
CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep);
CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags);
CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream);
CUresult CUDAAPI cuStreamSynchronize(CUstream hStream);

CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                     CUdeviceptr addr, unsigned long long flags);
CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size);
CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                             const CUmemAllocationProp *prop, unsigned long long flags);
CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle);
CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                          CUmemGenericAllocationHandle handle, unsigned long long flags);
CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size);
CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                                size_t count);
CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity,
                                               const CUmemAllocationProp *prop,
                                               CUmemAllocationGranularity_flags option);

CUresult CUDAAPI cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray);
CUresult CUDAAPI cuArray3DCreate_v2(CUarray *pHandle,
                                    const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray);
CUresult CUDAAPI cuArrayDestroy(CUarray hArray);
CUresult CUDAAPI cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
                                        const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
                                        unsigned int numMipmapLevels);
CUresult CUDAAPI cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray);

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                     cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus);
CUresult CUDAAPI cuGetProcAddress_v2_ptsz(const char *symbol, void **pfn, int cudaVersion,
                                          cuuint64_t flags,
                                          CUdriverProcAddressQueryResult *symbolStatus);

#if defined(__CUDA_API_VERSION_INTERNAL)
/* The old ABIs, as the real cuda.h declares them for the driver itself. */
CUresult CUDAAPI cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize);
CUresult CUDAAPI cuMemFree(CUdeviceptr_v1 dptr);
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev);
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                  cuuint64_t flags);
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
#endif

#ifdef __cplusplus
}
#endif

#endif
/* SPDX-License-Identifier: MIT */
