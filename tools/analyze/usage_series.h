/* SPDX-License-Identifier: MIT */
/* Usage over time, built while a dump is replayed: live bytes per call site
 * sampled at every marker (and at allocation and time ticks), total live bytes per device
 * in time bins for charts, the peak of each device with what each site held
 * then, and growth detection per site.
 *
 * Fed by the replay (tools/analyze/analysis.c) with every change of live bytes, in
 * time order; exporters read the finished struct. Memory: O(sites x samples
 * + devices x bins + markers); a tick or bin count never passes
 * VT_USAGE_MAX_TICKS (older ones are merged pairwise). */
#ifndef VT_USAGE_SERIES_H
#define VT_USAGE_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VT_USAGE_MAX_TICKS 128
/* Without markers growth is judged on allocation ticks when the loop that
 * ran at the end has this many, else on time ticks (docs/reports.md has the
 * false positives it costs at each count). */
#define VT_USAGE_MIN_ALLOC_TICKS 16

#define VT_SITE_PHASES 4

struct vt_usage_mark {
    uint64_t time_ns;
    char *label;
};

/* A series of live-byte samples at boundaries (markers, allocation or time
 * ticks). */
struct vt_usage_samples {
    uint64_t *bytes;
    size_t n;
};

struct vt_usage_site {
    uint64_t stack_id;
    unsigned api, kind;
    int64_t device;
    uint64_t live_bytes;               /* now; at the end: at exit */
    uint64_t peak_live_bytes;          /* the site's own highest */
    uint64_t bytes_at_device_peak;     /* what it held when its device peaked */
    uint64_t bytes_at_script_end;      /* ... when the Python script ended */
    struct vt_usage_samples at_marks;  /* live bytes right before each marker */
    struct vt_usage_samples at_ticks;  /* live bytes at each time tick */
    struct vt_usage_samples at_allocs; /* ... right before each allocation tick */
    bool freed;                        /* freed one of its allocations already */
    /* its first and last repeated allocation (1-based counts of the run's
     * repeated allocations; 0: none) */
    uint64_t first_repeat, last_repeat;
    /* a framework's segment whose tensors are traced (vt_api_in_segment):
     * their sites carry the growth, not it */
    bool holds_tensors;
    bool nvtx_heap; /* ... a heap registered with NVTX's memory API, its regions inside */
    /* growth, set by vt_usage_finish */
    bool growing;
    size_t growth_start; /* boundary index the growth started from */
    uint64_t growth_start_ns;
    uint64_t growth_bytes; /* risen since then, to the last boundary */
    /* growing: the last rise per interval since the rise before it: the
     * present rate, with steps that come every other interval counted as
     * half a step per interval */
    int64_t bytes_per_interval;
    double bytes_per_second;   /* ... over those intervals' time */
    uint64_t rate_interval_ns; /* those intervals' time */
    size_t rate_intervals;     /* how many */
    /* churn: allocations of this site freed again during the run (each an
     * allocate/free pair), and the time spent inside this site's real
     * allocate and free calls (0 in dumps that do not measure it) */
    uint64_t pairs, call_ns;
    /* allocations made after the site had freed one: allocating and
     * freeing again and again, not buffers all live at once freed once */
    uint64_t reallocs;
    /* internal: lazy snapshot at the device peak */
    uint64_t peak_epoch_saved;
    /* the NVTX ranges its allocations were made in (PHASE ids; 0: none)
     * with the bytes each, the first VT_SITE_PHASES seen; phase_others:
     * it also allocated in more (vt_usage_site_phase) */
    struct {
        uint64_t id, bytes;
    } phases[VT_SITE_PHASES];
    uint8_t nphases;
    bool phase_others;
};

struct vt_usage_device {
    int64_t device;
    uint64_t live_bytes, peak_bytes, peak_time_ns;
    uint64_t peak_epoch; /* bumped at each new peak */
    /* a framework's tensors inside its segments (vt_api_in_segment): live
     * now, and at the peak — the moment, while the device stayed at its
     * peak, with the most in tensors (a segment arrives before the tensor
     * that asked for it) */
    uint64_t tensor_live_bytes, tensor_peak_bytes;
    bool at_peak;                     /* no change of the device's bytes since its peak */
    struct vt_usage_samples bin_max;  /* highest live bytes in each complete time bin */
    struct vt_usage_samples bin_last; /* live bytes at the end of each complete bin */
    uint64_t open_bin_max;            /* highest in the bin not yet complete */
    /* aggregate mode: the holders are what the sample with the most live
     * bytes held (at holders_time_ns, holders_bytes in all), not the peak's */
    bool holders_approx;
    uint64_t holders_time_ns, holders_bytes;
};

struct vt_usage_site_entry; /* internal: site lookup */

struct vt_usage {
    struct vt_usage_mark *marks;
    size_t nmarks;
    /* time ticks at k * tick_ns (k = 1..nticks) and bins [k, k+1) * tick_ns */
    uint64_t tick_ns;
    size_t nticks; /* ticks passed = bins complete */
    /* allocation ticks: one every tick_allocs repeated allocations (made at
     * a site that freed one before: the work a loop does again each step,
     * not what a program does once, as loading a model); the clock of an
     * unmarked run, whatever its steps' share of the time */
    uint64_t repeats;        /* repeated allocations so far */
    uint64_t tick_allocs;    /* per allocation tick; doubles as the ticks fill up */
    uint64_t *alloc_tick_ns; /* when each allocation tick passed */
    size_t nalloc_ticks;
    struct vt_usage_device *devices;
    size_t ndevices;
    struct vt_usage_site *sites; /* in order of first appearance */
    size_t nsites;
    uint64_t end_ns;
    bool script_ended; /* the sites' bytes_at_script_end are set */
    /* page-locked host memory, which counts towards no device */
    uint64_t host_live_bytes, host_peak_bytes, host_peak_time_ns;
    /* set by vt_usage_finish */
    bool by_marks;  /* boundaries are markers, */
    bool by_allocs; /* else allocation ticks (enough of them), else time ticks */
    /* warm-up boundaries left out of growth: markers (--skip), or the
     * allocation ticks before the loop that ran at the end began */
    size_t skip;
    struct vt_usage_site_entry *index;
    struct vt_usage_site_entry *last_site; /* lookup cache */
    size_t last_device;                    /* lookup cache */
};

/* Live bytes of one site changed by DELTA at TIME_NS. Page-locked host
 * memory is tracked per site but counts towards no device. */
void vt_usage_change(struct vt_usage *u, uint64_t time_ns, uint64_t stack_id, unsigned api,
                     unsigned kind, int64_t device, int64_t delta);
void vt_usage_mark(struct vt_usage *u, uint64_t time_ns, const char *label);
/* The site allocated BYTES inside NVTX range PHASE (0: none). */
void vt_usage_phase(struct vt_usage *u, uint64_t stack_id, unsigned api, unsigned kind,
                    int64_t device, uint64_t phase, uint64_t bytes);
/* The range the site made most of its bytes in (0: none, or more outside
 * any range than inside one); *SEVERAL (may be NULL): it allocated in other
 * ranges too. */
uint64_t vt_usage_site_phase(const struct vt_usage_site *s, bool *several);
/* Churn at one site: PAIRS more allocate/free pairs, CALL_NS more time
 * inside its calls. */
/* The site's segments hold traced tensors (see holds_tensors). */
void vt_usage_holds_tensors(struct vt_usage *u, uint64_t stack_id, unsigned api, unsigned kind,
                            int64_t device, bool nvtx_heap);
void vt_usage_churn(struct vt_usage *u, uint64_t stack_id, unsigned api, unsigned kind,
                    int64_t device, uint64_t pairs, uint64_t call_ns);
/* Churn is worth a hint: this many pairs, and allocations again after a
 * free, at a site of an API that synchronizes the device at each call
 * (churn_apis.h), whose calls took this share (per mille) of the run. */
#define VT_CHURN_HINT_PAIRS 10
#define VT_CHURN_HINT_PERMILLE 10
bool vt_usage_churn_large(const struct vt_usage *u, const struct vt_usage_site *s);
/* The Python script ended: what each site holds now is what it held to
 * the end (the interpreter's shutdown frees it next). */
void vt_usage_script_ended(struct vt_usage *u);
/* Moves the clock on (ticks pass) without a change. */
void vt_usage_advance(struct vt_usage *u, uint64_t time_ns);

/* Closes the series at END_NS and decides growth, leaving out the first
 * SKIP markers (warm-up); without markers the boundaries are the
 * allocation ticks of the loop that ran at the end, or time ticks where it
 * had fewer than VT_USAGE_MIN_ALLOC_TICKS. */
void vt_usage_finish(struct vt_usage *u, uint64_t end_ns, size_t skip);
void vt_usage_free(struct vt_usage *u);

/* The boundaries growth was judged on (by_marks: markers, by_allocs:
 * allocation ticks, else time ticks). */
static inline const struct vt_usage_samples *vt_usage_site_samples(const struct vt_usage *u,
                                                                   const struct vt_usage_site *s)
{
    return u->by_marks ? &s->at_marks : u->by_allocs ? &s->at_allocs : &s->at_ticks;
}
size_t vt_usage_boundaries(const struct vt_usage *u);
/* A rate per second means something over this much time at least: steps
 * microseconds apart would read as gigabytes per second. */
#define VT_RATE_MIN_INTERVAL_NS 100000000ull
static inline bool vt_usage_rate_shown(const struct vt_usage_site *s)
{
    return s->growing && s->rate_interval_ns >= VT_RATE_MIN_INTERVAL_NS;
}
/* Whether growth could be judged: three boundaries at least after the skip. */
bool vt_usage_growth_judged(const struct vt_usage *u);
/* Judged on boundaries that follow the program's steps (markers or
 * allocation ticks), not on time ticks that mix them: a verdict to act on. */
bool vt_usage_growth_reliable(const struct vt_usage *u);
size_t vt_usage_growing_sites(const struct vt_usage *u);
/* What the growing device and managed sites rose by since each started
 * growing (check's --max-growth: the same, but for suppressed sites). */
uint64_t vt_usage_growth_bytes(const struct vt_usage *u);
uint64_t vt_usage_boundary_ns(const struct vt_usage *u, size_t i);

const struct vt_usage_device *vt_usage_device(const struct vt_usage *u, int64_t device);
/* The site of that key, or NULL. */
const struct vt_usage_site *vt_usage_find_site(const struct vt_usage *u, uint64_t stack_id,
                                               unsigned api, unsigned kind, int64_t device);

/* Up to MAX site indices holding the most bytes on DEVICE, most first: live
 * now, or (AT_PEAK, after vt_usage_finish) at the device's peak; where a
 * framework's tensors are traced, its tensors at their lines instead of the
 * segments that hold them (vt_usage_cache says what no tensor used).
 * Returns how many. */
size_t vt_usage_holders(const struct vt_usage *u, int64_t device, bool at_peak, size_t *out,
                        size_t max);
/* A framework's cache whose tensors are traced, on one device: its
 * segments (reserved), what of them live tensors use, and the rest, free
 * for reuse. */
struct vt_usage_cache {
    uint64_t reserved, in_tensors, free;
    bool torch, nvtx; /* whose: PyTorch's tensors, NVTX heaps' regions */
};
enum vt_usage_when { VT_USAGE_NOW, VT_USAGE_AT_PEAK, VT_USAGE_AT_SCRIPT_END };
/* DEVICE's cache now, at its peak (after vt_usage_finish) or when the
 * script ended (VT_USAGE_AT_SCRIPT_END: now if it did not). */
struct vt_usage_cache vt_usage_cache(const struct vt_usage *u, int64_t device,
                                     enum vt_usage_when when);
/* Whether site S is among the holders vt_usage_holders lists. */
bool vt_usage_is_holder(const struct vt_usage_site *s);

/* Site indices ordered for a report: growing sites by rate, then by live
 * bytes at exit, then by peak. OUT holds nsites entries. */
void vt_usage_report_order(const struct vt_usage *u, size_t *out);

#endif
