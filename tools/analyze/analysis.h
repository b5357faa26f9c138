/* SPDX-License-Identifier: MIT */
/* Replays a dump's events: the live set, counters, peak, and at the end the
 * allocations still live, grouped by call site. */
#ifndef VT_ANALYSIS_H
#define VT_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "aggregate_replay.h"
#include "device_view.h"
#include "dump_reader.h"
#include "format.h"
#include "invalid_frees.h"
#include "live_table.h"
#include "summary.h"
#include "usage_series.h"

#define VT_CUDA_ERROR_OUT_OF_MEMORY 2
#define VT_OOM_HOLDERS 5

#define VT_LEAK_THREADS 8

struct vt_suppression;

/* Allocations still live at the end, from one call site: leaked (freed by
 * nobody), or held (held when the Python script ended, freed by the
 * interpreter's shutdown after). */
struct vt_leak {
    uint64_t stack_id;
    unsigned api, kind;
    int64_t device;
    uint64_t bytes, allocations;
    bool held; /* an entry of held, not of leaks */
    /* the threads that made them: the first VT_LEAK_THREADS seen, with
     * their counts (none in aggregate mode) */
    struct {
        uint64_t tid, allocations;
    } threads[VT_LEAK_THREADS];
    size_t nthreads, other_threads;
    /* known framework memory (known_memory.h): the pattern that matched */
    const struct vt_suppression *known;
};

/* A site holding memory at an out-of-memory failure (index into usage.sites). */
struct vt_oom_holder {
    size_t site;
    uint64_t bytes;
};

/* Refused allocations of one size from one call site. For an out-of-memory
 * error, the autopsy of its first occurrence. */
struct vt_failure {
    uint64_t stack_id, size, error;
    unsigned api, kind;
    int64_t device;
    uint64_t count;
    bool oom;
    uint64_t time_ns, device_live_bytes; /* traced live bytes on the device then */
    bool has_meminfo;
    uint64_t mem_free, mem_total; /* what the driver said */
    bool has_own;                 /* NVML: this process's use of the GPU */
    uint64_t own_bytes;
    size_t nothers; /* NVML: the other processes, largest first */
    struct vt_gpu_process_info others[VT_GPU_PROCESSES_MAX];
    struct vt_oom_holder holders[VT_OOM_HOLDERS];
    size_t nholders;
    struct vt_usage_cache cache; /* a framework's cache then, its tensors among the holders */
};

struct vt_failure_entry; /* internal: failures being grouped */

struct vt_analysis {
    struct vt_summary summary;
    struct vt_leak *leaks; /* by bytes, then allocations, descending */
    size_t nleaks;
    /* a Python program: held when its script ended, freed by the
     * interpreter's shutdown (still reachable, not leaked); the same order */
    struct vt_leak *held;
    size_t nheld;
    /* what known framework memory held at the end, taken out of the leaks
     * and of held (in the same order) by the report */
    struct vt_leak *known_leaks;
    size_t nknown;
    struct vt_failure *failures; /* in order of first occurrence */
    size_t nfailures;
    /* replay state */
    struct vt_live_table live;
    struct vt_failure_entry *failure_table;
    uint64_t live_bytes; /* device + managed */
    uint64_t marks;      /* how many markers */
    /* usage over time; set skip (warm-up markers) before the replay */
    struct vt_usage usage;
    size_t skip;
    /* aggregate mode: what SAMPLE, SITES and TOTALS records said */
    struct vt_aggregate agg;
    /* the driver's view of each device over time */
    struct vt_device_view devices;
    /* a Python program: where its script ended (PY_FINALIZING), what was
     * held then and freed by the shutdown after (events mode), the sites'
     * live state then (aggregate mode) */
    bool script_ended;
    uint64_t script_end_ns;
    struct vt_live_entry *shutdown_freed;
    size_t nshutdown_freed;
    struct vt_site_state *script_end_sites;
    size_t nscript_end_sites;
    /* where the refused frees came from (BAD_FREE records) */
    struct vt_invalid_frees bad_frees;
    /* set before the replay: the stack a call site is known by (NULL:
     * each stack its own site); CTX is its first argument */
    uint64_t (*site_stack)(void *ctx, uint64_t stack_id);
    void *site_stack_ctx;
    /* set before finishing (NULL: tensors alone): whether a framework's
     * objects own what STACK_ID allocated (its frames are a framework's) */
    bool (*framework_owned)(void *ctx, uint64_t stack_id);
    void *framework_owned_ctx;
};

/* The stack STACK_ID's call site is known by. */
static inline uint64_t vt_analysis_site_stack(const struct vt_analysis *a, uint64_t stack_id)
{
    return a->site_stack ? a->site_stack(a->site_stack_ctx, stack_id) : stack_id;
}

extern const struct vt_event_sink vt_analysis_sink;

/* Turns what is still live into the sorted leak and held lists. */
void vt_analysis_finish(struct vt_analysis *a);
void vt_analysis_free(struct vt_analysis *a);

#endif
