/* SPDX-License-Identifier: MIT */
/* The small part of the CUDA driver and runtime ABI that vramtrace needs.
 * Our own declarations, so the tracer builds without the CUDA toolkit;
 * tests/abi_check.c compiles them against cuda.h / cuda_runtime_api.h
 * where the toolkit is installed, to prove they match. */
#ifndef VRAMTRACE_CUDA_ABI_H
#define VRAMTRACE_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

/* ---- driver API ---- */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef unsigned int CUdeviceptr_v1; /* 32-bit pointers of the unsuffixed v1 ABI */
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef struct CUarray_st *CUarray;
typedef struct CUmipmappedArray_st *CUmipmappedArray;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef uint64_t cuuint64_t;
typedef int CUdriverProcAddressQueryResult;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NOT_FOUND = 500,
};

enum {
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
};
enum { CU_MEMORYTYPE_HOST = 1 };

enum {
    CU_GET_PROC_ADDRESS_DEFAULT = 0,
    CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1,
    CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 2
};
enum {
    CU_GET_PROC_ADDRESS_SUCCESS = 0,
    CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
    CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2
};

typedef enum CUmemLocationType_enum {
    CU_MEM_LOCATION_TYPE_INVALID = 0,
    CU_MEM_LOCATION_TYPE_DEVICE = 1,
    CU_MEM_LOCATION_TYPE_HOST = 2,
    CU_MEM_LOCATION_TYPE_HOST_NUMA = 3,
    CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT = 4,
    CU_MEM_LOCATION_TYPE_MAX = 0x7FFFFFFF
} CUmemLocationType;

typedef enum CUmemAllocationType_enum {
    CU_MEM_ALLOCATION_TYPE_INVALID = 0,
    CU_MEM_ALLOCATION_TYPE_PINNED = 1,
    CU_MEM_ALLOCATION_TYPE_MAX = 0x7FFFFFFF
} CUmemAllocationType;

typedef enum CUmemAllocationHandleType_enum {
    CU_MEM_HANDLE_TYPE_NONE = 0,
    CU_MEM_HANDLE_TYPE_MAX = 0x7FFFFFFF
} CUmemAllocationHandleType;

typedef struct CUmemLocation_st {
    CUmemLocationType type;
    int id;
} CUmemLocation;

typedef struct CUmemAllocationProp_st {
    CUmemAllocationType type;
    CUmemAllocationHandleType requestedHandleTypes;
    CUmemLocation location;
    void *win32HandleMetaData;
    struct {
        unsigned char compressionType;
        unsigned char gpuDirectRDMACapable;
        unsigned short usage;
        unsigned char reserved[4];
    } allocFlags;
} CUmemAllocationProp;

typedef enum CUarray_format_enum {
    CU_AD_FORMAT_UNSIGNED_INT8 = 0x01,
    CU_AD_FORMAT_UNSIGNED_INT16 = 0x02,
    CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
    CU_AD_FORMAT_SIGNED_INT8 = 0x08,
    CU_AD_FORMAT_SIGNED_INT16 = 0x09,
    CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
    CU_AD_FORMAT_HALF = 0x10,
    CU_AD_FORMAT_FLOAT = 0x20,
    CU_AD_FORMAT_UNORM_INT_101010_2 = 0x50,
    CU_AD_FORMAT_BC1_UNORM = 0x91,
    CU_AD_FORMAT_BC1_UNORM_SRGB = 0x92,
    CU_AD_FORMAT_BC2_UNORM = 0x93,
    CU_AD_FORMAT_BC2_UNORM_SRGB = 0x94,
    CU_AD_FORMAT_BC3_UNORM = 0x95,
    CU_AD_FORMAT_BC3_UNORM_SRGB = 0x96,
    CU_AD_FORMAT_BC4_UNORM = 0x97,
    CU_AD_FORMAT_BC4_SNORM = 0x98,
    CU_AD_FORMAT_BC5_UNORM = 0x99,
    CU_AD_FORMAT_BC5_SNORM = 0x9a,
    CU_AD_FORMAT_BC6H_UF16 = 0x9b,
    CU_AD_FORMAT_BC6H_SF16 = 0x9c,
    CU_AD_FORMAT_BC7_UNORM = 0x9d,
    CU_AD_FORMAT_BC7_UNORM_SRGB = 0x9e,
    CU_AD_FORMAT_P010 = 0x9f,
    CU_AD_FORMAT_P016 = 0xa1,
    CU_AD_FORMAT_NV16 = 0xa2,
    CU_AD_FORMAT_P210 = 0xa3,
    CU_AD_FORMAT_P216 = 0xa4,
    CU_AD_FORMAT_YUY2 = 0xa5,
    CU_AD_FORMAT_Y210 = 0xa6,
    CU_AD_FORMAT_Y216 = 0xa7,
    CU_AD_FORMAT_AYUV = 0xa8,
    CU_AD_FORMAT_Y410 = 0xa9,
    CU_AD_FORMAT_NV12 = 0xb0,
    CU_AD_FORMAT_Y416 = 0xb1,
    CU_AD_FORMAT_Y444_PLANAR8 = 0xb2,
    CU_AD_FORMAT_Y444_PLANAR10 = 0xb3,
    CU_AD_FORMAT_YUV444_8bit_SemiPlanar = 0xb4,
    CU_AD_FORMAT_YUV444_16bit_SemiPlanar = 0xb5,
    CU_AD_FORMAT_UNORM_INT8X1 = 0xc0,
    CU_AD_FORMAT_UNORM_INT8X2 = 0xc1,
    CU_AD_FORMAT_UNORM_INT8X4 = 0xc2,
    CU_AD_FORMAT_UNORM_INT16X1 = 0xc3,
    CU_AD_FORMAT_UNORM_INT16X2 = 0xc4,
    CU_AD_FORMAT_UNORM_INT16X4 = 0xc5,
    CU_AD_FORMAT_SNORM_INT8X1 = 0xc6,
    CU_AD_FORMAT_SNORM_INT8X2 = 0xc7,
    CU_AD_FORMAT_SNORM_INT8X4 = 0xc8,
    CU_AD_FORMAT_SNORM_INT16X1 = 0xc9,
    CU_AD_FORMAT_SNORM_INT16X2 = 0xca,
    CU_AD_FORMAT_SNORM_INT16X4 = 0xcb,
    CU_AD_FORMAT_MAX = 0x7FFFFFFF
} CUarray_format;
/* CUDA_ARRAY3D_DESCRIPTOR.Flags (#defines in cuda.h): Depth counts layers
 * or faces; arrays without memory of their own, mapped onto cuMemCreate
 * memory later. */
enum {
    VT_CUDA_ARRAY3D_LAYERED = 0x01,
    VT_CUDA_ARRAY3D_CUBEMAP = 0x04,
    VT_CUDA_ARRAY3D_SPARSE = 0x40,
    VT_CUDA_ARRAY3D_DEFERRED_MAPPING = 0x80
};

typedef struct CUgreenCtx_st *CUgreenCtx;

/* ---- CUDA graphs and stream capture ---- */
#define VT_STREAM_PER_THREAD ((CUstream)0x2) /* cuda.h's CU_STREAM_PER_THREAD */
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;

typedef enum CUstreamCaptureStatus_enum {
    CU_STREAM_CAPTURE_STATUS_NONE = 0,
    CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
    CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2
} CUstreamCaptureStatus;

typedef enum CUstreamCaptureMode_enum {
    CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
    CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    CU_STREAM_CAPTURE_MODE_RELAXED = 2
} CUstreamCaptureMode;

typedef enum CUgraphMem_attribute_enum {
    CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT = 0,
    CU_GRAPH_MEM_ATTR_USED_MEM_HIGH = 1,
    CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT = 2,
    CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH = 3
} CUgraphMem_attribute;

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

typedef struct CUmemPoolProps_st {
    CUmemAllocationType allocType;
    CUmemAllocationHandleType handleTypes;
    CUmemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} CUmemPoolProps;

typedef struct CUDA_MEM_ALLOC_NODE_PARAMS_v1_st {
    CUmemPoolProps poolProps;
    const CUmemAccessDesc *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    CUdeviceptr dptr;
} CUDA_MEM_ALLOC_NODE_PARAMS;

/* cuGraphAddNode's tagged union (CUDA 12.2+): only the memory nodes'
 * members are read; the rest is padding of the real size. */
typedef enum CUgraphNodeType_enum {
    CU_GRAPH_NODE_TYPE_MEM_ALLOC = 10,
    CU_GRAPH_NODE_TYPE_MEM_FREE = 11
} CUgraphNodeType;

typedef struct CUDA_MEM_ALLOC_NODE_PARAMS_v2_st {
    CUmemPoolProps poolProps;
    const CUmemAccessDesc *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    CUdeviceptr dptr;
} CUDA_MEM_ALLOC_NODE_PARAMS_v2;

typedef struct CUDA_MEM_FREE_NODE_PARAMS_st {
    CUdeviceptr dptr;
} CUDA_MEM_FREE_NODE_PARAMS;

typedef struct CUgraphNodeParams_st {
    CUgraphNodeType type;
    int reserved0[3];
    union {
        long long reserved1[29];
        CUDA_MEM_ALLOC_NODE_PARAMS_v2 alloc;
        CUDA_MEM_FREE_NODE_PARAMS free;
    };
    long long reserved2;
} CUgraphNodeParams;

typedef struct CUgraphEdgeData_st CUgraphEdgeData; /* passed through */

#ifndef CU_UUID_HAS_BEEN_DEFINED /* the real cuda.h and driver_types.h share it so */
#define CU_UUID_HAS_BEEN_DEFINED
typedef struct CUuuid_st {
    char bytes[16];
} CUuuid;
#endif

typedef struct CUDA_ARRAY_DESCRIPTOR_st {
    size_t Width;
    size_t Height;
    CUarray_format Format;
    unsigned int NumChannels;
} CUDA_ARRAY_DESCRIPTOR;

typedef struct CUDA_ARRAY3D_DESCRIPTOR_st {
    size_t Width;
    size_t Height;
    size_t Depth;
    CUarray_format Format;
    unsigned int NumChannels;
    unsigned int Flags;
} CUDA_ARRAY3D_DESCRIPTOR;

/* Signatures, one typedef per hooked or used driver entry point. */
typedef CUresult (*cuMemAlloc_v2_fn)(CUdeviceptr *dptr, size_t bytesize);
typedef CUresult (*cuMemAllocPitch_v2_fn)(CUdeviceptr *dptr, size_t *pitch, size_t width,
                                          size_t height, unsigned int elementSize);
typedef CUresult (*cuMemAllocManaged_fn)(CUdeviceptr *dptr, size_t bytesize, unsigned int flags);
typedef CUresult (*cuMemAllocAsync_fn)(CUdeviceptr *dptr, size_t bytesize, CUstream stream);
typedef CUresult (*cuMemAllocFromPoolAsync_fn)(CUdeviceptr *dptr, size_t bytesize,
                                               CUmemoryPool pool, CUstream stream);
typedef CUresult (*cuMemFree_v2_fn)(CUdeviceptr dptr);
typedef CUresult (*cuMemFreeAsync_fn)(CUdeviceptr dptr, CUstream stream);
typedef CUresult (*cuMemAllocHost_v2_fn)(void **pp, size_t bytesize);
typedef CUresult (*cuMemHostAlloc_fn)(void **pp, size_t bytesize, unsigned int flags);
typedef CUresult (*cuMemFreeHost_fn)(void *p);
typedef CUresult (*cuMemCreate_fn)(CUmemGenericAllocationHandle *handle, size_t size,
                                   const CUmemAllocationProp *prop, unsigned long long flags);
typedef CUresult (*cuMemRelease_fn)(CUmemGenericAllocationHandle handle);
typedef CUresult (*cuMemMap_fn)(CUdeviceptr ptr, size_t size, size_t offset,
                                CUmemGenericAllocationHandle handle, unsigned long long flags);
typedef CUresult (*cuMemUnmap_fn)(CUdeviceptr ptr, size_t size);
typedef CUresult (*cuArrayCreate_v2_fn)(CUarray *handle, const CUDA_ARRAY_DESCRIPTOR *desc);
typedef CUresult (*cuArray3DCreate_v2_fn)(CUarray *handle, const CUDA_ARRAY3D_DESCRIPTOR *desc);
typedef CUresult (*cuArrayDestroy_fn)(CUarray handle);
typedef CUresult (*cuMipmappedArrayCreate_fn)(CUmipmappedArray *handle,
                                              const CUDA_ARRAY3D_DESCRIPTOR *desc,
                                              unsigned int levels);
typedef CUresult (*cuMipmappedArrayDestroy_fn)(CUmipmappedArray handle);
typedef CUresult (*cuMemPoolDestroy_fn)(CUmemoryPool pool);
typedef CUresult (*cuStreamGetCtx_fn)(CUstream stream, CUcontext *pctx);
typedef CUresult (*cuCtxGetDevice_v2_fn)(CUdevice *dev, CUcontext ctx);
typedef CUresult (*cuCtxPushCurrent_v2_fn)(CUcontext ctx);
typedef CUresult (*cuCtxPopCurrent_v2_fn)(CUcontext *pctx);
typedef CUresult (*cuPointerGetAttribute_fn)(void *data, int attribute, CUdeviceptr ptr);
typedef CUresult (*cuCtxDestroy_v2_fn)(CUcontext ctx);
typedef CUresult (*cuDevicePrimaryCtxRelease_v2_fn)(CUdevice dev);
typedef CUresult (*cuDevicePrimaryCtxReset_v2_fn)(CUdevice dev);
typedef CUresult (*cuDevicePrimaryCtxRetain_fn)(CUcontext *pctx, CUdevice dev);
typedef CUresult (*cuDevicePrimaryCtxGetState_fn)(CUdevice dev, unsigned int *flags, int *active);
typedef CUresult (*cuCtxGetCurrent_fn)(CUcontext *pctx);
typedef CUresult (*cuCtxGetDevice_fn)(CUdevice *dev);
typedef CUresult (*cuMemGetInfo_v2_fn)(size_t *free_bytes, size_t *total_bytes);
typedef CUresult (*cuCtxPushCurrent_v2_fn)(CUcontext ctx);
typedef CUresult (*cuCtxPopCurrent_v2_fn)(CUcontext *pctx);
/* device identity */
typedef CUresult (*cuDeviceGetName_fn)(char *name, int len, CUdevice dev);
typedef CUresult (*cuDeviceGetPCIBusId_fn)(char *pciBusId, int len, CUdevice dev);
typedef CUresult (*cuDeviceTotalMem_v2_fn)(size_t *bytes, CUdevice dev);
typedef CUresult (*cuDeviceGetUuid_v2_fn)(CUuuid *uuid, CUdevice dev);
typedef CUresult (*cuGetProcAddress_fn)(const char *symbol, void **pfn, int cudaVersion,
                                        cuuint64_t flags);
typedef CUresult (*cuGetProcAddress_v2_fn)(const char *symbol, void **pfn, int cudaVersion,
                                           cuuint64_t flags,
                                           CUdriverProcAddressQueryResult *symbolStatus);

/* graphs, capture, host registration */
typedef CUresult (*cuStreamBeginCapture_v2_fn)(CUstream stream, CUstreamCaptureMode mode);
typedef CUresult (*cuStreamEndCapture_fn)(CUstream stream, CUgraph *graph);
typedef CUresult (*cuStreamGetCaptureInfo_v2_fn)(CUstream stream, CUstreamCaptureStatus *status,
                                                 cuuint64_t *id, CUgraph *graph,
                                                 const CUgraphNode **dependencies,
                                                 size_t *numDependencies);
typedef CUresult (*cuGraphAddMemAllocNode_fn)(CUgraphNode *node, CUgraph graph,
                                              const CUgraphNode *dependencies,
                                              size_t numDependencies,
                                              CUDA_MEM_ALLOC_NODE_PARAMS *params);
typedef CUresult (*cuGraphAddMemFreeNode_fn)(CUgraphNode *node, CUgraph graph,
                                             const CUgraphNode *dependencies,
                                             size_t numDependencies, CUdeviceptr dptr);
/* CUDA 12.3+ (cuda.h's cuGraphAddNode), and CUDA 12.2's without edge data. */
typedef CUresult (*cuGraphAddNode_v2_fn)(CUgraphNode *node, CUgraph graph,
                                         const CUgraphNode *dependencies,
                                         const CUgraphEdgeData *dependencyData,
                                         size_t numDependencies, CUgraphNodeParams *params);
typedef CUresult (*cuGraphAddNode_fn)(CUgraphNode *node, CUgraph graph,
                                      const CUgraphNode *dependencies, size_t numDependencies,
                                      CUgraphNodeParams *params);
typedef CUresult (*cuGraphInstantiateWithFlags_fn)(CUgraphExec *exec, CUgraph graph,
                                                   unsigned long long flags);
typedef CUresult (*cuGraphLaunch_fn)(CUgraphExec exec, CUstream stream);
typedef CUresult (*cuGraphExecDestroy_fn)(CUgraphExec exec);
typedef CUresult (*cuGraphDestroy_fn)(CUgraph graph);
typedef CUresult (*cuDeviceGraphMemTrim_fn)(CUdevice device);
typedef CUresult (*cuDeviceGetGraphMemAttribute_fn)(CUdevice device, CUgraphMem_attribute attr,
                                                    void *value);
typedef CUresult (*cuMemHostRegister_v2_fn)(void *p, size_t bytesize, unsigned int flags);
typedef CUresult (*cuMemHostUnregister_fn)(void *p);
typedef CUresult (*cuGreenCtxDestroy_fn)(CUgreenCtx ctx);
typedef CUresult (*cuCtxFromGreenCtx_fn)(CUcontext *ctx, CUgreenCtx green);

/* ---- runtime API ---- */
typedef int cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUmemPoolHandle_st *cudaMemPool_t;
typedef struct cudaArray *cudaArray_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef int cudaDriverEntryPointQueryResult;

enum {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
};

struct cudaPitchedPtr {
    void *ptr;
    size_t pitch;
    size_t xsize;
    size_t ysize;
};
struct cudaExtent {
    size_t width;
    size_t height;
    size_t depth;
};
struct cudaChannelFormatDesc {
    int x;
    int y;
    int z;
    int w;
    int f;
};

typedef cudaError_t (*cudaMalloc_fn)(void **devPtr, size_t size);
typedef cudaError_t (*cudaMallocPitch_fn)(void **devPtr, size_t *pitch, size_t width,
                                          size_t height);
typedef cudaError_t (*cudaMalloc3D_fn)(struct cudaPitchedPtr *pitchedDevPtr,
                                       struct cudaExtent extent);
typedef cudaError_t (*cudaMallocManaged_fn)(void **devPtr, size_t size, unsigned int flags);
typedef cudaError_t (*cudaMallocAsync_fn)(void **devPtr, size_t size, cudaStream_t stream);
typedef cudaError_t (*cudaMallocFromPoolAsync_fn)(void **ptr, size_t size, cudaMemPool_t pool,
                                                  cudaStream_t stream);
typedef cudaError_t (*cudaFree_fn)(void *devPtr);
typedef cudaError_t (*cudaFreeAsync_fn)(void *devPtr, cudaStream_t stream);
typedef cudaError_t (*cudaMallocHost_fn)(void **ptr, size_t size);
typedef cudaError_t (*cudaHostAlloc_fn)(void **pHost, size_t size, unsigned int flags);
typedef cudaError_t (*cudaFreeHost_fn)(void *ptr);
typedef cudaError_t (*cudaMallocArray_fn)(cudaArray_t *array,
                                          const struct cudaChannelFormatDesc *desc, size_t width,
                                          size_t height, unsigned int flags);
typedef cudaError_t (*cudaFreeArray_fn)(cudaArray_t array);
typedef cudaError_t (*cudaMalloc3DArray_fn)(cudaArray_t *array,
                                            const struct cudaChannelFormatDesc *desc,
                                            struct cudaExtent extent, unsigned int flags);
typedef cudaError_t (*cudaMallocMipmappedArray_fn)(cudaMipmappedArray_t *array,
                                                   const struct cudaChannelFormatDesc *desc,
                                                   struct cudaExtent extent, unsigned int levels,
                                                   unsigned int flags);
typedef cudaError_t (*cudaFreeMipmappedArray_fn)(cudaMipmappedArray_t array);
typedef cudaError_t (*cudaDeviceReset_fn)(void);
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
struct cudaMemAllocNodeParams; /* passed through */
typedef cudaError_t (*cudaGraphAddMemAllocNode_fn)(cudaGraphNode_t *node, cudaGraph_t graph,
                                                   const cudaGraphNode_t *dependencies,
                                                   size_t numDependencies,
                                                   struct cudaMemAllocNodeParams *params);
typedef cudaError_t (*cudaGraphAddMemFreeNode_fn)(cudaGraphNode_t *node, cudaGraph_t graph,
                                                  const cudaGraphNode_t *dependencies,
                                                  size_t numDependencies, void *dptr);
/* cudaGraphAddNode's tagged union: its type is what the wrapper reads. */
enum { cudaGraphNodeTypeMemAlloc = 0x0a, cudaGraphNodeTypeMemFree = 0x0b };
struct cudaGraphNodeParams {
    int type; /* enum cudaGraphNodeType */
    int reserved0[3];
    long long reserved1[29]; /* the union of each type's parameters */
    long long reserved2;
};
typedef struct cudaGraphEdgeData_st cudaGraphEdgeData; /* passed through */
typedef cudaError_t (*cudaGraphAddNode_fn)(cudaGraphNode_t *node, cudaGraph_t graph,
                                           const cudaGraphNode_t *dependencies,
                                           const cudaGraphEdgeData *dependencyData,
                                           size_t numDependencies,
                                           struct cudaGraphNodeParams *params);
typedef cudaError_t (*cudaGraphLaunch_fn)(cudaGraphExec_t exec, cudaStream_t stream);
typedef cudaError_t (*cudaDeviceGraphMemTrim_fn)(int device);
typedef cudaError_t (*cudaHostRegister_fn)(void *ptr, size_t size, unsigned int flags);
typedef cudaError_t (*cudaHostUnregister_fn)(void *ptr);
typedef cudaError_t (*cudaGetDriverEntryPoint_fn)(const char *symbol, void **funcPtr,
                                                  unsigned long long flags,
                                                  cudaDriverEntryPointQueryResult *driverStatus);
typedef cudaError_t (*cudaGetDriverEntryPointByVersion_fn)(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    cudaDriverEntryPointQueryResult *driverStatus);

#endif
