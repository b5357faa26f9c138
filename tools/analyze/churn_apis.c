/* SPDX-License-Identifier: MIT */
/* The allocate/free pairs that synchronize the device, as NVIDIA's API
 * documentation describes them: cudaMalloc's and cuMemAlloc's families,
 * page-locked host memory and arrays. cudaMallocAsync and
 * cudaMallocFromPoolAsync (and their driver calls) are stream-ordered and
 * do not; a graph's memory is the graph's; cuMemCreate's physical memory
 * is mapped and unmapped, not synchronized. */
#include "churn_apis.h"

#include <stddef.h>

#include "format.h"

const char *vt_churn_sync_free(unsigned api)
{
    switch (api) {
    case VT_API_cudaMalloc:
    case VT_API_cudaMallocPitch:
    case VT_API_cudaMalloc3D:
    case VT_API_cudaMallocManaged:
        return "cudaFree";
    case VT_API_cudaMallocHost:
    case VT_API_cudaHostAlloc:
        return "cudaFreeHost";
    case VT_API_cudaMallocArray:
    case VT_API_cudaMalloc3DArray:
        return "cudaFreeArray";
    case VT_API_cudaMallocMipmappedArray:
        return "cudaFreeMipmappedArray";
    case VT_API_cuMemAlloc:
    case VT_API_cuMemAllocPitch:
    case VT_API_cuMemAllocManaged:
        return "cuMemFree";
    case VT_API_cuMemAllocHost:
    case VT_API_cuMemHostAlloc:
        return "cuMemFreeHost";
    case VT_API_cuArrayCreate:
    case VT_API_cuArray3DCreate:
        return "cuArrayDestroy";
    case VT_API_cuMipmappedArrayCreate:
        return "cuMipmappedArrayDestroy";
    default:
        return NULL;
    }
}
