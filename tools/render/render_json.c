/* SPDX-License-Identifier: MIT */
/* The JSON report (schema in tools/vramtrace.1 and the contract in issue 2). */
#include <stdlib.h>
#include <sys/wait.h>

#include "cuda_errors.h"
#include "device_report.h"
#include "format.h"
#include "json_writer.h"
#include "report.h"
#include "site_label.h"
#include "verdicts.h"
#include "xalloc.h"

/* A stack deeper than the tracer's limit: how many frames were left out,
 * and where (the index in "frames" of the first outer frame kept). */
static void write_dropped(struct vt_json *j, const struct vt_site *site)
{
    vt_json_key(j, "frames_dropped");
    vt_json_uint(j, site->dropped);
    vt_json_key(j, "frames_dropped_at");
    if (site->dropped)
        vt_json_uint(j, site->cut_at);
    else
        vt_json_null(j);
}

/* SITE's frames as an array under KEY. */
static void write_frames_as(struct vt_json *j, const char *key, const struct vt_site *site)
{
    vt_json_key(j, key);
    vt_json_begin_array(j);
    for (size_t i = 0; i < site->nframes; i++) {
        const struct vt_frame *f = site->frames[i];
        if (vt_json_memo_begin(j, f))
            continue; /* written before: the symbolizer keeps one of each */
        vt_json_begin_object(j);
        vt_json_key(j, "function");
        vt_json_string(j, f->function);
        vt_json_key(j, "file");
        vt_json_string(j, f->file);
        vt_json_key(j, "line");
        if (f->line)
            vt_json_uint(j, f->line);
        else
            vt_json_null(j);
        vt_json_key(j, "module");
        vt_json_string(j, f->module);
        vt_json_key(j, "offset");
        if (f->module && !f->python)
            vt_json_uint(j, f->offset);
        else
            vt_json_null(j);
        vt_json_key(j, "address");
        if (f->python)
            vt_json_null(j);
        else
            vt_json_uint(j, f->address);
        vt_json_key(j, "inlined");
        vt_json_bool(j, f->inlined);
        vt_json_key(j, "runtime"); /* what text and HTML fold */
        vt_json_bool(j, vt_frame_is_runtime(f));
        vt_json_key(j, "framework"); /* what text and HTML fold where the program has frames */
        vt_json_string(j, vt_framework_id(vt_frame_framework(f)));
        vt_json_end_object(j);
        vt_json_memo_end(j);
    }
    vt_json_end_array(j);
}

static void write_frames(struct vt_json *j, const struct vt_site *site)
{
    write_frames_as(j, "frames", site);
    write_dropped(j, site);
}

static void write_uint_field(struct vt_json *j, const char *key, uint64_t v)
{
    vt_json_key(j, key);
    vt_json_uint(j, v);
}

/* Without a PROCESS record every field is null, so readers need not check
 * for a missing object. */
static void write_process(struct vt_json *j, const struct vt_process *p)
{
    vt_json_key(j, "process");
    vt_json_begin_object(j);
    vt_json_key(j, "pid");
    p->present ? vt_json_uint(j, p->pid) : vt_json_null(j);
    vt_json_key(j, "ppid");
    p->present ? vt_json_uint(j, p->ppid) : vt_json_null(j);
    vt_json_key(j, "exe");
    vt_json_string(j, p->exe);
    vt_json_key(j, "argv");
    vt_json_begin_array(j);
    for (size_t i = 0; i < p->argc; i++)
        vt_json_string(j, p->argv[i]);
    vt_json_end_array(j);
    vt_json_key(j, "hostname");
    vt_json_string(j, p->hostname);
    vt_json_key(j, "rank");
    vt_json_string(j, p->rank);
    vt_json_key(j, "start_time_ns");
    p->present ? vt_json_uint(j, p->start_real_ns) : vt_json_null(j);
    vt_json_end_object(j);
}

void vt_render_json_summary(struct vt_json *j, const struct vt_summary *s)
{
    vt_json_key(j, "summary");
    vt_json_begin_object(j);
    write_uint_field(j, "allocations", s->allocations);
    write_uint_field(j, "frees", s->frees);
    write_uint_field(j, "peak_bytes", s->peak_bytes);
    write_uint_field(j, "peak_time_ns", s->peak_time_ns);
    vt_json_key(j, "peak_device");
    if (s->peak_device >= 0)
        vt_json_int(j, s->peak_device);
    else
        vt_json_null(j);
    write_uint_field(j, "leaked_bytes", s->leaked_bytes);
    write_uint_field(j, "leaked_allocations", s->leaked_allocations);
    write_uint_field(j, "host_leaked_bytes", s->host_leaked_bytes);
    write_uint_field(j, "host_leaked_allocations", s->host_leaked_allocations);
    write_uint_field(j, "host_peak_bytes", s->host_peak_bytes);
    write_uint_field(j, "host_peak_time_ns", s->host_peak_time_ns);
    write_uint_field(j, "failed_allocations", s->failed_allocations);
    write_uint_field(j, "invalid_frees", s->invalid_frees);
    write_uint_field(j, "untraced_frees", s->untraced_frees);
    write_uint_field(j, "teardown_freed_bytes", s->teardown_freed_bytes);
    write_uint_field(j, "teardown_freed_allocations", s->teardown_freed_allocations);
    write_uint_field(j, "suppressed_bytes", s->suppressed_bytes);
    write_uint_field(j, "suppressed_allocations", s->suppressed_allocations);
    write_uint_field(j, "known_bytes", s->known_bytes);
    write_uint_field(j, "known_allocations", s->known_allocations);
    write_uint_field(j, "host_known_bytes", s->host_known_bytes);
    write_uint_field(j, "host_known_allocations", s->host_known_allocations);
    write_uint_field(j, "live_at_end_bytes", s->live_at_end_bytes);
    write_uint_field(j, "live_at_end_allocations", s->live_at_end_allocations);
    write_uint_field(j, "held_bytes", s->held_bytes);
    write_uint_field(j, "held_allocations", s->held_allocations);
    write_uint_field(j, "host_held_bytes", s->host_held_bytes);
    write_uint_field(j, "host_held_allocations", s->host_held_allocations);
    vt_json_end_object(j);
}

/* The thread a thread without Python frames of its own allocated for
 * (PyTorch's autograd engine: the thread that called backward()): null, or
 * its label and Python frames. */
static void write_behalf(struct vt_json *j, const struct vt_site *site)
{
    char label[1024];
    vt_json_key(j, "on_behalf");
    if (!site->behalf) {
        vt_json_null(j);
        return;
    }
    vt_site_label(site->behalf, 1, label, sizeof label);
    vt_json_begin_object(j);
    vt_json_key(j, "label");
    vt_json_string(j, label);
    write_frames_as(j, "frames", site->behalf);
    vt_json_key(j, "python_frames_truncated");
    vt_json_bool(j, site->behalf->python_truncated);
    vt_json_end_object(j);
}

/* What identifies a call site: api, kind, device, stack id, frames and its
 * label (LABEL: told apart from the sites beside it; NULL: its first frame). */
static void write_site_fields(struct vt_json *j, const struct vt_site *site, const char *label,
                              unsigned kind, int64_t device, uint64_t stack_id)
{
    char own[1024];
    if (!label)
        vt_site_label(site, 1, own, sizeof own);
    vt_json_key(j, "label");
    vt_json_string(j, label ? label : own);
    vt_json_key(j, "api");
    vt_json_string(j, vt_api_label(site->api));
    vt_json_key(j, "kind");
    vt_json_string(j, vt_kind_name(kind));
    vt_json_key(j, "device");
    vt_json_int(j, device);
    write_uint_field(j, "stack_id", stack_id);
    write_frames(j, site);
    vt_json_key(j, "python_frames_truncated");
    vt_json_bool(j, site->python_truncated);
    write_behalf(j, site);
}

/* The threads that made a leak's allocations (the first few, by tid). */
static void write_threads(struct vt_json *j, const struct vt_report *r, const struct vt_leak *leak)
{
    vt_json_key(j, "threads");
    vt_json_begin_array(j);
    for (size_t i = 0; i < leak->nthreads; i++) {
        vt_json_begin_object(j);
        write_uint_field(j, "tid", leak->threads[i].tid);
        vt_json_key(j, "name");
        vt_json_string(j, vt_dump_thread_name(r->dump, leak->threads[i].tid));
        write_uint_field(j, "allocations", leak->threads[i].allocations);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    write_uint_field(j, "other_threads_allocations", leak->other_threads);
}

/* "known": what known framework memory it is (known_memory.h), or null. */
static void write_known(struct vt_json *j, const struct vt_suppression *k)
{
    vt_json_key(j, "known");
    if (!k) {
        vt_json_null(j);
        return;
    }
    vt_json_begin_object(j);
    vt_json_key(j, "label");
    vt_json_string(j, k->label);
    vt_json_key(j, "note");
    vt_json_string(j, k->note);
    vt_json_key(j, "pattern");
    vt_json_string(j, k->pattern);
    vt_json_key(j, "origin");
    vt_json_string(j, k->origin);
    write_uint_field(j, "line", k->line);
    vt_json_end_object(j);
}

/* N entries of one list (LEAKS, with their SITES), each labelled apart. */
static void write_leak_entries(struct vt_json *j, const struct vt_report *r,
                               const struct vt_leak *leaks, const struct vt_site *all_sites,
                               size_t n)
{
    const struct vt_site **sites = vt_xcalloc(n ? n : 1, sizeof *sites);
    for (size_t i = 0; i < n; i++)
        sites[i] = &all_sites[i];
    char **labels = vt_site_labels(sites, n);
    vt_json_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        const struct vt_leak *leak = &leaks[i];
        vt_json_begin_object(j);
        write_uint_field(j, "bytes", leak->bytes);
        write_uint_field(j, "allocations", leak->allocations);
        vt_json_key(j, "held");
        vt_json_bool(j, leak->held);
        write_site_fields(j, sites[i], labels[i], leak->kind, leak->device, leak->stack_id);
        write_threads(j, r, leak);
        write_known(j, leak->known);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    vt_site_labels_free(labels, n);
    free(sites);
}

static void write_cache_figures(struct vt_json *j, const struct vt_usage_cache *c)
{
    write_uint_field(j, "reserved_bytes", c->reserved);
    write_uint_field(j, "tensor_bytes", c->in_tensors);
    write_uint_field(j, "free_bytes", c->free);
}

/* "caches": per device, a framework's cache whose tensors are traced, when
 * the script ended (or at the end): its segments (in "known"), what of them
 * live tensors used (in "held" or "leaks" at their lines), the rest free
 * for reuse. */
static void write_caches(struct vt_json *j, const struct vt_report *r)
{
    const struct vt_usage *u = &r->analysis->usage;
    vt_json_key(j, "caches");
    vt_json_begin_array(j);
    for (size_t d = 0; d < u->ndevices; d++) {
        struct vt_usage_cache c = vt_usage_cache(u, u->devices[d].device, VT_USAGE_AT_SCRIPT_END);
        if (!c.reserved)
            continue;
        vt_json_begin_object(j);
        vt_json_key(j, "device");
        vt_json_int(j, u->devices[d].device);
        vt_json_key(j, "when");
        vt_json_string(j, u->script_ended ? "script_end" : "end");
        write_cache_figures(j, &c);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
}

/* What was still allocated at the end, per site, in lists whose sums are
 * the summary's figures: "leaks" (freed by nobody; when the process did not
 * end on its own, "live_at_end" instead, the other one []), "held" (freed
 * by the interpreter's shutdown), "known" (known framework memory). */
static void write_leaks(struct vt_json *j, const struct vt_report *r)
{
    const struct vt_analysis *a = r->analysis;
    vt_json_key(j, "leaks");
    write_leak_entries(j, r, a->leaks, r->leak_sites, r->live_not_leaked ? 0 : r->leaks_shown);
    write_uint_field(j, "leaks_omitted", a->nleaks - r->leaks_shown);
    vt_json_key(j, "live_at_end");
    write_leak_entries(j, r, a->leaks, r->leak_sites, r->live_not_leaked ? r->leaks_shown : 0);
    vt_json_key(j, "held");
    write_leak_entries(j, r, a->held, r->held_sites, r->held_shown);
    write_uint_field(j, "held_omitted", a->nheld - r->held_shown);
    vt_json_key(j, "known");
    write_leak_entries(j, r, a->known_leaks, r->known_sites, a->nknown);
    write_caches(j, r);
}

/* A site of analysis->usage: who it is and what it holds. */
static void write_site_ref(struct vt_json *j, const struct vt_report *r, size_t index,
                           const char *label)
{
    const struct vt_usage_site *s = &r->analysis->usage.sites[index];
    write_site_fields(j, &r->usage_sites[index], label, s->kind, s->device, s->stack_id);
    vt_json_key(j, "phase"); /* the NVTX range it made most of its bytes in */
    vt_json_string(j, vt_dump_phase_name(r->dump, vt_usage_site_phase(s, NULL)));
}

/* N holders (indices into usage.sites) with the bytes each held, labelled
 * apart from each other. */
static void write_holders(struct vt_json *j, const struct vt_report *r, const size_t *holders,
                          const uint64_t *bytes, size_t n)
{
    const struct vt_site **sites = vt_xcalloc(n, sizeof *sites);
    for (size_t i = 0; i < n; i++)
        sites[i] = &r->usage_sites[holders[i]];
    char **labels = vt_site_labels(sites, n);
    vt_json_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        vt_json_begin_object(j);
        write_uint_field(j, "bytes", bytes[i]);
        write_site_ref(j, r, holders[i], labels[i]);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    vt_site_labels_free(labels, n);
    free(sites);
}

/* "cache": a framework's cache whose tensors are listed among the
 * holders (its segments are not), or null. */
static void write_cache(struct vt_json *j, const struct vt_usage_cache *c)
{
    vt_json_key(j, "cache");
    if (!c->reserved) {
        vt_json_null(j);
        return;
    }
    vt_json_begin_object(j);
    write_cache_figures(j, c);
    vt_json_end_object(j);
}

static void write_oom(struct vt_json *j, const struct vt_report *r, const struct vt_failure *f)
{
    vt_json_key(j, "oom");
    if (!f->oom) {
        vt_json_null(j);
        return;
    }
    vt_json_begin_object(j);
    write_uint_field(j, "time_ns", f->time_ns);
    write_uint_field(j, "requested_bytes", f->size);
    write_uint_field(j, "live_bytes", f->device_live_bytes);
    vt_json_key(j, "driver_free_bytes");
    f->has_meminfo ? vt_json_uint(j, f->mem_free) : vt_json_null(j);
    vt_json_key(j, "driver_total_bytes");
    f->has_meminfo ? vt_json_uint(j, f->mem_total) : vt_json_null(j);
    vt_json_key(j, "holders");
    size_t sites[VT_OOM_HOLDERS];
    uint64_t held[VT_OOM_HOLDERS];
    for (size_t i = 0; i < f->nholders; i++) {
        sites[i] = f->holders[i].site;
        held[i] = f->holders[i].bytes;
    }
    write_holders(j, r, sites, held, f->nholders);
    write_cache(j, &f->cache);
    vt_render_json_gpu_processes(f, j);
    vt_json_end_object(j);
}

static void write_growth_start(struct vt_json *j, const struct vt_usage *u,
                               const struct vt_usage_site *s)
{
    vt_json_key(j, "growth_start");
    if (!s->growing) {
        vt_json_null(j);
        return;
    }
    vt_json_begin_object(j);
    write_uint_field(j, "time_ns", s->growth_start_ns);
    vt_json_key(j, "mark");
    if (u->by_marks)
        vt_json_uint(j, s->growth_start);
    else
        vt_json_null(j);
    vt_json_key(j, "label");
    vt_json_string(j, u->by_marks ? u->marks[s->growth_start].label : NULL);
    vt_json_end_object(j);
}

static void write_sites(struct vt_json *j, const struct vt_report *r)
{
    const struct vt_usage *u = &r->analysis->usage;
    const struct vt_site **shown = vt_xcalloc(r->sites_shown, sizeof *shown);
    for (size_t i = 0; i < r->sites_shown; i++)
        shown[i] = &r->usage_sites[r->site_order[i]];
    char **labels = vt_site_labels(shown, r->sites_shown);
    vt_json_key(j, "sites");
    vt_json_begin_array(j);
    for (size_t i = 0; i < r->sites_shown; i++) {
        const struct vt_usage_site *s = &u->sites[r->site_order[i]];
        vt_json_begin_object(j);
        write_uint_field(j, "live_bytes", s->live_bytes);
        write_uint_field(j, "peak_live_bytes", s->peak_live_bytes);
        write_uint_field(j, "bytes_at_device_peak", s->bytes_at_device_peak);
        vt_json_key(j, "growing");
        vt_json_bool(j, s->growing);
        vt_json_key(j, "bytes_per_interval");
        vt_json_int(j, s->bytes_per_interval);
        vt_json_key(j, "bytes_per_second"); /* over a long enough interval only */
        vt_usage_rate_shown(s) ? vt_json_int(j, (int64_t)s->bytes_per_second) : vt_json_null(j);
        vt_json_key(j, "rate_interval_ns");
        s->growing ? vt_json_uint(j, s->rate_interval_ns) : vt_json_null(j);
        vt_json_key(j, "rate_intervals");
        s->growing ? vt_json_uint(j, s->rate_intervals) : vt_json_null(j);
        write_uint_field(j, "pairs", s->pairs);
        write_uint_field(j, "call_ns", s->call_ns);
        write_growth_start(j, u, s);
        write_site_ref(j, r, r->site_order[i], labels[i]);
        write_known(j, r->site_known[r->site_order[i]].known);
        vt_json_key(j, "during"); /* what a framework was doing: "during backward" */
        vt_json_string(j, r->site_known[r->site_order[i]].during);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    vt_site_labels_free(labels, r->sites_shown);
    free(shown);
    write_uint_field(j, "sites_omitted", u->nsites - r->sites_shown);
}

/* How growth was judged: on which boundaries, after how much warm-up. */
static void write_growth(struct vt_json *j, const struct vt_report *r)
{
    const struct vt_usage *u = &r->analysis->usage;
    char verdict[512];
    vt_growth_verdict(r, verdict, sizeof verdict);
    vt_json_key(j, "growth");
    vt_json_begin_object(j);
    vt_json_key(j, "interval");
    vt_json_string(j, u->by_marks ? "marker" : u->by_allocs ? "allocations" : "time");
    write_uint_field(j, "boundaries", vt_usage_boundaries(u));
    write_uint_field(j, "marks", u->nmarks);
    write_uint_field(j, "skip", u->skip);
    vt_json_key(j, "tick_ns");
    u->by_marks || u->by_allocs ? vt_json_null(j) : vt_json_uint(j, u->tick_ns);
    vt_json_key(j, "tick_allocations"); /* repeated allocations per tick */
    u->by_allocs ? vt_json_uint(j, u->tick_allocs) : vt_json_null(j);
    vt_json_key(j, "judged");
    vt_json_bool(j, vt_usage_growth_judged(u));
    write_uint_field(j, "growing_sites", vt_usage_growing_sites(u));
    vt_json_key(j, "reliable"); /* markers, enough of them, or allocation ticks */
    vt_json_bool(j, vt_usage_growth_reliable(u));
    vt_json_key(j, "verdict");
    vt_json_string(j, verdict);
    vt_json_end_object(j);
}

/* Allocate/free pairs and the time inside their calls; the sites by time. */
static void write_churn(struct vt_json *j, const struct vt_report *r)
{
    const struct vt_usage *u = &r->analysis->usage;
    uint64_t pairs, call_ns;
    size_t nsites, *order, n = vt_report_churn_sites(r, &order);
    vt_report_churn_totals(r, &pairs, &call_ns, &nsites);
    const struct vt_site **list = vt_xcalloc(n, sizeof *list);
    for (size_t i = 0; i < n; i++)
        list[i] = &r->usage_sites[order[i]];
    char **labels = vt_site_labels(list, n);
    vt_json_key(j, "churn");
    vt_json_begin_object(j);
    write_uint_field(j, "pairs", pairs);
    write_uint_field(j, "call_ns", call_ns);
    write_uint_field(j, "call_sites", nsites);
    vt_json_key(j, "sites");
    vt_json_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        const struct vt_usage_site *s = &u->sites[order[i]];
        vt_json_begin_object(j);
        write_uint_field(j, "pairs", s->pairs);
        write_uint_field(j, "call_ns", s->call_ns);
        vt_json_key(j, "large");
        vt_json_bool(j, vt_usage_churn_large(u, s));
        write_site_ref(j, r, order[i], labels[i]);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    vt_json_end_object(j);
    vt_site_labels_free(labels, n);
    free(list);
    free(order);
}

static void write_peaks(struct vt_json *j, const struct vt_report *r)
{
    const struct vt_usage *u = &r->analysis->usage;
    vt_json_key(j, "peaks");
    vt_json_begin_array(j);
    for (size_t d = 0; d < u->ndevices; d++) {
        const struct vt_usage_device *dev = &u->devices[d];
        size_t *holders, n = vt_report_peak_holders(r, dev->device, &holders);
        vt_json_begin_object(j);
        vt_json_key(j, "device");
        vt_json_int(j, dev->device);
        write_uint_field(j, "bytes", dev->peak_bytes);
        write_uint_field(j, "time_ns", dev->peak_time_ns);
        /* aggregate mode: the holders are those of the sample with the most */
        vt_json_key(j, "holders_time_ns");
        dev->holders_approx ? vt_json_uint(j, dev->holders_time_ns) : vt_json_null(j);
        vt_json_key(j, "holders");
        uint64_t *held = vt_xcalloc(n, sizeof *held);
        for (size_t i = 0; i < n; i++)
            held[i] = u->sites[holders[i]].bytes_at_device_peak;
        write_holders(j, r, holders, held, n);
        write_uint_field(j, "holders_omitted", vt_report_holders_at_peak(u, dev->device) - n);
        struct vt_usage_cache cache = vt_usage_cache(u, dev->device, VT_USAGE_AT_PEAK);
        write_cache(j, &cache);
        free(held);
        free(holders);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
}

/* The failed allocations shown, labelled apart from each other as the
 * other lists' sites are. */
static void write_failures(struct vt_json *j, const struct vt_report *r)
{
    size_t n = r->failures_shown;
    const struct vt_site **sites = vt_xcalloc(n ? n : 1, sizeof *sites);
    for (size_t i = 0; i < n; i++)
        sites[i] = &r->failure_sites[i];
    char **labels = vt_site_labels(sites, n);
    vt_json_key(j, "failed");
    vt_json_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        const struct vt_failure *f = &r->analysis->failures[i];
        vt_json_begin_object(j);
        write_uint_field(j, "bytes", f->size);
        write_uint_field(j, "count", f->count);
        write_uint_field(j, "error", f->error);
        vt_json_key(j, "error_name");
        vt_json_string(j, vt_cuda_error_name(f->error, f->api));
        write_site_fields(j, sites[i], labels[i], f->kind, f->device, f->stack_id);
        write_oom(j, r, f);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    vt_site_labels_free(labels, n);
    free(sites);
    write_uint_field(j, "failed_omitted", r->analysis->nfailures - r->failures_shown);
}

/* The suppressions that matched: pattern, allocations, bytes, where from. */
static void write_suppressed(struct vt_json *j, const struct vt_suppressions *s)
{
    vt_json_key(j, "suppressed");
    vt_json_begin_array(j);
    for (size_t i = 0; s && i < s->n; i++) {
        if (!s->list[i].count)
            continue;
        vt_json_begin_object(j);
        vt_json_key(j, "pattern");
        vt_json_string(j, s->list[i].pattern);
        write_uint_field(j, "count", s->list[i].count);
        write_uint_field(j, "bytes", s->list[i].bytes);
        vt_json_key(j, "origin");
        vt_json_string(j, s->list[i].origin);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
}

/* SITE's frames under KEY, or null where they are not known. */
static void write_named_frames(struct vt_json *j, const char *key, const struct vt_site *site,
                               bool known)
{
    if (known) {
        write_frames_as(j, key, site);
        return;
    }
    vt_json_key(j, key);
    vt_json_null(j);
}

static void write_invalid_free(struct vt_json *j, const struct vt_report *r, size_t i)
{
    const struct vt_invalid_free *f = &r->analysis->bad_frees.list[i];
    const struct vt_bad_free_event *e = &f->first;
    const struct vt_site *sites = &r->invalid_sites[3 * i];
    bool graph = e->flags & VT_BAD_FREE_GRAPH_NODE, dbl = e->flags & VT_BAD_FREE_DOUBLE;
    bool known = (e->flags & VT_BAD_FREE_ALLOC_KNOWN) || graph;
    vt_json_begin_object(j);
    write_uint_field(j, "address", e->address);
    vt_json_key(j, "api");
    vt_json_string(j, vt_api_label(sites[0].api));
    vt_json_key(j, "double_free");
    vt_json_bool(j, dbl);
    vt_json_key(j, "graph_allocation");
    vt_json_bool(j, graph);
    write_uint_field(j, "count", f->count);
    write_uint_field(j, "error", e->error);
    vt_json_key(j, "error_name");
    vt_json_string(j, vt_cuda_error_name(e->error, e->api));
    write_uint_field(j, "time_ns", e->time_ns);
    write_uint_field(j, "tid", e->tid);
    write_named_frames(j, "frames", &sites[0], true);
    write_named_frames(j, "allocated_frames", &sites[1], known);
    vt_json_key(j, "allocated_bytes");
    known ? vt_json_uint(j, e->alloc_size) : vt_json_null(j);
    vt_json_key(j, "allocated_api");
    vt_json_string(j, known ? vt_api_label(sites[1].api) : NULL);
    write_named_frames(j, "first_freed_frames", &sites[2], dbl && e->first_free_stack_id);
    vt_json_key(j, "first_freed_time_ns");
    dbl ? vt_json_uint(j, e->first_free_ns) : vt_json_null(j);
    vt_json_key(j, "first_freed_api");
    vt_json_string(j, dbl ? vt_api_label(sites[2].api) : NULL);
    vt_json_end_object(j);
}

static void write_invalid_frees(struct vt_json *j, const struct vt_report *r)
{
    vt_json_key(j, "invalid_frees");
    vt_json_begin_array(j);
    for (size_t i = 0; i < r->invalid_shown; i++)
        write_invalid_free(j, r, i);
    vt_json_end_array(j);
    write_uint_field(j, "invalid_frees_omitted", r->analysis->bad_frees.n - r->invalid_shown);
}

static void write_ending(struct vt_json *j, const struct vt_report *r)
{
    vt_json_key(j, "ending");
    vt_json_begin_object(j);
    vt_json_key(j, "reason");
    vt_json_string(j, vt_ending_name(r->ending.reason));
    const struct vt_ending *e = &r->ending;
    /* without a footer, what `vramtrace run` reaped the process with */
    bool killed = e->waited && WIFSIGNALED(e->wait_status),
         exited = e->waited && WIFEXITED(e->wait_status);
    vt_json_key(j, "signal");
    e->reason == VT_ENDING_SIGNAL ? vt_json_uint(j, (uint64_t)e->signal)
    : killed                      ? vt_json_uint(j, (uint64_t)WTERMSIG(e->wait_status))
                                  : vt_json_null(j);
    vt_json_key(j, "status");
    e->reason == VT_ENDING_UNDERSCORE_EXIT ? vt_json_uint(j, (uint64_t)e->status)
    : exited                               ? vt_json_uint(j, (uint64_t)WEXITSTATUS(e->wait_status))
                                           : vt_json_null(j);
    vt_json_key(j, "stop_cause");
    vt_json_string(j, vt_ending_stop_cause_name(e));
    vt_json_key(j, "dump_reopened");
    vt_json_uint(j, e->reopened);
    vt_json_key(j, "leaks_judged");
    vt_json_bool(j, !r->live_not_leaked);
    vt_json_end_object(j);
}

void vt_render_json_unused_suppressions(struct vt_json *j, const struct vt_suppressions *s)
{
    vt_json_key(j, "unused_suppressions");
    vt_json_begin_array(j);
    for (size_t i = 0; s && i < s->n; i++) {
        if (!vt_suppression_unused(&s->list[i]))
            continue;
        vt_json_begin_object(j);
        vt_json_key(j, "pattern");
        vt_json_string(j, s->list[i].pattern);
        vt_json_key(j, "origin");
        vt_json_string(j, s->list[i].origin);
        write_uint_field(j, "line", s->list[i].line);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
}

/* null for an events-mode dump */
static void write_aggregate(struct vt_json *j, const struct vt_report *r)
{
    const struct vt_aggregate *g = &r->analysis->agg;
    vt_json_key(j, "aggregate");
    if (!r->dump->aggregated) {
        vt_json_null(j);
        return;
    }
    vt_json_begin_object(j);
    write_uint_field(j, "samples", g->samples);
    write_uint_field(j, "last_sample_ns", g->last_sample_ns);
    vt_json_key(j, "exit_totals");
    vt_json_bool(j, g->footer);
    vt_json_key(j, "exact_peaks");
    vt_json_bool(j, g->totals);
    vt_json_end_object(j);
}

void vt_render_json(const struct vt_report *r, FILE *out)
{
    struct vt_json j;
    vt_json_init(&j, out);
    vt_json_begin_object(&j);
    vt_render_json_fields(r, &j);
    vt_json_end_object(&j);
}

/* The frameworks' allocators the tracer looked into, and what it traced. */
static void write_frameworks(struct vt_json *j, const struct vt_dump *d)
{
    vt_json_key(j, "frameworks");
    vt_json_begin_array(j);
    for (size_t i = 0; i < d->nframeworks; i++) {
        vt_json_begin_object(j);
        vt_json_key(j, "name");
        vt_json_string(j, d->frameworks[i].name);
        vt_json_key(j, "version");
        d->frameworks[i].version ? vt_json_string(j, d->frameworks[i].version) : vt_json_null(j);
        vt_json_key(j, "tensors_traced");
        vt_json_bool(j, d->frameworks[i].state == VT_FRAMEWORK_TENSORS);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
}

/* Tracing began by attaching (null: from the start): the memory held
 * before, per device, and the routes not reached. */
static void write_attach(struct vt_json *j, const struct vt_dump *d)
{
    const struct vt_attach_info *a = d->attach;
    bool by_nvml;
    vt_json_key(j, "attach");
    if (!a) {
        vt_json_null(j);
        return;
    }
    vt_json_begin_object(j);
    write_uint_field(j, "time_ns", a->time_ns);
    vt_json_key(j, "held_before");
    vt_json_begin_array(j);
    for (size_t i = 0; i < a->ndevices; i++) {
        uint64_t held = vt_attach_held_bytes(&a->devices[i], &by_nvml);
        vt_json_begin_object(j);
        vt_json_key(j, "device");
        vt_json_int(j, a->devices[i].device);
        write_uint_field(j, "bytes", held);
        vt_json_key(j, "source");
        vt_json_string(j, by_nvml ? "nvml" : "driver");
        write_uint_field(j, "free_bytes", a->devices[i].free_bytes);
        write_uint_field(j, "total_bytes", a->devices[i].total_bytes);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    vt_json_key(j, "not_seen");
    vt_json_begin_array(j);
    for (size_t i = 0; i < a->nroutes; i++)
        vt_json_string(j, a->routes[i]);
    vt_json_end_array(j);
    vt_json_end_object(j);
}

void vt_render_json_fields(const struct vt_report *r, struct vt_json *j)
{
    vt_json_key(j, "vramtrace_version");
    vt_json_string(j, vt_version);
    write_uint_field(j, "format_version", r->dump->version);
    vt_json_key(j, "dump");
    vt_json_string(j, r->path);
    vt_json_key(j, "complete");
    vt_json_bool(j, r->dump->complete);
    vt_json_key(j, "end");
    vt_json_string(j, r->dump->end);
    vt_json_key(j, "signal");
    r->dump->end_signal ? vt_json_uint(j, (uint64_t)r->dump->end_signal) : vt_json_null(j);
    write_uint_field(j, "disbelieved_records", r->dump->disbelieved);
    write_uint_field(j, "duration_ns", r->dump->last_time_ns);
    vt_json_key(j, "script_end_ns");
    r->analysis->script_ended ? vt_json_uint(j, r->analysis->script_end_ns) : vt_json_null(j);
    vt_json_key(j, "mode");
    vt_json_string(j, r->dump->aggregated ? "aggregate" : "events");
    write_aggregate(j, r);
    write_ending(j, r);
    write_process(j, &r->dump->process);
    write_frameworks(j, r->dump);
    write_attach(j, r->dump);
    vt_render_json_summary(j, &r->analysis->summary);
    write_leaks(j, r);
    write_failures(j, r);
    write_invalid_frees(j, r);
    write_growth(j, r);
    write_churn(j, r);
    write_sites(j, r);
    write_peaks(j, r);
    vt_render_json_devices(r, j);
    write_suppressed(j, r->suppressions);
    if (r->unused_suppressions)
        vt_render_json_unused_suppressions(j, r->suppressions);
}
