/* SPDX-License-Identifier: MIT */
#include "event.h"

#include "devices.h"
#include "driver_function.h"
#include "freed.h"
#include "graphs.h"
#include "output.h"
#include "pystack.h"

#include <errno.h>

/* The API the program called: the runtime's, when a runtime wrapper tagged
 * this thread (the tagged call is then counted), else DRIVER_API. */
static unsigned called_api(unsigned driver_api)
{
    unsigned api = vt_thread_state.api;
    vt_thread_state.counted = 1;
    return api ? api : driver_api;
}

unsigned vt_event_api(unsigned driver_api)
{
    return called_api(driver_api);
}

/* The first event that finds the Python script ended marks where (once per
 * process: a forked child starts its own dump); every event that changes
 * what is live looks (the memory of cuMemCreate goes by unmap and release).
 * CAPTURED: the Python frames this event captured, or NULL. */
static void note_script_end(const struct vt_pystack *captured)
{
    static int noted;
    if (__atomic_load_n(&noted, __ATOMIC_RELAXED) || !vt_python_script_ended(captured))
        return;
    vt_lock();
    if (!__atomic_load_n(&noted, __ATOMIC_RELAXED)) {
        __atomic_store_n(&noted, 1, __ATOMIC_RELAXED);
        if (vt_output_ready() == 0 && vt_output_py_finalizing() < 0)
            vt_disable_locked(NULL); /* the writer said why */
    }
    vt_unlock();
}

/* The allocation and its owner are known: its stack, then the table. NOW:
 * when the real call returned. Inlined: one frame fewer for the unwinder
 * to walk on every allocation. */
static inline __attribute__((always_inline)) void
record_alloc(CUresult result, struct vt_alloc_info *info, uint64_t now)
{
    struct vt_stack stack;
    struct vt_meminfo mem;
    vt_stack_capture(&stack);
    note_script_end(&stack.python);
    if (result == CUDA_SUCCESS) {
        vt_track_alloc(info, &stack, now);
    } else {
        int known =
            result == CUDA_ERROR_OUT_OF_MEMORY && vt_owner_memory_info(info->device, &mem) == 0;
        if (known)
            vt_devices_oom_view(info->device, info->ctx, &mem);
        vt_track_failed(info, result, &stack, known ? &mem : NULL);
    }
    vt_devices_seen(info->device, info->ctx);
}

static vt_device_alloc_observer *device_alloc_observer;

void vt_event_observe_device_allocs(vt_device_alloc_observer *observer)
{
    __atomic_store_n(&device_alloc_observer, observer, __ATOMIC_RELEASE);
}

static void observe_device_alloc(void)
{
    vt_device_alloc_observer *observer = __atomic_load_n(&device_alloc_observer, __ATOMIC_ACQUIRE);
    if (observer)
        observer();
}

void vt_on_alloc(CUresult result, struct vt_alloc_info info)
{
    int saved = errno;
    uint64_t now = vt_event_call_ended();
    info.api = called_api(info.api);
    if (info.device != VT_DEVICE_UNKNOWN)
        vt_owner_fill(&info);
    record_alloc(result, &info, now);
    vt_thread_state.call_ns = 0;
    if (result == CUDA_SUCCESS && info.kind == VT_KIND_DEVICE)
        observe_device_alloc(); /* a framework's allocator's segments come here */
    vt_leave();
    errno = saved;
}

void vt_on_tensor_alloc(struct vt_alloc_info info)
{
    int saved = errno;
    uint64_t now = vt_event_call_ended();
    vt_thread_state.call_ns = 0; /* the allocator's call goes on */
    record_alloc(CUDA_SUCCESS, &info, now);
    vt_leave();
    errno = saved;
}

void vt_on_tensor_free(uint64_t key, uint64_t stream)
{
    struct vt_free_call call;
    vt_on_free_begin(&call, key, VT_SPACE_TENSOR, VT_API_torchTensorFree, stream);
    vt_on_free(CUDA_SUCCESS, &call);
}

/* The guard held: TRACK(A, B), then the guard left, errno as it was. */
static void track_and_leave(void (*track)(uint64_t, uint64_t), uint64_t a, uint64_t b)
{
    int saved = errno;
    track(a, b);
    vt_leave();
    errno = saved;
}

void vt_on_cache_segment(uint64_t va, uint64_t size)
{
    track_and_leave(vt_track_cache_segment, va, size);
}

int vt_on_nvtx_heap(uint64_t va, uint64_t size, struct vt_alloc_info *heap)
{
    int saved = errno;
    int ours = vt_track_nvtx_heap(va, size, heap);
    vt_leave();
    errno = saved;
    return ours;
}

void vt_on_region_free(uint64_t key)
{
    struct vt_free_call call;
    if (!vt_track_live_size(key, VT_SPACE_TENSOR)) { /* a region of a heap not traced */
        vt_event_end();
        return;
    }
    vt_on_free_begin(&call, key, VT_SPACE_TENSOR, VT_API_nvtxMemRegionsUnregister, 0);
    vt_on_free(CUDA_SUCCESS, &call);
}

void vt_on_regions_freed(uint64_t lo, uint64_t hi)
{
    track_and_leave(vt_track_free_regions, lo, hi);
}

void vt_on_pool_alloc(CUresult result, struct vt_alloc_info info, CUmemoryPool pool)
{
    int saved = errno;
    uint64_t now = vt_event_call_ended();
    info.api = called_api(info.api);
    vt_owner_of_pool(&info, pool, result);
    record_alloc(result, &info, now);
    vt_thread_state.call_ns = 0;
    vt_leave();
    errno = saved;
}

/* Free stacks only when asked for (VRAMTRACE_FREE_STACKS=1): a refused
 * free takes its stack anyway. The free's time is when its hook began
 * (vt_event_begin's clock read); the real call's is read again below. */
void vt_on_free_begin(struct vt_free_call *call, uint64_t key, enum vt_space space, unsigned api,
                      uint64_t stream)
{
    int saved = errno;
    call->key = key;
    call->space = space;
    call->api = called_api(api);
    call->stream = stream;
    call->stack = NULL;
    if (vt_free_stacks_enabled()) {
        vt_stack_capture(&call->stack_buffer);
        call->stack = &call->stack_buffer;
    }
    note_script_end(call->stack ? &call->stack->python : NULL);
    vt_track_free_begin(call->key, call->space, call->api, call->stream, call->stack,
                        &call->pending, vt_thread_state.call_start_ns);
    vt_thread_state.call_start_ns = vt_call_clock_ns(); /* the real free follows */
    errno = saved;
}

void vt_on_free(CUresult result, struct vt_free_call *call)
{
    int saved = errno;
    vt_event_call_ended();
    vt_output_free_took(&call->pending.call_ns, result == CUDA_SUCCESS, vt_thread_state.call_ns);
    /* a graph's address that no launch has allocated now: say whose it is
     * (the graphs' lock is never taken inside the tracer's) */
    call->pending.graph_node =
        result != CUDA_SUCCESS && !call->pending.traced &&
        vt_graph_node_at(call->key, &call->pending.info, &call->pending.stack);
    if (result != CUDA_SUCCESS || !call->pending.traced) /* else it is recorded */
        vt_track_free_end(call->key, call->space, call->api, call->stream, call->stack,
                          &call->pending, (int)result);
    if (result == CUDA_SUCCESS && call->pending.traced && call->pending.info.graph) {
        struct vt_stack stack; /* its memory went back to the graph memory pool */
        vt_stack_capture(&stack);
        vt_graph_pool_changed(call->pending.info.device, call->api, &stack);
    }
    vt_devices_flush();
    vt_thread_state.call_ns = 0;
    vt_leave();
    errno = saved;
}

void vt_on_vmm_map(CUresult result, uint64_t va, uint64_t size, uint64_t handle)
{
    int saved = errno;
    note_script_end(NULL);
    if (result == CUDA_SUCCESS)
        vt_track_vmm_map(va, size, handle);
    vt_leave();
    errno = saved;
}

void vt_on_vmm_unmap(CUresult result, uint64_t va, uint64_t size)
{
    int saved = errno;
    note_script_end(NULL);
    if (result == CUDA_SUCCESS)
        vt_track_vmm_unmap(va, size);
    vt_leave();
    errno = saved;
}

/* ---- CUDA graphs and stream capture ---- */

static int captures_begun;

int vt_captures_begun(void)
{
    return __atomic_load_n(&captures_begun, __ATOMIC_RELAXED);
}

void vt_on_capture_begin(CUresult result)
{
    int saved = errno;
    if (result == CUDA_SUCCESS)
        __atomic_store_n(&captures_begun, 1, __ATOMIC_RELAXED);
    vt_leave();
    errno = saved;
}

CUgraph vt_capture_graph(CUstream stream)
{
    static void *slot;
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    CUgraph graph = NULL;
    cuStreamGetCaptureInfo_v2_fn info =
        (cuStreamGetCaptureInfo_v2_fn)vt_driver_function_cached(&slot, "cuStreamGetCaptureInfo_v2");
    if (!info || info(stream, &status, NULL, &graph, NULL, NULL) != CUDA_SUCCESS ||
        status != CU_STREAM_CAPTURE_STATUS_ACTIVE)
        return NULL;
    return graph;
}

void vt_on_graph_alloc_node(CUresult result, CUgraph graph, struct vt_alloc_info info)
{
    int saved = errno;
    struct vt_stack stack;
    info.api = called_api(info.api);
    if (result == CUDA_SUCCESS) {
        vt_owner_fill(&info);
        vt_stack_capture(&stack);
        vt_graph_add_alloc((uint64_t)(uintptr_t)graph, &info, &stack);
    }
    vt_leave();
    errno = saved;
}

void vt_on_graph_free_node(CUresult result, CUgraph graph, uint64_t address, unsigned api)
{
    int saved = errno;
    api = called_api(api);
    if (result == CUDA_SUCCESS)
        vt_graph_add_free((uint64_t)(uintptr_t)graph, address, api);
    vt_leave();
    errno = saved;
}

void vt_on_graph_instantiate(CUresult result, CUgraphExec exec, CUgraph graph)
{
    int saved = errno;
    if (result == CUDA_SUCCESS)
        vt_graph_instantiated((uint64_t)(uintptr_t)exec, (uint64_t)(uintptr_t)graph);
    vt_leave();
    errno = saved;
}

void vt_on_graph_launch(CUresult result, CUgraphExec exec, unsigned api)
{
    int saved = errno;
    struct vt_stack stack;
    note_script_end(NULL);
    api = called_api(api);
    if (result == CUDA_SUCCESS) {
        vt_stack_capture(&stack);
        vt_graph_launched((uint64_t)(uintptr_t)exec, api, &stack);
    }
    vt_leave();
    errno = saved;
}

void vt_on_graph_exec_destroy(CUresult result, CUgraphExec exec)
{
    int saved = errno;
    if (result == CUDA_SUCCESS)
        vt_graph_exec_destroyed((uint64_t)(uintptr_t)exec);
    vt_leave();
    errno = saved;
}

void vt_on_graph_destroy(CUresult result, CUgraph graph)
{
    int saved = errno;
    if (result == CUDA_SUCCESS)
        vt_graph_destroyed((uint64_t)(uintptr_t)graph);
    vt_leave();
    errno = saved;
}

void vt_on_graph_mem_trim(CUresult result, int device, unsigned api)
{
    int saved = errno;
    struct vt_stack stack;
    note_script_end(NULL);
    api = called_api(api);
    if (result == CUDA_SUCCESS) {
        vt_stack_capture(&stack);
        vt_graph_pool_changed(device, api, &stack);
    }
    vt_leave();
    errno = saved;
}

void vt_on_vmm_release(CUresult result, uint64_t handle)
{
    int saved = errno;
    note_script_end(NULL);
    if (result == CUDA_SUCCESS)
        vt_track_vmm_release(handle);
    vt_leave();
    errno = saved;
}

void vt_on_teardown_begin(void *ctx, int device)
{
    int saved = errno;
    vt_devices_before_teardown(ctx, device);
    errno = saved;
}

int vt_on_release_begin(int device, int exiting, struct vt_usage_sample *s)
{
    int saved = errno;
    int got = exiting ? -1 : vt_devices_before_release(device, s);
    errno = saved;
    return got;
}

void vt_on_release_sampled(struct vt_usage_sample *s)
{
    int saved = errno;
    vt_devices_released(s);
    errno = saved;
}

void vt_on_teardown(int torn_down, void *ctx, int device, unsigned api)
{
    int saved = errno;
    note_script_end(NULL);
    if (torn_down) {
        vt_devices_context_gone(ctx);
        vt_track_teardown(ctx, device, called_api(api));
    }
    vt_leave();
    errno = saved;
}

/* A failed allocation holds no memory, so its owner is not asked of a
 * driver that may be gone (NVIDIA's runtime unloads a driver it refuses). */
void vt_on_unseen_runtime_alloc(cudaError_t result, struct vt_alloc_info info)
{
    info.device = result == cudaSuccess ? VT_DEVICE_OF_CONTEXT : VT_DEVICE_UNKNOWN;
    vt_on_alloc((CUresult)result, info);
}

void vt_on_unseen_runtime_free(uint64_t key, unsigned api, uint64_t stream)
{
    struct vt_free_call call;
    vt_on_free_begin(&call, key, VT_SPACE_POINTER, api, stream);
    vt_on_free(CUDA_SUCCESS, &call);
}
