#include "account.h"

#include "devices.h"
#include "format.h"
#include "freed.h"
#include "resolve.h"
#include "stacks.h"
#include "tracer.h"

#include <errno.h>

static void *current_context_slot, *context_device_slot, *memory_info_slot;

/* The API the program called: the runtime's, when a runtime wrapper tagged
 * this thread, else the driver's own. */
unsigned vt_called_api(unsigned driver_api)
{
    unsigned api = vt_thread_state.api;
    vt_thread_state.counted = 1;
    return api ? api : driver_api;
}

static unsigned context_epoch;

CUresult vt_account_contexts_changed(CUresult result)
{
    __atomic_add_fetch(&context_epoch, 1, __ATOMIC_RELEASE);
    return result;
}

/* A context's device never changes while it lives: asked of the driver only
 * when this thread allocates in another context than last time. */
static int device_of(CUcontext ctx)
{
    __typeof__(vt_thread_state.last_context) *last = &vt_thread_state.last_context;
    unsigned epoch = __atomic_load_n(&context_epoch, __ATOMIC_ACQUIRE);
    CUdevice device = -1;
    if (ctx && last->ctx == ctx && last->epoch == epoch)
        return last->device;
    cuCtxGetDevice_fn get_context_device =
        (cuCtxGetDevice_fn)vt_driver_function_cached(&context_device_slot, "cuCtxGetDevice");
    if (!get_context_device || get_context_device(&device) != CUDA_SUCCESS)
        return -1;
    last->ctx = ctx;
    last->device = device;
    last->epoch = epoch;
    return device;
}

static void fill_context(struct vt_alloc_info *info)
{
    CUcontext ctx = NULL;
    cuCtxGetCurrent_fn get_current_context = (cuCtxGetCurrent_fn)vt_driver_function_cached(
        &current_context_slot, "cuCtxGetCurrent");
    if (get_current_context && get_current_context(&ctx) == CUDA_SUCCESS)
        info->ctx = ctx;
    if (info->device == VT_DEVICE_OF_CONTEXT)
        info->device = device_of(info->ctx);
}

/* The driver's free/total memory of the current context's device, when that
 * is the device the allocation failed on. The real cuMemGetInfo_v2 (not
 * hooked; the guard is held, so whatever it calls passes through). */
static int device_memory_info(int device, struct vt_meminfo *mem)
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

void vt_account_alloc(CUresult result, struct vt_alloc_info info)
{
    struct vt_stack stack;
    struct vt_meminfo mem;
    int saved = errno;
    info.api = vt_called_api(info.api);
    fill_context(&info);
    vt_stack_capture(&stack);
    if (result == CUDA_SUCCESS) {
        vt_track_alloc(&info, &stack);
    } else {
        int known = result == CUDA_ERROR_OUT_OF_MEMORY && device_memory_info(info.device, &mem) == 0;
        if (known)
            vt_devices_oom_view(info.device, info.ctx, &mem);
        vt_track_failed(&info, result, &stack, known ? &mem : NULL);
    }
    vt_devices_seen(info.device, info.ctx);
    vt_leave();
    errno = saved;
}


const struct vt_stack *vt_account_free_stack(struct vt_stack *buffer)
{
    if (!vt_free_stacks_enabled())
        return NULL;
    vt_stack_capture(buffer);
    return buffer;
}
