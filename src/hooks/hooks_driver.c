/* SPDX-License-Identifier: MIT */
/* Wrappers of the driver allocation API. Every route to CUDA (linked
 * programs, dlsym, cuGetProcAddress, the runtimes) ends here, so this is
 * where each allocation is counted, exactly once. */
#include "cuda_abi.h"
#include "event.h"
#include "exiting.h"
#include "format.h"
#include "hook_table.h"
#include "driver_function.h"
#include "resolve.h"
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

/* Stream-ordered: the memory comes from the default pool of the stream's
 * device, which need not be the current one. */
static CUresult alloc_async(cuMemAllocAsync_fn real, CUdeviceptr *dptr, size_t size,
                            CUstream stream)
{
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(dptr, size, stream);
    CUresult r = real(dptr, size, stream);
    struct vt_alloc_info info = device_alloc(r ? 0 : *dptr, size, VT_API_cuMemAllocAsync,
                                             VT_KIND_DEVICE, (uint64_t)(uintptr_t)stream);
    info.device = VT_DEVICE_OF_STREAM;
    vt_on_alloc(r, info);
    return r;
}

VT_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t size, CUstream stream)
{
    return alloc_async(REAL(cuMemAllocAsync_fn, cuMemAllocAsync), dptr, size, stream);
}

VT_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t size, CUstream stream)
{
    return alloc_async(REAL(cuMemAllocAsync_fn, cuMemAllocAsync_ptsz), dptr, size, stream);
}

static CUresult alloc_from_pool(cuMemAllocFromPoolAsync_fn real, CUdeviceptr *dptr, size_t size,
                                CUmemoryPool pool, CUstream stream)
{
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(dptr, size, pool, stream);
    CUresult r = real(dptr, size, pool, stream);
    vt_on_pool_alloc(r,
                     device_alloc(r ? 0 : *dptr, size, VT_API_cuMemAllocFromPoolAsync,
                                  VT_KIND_DEVICE, (uint64_t)(uintptr_t)stream),
                     pool);
    return r;
}

VT_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t size, CUmemoryPool pool,
                                           CUstream stream)
{
    return alloc_from_pool(REAL(cuMemAllocFromPoolAsync_fn, cuMemAllocFromPoolAsync), dptr, size,
                           pool, stream);
}

VT_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t size, CUmemoryPool pool,
                                                CUstream stream)
{
    return alloc_from_pool(REAL(cuMemAllocFromPoolAsync_fn, cuMemAllocFromPoolAsync_ptsz), dptr,
                           size, pool, stream);
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

static CUresult free_async(cuMemFreeAsync_fn real, CUdeviceptr dptr, CUstream stream)
{
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dptr || !vt_event_begin())
        return real(dptr, stream);
    struct vt_free_call call;
    vt_on_free_begin(&call, dptr, VT_SPACE_POINTER, VT_API_cuMemFreeAsync,
                     (uint64_t)(uintptr_t)stream);
    CUresult r = real(dptr, stream);
    vt_on_free(r, &call);
    return r;
}

VT_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream)
{
    return free_async(REAL(cuMemFreeAsync_fn, cuMemFreeAsync), dptr, stream);
}

VT_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream stream)
{
    return free_async(REAL(cuMemFreeAsync_fn, cuMemFreeAsync_ptsz), dptr, stream);
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

VT_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                               const CUmemAllocationProp *prop, unsigned long long flags)
{
    cuMemCreate_fn real = REAL(cuMemCreate_fn, cuMemCreate);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(handle, size, prop, flags);
    CUresult r = real(handle, size, prop, flags);
    int on_device = prop && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE;
    struct vt_alloc_info info = {
        .key = r ? 0 : *handle,
        .size = size,
        .api = VT_API_cuMemCreate,
        .kind = on_device ? VT_KIND_DEVICE : VT_KIND_HOST,
        .space = VT_SPACE_HANDLE,
        .device = on_device ? prop->location.id : -1,
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

static uint64_t element_bytes(CUarray_format format)
{
    switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8:
        return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
        return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT:
        return 4;
    default:
        return 0; /* packed and compressed formats: size unknown */
    }
}

static uint64_t array_bytes(size_t width, size_t height, size_t depth, CUarray_format format,
                            unsigned channels)
{
    return (uint64_t)width * (height ? height : 1) * (depth ? depth : 1) * channels *
           element_bytes(format);
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
    if (!desc || !vt_event_begin())
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

static uint64_t mipmapped_bytes(const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned levels)
{
    uint64_t total = 0;
    size_t w = desc->Width, h = desc->Height, d = desc->Depth;
    for (unsigned i = 0; i < levels; i++) {
        total += array_bytes(w, h, d, desc->Format, desc->NumChannels);
        w = w > 1 ? w / 2 : 1;
        h = h > 1 ? h / 2 : h;
        d = d > 1 ? d / 2 : d;
    }
    return total;
}

VT_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray *handle,
                                          const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned int levels)
{
    cuMipmappedArrayCreate_fn real = REAL(cuMipmappedArrayCreate_fn, cuMipmappedArrayCreate);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!desc || !vt_event_begin())
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

VT_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice device)
{
    cuDevicePrimaryCtxRetain_fn real = REAL(cuDevicePrimaryCtxRetain_fn, cuDevicePrimaryCtxRetain);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(pctx, device);
    if (r == CUDA_SUCCESS && pctx)
        vt_track_set_primary_context(device, *pctx);
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
    vt_on_teardown(r == CUDA_SUCCESS, vt_track_primary_context(device), device,
                   VT_API_cuDevicePrimaryCtxReset);
    return r;
}

/* Releasing the last reference destroys the primary context. The runtime
 * releases its primary contexts at process exit: what they still hold then
 * was never freed, and stays a leak. */
VT_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device)
{
    static void *get_state_slot;
    cuDevicePrimaryCtxRelease_v2_fn real =
        REAL(cuDevicePrimaryCtxRelease_v2_fn, cuDevicePrimaryCtxRelease_v2);
    unsigned flags = 0;
    int active = 1;
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return vt_owners_changed(real(device));
    CUresult r = vt_owners_changed(real(device));
    cuDevicePrimaryCtxGetState_fn get_state =
        (cuDevicePrimaryCtxGetState_fn)vt_driver_function_cached(&get_state_slot,
                                                                 "cuDevicePrimaryCtxGetState");
    int destroyed = r == CUDA_SUCCESS && get_state &&
                    get_state(device, &flags, &active) == CUDA_SUCCESS && !active &&
                    !vt_process_exiting();
    vt_on_teardown(destroyed, vt_track_primary_context(device), device,
                   VT_API_cuDevicePrimaryCtxRelease);
    return r;
}

VT_HOOK_REGISTER(VT_ALLOC_HOOKS)
