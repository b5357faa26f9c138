/* SPDX-License-Identifier: MIT */
#include "owner.h"

#include "driver_function.h"
#include "resolve.h"
#include "tracing.h"

static void *current_context_slot, *context_device_slot, *memory_info_slot;
static void *stream_context_slot, *any_context_device_slot, *push_slot, *pop_slot;
static void *pointer_attribute_slot;

static unsigned owner_epoch;

CUresult vt_owners_changed(CUresult result)
{
    __atomic_add_fetch(&owner_epoch, 1, __ATOMIC_RELEASE);
    return result;
}

/* The device of CTX, which is not the current context: cuCtxGetDevice_v2
 * (CUDA 12.5+), else by making it current for a moment. */
static int device_of_other(CUcontext ctx, CUdevice *device)
{
    cuCtxGetDevice_v2_fn get_device = (cuCtxGetDevice_v2_fn)vt_driver_function_cached(
        &any_context_device_slot, "cuCtxGetDevice_v2");
    cuCtxPushCurrent_v2_fn push =
        (cuCtxPushCurrent_v2_fn)vt_driver_function_cached(&push_slot, "cuCtxPushCurrent_v2");
    cuCtxPopCurrent_v2_fn pop =
        (cuCtxPopCurrent_v2_fn)vt_driver_function_cached(&pop_slot, "cuCtxPopCurrent_v2");
    cuCtxGetDevice_fn get_current_device =
        (cuCtxGetDevice_fn)vt_driver_function_cached(&context_device_slot, "cuCtxGetDevice");
    CUcontext popped;
    int r;
    if (get_device)
        return get_device(device, ctx);
    if (!push || !pop || !get_current_device || push(ctx) != CUDA_SUCCESS)
        return -1;
    r = get_current_device(device);
    pop(&popped);
    return r;
}

/* A context's device never changes while it lives: asked of the driver only
 * when this thread allocates in another context than last time. CURRENT:
 * CTX is the calling thread's current context. */
static int device_of(CUcontext ctx, int current)
{
    __typeof__(vt_thread_state.last_context) *last = &vt_thread_state.last_context;
    unsigned epoch = __atomic_load_n(&owner_epoch, __ATOMIC_ACQUIRE);
    CUdevice device = -1;
    if (ctx && last->ctx == ctx && last->epoch == epoch)
        return last->device;
    cuCtxGetDevice_fn get_context_device =
        (cuCtxGetDevice_fn)vt_driver_function_cached(&context_device_slot, "cuCtxGetDevice");
    if (current ? !get_context_device || get_context_device(&device) != CUDA_SUCCESS
                : !ctx || device_of_other(ctx, &device) != CUDA_SUCCESS)
        return -1;
    last->ctx = ctx;
    last->device = device;
    last->epoch = epoch;
    return device;
}

/* The context a stream-ordered allocation went to: the stream's own, or
 * the current one for the default streams (NULL, legacy, per-thread). */
static int stream_context(uint64_t stream, CUcontext *ctx)
{
    cuStreamGetCtx_fn get_stream_context =
        (cuStreamGetCtx_fn)vt_driver_function_cached(&stream_context_slot, "cuStreamGetCtx");
    if (stream <= 2 || !get_stream_context)
        return 0;
    return get_stream_context((CUstream)(uintptr_t)stream, ctx) == CUDA_SUCCESS;
}

void vt_owner_fill(struct vt_alloc_info *info)
{
    CUcontext ctx = NULL, of_stream = NULL;
    cuCtxGetCurrent_fn get_current_context =
        (cuCtxGetCurrent_fn)vt_driver_function_cached(&current_context_slot, "cuCtxGetCurrent");
    if (get_current_context && get_current_context(&ctx) == CUDA_SUCCESS)
        info->ctx = ctx;
    if (info->device == VT_DEVICE_OF_STREAM && stream_context(info->stream, &of_stream) &&
        of_stream != info->ctx) {
        info->ctx = of_stream;
        info->device = device_of(of_stream, 0);
    } else if (info->device == VT_DEVICE_OF_CONTEXT || info->device == VT_DEVICE_OF_STREAM) {
        info->device = device_of(info->ctx, 1);
    } else if (info->device >= 0 && info->ctx && device_of(info->ctx, 1) != info->device) {
        /* memory placed on another device (cuMemCreate's location): the
         * current context cannot answer for that device */
        info->ctx = NULL;
    }
}

/* A pool's device and kind never change while it lives: asked of the
 * driver (of the memory it handed out: pools with a host location hand out
 * page-locked host memory, managed pools managed memory) only when this
 * thread allocates from another pool than last time. Device -1 when unknown
 * (a failed allocation from a pool not seen before). */
static int device_of_pool(CUmemoryPool pool, CUdeviceptr memory, uint8_t *kind)
{
    __typeof__(vt_thread_state.last_pool) *last = &vt_thread_state.last_pool;
    unsigned epoch = __atomic_load_n(&owner_epoch, __ATOMIC_ACQUIRE);
    int device = -1, managed = 0;
    unsigned memory_type = 0;
    cuPointerGetAttribute_fn get_attribute = (cuPointerGetAttribute_fn)vt_driver_function_cached(
        &pointer_attribute_slot, "cuPointerGetAttribute");
    if (pool && last->pool == pool && last->epoch == epoch) {
        *kind = last->kind;
        return last->device;
    }
    if (!memory || !get_attribute ||
        get_attribute(&device, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, memory) != CUDA_SUCCESS)
        return -1;
    if (get_attribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, memory) == CUDA_SUCCESS && managed)
        *kind = VT_KIND_MANAGED;
    else if (get_attribute(&memory_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, memory) ==
                 CUDA_SUCCESS &&
             memory_type == CU_MEMORYTYPE_HOST)
        *kind = VT_KIND_HOST;
    last->pool = pool;
    last->device = device;
    last->kind = *kind;
    last->epoch = epoch;
    return device;
}

/* The driver's free/total memory of the current context's device, when that
 * is the device the allocation failed on. The real cuMemGetInfo_v2 (not
 * hooked; the guard is held, so whatever it calls passes through). */
int vt_owner_memory_info(int device, struct vt_meminfo *mem)
{
    size_t free_bytes, total_bytes;
    CUdevice current = -1;
    cuMemGetInfo_v2_fn get_memory_info =
        (cuMemGetInfo_v2_fn)vt_driver_function_cached(&memory_info_slot, "cuMemGetInfo_v2");
    cuCtxGetDevice_fn get_context_device =
        (cuCtxGetDevice_fn)vt_driver_function_cached(&context_device_slot, "cuCtxGetDevice");
    if (!get_memory_info || !get_context_device || get_context_device(&current) != CUDA_SUCCESS ||
        current != device || get_memory_info(&free_bytes, &total_bytes) != CUDA_SUCCESS)
        return -1;
    *mem = (struct vt_meminfo){.free_bytes = free_bytes, .total_bytes = total_bytes};
    return 0;
}

void vt_owner_of_pool(struct vt_alloc_info *info, CUmemoryPool pool, CUresult result)
{
    int device = device_of_pool(pool, result == CUDA_SUCCESS ? info->key : 0, &info->kind);
    info->device = device >= 0 ? device : VT_DEVICE_OF_CONTEXT;
    if (device < 0)
        vt_owner_fill(info);
    info->ctx = NULL;
}
