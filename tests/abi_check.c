/* Proves that vramtrace's own CUDA declarations (src/reach/cuda_abi.h) match the
 * real CUDA headers: compiled (-fsyntax-only) by tests/test_abi.py where
 * the toolkit is installed; every check is a _Static_assert, so a wrong
 * declaration fails the compile.
 *
 * How: the real cuda.h / cuda_runtime_api.h / cudaTypedefs.h come first;
 * then cuda_abi.h is included with every name it shares with them renamed
 * to vt_<name> by macros, so both sets of declarations live side by side.
 *  - types:     vt_T and T compatible (__builtin_types_compatible_p), or,
 *               where ours is a plain int and the real one an enum, equal
 *               size and alignment;
 *  - enums:     every constant equal;
 *  - structs:   size, alignment, and offset + size (+ type) of each member;
 *  - functions: each of our function-pointer typedefs and the real
 *               declaration are both compared with one shape, written once
 *               with its named types T(x) and expanded twice, with
 *               T(x) = vt_x for ours and T(x) = x for the real one.
 * A new declaration in cuda_abi.h that clashes with the real headers makes
 * this file fail to compile until it is renamed and checked here. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>
#include <stddef.h>

/* ---- ours, renamed ---- */
#define CUresult vt_CUresult
#define CUdevice vt_CUdevice
#define CUdeviceptr vt_CUdeviceptr
#define CUdeviceptr_v1 vt_CUdeviceptr_v1
#define CUcontext vt_CUcontext
#define CUstream vt_CUstream
#define CUmemoryPool vt_CUmemoryPool
#define CUarray vt_CUarray
#define CUmipmappedArray vt_CUmipmappedArray
#define CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL vt_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
#define CUmemGenericAllocationHandle vt_CUmemGenericAllocationHandle
#define cuuint64_t vt_cuuint64_t
#define CUdriverProcAddressQueryResult vt_CUdriverProcAddressQueryResult
#define CUDA_SUCCESS vt_CUDA_SUCCESS
#define CUDA_ERROR_INVALID_VALUE vt_CUDA_ERROR_INVALID_VALUE
#define CUDA_ERROR_OUT_OF_MEMORY vt_CUDA_ERROR_OUT_OF_MEMORY
#define CUDA_ERROR_NOT_INITIALIZED vt_CUDA_ERROR_NOT_INITIALIZED
#define CUDA_ERROR_INVALID_CONTEXT vt_CUDA_ERROR_INVALID_CONTEXT
#define CUDA_ERROR_NOT_FOUND vt_CUDA_ERROR_NOT_FOUND
#define CU_GET_PROC_ADDRESS_DEFAULT vt_CU_GET_PROC_ADDRESS_DEFAULT
#define CU_GET_PROC_ADDRESS_LEGACY_STREAM vt_CU_GET_PROC_ADDRESS_LEGACY_STREAM
#define CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM vt_CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
#define CU_GET_PROC_ADDRESS_SUCCESS vt_CU_GET_PROC_ADDRESS_SUCCESS
#define CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND vt_CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
#define CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT vt_CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
#define CUmemLocationType_enum vt_CUmemLocationType_enum
#define CUmemLocationType vt_CUmemLocationType
#define CU_MEM_LOCATION_TYPE_INVALID vt_CU_MEM_LOCATION_TYPE_INVALID
#define CU_MEM_LOCATION_TYPE_DEVICE vt_CU_MEM_LOCATION_TYPE_DEVICE
#define CU_MEM_LOCATION_TYPE_HOST vt_CU_MEM_LOCATION_TYPE_HOST
#define CU_MEM_LOCATION_TYPE_HOST_NUMA vt_CU_MEM_LOCATION_TYPE_HOST_NUMA
#define CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT vt_CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT
#define CU_MEM_LOCATION_TYPE_MAX vt_CU_MEM_LOCATION_TYPE_MAX
#define CUmemAllocationType_enum vt_CUmemAllocationType_enum
#define CUmemAllocationType vt_CUmemAllocationType
#define CU_MEM_ALLOCATION_TYPE_INVALID vt_CU_MEM_ALLOCATION_TYPE_INVALID
#define CU_MEM_ALLOCATION_TYPE_PINNED vt_CU_MEM_ALLOCATION_TYPE_PINNED
#define CU_MEM_ALLOCATION_TYPE_MAX vt_CU_MEM_ALLOCATION_TYPE_MAX
#define CUmemAllocationHandleType_enum vt_CUmemAllocationHandleType_enum
#define CUmemAllocationHandleType vt_CUmemAllocationHandleType
#define CU_MEM_HANDLE_TYPE_NONE vt_CU_MEM_HANDLE_TYPE_NONE
#define CU_MEM_HANDLE_TYPE_MAX vt_CU_MEM_HANDLE_TYPE_MAX
#define CUmemLocation_st vt_CUmemLocation_st
#define CUmemLocation vt_CUmemLocation
#define CUmemAllocationProp_st vt_CUmemAllocationProp_st
#define CUmemAllocationProp vt_CUmemAllocationProp
#define CUarray_format_enum vt_CUarray_format_enum
#define CUarray_format vt_CUarray_format
#define CU_AD_FORMAT_UNSIGNED_INT8 vt_CU_AD_FORMAT_UNSIGNED_INT8
#define CU_AD_FORMAT_UNSIGNED_INT16 vt_CU_AD_FORMAT_UNSIGNED_INT16
#define CU_AD_FORMAT_UNSIGNED_INT32 vt_CU_AD_FORMAT_UNSIGNED_INT32
#define CU_AD_FORMAT_SIGNED_INT8 vt_CU_AD_FORMAT_SIGNED_INT8
#define CU_AD_FORMAT_SIGNED_INT16 vt_CU_AD_FORMAT_SIGNED_INT16
#define CU_AD_FORMAT_SIGNED_INT32 vt_CU_AD_FORMAT_SIGNED_INT32
#define CU_AD_FORMAT_HALF vt_CU_AD_FORMAT_HALF
#define CU_AD_FORMAT_FLOAT vt_CU_AD_FORMAT_FLOAT
#define CU_AD_FORMAT_MAX vt_CU_AD_FORMAT_MAX
#define CU_AD_FORMAT_UNORM_INT_101010_2 vt_CU_AD_FORMAT_UNORM_INT_101010_2
#define CU_AD_FORMAT_BC1_UNORM vt_CU_AD_FORMAT_BC1_UNORM
#define CU_AD_FORMAT_BC1_UNORM_SRGB vt_CU_AD_FORMAT_BC1_UNORM_SRGB
#define CU_AD_FORMAT_BC2_UNORM vt_CU_AD_FORMAT_BC2_UNORM
#define CU_AD_FORMAT_BC2_UNORM_SRGB vt_CU_AD_FORMAT_BC2_UNORM_SRGB
#define CU_AD_FORMAT_BC3_UNORM vt_CU_AD_FORMAT_BC3_UNORM
#define CU_AD_FORMAT_BC3_UNORM_SRGB vt_CU_AD_FORMAT_BC3_UNORM_SRGB
#define CU_AD_FORMAT_BC4_UNORM vt_CU_AD_FORMAT_BC4_UNORM
#define CU_AD_FORMAT_BC4_SNORM vt_CU_AD_FORMAT_BC4_SNORM
#define CU_AD_FORMAT_BC5_UNORM vt_CU_AD_FORMAT_BC5_UNORM
#define CU_AD_FORMAT_BC5_SNORM vt_CU_AD_FORMAT_BC5_SNORM
#define CU_AD_FORMAT_BC6H_UF16 vt_CU_AD_FORMAT_BC6H_UF16
#define CU_AD_FORMAT_BC6H_SF16 vt_CU_AD_FORMAT_BC6H_SF16
#define CU_AD_FORMAT_BC7_UNORM vt_CU_AD_FORMAT_BC7_UNORM
#define CU_AD_FORMAT_BC7_UNORM_SRGB vt_CU_AD_FORMAT_BC7_UNORM_SRGB
#define CU_AD_FORMAT_P010 vt_CU_AD_FORMAT_P010
#define CU_AD_FORMAT_P016 vt_CU_AD_FORMAT_P016
#define CU_AD_FORMAT_NV16 vt_CU_AD_FORMAT_NV16
#define CU_AD_FORMAT_P210 vt_CU_AD_FORMAT_P210
#define CU_AD_FORMAT_P216 vt_CU_AD_FORMAT_P216
#define CU_AD_FORMAT_YUY2 vt_CU_AD_FORMAT_YUY2
#define CU_AD_FORMAT_Y210 vt_CU_AD_FORMAT_Y210
#define CU_AD_FORMAT_Y216 vt_CU_AD_FORMAT_Y216
#define CU_AD_FORMAT_AYUV vt_CU_AD_FORMAT_AYUV
#define CU_AD_FORMAT_Y410 vt_CU_AD_FORMAT_Y410
#define CU_AD_FORMAT_NV12 vt_CU_AD_FORMAT_NV12
#define CU_AD_FORMAT_Y416 vt_CU_AD_FORMAT_Y416
#define CU_AD_FORMAT_Y444_PLANAR8 vt_CU_AD_FORMAT_Y444_PLANAR8
#define CU_AD_FORMAT_Y444_PLANAR10 vt_CU_AD_FORMAT_Y444_PLANAR10
#define CU_AD_FORMAT_YUV444_8bit_SemiPlanar vt_CU_AD_FORMAT_YUV444_8bit_SemiPlanar
#define CU_AD_FORMAT_YUV444_16bit_SemiPlanar vt_CU_AD_FORMAT_YUV444_16bit_SemiPlanar
#define CU_AD_FORMAT_UNORM_INT8X1 vt_CU_AD_FORMAT_UNORM_INT8X1
#define CU_AD_FORMAT_UNORM_INT8X2 vt_CU_AD_FORMAT_UNORM_INT8X2
#define CU_AD_FORMAT_UNORM_INT8X4 vt_CU_AD_FORMAT_UNORM_INT8X4
#define CU_AD_FORMAT_UNORM_INT16X1 vt_CU_AD_FORMAT_UNORM_INT16X1
#define CU_AD_FORMAT_UNORM_INT16X2 vt_CU_AD_FORMAT_UNORM_INT16X2
#define CU_AD_FORMAT_UNORM_INT16X4 vt_CU_AD_FORMAT_UNORM_INT16X4
#define CU_AD_FORMAT_SNORM_INT8X1 vt_CU_AD_FORMAT_SNORM_INT8X1
#define CU_AD_FORMAT_SNORM_INT8X2 vt_CU_AD_FORMAT_SNORM_INT8X2
#define CU_AD_FORMAT_SNORM_INT8X4 vt_CU_AD_FORMAT_SNORM_INT8X4
#define CU_AD_FORMAT_SNORM_INT16X1 vt_CU_AD_FORMAT_SNORM_INT16X1
#define CU_AD_FORMAT_SNORM_INT16X2 vt_CU_AD_FORMAT_SNORM_INT16X2
#define CU_AD_FORMAT_SNORM_INT16X4 vt_CU_AD_FORMAT_SNORM_INT16X4
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE vt_CU_POINTER_ATTRIBUTE_MEMORY_TYPE
#define CU_POINTER_ATTRIBUTE_IS_MANAGED vt_CU_POINTER_ATTRIBUTE_IS_MANAGED
#define CU_MEMORYTYPE_HOST vt_CU_MEMORYTYPE_HOST
#define CUgreenCtx vt_CUgreenCtx
#define CUgraph vt_CUgraph
#define CUgraphNode vt_CUgraphNode
#define CUgraphExec vt_CUgraphExec
#define CUstreamCaptureStatus_enum vt_CUstreamCaptureStatus_enum
#define CUstreamCaptureStatus vt_CUstreamCaptureStatus
#define CUstreamCaptureMode_enum vt_CUstreamCaptureMode_enum
#define CUstreamCaptureMode vt_CUstreamCaptureMode
#define CUgraphMem_attribute_enum vt_CUgraphMem_attribute_enum
#define CUgraphMem_attribute vt_CUgraphMem_attribute
#define CUmemAccess_flags_enum vt_CUmemAccess_flags_enum
#define CUmemAccess_flags vt_CUmemAccess_flags
#define CUmemAccessDesc_st vt_CUmemAccessDesc_st
#define CUmemAccessDesc vt_CUmemAccessDesc
#define CUmemPoolProps_st vt_CUmemPoolProps_st
#define CUmemPoolProps vt_CUmemPoolProps
#define CUDA_MEM_ALLOC_NODE_PARAMS_v1_st vt_CUDA_MEM_ALLOC_NODE_PARAMS_v1_st
#define CUDA_MEM_ALLOC_NODE_PARAMS vt_CUDA_MEM_ALLOC_NODE_PARAMS
#define CUgraphNodeType_enum vt_CUgraphNodeType_enum
#define CUgraphNodeType vt_CUgraphNodeType
#define CU_GRAPH_NODE_TYPE_MEM_ALLOC vt_CU_GRAPH_NODE_TYPE_MEM_ALLOC
#define CU_GRAPH_NODE_TYPE_MEM_FREE vt_CU_GRAPH_NODE_TYPE_MEM_FREE
#define CUDA_MEM_ALLOC_NODE_PARAMS_v2_st vt_CUDA_MEM_ALLOC_NODE_PARAMS_v2_st
#define CUDA_MEM_ALLOC_NODE_PARAMS_v2 vt_CUDA_MEM_ALLOC_NODE_PARAMS_v2
#define CUDA_MEM_FREE_NODE_PARAMS_st vt_CUDA_MEM_FREE_NODE_PARAMS_st
#define CUDA_MEM_FREE_NODE_PARAMS vt_CUDA_MEM_FREE_NODE_PARAMS
#define CUgraphNodeParams_st vt_CUgraphNodeParams_st
#define CUgraphNodeParams vt_CUgraphNodeParams
#define cudaGraphNodeTypeMemAlloc vt_cudaGraphNodeTypeMemAlloc
#define cudaGraphNodeTypeMemFree vt_cudaGraphNodeTypeMemFree
#define cudaGraphNodeParams vt_cudaGraphNodeParams
#define CU_STREAM_CAPTURE_STATUS_NONE vt_CU_STREAM_CAPTURE_STATUS_NONE
#define CU_STREAM_CAPTURE_STATUS_ACTIVE vt_CU_STREAM_CAPTURE_STATUS_ACTIVE
#define CU_STREAM_CAPTURE_STATUS_INVALIDATED vt_CU_STREAM_CAPTURE_STATUS_INVALIDATED
#define CU_STREAM_CAPTURE_MODE_GLOBAL vt_CU_STREAM_CAPTURE_MODE_GLOBAL
#define CU_STREAM_CAPTURE_MODE_THREAD_LOCAL vt_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
#define CU_STREAM_CAPTURE_MODE_RELAXED vt_CU_STREAM_CAPTURE_MODE_RELAXED
#define CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT vt_CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT
#define CU_GRAPH_MEM_ATTR_USED_MEM_HIGH vt_CU_GRAPH_MEM_ATTR_USED_MEM_HIGH
#define CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT vt_CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT
#define CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH vt_CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH
#define CU_MEM_ACCESS_FLAGS_PROT_NONE vt_CU_MEM_ACCESS_FLAGS_PROT_NONE
#define CU_MEM_ACCESS_FLAGS_PROT_READ vt_CU_MEM_ACCESS_FLAGS_PROT_READ
#define CU_MEM_ACCESS_FLAGS_PROT_READWRITE vt_CU_MEM_ACCESS_FLAGS_PROT_READWRITE
#define CU_MEM_ACCESS_FLAGS_PROT_MAX vt_CU_MEM_ACCESS_FLAGS_PROT_MAX
#define cudaGraph_t vt_cudaGraph_t
#define cudaGraphNode_t vt_cudaGraphNode_t
#define cudaGraphExec_t vt_cudaGraphExec_t
#define CUDA_ARRAY_DESCRIPTOR_st vt_CUDA_ARRAY_DESCRIPTOR_st
#define CUDA_ARRAY_DESCRIPTOR vt_CUDA_ARRAY_DESCRIPTOR
#define CUDA_ARRAY3D_DESCRIPTOR_st vt_CUDA_ARRAY3D_DESCRIPTOR_st
#define CUDA_ARRAY3D_DESCRIPTOR vt_CUDA_ARRAY3D_DESCRIPTOR
#define cudaError_t vt_cudaError_t
#define cudaStream_t vt_cudaStream_t
#define cudaMemPool_t vt_cudaMemPool_t
#define cudaMipmappedArray_t vt_cudaMipmappedArray_t
#define cudaArray_t vt_cudaArray_t
#define cudaSuccess vt_cudaSuccess
#define cudaErrorInvalidValue vt_cudaErrorInvalidValue
#define cudaErrorMemoryAllocation vt_cudaErrorMemoryAllocation
#define cudaErrorInitializationError vt_cudaErrorInitializationError
#define cudaPitchedPtr vt_cudaPitchedPtr
#define cudaExtent vt_cudaExtent
#define cudaChannelFormatDesc vt_cudaChannelFormatDesc

#undef CU_UUID_HAS_BEEN_DEFINED /* the real CUuuid is defined; ours, renamed, too */
#define CUuuid_st vt_CUuuid_st
#define CUuuid vt_CUuuid
#include "cuda_abi.h"
#undef CUuuid_st
#undef CUuuid

#undef CUresult
#undef CUdevice
#undef CUdeviceptr
#undef CUdeviceptr_v1
#undef CUcontext
#undef CUstream
#undef CUmemoryPool
#undef CUarray
#undef CUmipmappedArray
#undef CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
#undef CUmemGenericAllocationHandle
#undef cuuint64_t
#undef CUdriverProcAddressQueryResult
#undef CUDA_SUCCESS
#undef CUDA_ERROR_INVALID_VALUE
#undef CUDA_ERROR_OUT_OF_MEMORY
#undef CUDA_ERROR_NOT_INITIALIZED
#undef CUDA_ERROR_INVALID_CONTEXT
#undef CUDA_ERROR_NOT_FOUND
#undef CU_GET_PROC_ADDRESS_DEFAULT
#undef CU_GET_PROC_ADDRESS_LEGACY_STREAM
#undef CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
#undef CU_GET_PROC_ADDRESS_SUCCESS
#undef CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
#undef CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
#undef CUmemLocationType_enum
#undef CUmemLocationType
#undef CU_MEM_LOCATION_TYPE_INVALID
#undef CU_MEM_LOCATION_TYPE_DEVICE
#undef CU_MEM_LOCATION_TYPE_HOST
#undef CU_MEM_LOCATION_TYPE_HOST_NUMA
#undef CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT
#undef CU_MEM_LOCATION_TYPE_MAX
#undef CUmemAllocationType_enum
#undef CUmemAllocationType
#undef CU_MEM_ALLOCATION_TYPE_INVALID
#undef CU_MEM_ALLOCATION_TYPE_PINNED
#undef CU_MEM_ALLOCATION_TYPE_MAX
#undef CUmemAllocationHandleType_enum
#undef CUmemAllocationHandleType
#undef CU_MEM_HANDLE_TYPE_NONE
#undef CU_MEM_HANDLE_TYPE_MAX
#undef CUmemLocation_st
#undef CUmemLocation
#undef CUmemAllocationProp_st
#undef CUmemAllocationProp
#undef CUarray_format_enum
#undef CUarray_format
#undef CU_AD_FORMAT_UNSIGNED_INT8
#undef CU_AD_FORMAT_UNSIGNED_INT16
#undef CU_AD_FORMAT_UNSIGNED_INT32
#undef CU_AD_FORMAT_SIGNED_INT8
#undef CU_AD_FORMAT_SIGNED_INT16
#undef CU_AD_FORMAT_SIGNED_INT32
#undef CU_AD_FORMAT_HALF
#undef CU_AD_FORMAT_FLOAT
#undef CU_AD_FORMAT_MAX
#undef CU_AD_FORMAT_UNORM_INT_101010_2
#undef CU_AD_FORMAT_BC1_UNORM
#undef CU_AD_FORMAT_BC1_UNORM_SRGB
#undef CU_AD_FORMAT_BC2_UNORM
#undef CU_AD_FORMAT_BC2_UNORM_SRGB
#undef CU_AD_FORMAT_BC3_UNORM
#undef CU_AD_FORMAT_BC3_UNORM_SRGB
#undef CU_AD_FORMAT_BC4_UNORM
#undef CU_AD_FORMAT_BC4_SNORM
#undef CU_AD_FORMAT_BC5_UNORM
#undef CU_AD_FORMAT_BC5_SNORM
#undef CU_AD_FORMAT_BC6H_UF16
#undef CU_AD_FORMAT_BC6H_SF16
#undef CU_AD_FORMAT_BC7_UNORM
#undef CU_AD_FORMAT_BC7_UNORM_SRGB
#undef CU_AD_FORMAT_P010
#undef CU_AD_FORMAT_P016
#undef CU_AD_FORMAT_NV16
#undef CU_AD_FORMAT_P210
#undef CU_AD_FORMAT_P216
#undef CU_AD_FORMAT_YUY2
#undef CU_AD_FORMAT_Y210
#undef CU_AD_FORMAT_Y216
#undef CU_AD_FORMAT_AYUV
#undef CU_AD_FORMAT_Y410
#undef CU_AD_FORMAT_NV12
#undef CU_AD_FORMAT_Y416
#undef CU_AD_FORMAT_Y444_PLANAR8
#undef CU_AD_FORMAT_Y444_PLANAR10
#undef CU_AD_FORMAT_YUV444_8bit_SemiPlanar
#undef CU_AD_FORMAT_YUV444_16bit_SemiPlanar
#undef CU_AD_FORMAT_UNORM_INT8X1
#undef CU_AD_FORMAT_UNORM_INT8X2
#undef CU_AD_FORMAT_UNORM_INT8X4
#undef CU_AD_FORMAT_UNORM_INT16X1
#undef CU_AD_FORMAT_UNORM_INT16X2
#undef CU_AD_FORMAT_UNORM_INT16X4
#undef CU_AD_FORMAT_SNORM_INT8X1
#undef CU_AD_FORMAT_SNORM_INT8X2
#undef CU_AD_FORMAT_SNORM_INT8X4
#undef CU_AD_FORMAT_SNORM_INT16X1
#undef CU_AD_FORMAT_SNORM_INT16X2
#undef CU_AD_FORMAT_SNORM_INT16X4
#undef CU_POINTER_ATTRIBUTE_MEMORY_TYPE
#undef CU_POINTER_ATTRIBUTE_IS_MANAGED
#undef CU_MEMORYTYPE_HOST
#undef CUgreenCtx
#undef CUgraph
#undef CUgraphNode
#undef CUgraphExec
#undef CUstreamCaptureStatus_enum
#undef CUstreamCaptureStatus
#undef CUstreamCaptureMode_enum
#undef CUstreamCaptureMode
#undef CUgraphMem_attribute_enum
#undef CUgraphMem_attribute
#undef CUmemAccess_flags_enum
#undef CUmemAccess_flags
#undef CUmemAccessDesc_st
#undef CUmemAccessDesc
#undef CUmemPoolProps_st
#undef CUmemPoolProps
#undef CUDA_MEM_ALLOC_NODE_PARAMS_v1_st
#undef CUDA_MEM_ALLOC_NODE_PARAMS
#undef CUgraphNodeType_enum
#undef CUgraphNodeType
#undef CU_GRAPH_NODE_TYPE_MEM_ALLOC
#undef CU_GRAPH_NODE_TYPE_MEM_FREE
#undef CUDA_MEM_ALLOC_NODE_PARAMS_v2_st
#undef CUDA_MEM_ALLOC_NODE_PARAMS_v2
#undef CUDA_MEM_FREE_NODE_PARAMS_st
#undef CUDA_MEM_FREE_NODE_PARAMS
#undef CUgraphNodeParams_st
#undef CUgraphNodeParams
#undef cudaGraphNodeTypeMemAlloc
#undef cudaGraphNodeTypeMemFree
#undef cudaGraphNodeParams
#undef CU_STREAM_CAPTURE_STATUS_NONE
#undef CU_STREAM_CAPTURE_STATUS_ACTIVE
#undef CU_STREAM_CAPTURE_STATUS_INVALIDATED
#undef CU_STREAM_CAPTURE_MODE_GLOBAL
#undef CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
#undef CU_STREAM_CAPTURE_MODE_RELAXED
#undef CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT
#undef CU_GRAPH_MEM_ATTR_USED_MEM_HIGH
#undef CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT
#undef CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH
#undef CU_MEM_ACCESS_FLAGS_PROT_NONE
#undef CU_MEM_ACCESS_FLAGS_PROT_READ
#undef CU_MEM_ACCESS_FLAGS_PROT_READWRITE
#undef CU_MEM_ACCESS_FLAGS_PROT_MAX
#undef cudaGraph_t
#undef cudaGraphNode_t
#undef cudaGraphExec_t
#undef CUDA_ARRAY_DESCRIPTOR_st
#undef CUDA_ARRAY_DESCRIPTOR
#undef CUDA_ARRAY3D_DESCRIPTOR_st
#undef CUDA_ARRAY3D_DESCRIPTOR
#undef cudaError_t
#undef cudaStream_t
#undef cudaMemPool_t
#undef cudaMipmappedArray_t
#undef cudaArray_t
#undef cudaSuccess
#undef cudaErrorInvalidValue
#undef cudaErrorMemoryAllocation
#undef cudaErrorInitializationError
#undef cudaPitchedPtr
#undef cudaExtent
#undef cudaChannelFormatDesc

/* ---- the checks ---- */

#include "abi_asserts.h"
#define T_OURS(x) vt_##x
#define T_REAL(x) x
/* ours: our typedef; real: an expression of the real function-pointer type */
#define VT_ABI_FN(ours, real, shape)                                              \
    _Static_assert(VT_SAME(ours, shape(T_OURS)), "VT_ABI function type " #ours); \
    _Static_assert(VT_SAME(__typeof__(real), shape(T_REAL)), "VT_ABI real " #real " vs shape")

/* scalar and handle types */
VT_ABI_TYPE(vt_CUresult, CUresult);
VT_ABI_SAME_TYPE(vt_CUdevice, CUdevice);
VT_ABI_SAME_TYPE(vt_CUdeviceptr, CUdeviceptr);
VT_ABI_SAME_TYPE(vt_CUdeviceptr_v1, unsigned int); /* the real one is internal-only */
VT_ABI_SAME_TYPE(vt_CUcontext, CUcontext);
VT_ABI_SAME_TYPE(vt_CUstream, CUstream);
VT_ABI_SAME_TYPE(vt_CUmemoryPool, CUmemoryPool);
VT_ABI_SAME_TYPE(vt_CUarray, CUarray);
VT_ABI_SAME_TYPE(vt_CUmipmappedArray, CUmipmappedArray);
VT_ABI_SAME_TYPE(vt_CUmemGenericAllocationHandle, CUmemGenericAllocationHandle);
VT_ABI_SAME_TYPE(vt_cuuint64_t, cuuint64_t);
VT_ABI_TYPE(vt_CUdriverProcAddressQueryResult, CUdriverProcAddressQueryResult);
VT_ABI_TYPE(vt_CUmemLocationType, CUmemLocationType);
VT_ABI_TYPE(vt_CUmemAllocationType, CUmemAllocationType);
VT_ABI_TYPE(vt_CUmemAllocationHandleType, CUmemAllocationHandleType);
VT_ABI_TYPE(vt_CUarray_format, CUarray_format);
VT_ABI_TYPE(vt_cudaError_t, cudaError_t);
VT_ABI_SAME_TYPE(vt_cudaStream_t, cudaStream_t);
VT_ABI_SAME_TYPE(vt_cudaMemPool_t, cudaMemPool_t);
VT_ABI_SAME_TYPE(vt_cudaArray_t, cudaArray_t);
VT_ABI_SAME_TYPE(vt_cudaMipmappedArray_t, cudaMipmappedArray_t);
VT_ABI_TYPE(cudaDriverEntryPointQueryResult, enum cudaDriverEntryPointQueryResult);
/* the runtime's handles are the driver's */
VT_ABI_SAME_TYPE(vt_cudaStream_t, CUstream);
VT_ABI_SAME_TYPE(vt_cudaMemPool_t, CUmemoryPool);

/* enum constants */
VT_ABI_ENUM(CUDA_SUCCESS);
VT_ABI_ENUM(CUDA_ERROR_INVALID_VALUE);
VT_ABI_ENUM(CUDA_ERROR_OUT_OF_MEMORY);
VT_ABI_ENUM(CUDA_ERROR_NOT_INITIALIZED);
VT_ABI_ENUM(CUDA_ERROR_INVALID_CONTEXT);
VT_ABI_ENUM(CUDA_ERROR_NOT_FOUND);
VT_ABI_ENUM(CU_GET_PROC_ADDRESS_DEFAULT);
VT_ABI_ENUM(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
VT_ABI_ENUM(CU_GET_PROC_ADDRESS_LEGACY_STREAM);
VT_ABI_ENUM(CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
VT_ABI_ENUM(CU_GET_PROC_ADDRESS_SUCCESS);
VT_ABI_ENUM(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
VT_ABI_ENUM(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
VT_ABI_ENUM(CU_MEM_LOCATION_TYPE_INVALID);
VT_ABI_ENUM(CU_MEM_LOCATION_TYPE_DEVICE);
VT_ABI_ENUM(CU_MEM_LOCATION_TYPE_HOST);
VT_ABI_ENUM(CU_MEM_LOCATION_TYPE_HOST_NUMA);
VT_ABI_ENUM(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT);
VT_ABI_ENUM(CU_MEM_LOCATION_TYPE_MAX);
VT_ABI_ENUM(CU_MEM_ALLOCATION_TYPE_INVALID);
VT_ABI_ENUM(CU_MEM_ALLOCATION_TYPE_PINNED);
VT_ABI_ENUM(CU_MEM_ALLOCATION_TYPE_MAX);
VT_ABI_ENUM(CU_MEM_HANDLE_TYPE_NONE);
VT_ABI_ENUM(CU_MEM_HANDLE_TYPE_MAX);
VT_ABI_ENUM(CU_AD_FORMAT_UNSIGNED_INT8);
VT_ABI_ENUM(CU_AD_FORMAT_UNSIGNED_INT16);
VT_ABI_ENUM(CU_AD_FORMAT_UNSIGNED_INT32);
VT_ABI_ENUM(CU_AD_FORMAT_SIGNED_INT8);
VT_ABI_ENUM(CU_AD_FORMAT_SIGNED_INT16);
VT_ABI_ENUM(CU_AD_FORMAT_SIGNED_INT32);
VT_ABI_ENUM(CU_AD_FORMAT_HALF);
VT_ABI_ENUM(CU_AD_FORMAT_FLOAT);
VT_ABI_ENUM(CU_AD_FORMAT_MAX);
VT_ABI_ENUM(CU_AD_FORMAT_UNORM_INT_101010_2);
VT_ABI_ENUM(CU_AD_FORMAT_BC1_UNORM);
VT_ABI_ENUM(CU_AD_FORMAT_BC1_UNORM_SRGB);
VT_ABI_ENUM(CU_AD_FORMAT_BC2_UNORM);
VT_ABI_ENUM(CU_AD_FORMAT_BC2_UNORM_SRGB);
VT_ABI_ENUM(CU_AD_FORMAT_BC3_UNORM);
VT_ABI_ENUM(CU_AD_FORMAT_BC3_UNORM_SRGB);
VT_ABI_ENUM(CU_AD_FORMAT_BC4_UNORM);
VT_ABI_ENUM(CU_AD_FORMAT_BC4_SNORM);
VT_ABI_ENUM(CU_AD_FORMAT_BC5_UNORM);
VT_ABI_ENUM(CU_AD_FORMAT_BC5_SNORM);
VT_ABI_ENUM(CU_AD_FORMAT_BC6H_UF16);
VT_ABI_ENUM(CU_AD_FORMAT_BC6H_SF16);
VT_ABI_ENUM(CU_AD_FORMAT_BC7_UNORM);
VT_ABI_ENUM(CU_AD_FORMAT_BC7_UNORM_SRGB);
VT_ABI_ENUM(CU_AD_FORMAT_P010);
VT_ABI_ENUM(CU_AD_FORMAT_P016);
VT_ABI_ENUM(CU_AD_FORMAT_NV16);
VT_ABI_ENUM(CU_AD_FORMAT_P210);
VT_ABI_ENUM(CU_AD_FORMAT_P216);
VT_ABI_ENUM(CU_AD_FORMAT_YUY2);
VT_ABI_ENUM(CU_AD_FORMAT_Y210);
VT_ABI_ENUM(CU_AD_FORMAT_Y216);
VT_ABI_ENUM(CU_AD_FORMAT_AYUV);
VT_ABI_ENUM(CU_AD_FORMAT_Y410);
VT_ABI_ENUM(CU_AD_FORMAT_NV12);
VT_ABI_ENUM(CU_AD_FORMAT_Y416);
VT_ABI_ENUM(CU_AD_FORMAT_Y444_PLANAR8);
VT_ABI_ENUM(CU_AD_FORMAT_Y444_PLANAR10);
VT_ABI_ENUM(CU_AD_FORMAT_YUV444_8bit_SemiPlanar);
VT_ABI_ENUM(CU_AD_FORMAT_YUV444_16bit_SemiPlanar);
VT_ABI_ENUM(CU_AD_FORMAT_UNORM_INT8X1);
VT_ABI_ENUM(CU_AD_FORMAT_UNORM_INT8X2);
VT_ABI_ENUM(CU_AD_FORMAT_UNORM_INT8X4);
VT_ABI_ENUM(CU_AD_FORMAT_UNORM_INT16X1);
VT_ABI_ENUM(CU_AD_FORMAT_UNORM_INT16X2);
VT_ABI_ENUM(CU_AD_FORMAT_UNORM_INT16X4);
VT_ABI_ENUM(CU_AD_FORMAT_SNORM_INT8X1);
VT_ABI_ENUM(CU_AD_FORMAT_SNORM_INT8X2);
VT_ABI_ENUM(CU_AD_FORMAT_SNORM_INT8X4);
VT_ABI_ENUM(CU_AD_FORMAT_SNORM_INT16X1);
VT_ABI_ENUM(CU_AD_FORMAT_SNORM_INT16X2);
VT_ABI_ENUM(CU_AD_FORMAT_SNORM_INT16X4);
VT_ABI_ENUM(CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
VT_ABI_ENUM(CU_POINTER_ATTRIBUTE_IS_MANAGED);
VT_ABI_ENUM(CU_MEMORYTYPE_HOST);
_Static_assert(VT_CUDA_ARRAY3D_LAYERED == CUDA_ARRAY3D_LAYERED, "VT_ABI CUDA_ARRAY3D_LAYERED");
_Static_assert(VT_CUDA_ARRAY3D_CUBEMAP == CUDA_ARRAY3D_CUBEMAP, "VT_ABI CUDA_ARRAY3D_CUBEMAP");
_Static_assert(VT_CUDA_ARRAY3D_SPARSE == CUDA_ARRAY3D_SPARSE, "VT_ABI CUDA_ARRAY3D_SPARSE");
_Static_assert(VT_CUDA_ARRAY3D_DEFERRED_MAPPING == CUDA_ARRAY3D_DEFERRED_MAPPING,
               "VT_ABI CUDA_ARRAY3D_DEFERRED_MAPPING");
VT_ABI_ENUM(CU_STREAM_CAPTURE_STATUS_NONE);
VT_ABI_ENUM(CU_STREAM_CAPTURE_STATUS_ACTIVE);
VT_ABI_ENUM(CU_STREAM_CAPTURE_STATUS_INVALIDATED);
VT_ABI_ENUM(CU_STREAM_CAPTURE_MODE_GLOBAL);
VT_ABI_ENUM(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
VT_ABI_ENUM(CU_STREAM_CAPTURE_MODE_RELAXED);
VT_ABI_ENUM(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT);
VT_ABI_ENUM(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH);
VT_ABI_ENUM(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT);
VT_ABI_ENUM(CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH);
VT_ABI_ENUM(CU_MEM_ACCESS_FLAGS_PROT_NONE);
VT_ABI_ENUM(CU_MEM_ACCESS_FLAGS_PROT_READ);
VT_ABI_ENUM(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
VT_ABI_ENUM(CU_MEM_ACCESS_FLAGS_PROT_MAX);
VT_ABI_ENUM(cudaSuccess);
VT_ABI_ENUM(cudaErrorInvalidValue);
VT_ABI_ENUM(cudaErrorMemoryAllocation);
VT_ABI_ENUM(cudaErrorInitializationError);

VT_ABI_SAME_TYPE(vt_CUgreenCtx, CUgreenCtx);
VT_ABI_SAME_TYPE(vt_CUgraph, CUgraph);
VT_ABI_SAME_TYPE(vt_CUgraphNode, CUgraphNode);
VT_ABI_SAME_TYPE(vt_CUgraphExec, CUgraphExec);
VT_ABI_SAME_TYPE(vt_cudaGraph_t, cudaGraph_t);
VT_ABI_SAME_TYPE(vt_cudaGraphNode_t, cudaGraphNode_t);
VT_ABI_SAME_TYPE(vt_cudaGraphExec_t, cudaGraphExec_t);
VT_ABI_TYPE(vt_CUstreamCaptureStatus, CUstreamCaptureStatus);
VT_ABI_TYPE(vt_CUstreamCaptureMode, CUstreamCaptureMode);
VT_ABI_TYPE(vt_CUgraphMem_attribute, CUgraphMem_attribute);
VT_ABI_TYPE(vt_CUmemAccess_flags, CUmemAccess_flags);
/* structs */
VT_ABI_STRUCT(vt_CUmemAccessDesc, CUmemAccessDesc);
VT_ABI_MEMBER(vt_CUmemAccessDesc, CUmemAccessDesc, location);
VT_ABI_MEMBER(vt_CUmemAccessDesc, CUmemAccessDesc, flags);
VT_ABI_STRUCT(vt_CUmemPoolProps, CUmemPoolProps);
VT_ABI_MEMBER(vt_CUmemPoolProps, CUmemPoolProps, allocType);
VT_ABI_MEMBER(vt_CUmemPoolProps, CUmemPoolProps, handleTypes);
VT_ABI_MEMBER(vt_CUmemPoolProps, CUmemPoolProps, location);
VT_ABI_MEMBER_TYPE(vt_CUmemPoolProps, CUmemPoolProps, win32SecurityAttributes);
VT_ABI_MEMBER_TYPE(vt_CUmemPoolProps, CUmemPoolProps, maxSize);
VT_ABI_MEMBER_TYPE(vt_CUmemPoolProps, CUmemPoolProps, usage);
VT_ABI_MEMBER_TYPE(vt_CUmemPoolProps, CUmemPoolProps, reserved);
VT_ABI_STRUCT(vt_CUDA_MEM_ALLOC_NODE_PARAMS, CUDA_MEM_ALLOC_NODE_PARAMS);
VT_ABI_MEMBER(vt_CUDA_MEM_ALLOC_NODE_PARAMS, CUDA_MEM_ALLOC_NODE_PARAMS, poolProps);
VT_ABI_MEMBER(vt_CUDA_MEM_ALLOC_NODE_PARAMS, CUDA_MEM_ALLOC_NODE_PARAMS, accessDescs);
VT_ABI_MEMBER_TYPE(vt_CUDA_MEM_ALLOC_NODE_PARAMS, CUDA_MEM_ALLOC_NODE_PARAMS, accessDescCount);
VT_ABI_MEMBER_TYPE(vt_CUDA_MEM_ALLOC_NODE_PARAMS, CUDA_MEM_ALLOC_NODE_PARAMS, bytesize);
VT_ABI_MEMBER_TYPE(vt_CUDA_MEM_ALLOC_NODE_PARAMS, CUDA_MEM_ALLOC_NODE_PARAMS, dptr);
/* cuGraphAddNode's and cudaGraphAddNode's tagged unions: their memory node
 * members; the rest is padding of the real size */
VT_ABI_TYPE(vt_CUgraphNodeType, CUgraphNodeType);
VT_ABI_ENUM(CU_GRAPH_NODE_TYPE_MEM_ALLOC);
VT_ABI_ENUM(CU_GRAPH_NODE_TYPE_MEM_FREE);
VT_ABI_STRUCT(vt_CUDA_MEM_ALLOC_NODE_PARAMS_v2, CUDA_MEM_ALLOC_NODE_PARAMS_v2);
VT_ABI_MEMBER(vt_CUDA_MEM_ALLOC_NODE_PARAMS_v2, CUDA_MEM_ALLOC_NODE_PARAMS_v2, poolProps);
VT_ABI_MEMBER(vt_CUDA_MEM_ALLOC_NODE_PARAMS_v2, CUDA_MEM_ALLOC_NODE_PARAMS_v2, accessDescs);
VT_ABI_MEMBER_TYPE(vt_CUDA_MEM_ALLOC_NODE_PARAMS_v2, CUDA_MEM_ALLOC_NODE_PARAMS_v2,
                   accessDescCount);
VT_ABI_MEMBER_TYPE(vt_CUDA_MEM_ALLOC_NODE_PARAMS_v2, CUDA_MEM_ALLOC_NODE_PARAMS_v2, bytesize);
VT_ABI_MEMBER_TYPE(vt_CUDA_MEM_ALLOC_NODE_PARAMS_v2, CUDA_MEM_ALLOC_NODE_PARAMS_v2, dptr);
VT_ABI_STRUCT(vt_CUDA_MEM_FREE_NODE_PARAMS, CUDA_MEM_FREE_NODE_PARAMS);
VT_ABI_MEMBER_TYPE(vt_CUDA_MEM_FREE_NODE_PARAMS, CUDA_MEM_FREE_NODE_PARAMS, dptr);
VT_ABI_STRUCT(vt_CUgraphNodeParams, CUgraphNodeParams);
VT_ABI_MEMBER(vt_CUgraphNodeParams, CUgraphNodeParams, type);
VT_ABI_MEMBER_TYPE(vt_CUgraphNodeParams, CUgraphNodeParams, reserved0);
VT_ABI_MEMBER_TYPE(vt_CUgraphNodeParams, CUgraphNodeParams, reserved1);
VT_ABI_MEMBER(vt_CUgraphNodeParams, CUgraphNodeParams, alloc);
VT_ABI_MEMBER(vt_CUgraphNodeParams, CUgraphNodeParams, free);
VT_ABI_MEMBER_TYPE(vt_CUgraphNodeParams, CUgraphNodeParams, reserved2);
VT_ABI_ENUM(cudaGraphNodeTypeMemAlloc);
VT_ABI_ENUM(cudaGraphNodeTypeMemFree);
VT_ABI_STRUCT(struct vt_cudaGraphNodeParams, struct cudaGraphNodeParams);
VT_ABI_MEMBER(struct vt_cudaGraphNodeParams, struct cudaGraphNodeParams, type);
VT_ABI_MEMBER_TYPE(struct vt_cudaGraphNodeParams, struct cudaGraphNodeParams, reserved0);
VT_ABI_MEMBER_TYPE(struct vt_cudaGraphNodeParams, struct cudaGraphNodeParams, reserved1);
VT_ABI_MEMBER_TYPE(struct vt_cudaGraphNodeParams, struct cudaGraphNodeParams, reserved2);
VT_ABI_SAME_TYPE(cudaGraphEdgeData, struct cudaGraphEdgeData_st);
VT_ABI_SAME_TYPE(CUgraphEdgeData, struct CUgraphEdgeData_st);
VT_ABI_STRUCT(vt_CUmemLocation, CUmemLocation);
VT_ABI_MEMBER(vt_CUmemLocation, CUmemLocation, type);
VT_ABI_MEMBER_TYPE(vt_CUmemLocation, CUmemLocation, id);
VT_ABI_STRUCT(vt_CUmemAllocationProp, CUmemAllocationProp);
VT_ABI_MEMBER(vt_CUmemAllocationProp, CUmemAllocationProp, type);
VT_ABI_MEMBER(vt_CUmemAllocationProp, CUmemAllocationProp, requestedHandleTypes);
VT_ABI_MEMBER(vt_CUmemAllocationProp, CUmemAllocationProp, location);
VT_ABI_MEMBER_TYPE(vt_CUmemAllocationProp, CUmemAllocationProp, win32HandleMetaData);
VT_ABI_MEMBER(vt_CUmemAllocationProp, CUmemAllocationProp, allocFlags);
VT_ABI_MEMBER_TYPE(vt_CUmemAllocationProp, CUmemAllocationProp, allocFlags.compressionType);
VT_ABI_MEMBER_TYPE(vt_CUmemAllocationProp, CUmemAllocationProp, allocFlags.gpuDirectRDMACapable);
VT_ABI_MEMBER_TYPE(vt_CUmemAllocationProp, CUmemAllocationProp, allocFlags.usage);
VT_ABI_MEMBER_TYPE(vt_CUmemAllocationProp, CUmemAllocationProp, allocFlags.reserved);
VT_ABI_STRUCT(vt_CUuuid, CUuuid);
VT_ABI_MEMBER_TYPE(vt_CUuuid, CUuuid, bytes);
VT_ABI_STRUCT(vt_CUDA_ARRAY_DESCRIPTOR, CUDA_ARRAY_DESCRIPTOR);
VT_ABI_MEMBER_TYPE(vt_CUDA_ARRAY_DESCRIPTOR, CUDA_ARRAY_DESCRIPTOR, Width);
VT_ABI_MEMBER_TYPE(vt_CUDA_ARRAY_DESCRIPTOR, CUDA_ARRAY_DESCRIPTOR, Height);
VT_ABI_MEMBER(vt_CUDA_ARRAY_DESCRIPTOR, CUDA_ARRAY_DESCRIPTOR, Format);
VT_ABI_MEMBER_TYPE(vt_CUDA_ARRAY_DESCRIPTOR, CUDA_ARRAY_DESCRIPTOR, NumChannels);
VT_ABI_STRUCT(vt_CUDA_ARRAY3D_DESCRIPTOR, CUDA_ARRAY3D_DESCRIPTOR);
VT_ABI_MEMBER_TYPE(vt_CUDA_ARRAY3D_DESCRIPTOR, CUDA_ARRAY3D_DESCRIPTOR, Width);
VT_ABI_MEMBER_TYPE(vt_CUDA_ARRAY3D_DESCRIPTOR, CUDA_ARRAY3D_DESCRIPTOR, Height);
VT_ABI_MEMBER_TYPE(vt_CUDA_ARRAY3D_DESCRIPTOR, CUDA_ARRAY3D_DESCRIPTOR, Depth);
VT_ABI_MEMBER(vt_CUDA_ARRAY3D_DESCRIPTOR, CUDA_ARRAY3D_DESCRIPTOR, Format);
VT_ABI_MEMBER_TYPE(vt_CUDA_ARRAY3D_DESCRIPTOR, CUDA_ARRAY3D_DESCRIPTOR, NumChannels);
VT_ABI_MEMBER_TYPE(vt_CUDA_ARRAY3D_DESCRIPTOR, CUDA_ARRAY3D_DESCRIPTOR, Flags);
typedef struct vt_cudaPitchedPtr vt_pitched;
typedef struct cudaPitchedPtr real_pitched;
VT_ABI_STRUCT(vt_pitched, real_pitched);
VT_ABI_MEMBER_TYPE(vt_pitched, real_pitched, ptr);
VT_ABI_MEMBER_TYPE(vt_pitched, real_pitched, pitch);
VT_ABI_MEMBER_TYPE(vt_pitched, real_pitched, xsize);
VT_ABI_MEMBER_TYPE(vt_pitched, real_pitched, ysize);
typedef struct vt_cudaExtent vt_extent;
typedef struct cudaExtent real_extent;
VT_ABI_STRUCT(vt_extent, real_extent);
VT_ABI_MEMBER_TYPE(vt_extent, real_extent, width);
VT_ABI_MEMBER_TYPE(vt_extent, real_extent, height);
VT_ABI_MEMBER_TYPE(vt_extent, real_extent, depth);
typedef struct vt_cudaChannelFormatDesc vt_chan;
typedef struct cudaChannelFormatDesc real_chan;
VT_ABI_STRUCT(vt_chan, real_chan);
VT_ABI_MEMBER_TYPE(vt_chan, real_chan, x);
VT_ABI_MEMBER_TYPE(vt_chan, real_chan, y);
VT_ABI_MEMBER_TYPE(vt_chan, real_chan, z);
VT_ABI_MEMBER_TYPE(vt_chan, real_chan, w);
VT_ABI_MEMBER(vt_chan, real_chan, f);

/* function types: one shape per entry point, T(x) marks the named types */
#define S_cuMemAlloc_v2(T) T(CUresult) (*)(T(CUdeviceptr) *, size_t)
#define S_cuMemAllocPitch_v2(T) \
    T(CUresult) (*)(T(CUdeviceptr) *, size_t *, size_t, size_t, unsigned int)
#define S_cuMemAllocManaged(T) T(CUresult) (*)(T(CUdeviceptr) *, size_t, unsigned int)
#define S_cuMemAllocAsync(T) T(CUresult) (*)(T(CUdeviceptr) *, size_t, T(CUstream))
#define S_cuMemAllocFromPoolAsync(T) \
    T(CUresult) (*)(T(CUdeviceptr) *, size_t, T(CUmemoryPool), T(CUstream))
#define S_cuMemFree_v2(T) T(CUresult) (*)(T(CUdeviceptr))
#define S_cuMemFreeAsync(T) T(CUresult) (*)(T(CUdeviceptr), T(CUstream))
#define S_cuMemAllocHost_v2(T) T(CUresult) (*)(void **, size_t)
#define S_cuMemHostAlloc(T) T(CUresult) (*)(void **, size_t, unsigned int)
#define S_cuMemFreeHost(T) T(CUresult) (*)(void *)
#define S_cuMemCreate(T)                                                              \
    T(CUresult) (*)(T(CUmemGenericAllocationHandle) *, size_t, const T(CUmemAllocationProp) *, \
                    unsigned long long)
#define S_cuMemRelease(T) T(CUresult) (*)(T(CUmemGenericAllocationHandle))
#define S_cuMemMap(T) \
    T(CUresult) (*)(T(CUdeviceptr), size_t, size_t, T(CUmemGenericAllocationHandle), unsigned long long)
#define S_cuMemUnmap(T) T(CUresult) (*)(T(CUdeviceptr), size_t)
#define S_cuArrayCreate_v2(T) T(CUresult) (*)(T(CUarray) *, const T(CUDA_ARRAY_DESCRIPTOR) *)
#define S_cuArray3DCreate_v2(T) T(CUresult) (*)(T(CUarray) *, const T(CUDA_ARRAY3D_DESCRIPTOR) *)
#define S_cuArrayDestroy(T) T(CUresult) (*)(T(CUarray))
#define S_cuMipmappedArrayCreate(T) \
    T(CUresult) (*)(T(CUmipmappedArray) *, const T(CUDA_ARRAY3D_DESCRIPTOR) *, unsigned int)
#define S_cuMipmappedArrayDestroy(T) T(CUresult) (*)(T(CUmipmappedArray))
#define S_cuMemPoolDestroy(T) T(CUresult) (*)(T(CUmemoryPool))
#define S_cuStreamGetCtx(T) T(CUresult) (*)(T(CUstream), T(CUcontext) *)
#define S_cuCtxGetDevice_v2(T) T(CUresult) (*)(T(CUdevice) *, T(CUcontext))
#define S_cuCtxPushCurrent_v2(T) T(CUresult) (*)(T(CUcontext))
#define S_cuCtxPopCurrent_v2(T) T(CUresult) (*)(T(CUcontext) *)
#define S_cuCtxDestroy_v2(T) T(CUresult) (*)(T(CUcontext))
#define S_cuDevicePrimaryCtx_v2(T) T(CUresult) (*)(T(CUdevice))
#define S_cuDevicePrimaryCtxGetState(T) T(CUresult) (*)(T(CUdevice), unsigned int *, int *)
#define S_cuCtxGetCurrent(T) T(CUresult) (*)(T(CUcontext) *)
#define S_cuCtxGetDevice(T) T(CUresult) (*)(T(CUdevice) *)
#define S_cuMemGetInfo_v2(T) T(CUresult) (*)(size_t *, size_t *)
#define S_cuCtxPushCurrent_v2(T) T(CUresult) (*)(T(CUcontext))
#define S_cuCtxPopCurrent_v2(T) T(CUresult) (*)(T(CUcontext) *)
#define S_cuDeviceGetText(T) T(CUresult) (*)(char *, int, T(CUdevice))
#define S_cuDeviceTotalMem_v2(T) T(CUresult) (*)(size_t *, T(CUdevice))
#define S_cuDeviceGetUuid_v2(T) T(CUresult) (*)(T(CUuuid) *, T(CUdevice))
#define S_cuGetProcAddress(T) T(CUresult) (*)(const char *, void **, int, T(cuuint64_t))
#define S_cuGetProcAddress_v2(T) \
    T(CUresult) (*)(const char *, void **, int, T(cuuint64_t), T(CUdriverProcAddressQueryResult) *)

VT_ABI_FN(cuMemAlloc_v2_fn, &cuMemAlloc_v2, S_cuMemAlloc_v2);
VT_ABI_FN(cuMemAllocPitch_v2_fn, &cuMemAllocPitch_v2, S_cuMemAllocPitch_v2);
VT_ABI_FN(cuMemAllocManaged_fn, &cuMemAllocManaged, S_cuMemAllocManaged);
VT_ABI_FN(cuMemAllocAsync_fn, &cuMemAllocAsync, S_cuMemAllocAsync);
VT_ABI_FN(cuMemAllocAsync_fn, (PFN_cuMemAllocAsync_v11020_ptsz)0, S_cuMemAllocAsync);
VT_ABI_FN(cuMemAllocFromPoolAsync_fn, &cuMemAllocFromPoolAsync, S_cuMemAllocFromPoolAsync);
VT_ABI_FN(cuMemFree_v2_fn, &cuMemFree_v2, S_cuMemFree_v2);
VT_ABI_FN(cuMemFreeAsync_fn, &cuMemFreeAsync, S_cuMemFreeAsync);
VT_ABI_FN(cuMemAllocHost_v2_fn, &cuMemAllocHost_v2, S_cuMemAllocHost_v2);
VT_ABI_FN(cuMemHostAlloc_fn, &cuMemHostAlloc, S_cuMemHostAlloc);
VT_ABI_FN(cuMemFreeHost_fn, &cuMemFreeHost, S_cuMemFreeHost);
VT_ABI_FN(cuMemCreate_fn, &cuMemCreate, S_cuMemCreate);
VT_ABI_FN(cuMemRelease_fn, &cuMemRelease, S_cuMemRelease);
VT_ABI_FN(cuMemMap_fn, &cuMemMap, S_cuMemMap);
VT_ABI_FN(cuMemUnmap_fn, &cuMemUnmap, S_cuMemUnmap);
VT_ABI_FN(cuArrayCreate_v2_fn, &cuArrayCreate_v2, S_cuArrayCreate_v2);
VT_ABI_FN(cuArray3DCreate_v2_fn, &cuArray3DCreate_v2, S_cuArray3DCreate_v2);
VT_ABI_FN(cuArrayDestroy_fn, &cuArrayDestroy, S_cuArrayDestroy);
VT_ABI_FN(cuMipmappedArrayCreate_fn, &cuMipmappedArrayCreate, S_cuMipmappedArrayCreate);
VT_ABI_FN(cuMipmappedArrayDestroy_fn, &cuMipmappedArrayDestroy, S_cuMipmappedArrayDestroy);
VT_ABI_FN(cuMemPoolDestroy_fn, &cuMemPoolDestroy, S_cuMemPoolDestroy);
VT_ABI_FN(cuStreamGetCtx_fn, &cuStreamGetCtx, S_cuStreamGetCtx);
VT_ABI_FN(cuCtxGetDevice_v2_fn, &cuCtxGetDevice_v2, S_cuCtxGetDevice_v2);
VT_ABI_FN(cuCtxPushCurrent_v2_fn, &cuCtxPushCurrent_v2, S_cuCtxPushCurrent_v2);
VT_ABI_FN(cuCtxPopCurrent_v2_fn, &cuCtxPopCurrent_v2, S_cuCtxPopCurrent_v2);
/* cuPointerGetAttribute's attribute is an enum there, an int here: same size */
_Static_assert(sizeof(CUpointer_attribute) == sizeof(int), "CUpointer_attribute is an int");
VT_ABI_FN(cuCtxDestroy_v2_fn, &cuCtxDestroy_v2, S_cuCtxDestroy_v2);
VT_ABI_FN(cuDevicePrimaryCtxRelease_v2_fn, &cuDevicePrimaryCtxRelease_v2, S_cuDevicePrimaryCtx_v2);
VT_ABI_FN(cuDevicePrimaryCtxReset_v2_fn, &cuDevicePrimaryCtxReset_v2, S_cuDevicePrimaryCtx_v2);
VT_ABI_FN(cuDevicePrimaryCtxGetState_fn, &cuDevicePrimaryCtxGetState, S_cuDevicePrimaryCtxGetState);
VT_ABI_FN(cuCtxGetCurrent_fn, &cuCtxGetCurrent, S_cuCtxGetCurrent);
VT_ABI_FN(cuCtxGetDevice_fn, &cuCtxGetDevice, S_cuCtxGetDevice);
VT_ABI_FN(cuMemGetInfo_v2_fn, &cuMemGetInfo_v2, S_cuMemGetInfo_v2);
VT_ABI_FN(cuCtxPushCurrent_v2_fn, &cuCtxPushCurrent_v2, S_cuCtxPushCurrent_v2);
VT_ABI_FN(cuCtxPopCurrent_v2_fn, &cuCtxPopCurrent_v2, S_cuCtxPopCurrent_v2);
VT_ABI_FN(cuDeviceGetName_fn, &cuDeviceGetName, S_cuDeviceGetText);
VT_ABI_FN(cuDeviceGetPCIBusId_fn, &cuDeviceGetPCIBusId, S_cuDeviceGetText);
VT_ABI_FN(cuDeviceTotalMem_v2_fn, &cuDeviceTotalMem_v2, S_cuDeviceTotalMem_v2);
VT_ABI_FN(cuDeviceGetUuid_v2_fn, &cuDeviceGetUuid_v2, S_cuDeviceGetUuid_v2);
VT_ABI_FN(cuGetProcAddress_fn, (PFN_cuGetProcAddress_v11030)0, S_cuGetProcAddress);
VT_ABI_FN(cuGetProcAddress_v2_fn, &cuGetProcAddress_v2, S_cuGetProcAddress_v2);
VT_ABI_FN(cuGetProcAddress_v2_fn, (PFN_cuGetProcAddress_v12000)0, S_cuGetProcAddress_v2);

/* runtime: the real declarations spell some parameter types as enums */
#define S_cudaMalloc(T) T(cudaError_t) (*)(void **, size_t)
#define S_cudaMallocPitch(T) T(cudaError_t) (*)(void **, size_t *, size_t, size_t)
#define S_cudaMalloc3D(T) T(cudaError_t) (*)(struct T(cudaPitchedPtr) *, struct T(cudaExtent))
#define S_cudaMallocManaged(T) T(cudaError_t) (*)(void **, size_t, unsigned int)
#define S_cudaMallocAsync(T) T(cudaError_t) (*)(void **, size_t, T(cudaStream_t))
#define S_cudaMallocFromPoolAsync(T) \
    T(cudaError_t) (*)(void **, size_t, T(cudaMemPool_t), T(cudaStream_t))
#define S_cudaFree(T) T(cudaError_t) (*)(void *)
#define S_cudaFreeAsync(T) T(cudaError_t) (*)(void *, T(cudaStream_t))
#define S_cudaMallocHost(T) T(cudaError_t) (*)(void **, size_t)
#define S_cudaHostAlloc(T) T(cudaError_t) (*)(void **, size_t, unsigned int)
#define S_cudaFreeHost(T) T(cudaError_t) (*)(void *)
#define S_cudaMallocArray(T)                                                          \
    T(cudaError_t) (*)(T(cudaArray_t) *, const struct T(cudaChannelFormatDesc) *, size_t, \
                       size_t, unsigned int)
#define S_cudaFreeArray(T) T(cudaError_t) (*)(T(cudaArray_t))
#define S_cudaMalloc3DArray(T)                                                                  \
    T(cudaError_t) (*)(T(cudaArray_t) *, const struct T(cudaChannelFormatDesc) *, struct T(cudaExtent), \
                       unsigned int)
#define S_cudaMallocMipmappedArray(T)                                                          \
    T(cudaError_t) (*)(T(cudaMipmappedArray_t) *, const struct T(cudaChannelFormatDesc) *,     \
                       struct T(cudaExtent), unsigned int, unsigned int)
#define S_cudaFreeMipmappedArray(T) T(cudaError_t) (*)(T(cudaMipmappedArray_t))
#define S_cudaGetDriverEntryPoint(T) \
    T(cudaError_t) (*)(const char *, void **, unsigned long long, T(QR) *)
#define S_cudaGetDriverEntryPointByVersion(T) \
    T(cudaError_t) (*)(const char *, void **, unsigned int, unsigned long long, T(QR) *)
#define S_cuStreamBeginCapture_v2(T) T(CUresult) (*)(T(CUstream), T(CUstreamCaptureMode))
#define S_cuStreamGetCaptureInfo_v2(T)                                                     \
    T(CUresult) (*)(T(CUstream), T(CUstreamCaptureStatus) *, T(cuuint64_t) *, T(CUgraph) *, \
                    const T(CUgraphNode) **, size_t *)
#define S_cuGraphAddMemAllocNode(T)                                                      \
    T(CUresult) (*)(T(CUgraphNode) *, T(CUgraph), const T(CUgraphNode) *, size_t, \
                    T(CUDA_MEM_ALLOC_NODE_PARAMS) *)
#define S_cuGraphAddMemFreeNode(T) \
    T(CUresult) (*)(T(CUgraphNode) *, T(CUgraph), const T(CUgraphNode) *, size_t, T(CUdeviceptr))
/* edge data: one typedef, ours and the real one (passed through) */
#define S_cuGraphAddNode_v2(T)                                                          \
    T(CUresult) (*)(T(CUgraphNode) *, T(CUgraph), const T(CUgraphNode) *, const CUgraphEdgeData *, \
                    size_t, T(CUgraphNodeParams) *)
#define S_cuGraphAddNode(T)                                                      \
    T(CUresult) (*)(T(CUgraphNode) *, T(CUgraph), const T(CUgraphNode) *, size_t, \
                    T(CUgraphNodeParams) *)
#define S_cuGraphInstantiateWithFlags(T) \
    T(CUresult) (*)(T(CUgraphExec) *, T(CUgraph), unsigned long long)
#define S_cuGraphLaunch(T) T(CUresult) (*)(T(CUgraphExec), T(CUstream))
#define S_cuGraphExecDestroy(T) T(CUresult) (*)(T(CUgraphExec))
#define S_cuGraphDestroy(T) T(CUresult) (*)(T(CUgraph))
#define S_cuDeviceGraphMemTrim(T) T(CUresult) (*)(T(CUdevice))
#define S_cuDeviceGetGraphMemAttribute(T) \
    T(CUresult) (*)(T(CUdevice), T(CUgraphMem_attribute), void *)
#define S_cuMemHostRegister_v2(T) T(CUresult) (*)(void *, size_t, unsigned int)
#define S_cuMemHostUnregister(T) T(CUresult) (*)(void *)
VT_ABI_FN(cuStreamBeginCapture_v2_fn, (PFN_cuStreamBeginCapture_v10010)0,
          S_cuStreamBeginCapture_v2);
VT_ABI_FN(cuStreamBeginCapture_v2_fn, (PFN_cuStreamBeginCapture_v10010_ptsz)0,
          S_cuStreamBeginCapture_v2);
VT_ABI_FN(cuStreamGetCaptureInfo_v2_fn, (PFN_cuStreamGetCaptureInfo_v11030)0,
          S_cuStreamGetCaptureInfo_v2);
VT_ABI_FN(cuGraphAddMemAllocNode_fn, (PFN_cuGraphAddMemAllocNode_v11040)0,
          S_cuGraphAddMemAllocNode);
VT_ABI_FN(cuGraphAddMemFreeNode_fn, (PFN_cuGraphAddMemFreeNode_v11040)0, S_cuGraphAddMemFreeNode);
VT_ABI_FN(cuGraphAddNode_v2_fn, (PFN_cuGraphAddNode_v12030)0, S_cuGraphAddNode_v2);
VT_ABI_FN(cuGraphAddNode_v2_fn, &cuGraphAddNode, S_cuGraphAddNode_v2); /* cuda.h: the _v2 */
VT_ABI_FN(cuGraphAddNode_fn, (PFN_cuGraphAddNode_v12020)0, S_cuGraphAddNode);
VT_ABI_FN(cuGraphInstantiateWithFlags_fn, (PFN_cuGraphInstantiateWithFlags_v11040)0,
          S_cuGraphInstantiateWithFlags);
VT_ABI_FN(cuGraphLaunch_fn, (PFN_cuGraphLaunch_v10000)0, S_cuGraphLaunch);
VT_ABI_FN(cuGraphLaunch_fn, (PFN_cuGraphLaunch_v10000_ptsz)0, S_cuGraphLaunch);
VT_ABI_FN(cuGraphExecDestroy_fn, (PFN_cuGraphExecDestroy_v10000)0, S_cuGraphExecDestroy);
VT_ABI_FN(cuGraphDestroy_fn, (PFN_cuGraphDestroy_v10000)0, S_cuGraphDestroy);
VT_ABI_FN(cuDeviceGraphMemTrim_fn, (PFN_cuDeviceGraphMemTrim_v11040)0, S_cuDeviceGraphMemTrim);
VT_ABI_FN(cuDeviceGetGraphMemAttribute_fn, (PFN_cuDeviceGetGraphMemAttribute_v11040)0,
          S_cuDeviceGetGraphMemAttribute);
VT_ABI_FN(cuMemHostRegister_v2_fn, (PFN_cuMemHostRegister_v6050)0, S_cuMemHostRegister_v2);
VT_ABI_FN(cuMemHostUnregister_fn, (PFN_cuMemHostUnregister_v4000)0, S_cuMemHostUnregister);
#define S_cuGreenCtxDestroy(T) T(CUresult) (*)(T(CUgreenCtx))
#define S_cuCtxFromGreenCtx(T) T(CUresult) (*)(T(CUcontext) *, T(CUgreenCtx))
VT_ABI_FN(cuGreenCtxDestroy_fn, &cuGreenCtxDestroy, S_cuGreenCtxDestroy);
VT_ABI_FN(cuCtxFromGreenCtx_fn, &cuCtxFromGreenCtx, S_cuCtxFromGreenCtx);

/* The runtime shapes name their types through per-side tables, because
 * T(QR) is our int typedef on one side and the real enum tag on the other. */
#undef T_OURS
#undef T_REAL
#define T_OURS(x) T_OURS_##x
#define T_REAL(x) T_REAL_##x
#define T_OURS_QR cudaDriverEntryPointQueryResult
#define T_REAL_QR enum cudaDriverEntryPointQueryResult
#define T_OURS_cudaError_t vt_cudaError_t
#define T_REAL_cudaError_t cudaError_t
#define T_OURS_cudaStream_t vt_cudaStream_t
#define T_REAL_cudaStream_t cudaStream_t
#define T_OURS_cudaMemPool_t vt_cudaMemPool_t
#define T_REAL_cudaMemPool_t cudaMemPool_t
#define T_OURS_cudaArray_t vt_cudaArray_t
#define T_REAL_cudaArray_t cudaArray_t
#define T_OURS_cudaMipmappedArray_t vt_cudaMipmappedArray_t
#define T_REAL_cudaMipmappedArray_t cudaMipmappedArray_t
#define T_OURS_cudaPitchedPtr vt_cudaPitchedPtr
#define T_REAL_cudaPitchedPtr cudaPitchedPtr
#define T_OURS_cudaExtent vt_cudaExtent
#define T_REAL_cudaExtent cudaExtent
#define T_OURS_cudaChannelFormatDesc vt_cudaChannelFormatDesc
#define T_REAL_cudaChannelFormatDesc cudaChannelFormatDesc

#define T_OURS_cudaGraph_t vt_cudaGraph_t
#define T_REAL_cudaGraph_t cudaGraph_t
#define T_OURS_cudaGraphNode_t vt_cudaGraphNode_t
#define T_REAL_cudaGraphNode_t cudaGraphNode_t
#define T_OURS_cudaGraphExec_t vt_cudaGraphExec_t
#define T_REAL_cudaGraphExec_t cudaGraphExec_t
#define S_cudaGraphAddMemAllocNode(T)                                                      \
    T(cudaError_t) (*)(T(cudaGraphNode_t) *, T(cudaGraph_t), const T(cudaGraphNode_t) *, size_t, \
                       struct cudaMemAllocNodeParams *)
#define S_cudaGraphAddMemFreeNode(T) \
    T(cudaError_t) (*)(T(cudaGraphNode_t) *, T(cudaGraph_t), const T(cudaGraphNode_t) *, size_t, void *)
#define T_OURS_cudaGraphNodeParams vt_cudaGraphNodeParams
#define T_REAL_cudaGraphNodeParams cudaGraphNodeParams
#define S_cudaGraphAddNode(T)                                                                    \
    T(cudaError_t) (*)(T(cudaGraphNode_t) *, T(cudaGraph_t), const T(cudaGraphNode_t) *,          \
                       const cudaGraphEdgeData *, size_t, struct T(cudaGraphNodeParams) *)
#define S_cudaGraphLaunch(T) T(cudaError_t) (*)(T(cudaGraphExec_t), T(cudaStream_t))
#define S_cudaDeviceGraphMemTrim(T) T(cudaError_t) (*)(int)
#define S_cudaHostRegister(T) T(cudaError_t) (*)(void *, size_t, unsigned int)
#define S_cudaHostUnregister(T) T(cudaError_t) (*)(void *)
VT_ABI_FN(cudaGraphAddMemAllocNode_fn, &cudaGraphAddMemAllocNode, S_cudaGraphAddMemAllocNode);
VT_ABI_FN(cudaGraphAddMemFreeNode_fn, &cudaGraphAddMemFreeNode, S_cudaGraphAddMemFreeNode);
VT_ABI_FN(cudaGraphAddNode_fn, &cudaGraphAddNode, S_cudaGraphAddNode);
VT_ABI_FN(cudaGraphLaunch_fn, &cudaGraphLaunch, S_cudaGraphLaunch);
VT_ABI_FN(cudaDeviceGraphMemTrim_fn, &cudaDeviceGraphMemTrim, S_cudaDeviceGraphMemTrim);
VT_ABI_FN(cudaHostRegister_fn, &cudaHostRegister, S_cudaHostRegister);
VT_ABI_FN(cudaHostUnregister_fn, &cudaHostUnregister, S_cudaHostUnregister);
VT_ABI_FN(cudaMalloc_fn, &cudaMalloc, S_cudaMalloc);
VT_ABI_FN(cudaMallocPitch_fn, &cudaMallocPitch, S_cudaMallocPitch);
VT_ABI_FN(cudaMalloc3D_fn, &cudaMalloc3D, S_cudaMalloc3D);
VT_ABI_FN(cudaMallocManaged_fn, &cudaMallocManaged, S_cudaMallocManaged);
VT_ABI_FN(cudaMallocAsync_fn, &cudaMallocAsync, S_cudaMallocAsync);
VT_ABI_FN(cudaMallocFromPoolAsync_fn, &cudaMallocFromPoolAsync, S_cudaMallocFromPoolAsync);
VT_ABI_FN(cudaFree_fn, &cudaFree, S_cudaFree);
VT_ABI_FN(cudaFreeAsync_fn, &cudaFreeAsync, S_cudaFreeAsync);
VT_ABI_FN(cudaMallocHost_fn, &cudaMallocHost, S_cudaMallocHost);
VT_ABI_FN(cudaHostAlloc_fn, &cudaHostAlloc, S_cudaHostAlloc);
VT_ABI_FN(cudaFreeHost_fn, &cudaFreeHost, S_cudaFreeHost);
VT_ABI_FN(cudaMallocArray_fn, &cudaMallocArray, S_cudaMallocArray);
VT_ABI_FN(cudaFreeArray_fn, &cudaFreeArray, S_cudaFreeArray);
VT_ABI_FN(cudaMalloc3DArray_fn, &cudaMalloc3DArray, S_cudaMalloc3DArray);
VT_ABI_FN(cudaMallocMipmappedArray_fn, &cudaMallocMipmappedArray, S_cudaMallocMipmappedArray);
VT_ABI_FN(cudaFreeMipmappedArray_fn, &cudaFreeMipmappedArray, S_cudaFreeMipmappedArray);
VT_ABI_FN(cudaGetDriverEntryPoint_fn, &cudaGetDriverEntryPoint, S_cudaGetDriverEntryPoint);
VT_ABI_FN(cudaGetDriverEntryPointByVersion_fn, &cudaGetDriverEntryPointByVersion,
          S_cudaGetDriverEntryPointByVersion);

/* ---- self-tests: each must fail to compile (tests/test_abi.py) ---- */
#ifdef VT_ABI_SELFTEST_FN
typedef cudaError_t (*wrong_cudaMalloc_fn)(void **, unsigned int);
VT_ABI_FN(wrong_cudaMalloc_fn, &cudaMalloc, S_cudaMalloc);
#endif
#ifdef VT_ABI_SELFTEST_STRUCT
typedef struct { size_t Height, Width; CUarray_format Format; unsigned NumChannels; } wrong_desc;
VT_ABI_MEMBER_TYPE(wrong_desc, CUDA_ARRAY_DESCRIPTOR, Width);
#endif
#ifdef VT_ABI_SELFTEST_ENUM
enum { vt_CUDA_ERROR_NO_DEVICE = 101 };
VT_ABI_ENUM(CUDA_ERROR_NO_DEVICE);
#endif
#ifdef VT_ABI_SELFTEST_TYPE
typedef long wrong_result;
VT_ABI_TYPE(wrong_result, CUresult);
#endif
/* SPDX-License-Identifier: MIT */
