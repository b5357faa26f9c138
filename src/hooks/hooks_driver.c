/* SPDX-License-Identifier: MIT */
/* Wrappers of the driver allocation API. Every route to CUDA (linked
 * programs, dlsym, cuGetProcAddress, the runtimes) ends here, so this is
 * where each allocation is counted, exactly once. */
#include "cuda_abi.h"
#include "devices.h"
#include "event.h"
#include "exiting.h"
#include "format.h"
#include "hook_table.h"
#include "driver_function.h"
#include "resolve.h"
#include "entry.h"
#include "tracer.h"

/* In the exported function itself: its caller decides (another wrapper of
 * the same function gets the one after it). */
#define REAL(type, name) ((type)vt_hook_real_for(VT_HOOK_##name, __builtin_return_address(0)))

static struct vt_alloc_info device_alloc(uint64_t key, uint64_t size, unsigned api, unsigned kind,
                                         uint64_t stream)
{
    struct vt_alloc_info info = {.key = key,
                                 .size = size,
                                 .api = api,
                                 .kind = kind,
                                 .space = VT_SPACE_POINTER,
                                 .device = VT_DEVICE_OF_CONTEXT,
                                 .stream = stream};
    return info;
}

VT_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t size)
{
    cuMemAlloc_v2_fn real = REAL(cuMemAlloc_v2_fn, cuMemAlloc_v2);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(dptr, size);
    CUresult r = real(dptr, size);
    vt_on_alloc(r, device_alloc(r ? 0 : *dptr, size, VT_API_cuMemAlloc, VT_KIND_DEVICE, 0));
    return r;
}

VT_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
                                      unsigned int element_size)
{
    cuMemAllocPitch_v2_fn real = REAL(cuMemAllocPitch_v2_fn, cuMemAllocPitch_v2);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(dptr, pitch, width, height, element_size);
    CUresult r = real(dptr, pitch, width, height, element_size);
    vt_on_alloc(r, device_alloc(r ? 0 : *dptr, r ? width * height : *pitch * height,
                                VT_API_cuMemAllocPitch, VT_KIND_DEVICE, 0));
    return r;
}

VT_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t size, unsigned int flags)
{
    cuMemAllocManaged_fn real = REAL(cuMemAllocManaged_fn, cuMemAllocManaged);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(dptr, size, flags);
    CUresult r = real(dptr, size, flags);
    vt_on_alloc(r, device_alloc(r ? 0 : *dptr, size, VT_API_cuMemAllocManaged, VT_KIND_MANAGED, 0));
    return r;
}

/* The graph STREAM captures into (NULL: none), as the _ptsz variants
 * name the per-thread default stream. Asked only once a capture began. */
static CUgraph capturing(CUstream stream, int per_thread)
{
    if (!vt_captures_begun())
        return NULL;
    return vt_capture_graph(!stream && per_thread ? VT_STREAM_PER_THREAD : stream);
}

/* Stream-ordered: the memory comes from the default pool of the stream's
 * device, which need not be the current one. On a capturing stream the
 * call makes an allocation node of the capture's graph: an address, no
 * memory until a launch. */
static CUresult alloc_async(cuMemAllocAsync_fn real, CUdeviceptr *dptr, size_t size,
                            CUstream stream, int per_thread)
{
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(dptr, size, stream);
    CUresult r = real(dptr, size, stream);
    struct vt_alloc_info info = device_alloc(r ? 0 : *dptr, size, VT_API_cuMemAllocAsync,
                                             VT_KIND_DEVICE, (uint64_t)(uintptr_t)stream);
    info.device = VT_DEVICE_OF_STREAM;
    CUgraph graph = capturing(stream, per_thread);
    if (graph) {
        info.ctx = NULL, info.graph = 1;
        vt_on_graph_alloc_node(r, graph, info);
    } else {
        vt_on_alloc(r, info);
    }
    return r;
}

VT_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t size, CUstream stream)
{
    return alloc_async(REAL(cuMemAllocAsync_fn, cuMemAllocAsync), dptr, size, stream, 0);
}

VT_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t size, CUstream stream)
{
    return alloc_async(REAL(cuMemAllocAsync_fn, cuMemAllocAsync_ptsz), dptr, size, stream, 1);
}

static CUresult alloc_from_pool(cuMemAllocFromPoolAsync_fn real, CUdeviceptr *dptr, size_t size,
                                CUmemoryPool pool, CUstream stream, int per_thread)
{
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(dptr, size, pool, stream);
    CUresult r = real(dptr, size, pool, stream);
    struct vt_alloc_info info = device_alloc(r ? 0 : *dptr, size, VT_API_cuMemAllocFromPoolAsync,
                                             VT_KIND_DEVICE, (uint64_t)(uintptr_t)stream);
    CUgraph graph = capturing(stream, per_thread);
    if (graph) {
        info.device = VT_DEVICE_OF_STREAM, info.graph = 1;
        vt_on_graph_alloc_node(r, graph, info);
    } else {
        vt_on_pool_alloc(r, info, pool);
    }
    return r;
}

VT_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t size, CUmemoryPool pool,
                                           CUstream stream)
{
    return alloc_from_pool(REAL(cuMemAllocFromPoolAsync_fn, cuMemAllocFromPoolAsync), dptr, size,
                           pool, stream, 0);
}

VT_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t size, CUmemoryPool pool,
                                                CUstream stream)
{
    return alloc_from_pool(REAL(cuMemAllocFromPoolAsync_fn, cuMemAllocFromPoolAsync_ptsz), dptr,
                           size, pool, stream, 1);
}

static CUresult alloc_host(CUresult r, void **pp, size_t size, unsigned api)
{
    vt_on_alloc(r, device_alloc(r ? 0 : (uint64_t)(uintptr_t)*pp, size, api, VT_KIND_HOST, 0));
    return r;
}

VT_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t size)
{
    cuMemAllocHost_v2_fn real = REAL(cuMemAllocHost_v2_fn, cuMemAllocHost_v2);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(pp, size);
    return alloc_host(real(pp, size), pp, size, VT_API_cuMemAllocHost);
}

VT_EXPORT CUresult cuMemHostAlloc(void **pp, size_t size, unsigned int flags)
{
    cuMemHostAlloc_fn real = REAL(cuMemHostAlloc_fn, cuMemHostAlloc);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(pp, size, flags);
    return alloc_host(real(pp, size, flags), pp, size, VT_API_cuMemHostAlloc);
}

/* Registered memory is page-locked host memory, the program's own. */
VT_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t size, unsigned int flags)
{
    cuMemHostRegister_v2_fn real = REAL(cuMemHostRegister_v2_fn, cuMemHostRegister_v2);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(p, size, flags);
    CUresult r = real(p, size, flags);
    vt_on_alloc(r, device_alloc(r ? 0 : (uint64_t)(uintptr_t)p, size, VT_API_cuMemHostRegister,
                                VT_KIND_HOST, 0));
    return r;
}

VT_EXPORT CUresult cuMemHostUnregister(void *p)
{
    cuMemHostUnregister_fn real = REAL(cuMemHostUnregister_fn, cuMemHostUnregister);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!p || !vt_event_begin())
        return real(p);
    struct vt_free_call call;
    vt_on_free_begin(&call, (uint64_t)(uintptr_t)p, VT_SPACE_POINTER, VT_API_cuMemHostUnregister,
                     0);
    CUresult r = real(p);
    vt_on_free(r, &call);
    return r;
}

VT_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    cuMemFree_v2_fn real = REAL(cuMemFree_v2_fn, cuMemFree_v2);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dptr || !vt_event_begin())
        return real(dptr);
    struct vt_free_call call;
    vt_on_free_begin(&call, dptr, VT_SPACE_POINTER, VT_API_cuMemFree, 0);
    CUresult r = real(dptr);
    vt_on_free(r, &call);
    return r;
}

/* On a capturing stream: a free node of the capture's graph, nothing freed now. */
static CUresult free_async(cuMemFreeAsync_fn real, CUdeviceptr dptr, CUstream stream,
                           int per_thread)
{
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dptr || !vt_event_begin())
        return real(dptr, stream);
    CUgraph graph = capturing(stream, per_thread);
    if (graph) {
        CUresult r = real(dptr, stream);
        vt_on_graph_free_node(r, graph, dptr, VT_API_cuMemFreeAsync);
        return r;
    }
    struct vt_free_call call;
    vt_on_free_begin(&call, dptr, VT_SPACE_POINTER, VT_API_cuMemFreeAsync,
                     (uint64_t)(uintptr_t)stream);
    CUresult r = real(dptr, stream);
    vt_on_free(r, &call);
    return r;
}

VT_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream)
{
    return free_async(REAL(cuMemFreeAsync_fn, cuMemFreeAsync), dptr, stream, 0);
}

VT_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream)
{
    return free_async(REAL(cuMemFreeAsync_fn, cuMemFreeAsync_ptsz), dptr, stream, 1);
}

VT_EXPORT CUresult cuMemFreeHost(void *p)
{
    cuMemFreeHost_fn real = REAL(cuMemFreeHost_fn, cuMemFreeHost);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!p || !vt_event_begin())
        return real(p);
    struct vt_free_call call;
    vt_on_free_begin(&call, (uint64_t)(uintptr_t)p, VT_SPACE_POINTER, VT_API_cuMemFreeHost, 0);
    CUresult r = real(p);
    vt_on_free(r, &call);
    return r;
}

/* Only these locations are host memory: any other, one newer than the
 * types known here among them (a part of a device's memory), is VRAM. */
static int location_is_host(unsigned type)
{
    return type == CU_MEM_LOCATION_TYPE_HOST || type == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
           type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
}

VT_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                               const CUmemAllocationProp *prop, unsigned long long flags)
{
    cuMemCreate_fn real = REAL(cuMemCreate_fn, cuMemCreate);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(handle, size, prop, flags);
    CUresult r = real(handle, size, prop, flags);
    unsigned type = prop ? (unsigned)prop->location.type : CU_MEM_LOCATION_TYPE_INVALID;
    struct vt_alloc_info info = {
        .key = r ? 0 : *handle,
        .size = size,
        .api = VT_API_cuMemCreate,
        .kind = location_is_host(type) ? VT_KIND_HOST : VT_KIND_DEVICE,
        .space = VT_SPACE_HANDLE,
        .device = type == CU_MEM_LOCATION_TYPE_DEVICE ? prop->location.id
                  : location_is_host(type)            ? -1
                                                      : VT_DEVICE_OF_CONTEXT,
    };
    vt_on_alloc(r, info);
    return r;
}

VT_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    cuMemRelease_fn real = REAL(cuMemRelease_fn, cuMemRelease);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(handle);
    CUresult r = real(handle);
    vt_on_vmm_release(r, handle);
    return r;
}

VT_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                            CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    cuMemMap_fn real = REAL(cuMemMap_fn, cuMemMap);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(ptr, size, offset, handle, flags);
    CUresult r = real(ptr, size, offset, handle, flags);
    vt_on_vmm_map(r, ptr, size, handle);
    return r;
}

VT_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    cuMemUnmap_fn real = REAL(cuMemUnmap_fn, cuMemUnmap);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(ptr, size);
    CUresult r = real(ptr, size);
    vt_on_vmm_unmap(r, ptr, size);
    return r;
}

/* Bytes of one channel of one element of the plain formats, 0 for others. */
static uint64_t channel_bytes(CUarray_format format)
{
    switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8:
    case CU_AD_FORMAT_UNORM_INT8X1:
    case CU_AD_FORMAT_UNORM_INT8X2:
    case CU_AD_FORMAT_UNORM_INT8X4:
    case CU_AD_FORMAT_SNORM_INT8X1:
    case CU_AD_FORMAT_SNORM_INT8X2:
    case CU_AD_FORMAT_SNORM_INT8X4:
        return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
    case CU_AD_FORMAT_UNORM_INT16X1:
    case CU_AD_FORMAT_UNORM_INT16X2:
    case CU_AD_FORMAT_UNORM_INT16X4:
    case CU_AD_FORMAT_SNORM_INT16X1:
    case CU_AD_FORMAT_SNORM_INT16X2:
    case CU_AD_FORMAT_SNORM_INT16X4:
        return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT:
        return 4;
    default:
        return 0;
    }
}

/* Block-compressed formats: bytes per block of 4x4 texels, else 0. */
static uint64_t block_bytes(CUarray_format format)
{
    switch (format) {
    case CU_AD_FORMAT_BC1_UNORM:
    case CU_AD_FORMAT_BC1_UNORM_SRGB:
    case CU_AD_FORMAT_BC4_UNORM:
    case CU_AD_FORMAT_BC4_SNORM:
        return 8;
    case CU_AD_FORMAT_BC2_UNORM:
    case CU_AD_FORMAT_BC2_UNORM_SRGB:
    case CU_AD_FORMAT_BC3_UNORM:
    case CU_AD_FORMAT_BC3_UNORM_SRGB:
    case CU_AD_FORMAT_BC5_UNORM:
    case CU_AD_FORMAT_BC5_SNORM:
    case CU_AD_FORMAT_BC6H_UF16:
    case CU_AD_FORMAT_BC6H_SF16:
    case CU_AD_FORMAT_BC7_UNORM:
    case CU_AD_FORMAT_BC7_UNORM_SRGB:
        return 16;
    default:
        return 0;
    }
}

/* Packed and planar video formats: bytes per texel, all planes together,
 * in eighths (4:2:0 planes add half the luma plane, 4:2:2 a whole one);
 * else 0. */
static uint64_t video_eighths(CUarray_format format)
{
    switch (format) {
    case CU_AD_FORMAT_NV12:
        return 12; /* 8-bit luma + 4:2:0 chroma */
    case CU_AD_FORMAT_NV16:
    case CU_AD_FORMAT_YUY2:
        return 16;          /* 8-bit, 4:2:2 */
    case CU_AD_FORMAT_P010: /* 16-bit storage, 4:2:0 */
    case CU_AD_FORMAT_P016:
    case CU_AD_FORMAT_Y444_PLANAR8: /* 8-bit, 4:4:4 */
    case CU_AD_FORMAT_YUV444_8bit_SemiPlanar:
        return 24;
    case CU_AD_FORMAT_P210:
    case CU_AD_FORMAT_P216:
    case CU_AD_FORMAT_Y210:
    case CU_AD_FORMAT_Y216:
    case CU_AD_FORMAT_AYUV:
    case CU_AD_FORMAT_Y410:
    case CU_AD_FORMAT_UNORM_INT_101010_2:
        return 32; /* 16-bit 4:2:2, or four channels in 32 bits */
    case CU_AD_FORMAT_Y444_PLANAR10:
    case CU_AD_FORMAT_YUV444_16bit_SemiPlanar:
        return 48; /* 16-bit storage, 4:4:4 */
    case CU_AD_FORMAT_Y416:
        return 64;
    default:
        return 0;
    }
}

/* The array's data: plain formats by element, block-compressed ones by
 * block, video formats by texel (channels are part of their format).
 * Padding and alignment the driver adds are not known. */
static uint64_t array_bytes(size_t width, size_t height, size_t depth, CUarray_format format,
                            unsigned channels)
{
    uint64_t w = width, h = height ? height : 1, d = depth ? depth : 1;
    if (block_bytes(format))
        return ((w + 3) / 4) * ((h + 3) / 4) * d * block_bytes(format);
    if (video_eighths(format))
        return w * h * d * video_eighths(format) / 8;
    return w * h * d * channels * channel_bytes(format);
}

/* Sparse and deferred-mapping arrays have no memory of their own: what
 * backs them is cuMemCreate memory, counted there. */
static int has_own_memory(unsigned flags)
{
    return !(flags & (VT_CUDA_ARRAY3D_SPARSE | VT_CUDA_ARRAY3D_DEFERRED_MAPPING));
}

/* KEY: the array's handle (when R is success). */
static CUresult account_array(CUresult r, uint64_t key, uint64_t size, unsigned api)
{
    struct vt_alloc_info info = device_alloc(r ? 0 : key, size, api, VT_KIND_DEVICE, 0);
    info.space = VT_SPACE_HANDLE;
    vt_on_alloc(r, info);
    return r;
}

VT_EXPORT CUresult cuArrayCreate_v2(CUarray *handle, const CUDA_ARRAY_DESCRIPTOR *desc)
{
    cuArrayCreate_v2_fn real = REAL(cuArrayCreate_v2_fn, cuArrayCreate_v2);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!desc || !vt_event_begin())
        return real(handle, desc);
    uint64_t size = array_bytes(desc->Width, desc->Height, 1, desc->Format, desc->NumChannels);
    CUresult r = real(handle, desc);
    return account_array(r, r ? 0 : (uint64_t)(uintptr_t)*handle, size, VT_API_cuArrayCreate);
}

VT_EXPORT CUresult cuArray3DCreate_v2(CUarray *handle, const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
    cuArray3DCreate_v2_fn real = REAL(cuArray3DCreate_v2_fn, cuArray3DCreate_v2);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!desc || !has_own_memory(desc->Flags) || !vt_event_begin())
        return real(handle, desc);
    uint64_t size =
        array_bytes(desc->Width, desc->Height, desc->Depth, desc->Format, desc->NumChannels);
    CUresult r = real(handle, desc);
    return account_array(r, r ? 0 : (uint64_t)(uintptr_t)*handle, size, VT_API_cuArray3DCreate);
}

VT_EXPORT CUresult cuArrayDestroy(CUarray handle)
{
    cuArrayDestroy_fn real = REAL(cuArrayDestroy_fn, cuArrayDestroy);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!handle || !vt_event_begin())
        return real(handle);
    struct vt_free_call call;
    vt_on_free_begin(&call, (uint64_t)(uintptr_t)handle, VT_SPACE_HANDLE, VT_API_cuArrayDestroy, 0);
    CUresult r = real(handle);
    vt_on_free(r, &call);
    return r;
}

/* Each level half the one before; layers and cube faces stay as many. */
static uint64_t mipmapped_bytes(const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned levels)
{
    uint64_t total = 0;
    int layers = (desc->Flags & (VT_CUDA_ARRAY3D_LAYERED | VT_CUDA_ARRAY3D_CUBEMAP)) != 0;
    size_t w = desc->Width, h = desc->Height, d = desc->Depth;
    for (unsigned i = 0; i < levels; i++) {
        total += array_bytes(w, h, d, desc->Format, desc->NumChannels);
        w = w > 1 ? w / 2 : 1;
        h = h > 1 ? h / 2 : h;
        d = d > 1 && !layers ? d / 2 : d;
    }
    return total;
}

VT_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray *handle,
                                          const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned int levels)
{
    cuMipmappedArrayCreate_fn real = REAL(cuMipmappedArrayCreate_fn, cuMipmappedArrayCreate);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!desc || !has_own_memory(desc->Flags) || !vt_event_begin())
        return real(handle, desc, levels);
    CUresult r = real(handle, desc, levels);
    return account_array(r, r ? 0 : (uint64_t)(uintptr_t)*handle, mipmapped_bytes(desc, levels),
                         VT_API_cuMipmappedArrayCreate);
}

VT_EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray handle)
{
    cuMipmappedArrayDestroy_fn real = REAL(cuMipmappedArrayDestroy_fn, cuMipmappedArrayDestroy);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!handle || !vt_event_begin())
        return real(handle);
    struct vt_free_call call;
    vt_on_free_begin(&call, (uint64_t)(uintptr_t)handle, VT_SPACE_HANDLE,
                     VT_API_cuMipmappedArrayDestroy, 0);
    CUresult r = real(handle);
    vt_on_free(r, &call);
    return r;
}

/* Destroying a pool ends what its address meant (its device); memory still
 * allocated from it is released once freed, as the driver does. */
VT_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    cuMemPoolDestroy_fn real = REAL(cuMemPoolDestroy_fn, cuMemPoolDestroy);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    return vt_owners_changed(real(pool));
}

/* ---- context teardown frees memory without free calls ---- */

VT_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    cuCtxDestroy_v2_fn real = REAL(cuCtxDestroy_v2_fn, cuCtxDestroy_v2);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return vt_owners_changed(real(ctx));
    vt_on_teardown_begin(ctx, -1);
    CUresult r = vt_owners_changed(real(ctx));
    vt_on_teardown(r == CUDA_SUCCESS && ctx, ctx, -1, VT_API_cuCtxDestroy);
    return r;
}

/* A green context is a context of its own (cuCtxFromGreenCtx): what was
 * allocated in it or on its streams goes with it, not with the device's
 * primary context. */
VT_EXPORT CUresult cuGreenCtxDestroy(CUgreenCtx green)
{
    static void *from_green_slot;
    cuGreenCtxDestroy_fn real = REAL(cuGreenCtxDestroy_fn, cuGreenCtxDestroy);
    CUcontext ctx = NULL;
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return vt_owners_changed(real(green));
    cuCtxFromGreenCtx_fn from_green =
        (cuCtxFromGreenCtx_fn)vt_driver_function_cached(&from_green_slot, "cuCtxFromGreenCtx");
    if (!from_green || from_green(&ctx, green) != CUDA_SUCCESS)
        ctx = NULL;
    vt_on_teardown_begin(ctx, -1);
    CUresult r = vt_owners_changed(real(green));
    vt_on_teardown(r == CUDA_SUCCESS && ctx, ctx, -1, VT_API_cuGreenCtxDestroy);
    return r;
}

VT_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice device)
{
    cuDevicePrimaryCtxRetain_fn real = REAL(cuDevicePrimaryCtxRetain_fn, cuDevicePrimaryCtxRetain);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(pctx, device);
    if (r == CUDA_SUCCESS && pctx)
        vt_devices_set_primary_context(device, *pctx);
    return r;
}

VT_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice device)
{
    cuDevicePrimaryCtxReset_v2_fn real =
        REAL(cuDevicePrimaryCtxReset_v2_fn, cuDevicePrimaryCtxReset_v2);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return vt_owners_changed(real(device));
    vt_on_teardown_begin(NULL, device);
    CUresult r = vt_owners_changed(real(device));
    vt_on_teardown(r == CUDA_SUCCESS, vt_devices_primary_context(device), device,
                   VT_API_cuDevicePrimaryCtxReset);
    return r;
}

/* Releasing the last reference destroys the primary context. The runtime
 * releases its primary contexts at process exit: what they still hold then
 * was never freed, and stays a leak. The driver cannot be asked about the
 * device once its context is gone: a sample taken before is written when
 * the release destroyed it. */
VT_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device)
{
    static void *get_state_slot;
    cuDevicePrimaryCtxRelease_v2_fn real =
        REAL(cuDevicePrimaryCtxRelease_v2_fn, cuDevicePrimaryCtxRelease_v2);
    unsigned flags = 0;
    int active = 1;
    struct vt_usage_sample before;
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return vt_owners_changed(real(device));
    int sampled = vt_on_release_begin(device, vt_process_exiting(), &before) == 0;
    CUresult r = vt_owners_changed(real(device));
    cuDevicePrimaryCtxGetState_fn get_state =
        (cuDevicePrimaryCtxGetState_fn)vt_driver_function_cached(&get_state_slot,
                                                                 "cuDevicePrimaryCtxGetState");
    int destroyed = r == CUDA_SUCCESS && get_state &&
                    get_state(device, &flags, &active) == CUDA_SUCCESS && !active &&
                    !vt_process_exiting();
    if (destroyed && sampled)
        vt_on_release_sampled(&before);
    vt_on_teardown(destroyed, vt_devices_primary_context(device), device,
                   VT_API_cuDevicePrimaryCtxRelease);
    return r;
}

VT_HOOK_REGISTER(VT_ALLOC_HOOKS)
