/* SPDX-License-Identifier: MIT */
/* cuDeviceGetAttribute: the stand-in GPU's attributes, those of a current
 * data-centre GPU (an H100 SXM5: compute capability 9.0, 132
 * multiprocessors), with virtual memory management, memory pools and POSIX
 * file descriptor handles supported, as the stand-in driver implements
 * them; multicast is not (cuMulticastCreate answers not supported). An
 * attribute not listed reads as 0, as an unsupported feature. */
#include "driver_internal.h"

#include <stdio.h>

static const int h100_attributes[] = {
    [1] = 1024,           /* MAX_THREADS_PER_BLOCK */
    [2] = 1024,           /* MAX_BLOCK_DIM_X */
    [3] = 1024,           /* MAX_BLOCK_DIM_Y */
    [4] = 64,             /* MAX_BLOCK_DIM_Z */
    [5] = 2147483647,     /* MAX_GRID_DIM_X */
    [6] = 65535,          /* MAX_GRID_DIM_Y */
    [7] = 65535,          /* MAX_GRID_DIM_Z */
    [8] = 49152,          /* MAX_SHARED_MEMORY_PER_BLOCK */
    [9] = 65536,          /* TOTAL_CONSTANT_MEMORY */
    [10] = 32,            /* WARP_SIZE */
    [11] = 2147483647,    /* MAX_PITCH */
    [12] = 65536,         /* MAX_REGISTERS_PER_BLOCK */
    [13] = 1980000,       /* CLOCK_RATE (kHz) */
    [14] = 512,           /* TEXTURE_ALIGNMENT */
    [15] = 1,             /* GPU_OVERLAP */
    [16] = 132,           /* MULTIPROCESSOR_COUNT */
    [19] = 1,             /* CAN_MAP_HOST_MEMORY */
    [21] = 131072,        /* MAXIMUM_TEXTURE1D_WIDTH */
    [22] = 131072,        /* MAXIMUM_TEXTURE2D_WIDTH */
    [23] = 65536,         /* MAXIMUM_TEXTURE2D_HEIGHT */
    [24] = 16384,         /* MAXIMUM_TEXTURE3D_WIDTH */
    [25] = 16384,         /* MAXIMUM_TEXTURE3D_HEIGHT */
    [26] = 16384,         /* MAXIMUM_TEXTURE3D_DEPTH */
    [27] = 32768,         /* MAXIMUM_TEXTURE2D_LAYERED_WIDTH */
    [28] = 32768,         /* MAXIMUM_TEXTURE2D_LAYERED_HEIGHT */
    [29] = 2048,          /* MAXIMUM_TEXTURE2D_LAYERED_LAYERS */
    [30] = 512,           /* SURFACE_ALIGNMENT */
    [31] = 1,             /* CONCURRENT_KERNELS */
    [32] = 1,             /* ECC_ENABLED */
    [36] = 2619000,       /* MEMORY_CLOCK_RATE (kHz) */
    [37] = 5120,          /* GLOBAL_MEMORY_BUS_WIDTH */
    [38] = 52428800,      /* L2_CACHE_SIZE */
    [39] = 2048,          /* MAX_THREADS_PER_MULTIPROCESSOR */
    [40] = 3,             /* ASYNC_ENGINE_COUNT */
    [41] = 1,             /* UNIFIED_ADDRESSING */
    [42] = 32768,         /* MAXIMUM_TEXTURE1D_LAYERED_WIDTH */
    [43] = 2048,          /* MAXIMUM_TEXTURE1D_LAYERED_LAYERS */
    [45] = 32768,         /* MAXIMUM_TEXTURE2D_GATHER_WIDTH */
    [46] = 32768,         /* MAXIMUM_TEXTURE2D_GATHER_HEIGHT */
    [47] = 8192,          /* MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE */
    [48] = 8192,          /* MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE */
    [49] = 32768,         /* MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE */
    [51] = 32,            /* TEXTURE_PITCH_ALIGNMENT */
    [52] = 32768,         /* MAXIMUM_TEXTURECUBEMAP_WIDTH */
    [53] = 32768,         /* MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH */
    [54] = 2046,          /* MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS */
    [55] = 32768,         /* MAXIMUM_SURFACE1D_WIDTH */
    [56] = 131072,        /* MAXIMUM_SURFACE2D_WIDTH */
    [57] = 65536,         /* MAXIMUM_SURFACE2D_HEIGHT */
    [58] = 16384,         /* MAXIMUM_SURFACE3D_WIDTH */
    [59] = 16384,         /* MAXIMUM_SURFACE3D_HEIGHT */
    [60] = 16384,         /* MAXIMUM_SURFACE3D_DEPTH */
    [61] = 32768,         /* MAXIMUM_SURFACE1D_LAYERED_WIDTH */
    [62] = 2048,          /* MAXIMUM_SURFACE1D_LAYERED_LAYERS */
    [63] = 32768,         /* MAXIMUM_SURFACE2D_LAYERED_WIDTH */
    [64] = 32768,         /* MAXIMUM_SURFACE2D_LAYERED_HEIGHT */
    [65] = 2048,          /* MAXIMUM_SURFACE2D_LAYERED_LAYERS */
    [66] = 32768,         /* MAXIMUM_SURFACECUBEMAP_WIDTH */
    [67] = 32768,         /* MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH */
    [68] = 2046,          /* MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS */
    [70] = 131072,        /* MAXIMUM_TEXTURE2D_LINEAR_WIDTH */
    [71] = 65000,         /* MAXIMUM_TEXTURE2D_LINEAR_HEIGHT */
    [72] = 2097120,       /* MAXIMUM_TEXTURE2D_LINEAR_PITCH */
    [73] = 32768,         /* MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH */
    [74] = 32768,         /* MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT */
    [75] = 9,             /* COMPUTE_CAPABILITY_MAJOR */
    [76] = 0,             /* COMPUTE_CAPABILITY_MINOR */
    [77] = 32768,         /* MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH */
    [78] = 1,             /* STREAM_PRIORITIES_SUPPORTED */
    [79] = 1,             /* GLOBAL_L1_CACHE_SUPPORTED */
    [80] = 1,             /* LOCAL_L1_CACHE_SUPPORTED */
    [81] = 233472,        /* MAX_SHARED_MEMORY_PER_MULTIPROCESSOR */
    [82] = 65536,         /* MAX_REGISTERS_PER_MULTIPROCESSOR */
    [83] = 1,             /* MANAGED_MEMORY */
    [87] = 2,             /* SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO */
    [89] = 1,             /* CONCURRENT_MANAGED_ACCESS */
    [90] = 1,             /* COMPUTE_PREEMPTION_SUPPORTED */
    [91] = 1,             /* CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM */
    [95] = 1,             /* COOPERATIVE_LAUNCH */
    [97] = 232448,        /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
    [99] = 1,             /* HOST_REGISTER_SUPPORTED */
    [102] = 1,            /* VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED */
    [103] = 1,            /* HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED */
    [106] = 32,           /* MAX_BLOCKS_PER_MULTIPROCESSOR */
    [107] = 1,            /* GENERIC_COMPRESSION_SUPPORTED */
    [108] = 83886080,     /* MAX_PERSISTING_L2_CACHE_SIZE */
    [109] = 134213632,    /* MAX_ACCESS_POLICY_WINDOW_SIZE */
    [110] = 1,            /* GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED */
    [111] = 1024,         /* RESERVED_SHARED_MEMORY_PER_BLOCK */
    [112] = 1,            /* SPARSE_CUDA_ARRAY_SUPPORTED */
    [113] = 1,            /* READ_ONLY_HOST_REGISTER_SUPPORTED */
    [114] = 1,            /* TIMELINE_SEMAPHORE_INTEROP_SUPPORTED */
    [115] = 1,            /* MEMORY_POOLS_SUPPORTED */
    [116] = 1,            /* GPU_DIRECT_RDMA_SUPPORTED */
    [117] = 1,            /* GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS */
    [118] = 100,          /* GPU_DIRECT_RDMA_WRITES_ORDERING */
    [119] = 1,            /* MEMPOOL_SUPPORTED_HANDLE_TYPES: POSIX file descriptors */
    [120] = 1,            /* CLUSTER_LAUNCH */
    [121] = 1,            /* DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED */
    [122] = 1,            /* CAN_USE_64_BIT_STREAM_MEM_OPS */
    [123] = 1,            /* CAN_USE_STREAM_WAIT_VALUE_NOR */
    [124] = 1,            /* DMA_BUF_SUPPORTED */
    [125] = 1,            /* IPC_EVENT_SUPPORTED */
    [126] = 4,            /* MEM_SYNC_DOMAIN_COUNT */
    [127] = 1,            /* TENSOR_MAP_ACCESS_SUPPORTED */
    [129] = 1,            /* UNIFIED_FUNCTION_POINTERS */
    [131] = -1,           /* NUMA_ID */
    [134] = -1,           /* HOST_NUMA_ID */
};

/* The device's PCI location, from its bus id "dddd:bb:dd.f". */
static int pci_part(CUdevice dev, int attribute)
{
    const struct sg_gpu *gpu = sg_gpu(g_dev[dev].physical);
    unsigned domain = 0, bus = 0, device = 0;
    if (gpu)
        sscanf(gpu->pci_bus_id, "%x:%x:%x", &domain, &bus, &device);
    return attribute == 33 ? (int)bus : attribute == 34 ? (int)device : (int)domain;
}

EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice dev)
{
    standin_log("cuDeviceGetAttribute %d %d", attribute, dev);
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!value || attribute <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    if (attribute == 33 || attribute == 34 || attribute == 50) /* PCI bus, device, domain */
        *value = pci_part(dev, attribute);
    else
        *value = (size_t)attribute < sizeof h100_attributes / sizeof h100_attributes[0]
                     ? h100_attributes[attribute]
                     : 0;
    return CUDA_SUCCESS;
}

/* Every stand-in GPU reaches every other (one NVLink domain). */
EXPORT CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!canAccessPeer)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= g_ndev || peerDev < 0 || peerDev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    *canAccessPeer = dev != peerDev;
    return CUDA_SUCCESS;
}

/* The link between two stand-in GPUs: NVLink, the best there is (rank 0),
 * with peer access, every native atomic and arrays across it. */
EXPORT CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib,
                                        CUdevice srcDevice, CUdevice dstDevice)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (srcDevice < 0 || srcDevice >= g_ndev || dstDevice < 0 || dstDevice >= g_ndev ||
        srcDevice == dstDevice)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    switch (attrib) {
    case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: *value = 0; break;
    case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: *value = 1; break;
    case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED: *value = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute)
PROC("cuDeviceCanAccessPeer", 4000, cuDeviceCanAccessPeer)
PROC("cuDeviceGetP2PAttribute", 8000, cuDeviceGetP2PAttribute)
