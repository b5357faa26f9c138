/* SPDX-License-Identifier: MIT */
/* The live-allocation table: the one place where allocations and frees are
 * applied and written to the dump. Each function takes the tracer lock. */
#ifndef VRAMTRACE_TRACK_H
#define VRAMTRACE_TRACK_H

#include "alloc_info.h"
#include "records.h"
#include "stacks.h"
#include "writer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* NOW: the allocation's time (vt_now_ns's clock). */
void vt_track_alloc(const struct vt_alloc_info *info, const struct vt_stack *stack, uint64_t now);
/* The same with the stack already interned (vt_track_stack_id). */
void vt_track_alloc_interned(const struct vt_alloc_info *info, uint32_t stack_id);
/* STACK's id in the dump (written the first time); 0 when none. */
uint32_t vt_track_stack_id(const struct vt_stack *stack);
/* What was traced of a framework's allocator (a FRAMEWORK record). */
void vt_track_framework(const char *name, const char *version, unsigned state);
/* The size of the live allocation KEY in SPACE, 0 when there is none. */
uint64_t vt_track_live_size(uint64_t key, enum vt_space space);
/* MEM may be NULL (not an out-of-memory error, or the driver did not say). */
void vt_track_failed(const struct vt_alloc_info *info, int error, const struct vt_stack *stack,
                     const struct vt_meminfo *mem);

/* A free in two steps around the real call: begin removes the allocation and
 * writes the free before the driver can hand the address out again; end
 * (not called for a traced free the driver accepted: begin recorded it)
 * puts it back if the driver refused, or records an untraced or invalid
 * free.
 * STACK: the free's stack when free stacks are recorded, else NULL (a
 * refused free takes its stack then). NOW: the free's time (vt_now_ns's
 * clock). RESULT: the driver's CUresult. */
struct vt_pending_free {
    int traced;
    int graph_node; /* not traced, refused: INFO and STACK are a graph's allocation node's */
    struct vt_alloc_info info;
    uint32_t stack;
    uint64_t seq;
    uint32_t free_stack;
    struct vt_held_field call_ns; /* its FREE record's (output.h) */
};
void vt_track_free_begin(uint64_t key, enum vt_space space, unsigned api, uint64_t stream,
                         const struct vt_stack *stack, struct vt_pending_free *pending,
                         uint64_t now);
void vt_track_free_end(uint64_t key, enum vt_space space, unsigned api, uint64_t stream,
                       const struct vt_stack *stack, const struct vt_pending_free *pending,
                       int result);

/* Virtual memory management: cuMemCreate memory is gone only once it is
 * released and no longer mapped. Called after the real call succeeded. */
void vt_track_vmm_map(uint64_t va, uint64_t size, uint64_t handle);
void vt_track_vmm_unmap(uint64_t va, uint64_t size);
void vt_track_vmm_release(uint64_t handle);
/* A segment of a framework's cache whose tensors are traced (the
 * per-checkpoint figures skip it). */
void vt_track_cache_segment(uint64_t va, uint64_t size);
/* [VA, VA + SIZE) is a heap registered with NVTX's memory API: 1, with the
 * live allocation at VA into *HEAP (marked a segment), when that is a
 * traced device pointer of SIZE bytes at least and no framework's segment;
 * else 0 (its regions are not traced). */
int vt_track_nvtx_heap(uint64_t va, uint64_t size, struct vt_alloc_info *heap);
/* Every region of an NVTX heap at [LO, HI) is freed
 * (nvtxMemRegionsUnregister): the heap was reset or unregistered. */
void vt_track_free_regions(uint64_t lo, uint64_t hi);

/* Context teardown freed every allocation of CTX (or, with CTX NULL, of
 * DEVICE's primary context; with DEVICE >= 0, also what DEVICE's memory
 * pools held) without free calls: arrays too, not cuMemCreate memory. */
void vt_track_teardown(void *ctx, int device, unsigned api);

/* For the public API: live device+managed bytes, the allocation counter
 * (a checkpoint), live device+managed bytes allocated after a checkpoint. */
uint64_t vt_track_live_bytes(void);
uint64_t vt_track_checkpoint(void);
uint64_t vt_track_bytes_since(uint64_t checkpoint);
/* A checkpoint whose peak is followed (peaks.h), and that peak: false
 * when the checkpoint is not followed (VT_PEAK_CHECKPOINTS newer ones). */
uint64_t vt_track_checkpoint_followed(void);
bool vt_track_peak_since(uint64_t checkpoint, uint64_t *peak);
uint64_t vt_track_live_count(void);

/* Live device+managed memory allocated after a checkpoint, from one stack. */
#define VT_SITE_FRAMES 16
struct vt_site_total {
    uint64_t bytes, allocations;
    int nframes;
    uintptr_t frames[VT_SITE_FRAMES]; /* innermost first */
};
/* The MAX largest sites since CHECKPOINT, largest first (at most
 * VT_SITES_TRACKED distinct stacks are told apart); returns how many. */
#define VT_SITES_TRACKED 64
size_t vt_track_sites_since(uint64_t checkpoint, struct vt_site_total *out, size_t max);

/* Forget everything (forked child: the parent's allocations are not ours). */
void vt_track_reset(void);

#endif
