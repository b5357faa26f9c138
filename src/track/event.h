/* SPDX-License-Identifier: MIT */
/* The one path of every traced event. A hook only describes the call it
 * wraps; these functions do the rest, the same way for every API: the
 * re-entrancy guard, errno, the API the program called (the runtime's tag),
 * the stack, the owner (device, context), and the call into the live table.
 *
 * A driver hook asks vt_event_begin() (hooks/entry.h: it may start the
 * tracer, which nothing below the entry points does) before its real call;
 * when that says
 * 1 the guard is held (what CUDA calls inside passes through untraced) and
 * the hook ends the event with exactly one vt_on_* call after the real call,
 * which records it, releases the guard and leaves errno as the real call
 * left it. A free is the one event in two steps: vt_on_free_begin before
 * the real call (the driver may hand the address to another thread at
 * once), vt_on_free after it. */
#ifndef VRAMTRACE_EVENT_H
#define VRAMTRACE_EVENT_H

#include "cuda_abi.h"
#include "owner.h"
#include "stacks.h"
#include "track.h"
#include "tracing.h"

#include <stdint.h>

/* The real call has just returned: how long it took, for its record; the
 * time now (the event's, one clock read for both). */
static inline uint64_t vt_event_call_ended(void)
{
    uint64_t now = vt_call_clock_ns();
    vt_thread_state.call_ns = now - vt_thread_state.call_start_ns;
    return now;
}

/* The real allocation call returned RESULT; INFO describes it (the API the
 * driver hook stands for, kind, key space, size, key when it succeeded,
 * device or VT_DEVICE_OF_*, stream). */
void vt_on_alloc(CUresult result, struct vt_alloc_info info);
/* The same for an allocation from POOL. */
void vt_on_pool_alloc(CUresult result, struct vt_alloc_info info, CUmemoryPool pool);

/* A free of KEY in SPACE through API (on STREAM, 0: none), around the real
 * call: CALL (uninitialised: no need to clear its stack buffer on every
 * free) is filled by vt_on_free_begin and read by vt_on_free. */
struct vt_free_call {
    uint64_t key;
    enum vt_space space;
    unsigned api;
    uint64_t stream;
    const struct vt_stack *stack;
    struct vt_stack stack_buffer;
    struct vt_pending_free pending;
};
void vt_on_free_begin(struct vt_free_call *call, uint64_t key, enum vt_space space, unsigned api,
                      uint64_t stream);
void vt_on_free(CUresult result, struct vt_free_call *call);

/* OBSERVER runs after each traced device allocation, guard held, no lock
 * (torch_tensors.c: a framework's allocator found loaded). */
typedef void vt_device_alloc_observer(void);
void vt_event_observe_device_allocs(vt_device_alloc_observer *observer);

/* A tensor of a framework's allocator, inside a segment already traced
 * (INFO: its address, size, device, stream, api and VT_SPACE_TENSOR), and
 * its free: on the allocating or freeing thread, from the framework's own
 * notice, no CUDA call around them; each ends an event begun by
 * vt_event_begin. */
void vt_on_tensor_alloc(struct vt_alloc_info info);
void vt_on_tensor_free(uint64_t key, uint64_t stream);
/* [VA, VA + SIZE): a segment that allocator got or mapped, already traced
 * (guard held: vt_enter). */
void vt_on_cache_segment(uint64_t va, uint64_t size);

/* NVTX's memory API (hooks_nvtx_mem.c). A heap at [VA, VA + SIZE) was
 * registered (guard held: vt_enter): 1, with its allocation into *HEAP,
 * when its regions are traced (track.h: vt_track_nvtx_heap). A region is
 * one of vt_on_tensor_alloc's allocations (api nvtxMemRegionsRegister);
 * vt_on_region_free ends the event begun for the unregistering of KEY (no
 * record when it is not a traced region), vt_on_regions_freed (guard held)
 * frees every region at [LO, HI): a heap reset or unregistered. */
int vt_on_nvtx_heap(uint64_t va, uint64_t size, struct vt_alloc_info *heap);
void vt_on_region_free(uint64_t key);
void vt_on_regions_freed(uint64_t lo, uint64_t hi);

/* Virtual memory management, after the real call returned RESULT. */
void vt_on_vmm_map(CUresult result, uint64_t va, uint64_t size, uint64_t handle);
void vt_on_vmm_unmap(CUresult result, uint64_t va, uint64_t size);
void vt_on_vmm_release(CUresult result, uint64_t handle);

/* Around a call that may tear down a context (CTX, or with CTX NULL the
 * primary context of DEVICE): the devices' view before it; after it, with
 * TORN_DOWN, what the context held is freed (by API). */
void vt_on_teardown_begin(void *ctx, int device);
void vt_on_teardown(int torn_down, void *ctx, int device, unsigned api);
/* Around a release of DEVICE's primary context, which tears it down only
 * when it drops the last reference: the devices' view before it, into *S
 * (-1: none taken), written by vt_on_release_sampled when it did; the
 * program's own releases only (the runtime's at exit come after the exit
 * sample). Call before vt_on_teardown. */
int vt_on_release_begin(int device, int exiting, struct vt_usage_sample *s);
void vt_on_release_sampled(struct vt_usage_sample *s);

/* ---- CUDA graphs (graphs.h) and stream capture ----
 * Each ends a traced event begun by vt_event_begin, after the real call
 * returned RESULT; nothing is recorded for a call that failed. */
/* Streams have been capturing since the first cuStreamBeginCapture: only
 * then does a stream-ordered allocation ask whether its stream captures. */
int vt_captures_begun(void);
void vt_on_capture_begin(CUresult result);
/* The graph STREAM (CU_STREAM_PER_THREAD for the per-thread default
 * stream) is capturing into, or NULL. The guard held. */
CUgraph vt_capture_graph(CUstream stream);
/* INFO (its key the node's address) is an allocation node of GRAPH. */
void vt_on_graph_alloc_node(CUresult result, CUgraph graph, struct vt_alloc_info info);
void vt_on_graph_free_node(CUresult result, CUgraph graph, uint64_t address, unsigned api);
void vt_on_graph_instantiate(CUresult result, CUgraphExec exec, CUgraph graph);
void vt_on_graph_launch(CUresult result, CUgraphExec exec, unsigned api);
void vt_on_graph_exec_destroy(CUresult result, CUgraphExec exec);
void vt_on_graph_destroy(CUresult result, CUgraph graph);
void vt_on_graph_mem_trim(CUresult result, int device, unsigned api);

/* The API the program called, for a driver hook standing for DRIVER_API:
 * the runtime's tag when there is one (the tagged call is then counted). */
unsigned vt_event_api(unsigned driver_api);

/* A traced call that turned out to have nothing to record. */
static inline void vt_event_end(void)
{
    vt_leave();
}

/* The records of a runtime call that no driver hook saw (entry.h: the
 * runtime wrappers' tag), each in an event begun after the call (0 ns): an
 * allocation that failed or succeeded, a free that succeeded. */
void vt_on_unseen_runtime_alloc(cudaError_t result, struct vt_alloc_info info);
void vt_on_unseen_runtime_free(uint64_t key, unsigned api, uint64_t stream);

#endif
