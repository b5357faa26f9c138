/* SPDX-License-Identifier: MIT */
/* Wrappers of the runtime allocation API. They do not count anything: they
 * tag the thread with the API the program called, and the driver hook that
 * the runtime reaches counts the allocation once, under that name. Only when
 * no driver hook saw the call (a runtime that reached the driver some way we
 * do not intercept) is it recorded from what the wrapper describes
 * (event.h). */
#include "cuda_abi.h"
#include "elf_symbol.h"
#include "event.h"
#include "format.h"
#include "resolve.h"
#include "entry.h"
#include "tracer.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>

#define RUNTIME_REAL(type, name)                                                             \
    static struct vt_caller_cache cache;                                                     \
    type real = (type)vt_real_for_caller_cached(#name, __builtin_return_address(0), &cache); \
    if (!real)                                                                               \
    return cudaErrorInitializationError

/* What the runtime allocated, for the rare call that no driver hook saw. */
static void finish_alloc(cudaError_t r, unsigned api, const void *ptr, uint64_t size, unsigned kind,
                         cudaStream_t stream)
{
    struct vt_alloc_info info = {
        .key = (uint64_t)(uintptr_t)ptr,
        .size = size,
        .api = api,
        .kind = kind,
        .space = VT_SPACE_POINTER,
        .stream = (uint64_t)(uintptr_t)stream,
    };
    vt_on_runtime_alloc(r, info);
}

static void finish_free(cudaError_t r, unsigned api, const void *ptr, cudaStream_t stream)
{
    vt_on_runtime_free(r, (uint64_t)(uintptr_t)ptr, api, (uint64_t)(uintptr_t)stream);
}

VT_EXPORT cudaError_t cudaMalloc(void **ptr, size_t size)
{
    RUNTIME_REAL(cudaMalloc_fn, cudaMalloc);
    if (!vt_on_runtime_begin(VT_API_cudaMalloc))
        return real(ptr, size);
    cudaError_t r = real(ptr, size);
    finish_alloc(r, VT_API_cudaMalloc, r ? NULL : *ptr, size, VT_KIND_DEVICE, NULL);
    return r;
}

VT_EXPORT cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    RUNTIME_REAL(cudaMallocPitch_fn, cudaMallocPitch);
    if (!vt_on_runtime_begin(VT_API_cudaMallocPitch))
        return real(ptr, pitch, width, height);
    cudaError_t r = real(ptr, pitch, width, height);
    finish_alloc(r, VT_API_cudaMallocPitch, r ? NULL : *ptr, r ? 0 : *pitch * height,
                 VT_KIND_DEVICE, NULL);
    return r;
}

VT_EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitched, struct cudaExtent extent)
{
    RUNTIME_REAL(cudaMalloc3D_fn, cudaMalloc3D);
    if (!vt_on_runtime_begin(VT_API_cudaMalloc3D))
        return real(pitched, extent);
    cudaError_t r = real(pitched, extent);
    finish_alloc(r, VT_API_cudaMalloc3D, r ? NULL : pitched->ptr,
                 r ? 0 : pitched->pitch * extent.height * extent.depth, VT_KIND_DEVICE, NULL);
    return r;
}

VT_EXPORT cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
    RUNTIME_REAL(cudaMallocManaged_fn, cudaMallocManaged);
    if (!vt_on_runtime_begin(VT_API_cudaMallocManaged))
        return real(ptr, size, flags);
    cudaError_t r = real(ptr, size, flags);
    finish_alloc(r, VT_API_cudaMallocManaged, r ? NULL : *ptr, size, VT_KIND_MANAGED, NULL);
    return r;
}

static cudaError_t malloc_async(cudaMallocAsync_fn real, void **ptr, size_t size,
                                cudaStream_t stream)
{
    if (!vt_on_runtime_begin(VT_API_cudaMallocAsync))
        return real(ptr, size, stream);
    cudaError_t r = real(ptr, size, stream);
    finish_alloc(r, VT_API_cudaMallocAsync, r ? NULL : *ptr, size, VT_KIND_DEVICE, stream);
    return r;
}

VT_EXPORT cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream)
{
    RUNTIME_REAL(cudaMallocAsync_fn, cudaMallocAsync);
    return malloc_async(real, ptr, size, stream);
}

VT_EXPORT cudaError_t cudaMallocAsync_ptsz(void **ptr, size_t size, cudaStream_t stream)
{
    RUNTIME_REAL(cudaMallocAsync_fn, cudaMallocAsync_ptsz);
    return malloc_async(real, ptr, size, stream);
}

static cudaError_t malloc_from_pool(cudaMallocFromPoolAsync_fn real, void **ptr, size_t size,
                                    cudaMemPool_t pool, cudaStream_t stream)
{
    if (!vt_on_runtime_begin(VT_API_cudaMallocFromPoolAsync))
        return real(ptr, size, pool, stream);
    cudaError_t r = real(ptr, size, pool, stream);
    finish_alloc(r, VT_API_cudaMallocFromPoolAsync, r ? NULL : *ptr, size, VT_KIND_DEVICE, stream);
    return r;
}

VT_EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool,
                                              cudaStream_t stream)
{
    RUNTIME_REAL(cudaMallocFromPoolAsync_fn, cudaMallocFromPoolAsync);
    return malloc_from_pool(real, ptr, size, pool, stream);
}

VT_EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t pool,
                                                   cudaStream_t stream)
{
    RUNTIME_REAL(cudaMallocFromPoolAsync_fn, cudaMallocFromPoolAsync_ptsz);
    return malloc_from_pool(real, ptr, size, pool, stream);
}

VT_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    RUNTIME_REAL(cudaMallocHost_fn, cudaMallocHost);
    if (!vt_on_runtime_begin(VT_API_cudaMallocHost))
        return real(ptr, size);
    cudaError_t r = real(ptr, size);
    finish_alloc(r, VT_API_cudaMallocHost, r ? NULL : *ptr, size, VT_KIND_HOST, NULL);
    return r;
}

VT_EXPORT cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    RUNTIME_REAL(cudaHostAlloc_fn, cudaHostAlloc);
    if (!vt_on_runtime_begin(VT_API_cudaHostAlloc))
        return real(ptr, size, flags);
    cudaError_t r = real(ptr, size, flags);
    finish_alloc(r, VT_API_cudaHostAlloc, r ? NULL : *ptr, size, VT_KIND_HOST, NULL);
    return r;
}

VT_EXPORT cudaError_t cudaFree(void *ptr)
{
    RUNTIME_REAL(cudaFree_fn, cudaFree);
    if (!ptr || !vt_on_runtime_begin(VT_API_cudaFree))
        return real(ptr);
    cudaError_t r = real(ptr);
    finish_free(r, VT_API_cudaFree, ptr, NULL);
    return r;
}

static cudaError_t free_async(cudaFreeAsync_fn real, void *ptr, cudaStream_t stream)
{
    if (!ptr || !vt_on_runtime_begin(VT_API_cudaFreeAsync))
        return real(ptr, stream);
    cudaError_t r = real(ptr, stream);
    finish_free(r, VT_API_cudaFreeAsync, ptr, stream);
    return r;
}

VT_EXPORT cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream)
{
    RUNTIME_REAL(cudaFreeAsync_fn, cudaFreeAsync);
    return free_async(real, ptr, stream);
}

VT_EXPORT cudaError_t cudaFreeAsync_ptsz(void *ptr, cudaStream_t stream)
{
    RUNTIME_REAL(cudaFreeAsync_fn, cudaFreeAsync_ptsz);
    return free_async(real, ptr, stream);
}

VT_EXPORT cudaError_t cudaFreeHost(void *ptr)
{
    RUNTIME_REAL(cudaFreeHost_fn, cudaFreeHost);
    if (!ptr || !vt_on_runtime_begin(VT_API_cudaFreeHost))
        return real(ptr);
    cudaError_t r = real(ptr);
    finish_free(r, VT_API_cudaFreeHost, ptr, NULL);
    return r;
}

/* Arrays (plain and mipmapped) and device reset: tagged only (the driver
 * hook knows the sizes). */
VT_EXPORT cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                      size_t width, size_t height, unsigned int flags)
{
    RUNTIME_REAL(cudaMallocArray_fn, cudaMallocArray);
    if (!vt_on_runtime_begin(VT_API_cudaMallocArray))
        return real(array, desc, width, height, flags);
    cudaError_t r = real(array, desc, width, height, flags);
    vt_on_runtime_end();
    return r;
}

VT_EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t *array,
                                        const struct cudaChannelFormatDesc *desc,
                                        struct cudaExtent extent, unsigned int flags)
{
    RUNTIME_REAL(cudaMalloc3DArray_fn, cudaMalloc3DArray);
    if (!vt_on_runtime_begin(VT_API_cudaMalloc3DArray))
        return real(array, desc, extent, flags);
    cudaError_t r = real(array, desc, extent, flags);
    vt_on_runtime_end();
    return r;
}

VT_EXPORT cudaError_t cudaFreeArray(cudaArray_t array)
{
    RUNTIME_REAL(cudaFreeArray_fn, cudaFreeArray);
    if (!vt_on_runtime_begin(VT_API_cudaFreeArray))
        return real(array);
    cudaError_t r = real(array);
    vt_on_runtime_end();
    return r;
}

VT_EXPORT cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *array,
                                               const struct cudaChannelFormatDesc *desc,
                                               struct cudaExtent extent, unsigned int levels,
                                               unsigned int flags)
{
    RUNTIME_REAL(cudaMallocMipmappedArray_fn, cudaMallocMipmappedArray);
    if (!vt_on_runtime_begin(VT_API_cudaMallocMipmappedArray))
        return real(array, desc, extent, levels, flags);
    cudaError_t r = real(array, desc, extent, levels, flags);
    vt_on_runtime_end();
    return r;
}

VT_EXPORT cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t array)
{
    RUNTIME_REAL(cudaFreeMipmappedArray_fn, cudaFreeMipmappedArray);
    if (!vt_on_runtime_begin(VT_API_cudaFreeMipmappedArray))
        return real(array);
    cudaError_t r = real(array);
    vt_on_runtime_end();
    return r;
}

VT_EXPORT cudaError_t cudaDeviceReset(void)
{
    RUNTIME_REAL(cudaDeviceReset_fn, cudaDeviceReset);
    if (!vt_on_runtime_begin(VT_API_cudaDeviceReset))
        return real();
    cudaError_t r = real();
    vt_on_runtime_end();
    return r;
}

/* ---- page-locked registration of the program's own memory ---- */

VT_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    RUNTIME_REAL(cudaHostRegister_fn, cudaHostRegister);
    if (!vt_on_runtime_begin(VT_API_cudaHostRegister))
        return real(ptr, size, flags);
    cudaError_t r = real(ptr, size, flags);
    finish_alloc(r, VT_API_cudaHostRegister, r ? NULL : ptr, size, VT_KIND_HOST, NULL);
    return r;
}

VT_EXPORT cudaError_t cudaHostUnregister(void *ptr)
{
    RUNTIME_REAL(cudaHostUnregister_fn, cudaHostUnregister);
    if (!vt_on_runtime_begin(VT_API_cudaHostUnregister))
        return real(ptr);
    cudaError_t r = real(ptr);
    finish_free(r, VT_API_cudaHostUnregister, ptr, NULL);
    return r;
}

/* ---- CUDA graphs: the driver hooks record, under these names ---- */

VT_EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                               const cudaGraphNode_t *dependencies, size_t count,
                                               struct cudaMemAllocNodeParams *params)
{
    RUNTIME_REAL(cudaGraphAddMemAllocNode_fn, cudaGraphAddMemAllocNode);
    if (!vt_on_runtime_begin(VT_API_cudaGraphAddMemAllocNode))
        return real(node, graph, dependencies, count, params);
    cudaError_t r = real(node, graph, dependencies, count, params);
    vt_on_runtime_end();
    return r;
}

VT_EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                              const cudaGraphNode_t *dependencies, size_t count,
                                              void *dptr)
{
    RUNTIME_REAL(cudaGraphAddMemFreeNode_fn, cudaGraphAddMemFreeNode);
    if (!vt_on_runtime_begin(VT_API_cudaGraphAddMemFreeNode))
        return real(node, graph, dependencies, count, dptr);
    cudaError_t r = real(node, graph, dependencies, count, dptr);
    vt_on_runtime_end();
    return r;
}

/* CUDA 12's runtimes name cudaGraphAddNode the call without edge data
 * (12.3 to 12.9 call ours cudaGraphAddNode_v2): REAL is one of those when
 * its object defines it at the version libcudart.so.12. Asked once per
 * runtime (a second runtime in the process asks again). */
static int without_edge_data(void *real)
{
    static void *asked;
    static int answer;
    Dl_info info;
    struct link_map *map = NULL;
    if (__atomic_load_n(&asked, __ATOMIC_ACQUIRE) == real)
        return __atomic_load_n(&answer, __ATOMIC_RELAXED);
    int old = dladdr1(real, &info, (void **)&map, RTLD_DL_LINKMAP) && map &&
              vt_elf_lookup_map(map, "cudaGraphAddNode", "libcudart.so.12") == real;
    __atomic_store_n(&answer, old, __ATOMIC_RELAXED);
    __atomic_store_n(&asked, real, __ATOMIC_RELEASE);
    return old;
}

/* Only memory nodes are tagged (the driver's cuGraphAddNode records them);
 * any other type goes straight through, at the cost of the test. A CUDA 12
 * runtime's call is passed on untouched: its arguments are not these. */
VT_EXPORT cudaError_t cudaGraphAddNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                       const cudaGraphNode_t *dependencies,
                                       const cudaGraphEdgeData *edges, size_t count,
                                       struct cudaGraphNodeParams *params)
{
    RUNTIME_REAL(cudaGraphAddNode_fn, cudaGraphAddNode);
    if (without_edge_data((void *)real) || !params ||
        (params->type != cudaGraphNodeTypeMemAlloc && params->type != cudaGraphNodeTypeMemFree) ||
        !vt_on_runtime_begin(VT_API_cudaGraphAddNode))
        return real(node, graph, dependencies, edges, count, params);
    cudaError_t r = real(node, graph, dependencies, edges, count, params);
    vt_on_runtime_end();
    return r;
}

static cudaError_t graph_launch(cudaGraphLaunch_fn real, cudaGraphExec_t exec, cudaStream_t stream)
{
    if (!vt_on_runtime_begin(VT_API_cudaGraphLaunch))
        return real(exec, stream);
    cudaError_t r = real(exec, stream);
    vt_on_runtime_end();
    return r;
}

VT_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
    RUNTIME_REAL(cudaGraphLaunch_fn, cudaGraphLaunch);
    return graph_launch(real, exec, stream);
}

VT_EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t stream)
{
    RUNTIME_REAL(cudaGraphLaunch_fn, cudaGraphLaunch_ptsz);
    return graph_launch(real, exec, stream);
}

VT_EXPORT cudaError_t cudaDeviceGraphMemTrim(int device)
{
    RUNTIME_REAL(cudaDeviceGraphMemTrim_fn, cudaDeviceGraphMemTrim);
    if (!vt_on_runtime_begin(VT_API_cudaDeviceGraphMemTrim))
        return real(device);
    cudaError_t r = real(device);
    vt_on_runtime_end();
    return r;
}
