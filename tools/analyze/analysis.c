/* SPDX-License-Identifier: MIT */
/* Event replay. One live entry per (address, key space); what is left at
 * the end is the leak set. */
#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "xalloc.h"

/* Failures are grouped by call site, size and error. No padding: hashed as bytes. */
struct failure_key {
    struct vt_site_key site;
    uint64_t size, error;
};

struct vt_failure_entry {
    struct failure_key key;
    size_t index; /* into vt_analysis.failures */
    UT_hash_handle hh;
};

/* The device's view: a tensor's bytes are its segment's. */
static bool counts_on_device(unsigned kind, unsigned api)
{
    return vt_kind_counts_as_vram(kind) && !vt_api_in_segment(api);
}

/* The key space of an event's address (live_table.h). */
static unsigned key_space(unsigned flags, unsigned api)
{
    if (flags & VT_ADDR_HANDLE)
        return VT_LIVE_HANDLE;
    return vt_api_in_segment(api) ? VT_LIVE_TENSOR : VT_LIVE_POINTER;
}

static void remove_live(struct vt_analysis *a, struct vt_live_entry *e, uint64_t time_ns)
{
    if (e->held_at_script_end) { /* freed at shutdown: still the script's */
        if ((a->nshutdown_freed & (a->nshutdown_freed + 1)) == 0) /* 0, 1, 3, 7...: full */
            a->shutdown_freed = vt_xrealloc(a->shutdown_freed, 2 * (a->nshutdown_freed + 1),
                                            sizeof *a->shutdown_freed);
        a->shutdown_freed[a->nshutdown_freed++] = *e;
    }
    if (counts_on_device(e->kind, e->api))
        a->live_bytes -= e->size;
    vt_usage_change(&a->usage, time_ns, e->stack_id, e->api, e->kind, e->device, -(int64_t)e->size);
    vt_live_remove(&a->live, e);
}

static void on_alloc(void *ctx, const struct vt_dump_alloc *ev)
{
    struct vt_analysis *a = ctx;
    unsigned space = key_space(ev->flags, ev->api);
    struct vt_live_entry *old = vt_live_find(&a->live, ev->address, space);
    if (old) /* a free the tracer never saw: the newer allocation wins */
        remove_live(a, old, ev->time_ns);
    struct vt_live_entry e = {
        .address = ev->address,
        .size = ev->size,
        .stack_id = vt_analysis_site_stack(a, ev->stack_id),
        .device = ev->device,
        .tid = (uint32_t)ev->tid,
        .space = space,
        .api = (uint8_t)ev->api,
        .kind = (uint8_t)ev->kind,
    };
    vt_live_insert(&a->live, &e);
    vt_usage_change(&a->usage, ev->time_ns, e.stack_id, e.api, e.kind, e.device, (int64_t)e.size);
    if (!(ev->flags & VT_ALLOC_RESTORED))
        vt_usage_phase(&a->usage, e.stack_id, e.api, e.kind, e.device, ev->phase, e.size);
    if (ev->call_ns)
        vt_usage_churn(&a->usage, e.stack_id, e.api, e.kind, e.device, 0, ev->call_ns);
    if (ev->flags & VT_ALLOC_RESTORED) {
        /* the free before it failed: not a free, an invalid one */
        if (a->summary.frees)
            a->summary.frees--;
        a->summary.invalid_frees++;
    } else if (e.kind != VT_KIND_GRAPH_POOL) { /* the pool's, not an allocation made */
        a->summary.allocations++;
    }
    if (counts_on_device(e.kind, e.api))
        a->live_bytes += e.size;
}

static void on_free(void *ctx, const struct vt_free_event *ev)
{
    struct vt_analysis *a = ctx;
    struct vt_live_entry *e;
    switch (ev->status) {
    case VT_FREE_INVALID:
        vt_usage_advance(&a->usage, ev->time_ns);
        a->summary.invalid_frees++;
        return;
    case VT_FREE_UNTRACED:
        vt_usage_advance(&a->usage, ev->time_ns);
        a->summary.untraced_frees++;
        return;
    }
    e = vt_live_find(&a->live, ev->address, key_space(ev->flags, ev->api));
    if (!e) { /* lenient: a free of something never seen */
        a->summary.untraced_frees++;
        return;
    }
    if (ev->status == VT_FREE_TEARDOWN) {
        a->summary.teardown_freed_bytes += e->size;
        a->summary.teardown_freed_allocations++;
    } else if (e->kind != VT_KIND_GRAPH_POOL) {
        a->summary.frees++;
        if (!vt_api_in_segment(e->api)) /* churn: CUDA's calls, not the cache's tensors */
            vt_usage_churn(&a->usage, e->stack_id, e->api, e->kind, e->device, 1, ev->call_ns);
    }
    remove_live(a, e, ev->time_ns);
}

/* What held the device when it ran out: traced live bytes, the largest
 * holders, and the driver's own count when the tracer got it. */
static void autopsy(const struct vt_analysis *a, const struct vt_failed_event *ev,
                    struct vt_failure *f)
{
    const struct vt_usage_device *d = vt_usage_device(&a->usage, ev->device);
    size_t sites[VT_OOM_HOLDERS];
    f->oom = true;
    f->time_ns = ev->time_ns;
    f->device_live_bytes = d ? d->live_bytes : 0;
    f->has_meminfo = ev->has_meminfo;
    f->mem_free = ev->mem_free;
    f->mem_total = ev->mem_total;
    f->has_own = ev->has_own;
    f->own_bytes = ev->own_bytes;
    f->nothers = ev->nothers;
    memcpy(f->others, ev->others, ev->nothers * sizeof *ev->others);
    f->nholders = vt_usage_holders(&a->usage, ev->device, false, sites, VT_OOM_HOLDERS);
    for (size_t i = 0; i < f->nholders; i++)
        f->holders[i] = (struct vt_oom_holder){sites[i], a->usage.sites[sites[i]].live_bytes};
    f->cache = vt_usage_cache(&a->usage, ev->device, VT_USAGE_NOW);
}

static void on_failed(void *ctx, const struct vt_failed_event *ev)
{
    struct vt_analysis *a = ctx;
    uint64_t stack_id = vt_analysis_site_stack(a, ev->stack_id);
    struct failure_key key = {vt_site_key(stack_id, ev->api, ev->kind, ev->device), ev->size,
                              ev->error};
    struct vt_failure_entry *e;
    vt_usage_advance(&a->usage, ev->time_ns);
    a->summary.failed_allocations++;
    HASH_FIND(hh, a->failure_table, &key, sizeof key, e);
    if (!e) {
        e = vt_xrealloc(NULL, 1, sizeof *e);
        memset(e, 0, sizeof *e);
        e->key = key;
        e->index = a->nfailures;
        HASH_ADD(hh, a->failure_table, key, sizeof e->key, e);
        a->failures = vt_xgrow(a->failures, a->nfailures, sizeof *a->failures);
        a->failures[a->nfailures++] = (struct vt_failure){.stack_id = stack_id,
                                                          .size = ev->size,
                                                          .error = ev->error,
                                                          .api = ev->api,
                                                          .kind = ev->kind,
                                                          .device = ev->device};
        if (ev->error == VT_CUDA_ERROR_OUT_OF_MEMORY)
            autopsy(a, ev, &a->failures[e->index]);
    }
    a->failures[e->index].count++;
}

static void on_mark(void *ctx, const struct vt_mark_event *ev)
{
    struct vt_analysis *a = ctx;
    a->marks++;
    vt_usage_mark(&a->usage, ev->time_ns, ev->label);
}

/* The script ended: what is live now, it held to its end. */
static void on_py_finalizing(void *ctx, const struct vt_py_finalizing_event *ev)
{
    struct vt_analysis *a = ctx;
    if (a->script_ended)
        return;
    a->script_ended = true;
    a->script_end_ns = ev->time_ns;
    for (size_t i = 0; a->live.slots && i <= a->live.mask; i++)
        if (a->live.slots[i].used)
            a->live.slots[i].held_at_script_end = 1;
    if (a->agg.nsites) {
        a->nscript_end_sites = a->agg.nsites;
        a->script_end_sites = vt_xcalloc(a->agg.nsites, sizeof *a->script_end_sites);
        memcpy(a->script_end_sites, a->agg.sites, a->agg.nsites * sizeof *a->agg.sites);
    }
    vt_usage_advance(&a->usage, ev->time_ns);
    vt_usage_script_ended(&a->usage);
}

/* The driver's view, beside what was traced live on the device then. */
static void on_device_usage(void *ctx, const struct vt_device_usage_event *ev)
{
    struct vt_analysis *a = ctx;
    const struct vt_usage_device *d = vt_usage_device(&a->usage, ev->device);
    vt_device_view_add(&a->devices, ev, ev->has_traced ? ev->traced_bytes : d ? d->live_bytes : 0);
}

static void on_bad_free(void *ctx, const struct vt_bad_free_event *ev)
{
    struct vt_analysis *a = ctx;
    vt_invalid_frees_add(&a->bad_frees, ev); /* counted by its FREE, ALLOC or TOTALS record */
}

/* Aggregate-mode records move the analysis's own counters. */
static struct vt_aggregate_target aggregate_target(struct vt_analysis *a)
{
    return (struct vt_aggregate_target){&a->agg,        &a->summary,   &a->usage,
                                        &a->live_bytes, a->site_stack, a->site_stack_ctx};
}

static void on_sample(void *ctx, const struct vt_sample_event *ev)
{
    struct vt_aggregate_target t = aggregate_target(ctx);
    vt_aggregate_sample(&t, ev);
}

static void on_sites(void *ctx, const struct vt_sites_event *ev)
{
    struct vt_aggregate_target t = aggregate_target(ctx);
    vt_aggregate_sites(&t, ev);
}

static void on_totals(void *ctx, const struct vt_totals_event *ev)
{
    struct vt_aggregate_target t = aggregate_target(ctx);
    vt_aggregate_totals(&t, ev);
}

/* A segment of a framework's cache whose tensors are traced (the framework's
 * allocator said so), or an NVTX memory heap with its regions: its site's
 * growth is its tensors' (regions'), judged there. */
static void on_cache_segment(void *ctx, const struct vt_cache_segment_event *ev)
{
    struct vt_analysis *a = ctx;
    unsigned space = ev->flags & VT_ADDR_HANDLE ? VT_LIVE_HANDLE : VT_LIVE_POINTER;
    const struct vt_live_entry *e = vt_live_find(&a->live, ev->address, space);
    if (e)
        vt_usage_holds_tensors(&a->usage, e->stack_id, e->api, e->kind, e->device,
                               ev->flags & VT_SEGMENT_NVTX_HEAP);
}

const struct vt_event_sink vt_analysis_sink = {
    on_alloc,  on_free,         on_failed,   on_mark,          on_sample,       on_sites,
    on_totals, on_device_usage, on_bad_free, on_py_finalizing, on_cache_segment};

struct leak_entry {
    struct vt_site_key key;
    size_t index;
    UT_hash_handle hh;
};

static int by_size_desc(const void *pa, const void *pb)
{
    const struct vt_leak *a = pa, *b = pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->allocations != b->allocations)
        return a->allocations > b->allocations ? -1 : 1;
    if (a->stack_id != b->stack_id) /* stable output for equal sites */
        return a->stack_id < b->stack_id ? -1 : 1;
    if (a->api != b->api)
        return a->api < b->api ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return a->device < b->device ? -1 : a->device > b->device;
}

/* One of the two lists the end is sorted into: the leaks, or held. */
struct leak_list {
    struct vt_leak **list;
    size_t *n;
    struct leak_entry *groups;
    bool held;
    uint64_t *bytes, *allocations, *host_bytes, *host_allocations; /* the summary's */
};

static struct leak_list leak_list(struct vt_analysis *a, bool held)
{
    struct vt_summary *s = &a->summary;
    if (held)
        return (struct leak_list){&a->held,
                                  &a->nheld,
                                  NULL,
                                  true,
                                  &s->held_bytes,
                                  &s->held_allocations,
                                  &s->host_held_bytes,
                                  &s->host_held_allocations};
    return (struct leak_list){&a->leaks,
                              &a->nleaks,
                              NULL,
                              false,
                              &s->leaked_bytes,
                              &s->leaked_allocations,
                              &s->host_leaked_bytes,
                              &s->host_leaked_allocations};
}

/* BYTES in COUNT allocations of one site, into list L. */
static struct vt_leak *add_to_group(struct leak_list *l, const struct vt_site_key *site,
                                    uint64_t bytes, uint64_t count)
{
    struct vt_site_key key = *site;
    struct leak_entry *g;
    HASH_FIND(hh, l->groups, &key, sizeof key, g);
    if (!g) {
        g = vt_xrealloc(NULL, 1, sizeof *g);
        memset(g, 0, sizeof *g);
        g->key = key;
        g->index = *l->n;
        HASH_ADD(hh, l->groups, key, sizeof g->key, g);
        *l->list = vt_xgrow(*l->list, *l->n, sizeof **l->list);
        (*l->list)[(*l->n)++] = (struct vt_leak){.stack_id = key.stack_id,
                                                 .api = (unsigned)key.api,
                                                 .kind = (unsigned)key.kind,
                                                 .device = key.device,
                                                 .held = l->held};
    }
    struct vt_leak *leak = &(*l->list)[g->index];
    leak->bytes += bytes;
    leak->allocations += count;
    bool vram = vt_kind_counts_as_vram((unsigned)key.kind);
    *(vram ? l->bytes : l->host_bytes) += bytes;
    *(vram ? l->allocations : l->host_allocations) += count;
    return leak;
}

static void drop_groups(struct leak_list *l)
{
    struct leak_entry *g, *gtmp;
    HASH_ITER(hh, l->groups, g, gtmp) {
        HASH_DEL(l->groups, g);
        free(g);
    }
}

/* One more allocation of LEAK made by thread TID. */
static void count_thread(struct vt_leak *leak, uint64_t tid)
{
    for (size_t i = 0; i < leak->nthreads; i++)
        if (leak->threads[i].tid == tid) {
            leak->threads[i].allocations++;
            return;
        }
    if (leak->nthreads == VT_LEAK_THREADS) {
        leak->other_threads++; /* allocations by threads beyond those */
        return;
    }
    leak->threads[leak->nthreads].tid = tid;
    leak->threads[leak->nthreads++].allocations = 1;
}

/* Whether a framework's objects own what STACK_ID allocated (a tensor, or
 * its frames say so: vt_analysis.framework_owned), asked once a stack. */
struct owner_answer {
    uint64_t stack_id;
    bool owned;
    UT_hash_handle hh;
};

static bool framework_owned(const struct vt_analysis *a, struct owner_answer **answers,
                            const struct vt_live_entry *e)
{
    struct owner_answer *found;
    if (vt_api_in_segment(e->api))
        return true;
    if (!a->framework_owned)
        return false;
    HASH_FIND(hh, *answers, &e->stack_id, sizeof e->stack_id, found);
    if (!found) {
        found = vt_xcalloc(1, sizeof *found);
        found->stack_id = e->stack_id;
        found->owned = a->framework_owned(a->framework_owned_ctx, e->stack_id);
        HASH_ADD(hh, *answers, stack_id, sizeof found->stack_id, found);
    }
    return found->owned;
}

/* What is still allocated at the end: leaked, but for what a framework's
 * objects held when the script ended (a tensor, a model's parameters, an
 * optimizer's state: the interpreter's shutdown need not destroy every
 * object, and autograd's graph keeps parameters alive), which is still
 * referenced: held. A raw allocation nobody freed (ctypes, an extension's
 * own cudaMalloc) stays a leak. */
static void group_live_allocations(struct vt_analysis *a, struct leak_list *leaked,
                                   struct leak_list *held)
{
    struct owner_answer *answers = NULL, *o, *otmp;
    for (size_t i = 0; a->live.slots && i <= a->live.mask; i++) {
        const struct vt_live_entry *e = &a->live.slots[i];
        if (!e->used)
            continue;
        struct vt_site_key key = vt_site_key(e->stack_id, e->api, e->kind, e->device);
        bool still_held = e->held_at_script_end && framework_owned(a, &answers, e);
        count_thread(add_to_group(still_held ? held : leaked, &key, e->size, 1), e->tid);
    }
    HASH_ITER(hh, answers, o, otmp) {
        HASH_DEL(answers, o);
        free(o);
    }
}

/* What the script held at its end and the interpreter freed after. */
static void group_shutdown_freed(struct vt_analysis *a, struct leak_list *held)
{
    for (size_t i = 0; i < a->nshutdown_freed; i++) {
        const struct vt_live_entry *e = &a->shutdown_freed[i];
        struct vt_site_key key = vt_site_key(e->stack_id, e->api, e->kind, e->device);
        count_thread(add_to_group(held, &key, e->size, 1), e->tid);
    }
}

/* Aggregate mode: what each site held when the script ended beyond what it
 * holds at exit (sites keep their order: new ones are appended). */
static void group_shutdown_sites(struct vt_analysis *a, struct leak_list *held)
{
    for (size_t i = 0; i < a->nscript_end_sites && i < a->agg.nsites; i++) {
        const struct vt_site_state *then = &a->script_end_sites[i], *now = &a->agg.sites[i];
        if (then->live_bytes <= now->live_bytes && then->live_count <= now->live_count)
            continue;
        struct vt_site_key key = vt_site_key(vt_analysis_site_stack(a, then->stack_id), then->api,
                                             then->kind, then->device);
        add_to_group(held, &key,
                     then->live_bytes > now->live_bytes ? then->live_bytes - now->live_bytes : 0,
                     then->live_count > now->live_count ? then->live_count - now->live_count : 0);
    }
}

/* Aggregate mode: the sites' exit totals, or their last sample. */
static void group_live_sites(struct vt_analysis *a, struct leak_list *l)
{
    for (size_t i = 0; i < a->agg.nsites; i++) {
        const struct vt_site_state *s = &a->agg.sites[i];
        struct vt_site_key key =
            vt_site_key(vt_analysis_site_stack(a, s->stack_id), s->api, s->kind, s->device);
        if (s->live_count || s->live_bytes)
            add_to_group(l, &key, s->live_bytes, s->live_count);
    }
}

/* The summary's peak: the highest device's own (devices peak at different
 * times; their sum is a number no GPU ever held). */
static void summary_peak(struct vt_analysis *a)
{
    const struct vt_usage *u = &a->usage;
    a->summary.peak_bytes = a->summary.peak_time_ns = 0;
    a->summary.peak_device = -1;
    a->summary.peak_devices = 0;
    for (size_t i = 0; i < u->ndevices; i++) {
        const struct vt_usage_device *d = &u->devices[i];
        a->summary.peak_devices += d->peak_bytes > 0;
        if (d->peak_bytes > a->summary.peak_bytes) {
            a->summary.peak_bytes = d->peak_bytes;
            a->summary.peak_time_ns = d->peak_time_ns;
            a->summary.peak_device = d->device;
        }
    }
    a->summary.host_peak_bytes = u->host_peak_bytes;
    a->summary.host_peak_time_ns = u->host_peak_time_ns;
}

void vt_analysis_finish(struct vt_analysis *a)
{
    struct leak_list leaked = leak_list(a, false), held = leak_list(a, true);
    group_live_allocations(a, &leaked, &held);
    group_live_sites(a, &leaked);
    group_shutdown_freed(a, &held);
    group_shutdown_sites(a, &held);
    drop_groups(&leaked);
    drop_groups(&held);
    if (a->nleaks)
        qsort(a->leaks, a->nleaks, sizeof *a->leaks, by_size_desc);
    if (a->nheld)
        qsort(a->held, a->nheld, sizeof *a->held, by_size_desc);
    vt_usage_finish(&a->usage, a->usage.end_ns, a->skip);
    if (a->agg.samples || a->agg.footer)
        vt_aggregate_finish(&a->agg, &a->usage);
    summary_peak(a);
}

void vt_analysis_free(struct vt_analysis *a)
{
    struct vt_failure_entry *f, *ftmp;
    vt_live_free(&a->live);
    free(a->shutdown_freed);
    free(a->known_leaks);
    free(a->script_end_sites);
    vt_usage_free(&a->usage);
    vt_aggregate_free(&a->agg);
    vt_device_view_free(&a->devices);
    vt_invalid_frees_free(&a->bad_frees);
    HASH_ITER(hh, a->failure_table, f, ftmp) {
        HASH_DEL(a->failure_table, f);
        free(f);
    }
    free(a->leaks);
    free(a->held);
    free(a->failures);
    memset(a, 0, sizeof *a);
}
