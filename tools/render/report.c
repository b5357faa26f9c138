/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "known_memory.h"
#include "symbolize.h"
#include "xalloc.h"

const char *vt_api_label(unsigned api)
{
    const char *name = vt_api_name(api);
    return name ? name : "unknown";
}

static size_t shown(size_t total, size_t top)
{
    return top && top < total ? top : total;
}

static struct vt_site *new_sites(size_t n)
{
    return vt_xcalloc(n, sizeof(struct vt_site));
}

static void free_sites(struct vt_site *sites, size_t n)
{
    for (size_t i = 0; i < n; i++)
        vt_site_free(&sites[i]);
    free(sites);
}

/* Takes LEAK out of the counts of its list (leaked or held), into *BYTES
 * and *ALLOCATIONS. */
static void take_out(struct vt_summary *s, const struct vt_leak *leak, uint64_t *bytes,
                     uint64_t *allocations)
{
    bool vram = vt_kind_counts_as_vram(leak->kind);
    uint64_t *from_bytes = leak->held ? (vram ? &s->held_bytes : &s->host_held_bytes)
                                      : (vram ? &s->leaked_bytes : &s->host_leaked_bytes);
    uint64_t *from_allocations =
        leak->held ? (vram ? &s->held_allocations : &s->host_held_allocations)
                   : (vram ? &s->leaked_allocations : &s->host_leaked_allocations);
    *from_bytes -= leak->bytes;
    *from_allocations -= leak->allocations;
    *bytes += leak->bytes;
    *allocations += leak->allocations;
}

/* Tallies LEAK at the pattern it matched. */
static void tally(struct vt_suppression *match, const struct vt_leak *leak)
{
    match->count += leak->allocations;
    match->total_count += leak->allocations;
    match->bytes += leak->bytes;
}

/* Leaves out of LIST (the leaks or held) what a suppression matches,
 * tallying it there, and moves known framework memory to known_leaks,
 * labelled (either pattern list may be NULL). One pass: a stack is made
 * once. */
static void sort_list(struct vt_analysis *a, struct vt_leak *list, size_t *n,
                      struct vt_symbolizer *sym, const struct vt_dump *dump,
                      struct vt_suppressions *sups, struct vt_suppressions *known)
{
    size_t kept = 0;
    struct vt_summary *s = &a->summary;
    for (size_t i = 0; i < *n; i++) {
        struct vt_leak *leak = &list[i];
        struct vt_site all;
        vt_site_all_frames(sym, dump, leak->stack_id, &all);
        struct vt_suppression *suppressed =
            sups ? vt_suppressions_match(sups, all.frames, all.nframes) : NULL;
        struct vt_suppression *k =
            !suppressed && known ? vt_known_match(known, all.frames, all.nframes) : NULL;
        const struct vt_usage_site *site =
            vt_usage_find_site(&a->usage, leak->stack_id, leak->api, leak->kind, leak->device);
        if (!suppressed && !k && site && site->nvtx_heap)
            k = vt_known_nvtx_heap(known);
        vt_site_free(&all);
        leak->known = k;
        if (suppressed) {
            tally(suppressed, leak);
            take_out(s, leak, &s->suppressed_bytes, &s->suppressed_allocations);
        } else if (k) {
            tally(k, leak);
            if (vt_kind_counts_as_vram(leak->kind))
                take_out(s, leak, &s->known_bytes, &s->known_allocations);
            else
                take_out(s, leak, &s->host_known_bytes, &s->host_known_allocations);
            a->known_leaks[a->nknown++] = *leak;
        } else {
            list[kept++] = *leak;
        }
    }
    *n = kept;
}

static int known_by_size(const void *pa, const void *pb)
{
    const struct vt_leak *a = pa, *b = pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->held != b->held)
        return a->held ? 1 : -1;
    return a->stack_id < b->stack_id ? -1 : a->stack_id > b->stack_id;
}

/* Both lists sorted: suppressed left out, known framework memory apart. */
static void sort_leaks(struct vt_analysis *a, struct vt_symbolizer *sym, const struct vt_dump *dump,
                       struct vt_suppressions *sups, struct vt_suppressions *known)
{
    if (sups)
        vt_suppressions_reset_counts(sups);
    if (known)
        vt_suppressions_reset_counts(known);
    size_t all = a->nleaks + a->nheld;
    a->known_leaks = vt_xcalloc(all ? all : 1, sizeof *a->known_leaks);
    sort_list(a, a->leaks, &a->nleaks, sym, dump, sups, known);
    sort_list(a, a->held, &a->nheld, sym, dump, sups, known);
    if (a->nknown)
        qsort(a->known_leaks, a->nknown, sizeof *a->known_leaks, known_by_size);
}

/* What known framework memory the growing sites are, what the framework
 * was doing when they allocated (what the growth entries say), and which a
 * suppression matches (growing sites come first in site_order). */
static struct vt_site_known *sites_known(const struct vt_report *r, struct vt_suppressions *known,
                                         struct vt_suppressions *sups)
{
    const struct vt_usage *u = &r->analysis->usage;
    struct vt_site_known *out = vt_xcalloc(u->nsites ? u->nsites : 1, sizeof *out);
    for (size_t i = 0; i < u->nsites && u->sites[r->site_order[i]].growing; i++) {
        struct vt_site all;
        size_t index = r->site_order[i];
        vt_site_all_frames(r->sym, r->dump, u->sites[index].stack_id, &all);
        out[index].known = known ? vt_known_match(known, all.frames, all.nframes) : NULL;
        out[index].during = vt_known_during(all.frames, all.nframes);
        out[index].suppressed = sups ? vt_suppressions_match(sups, all.frames, all.nframes) : NULL;
        vt_site_free(&all);
    }
    return out;
}

/* Symbolizes the usage sites a report shows: the first SHOWN in ORDER, the
 * holders at each device peak and at each out-of-memory failure. */
size_t vt_report_peak_holders(const struct vt_report *r, int64_t device, size_t **out)
{
    const struct vt_usage *u = &r->analysis->usage;
    size_t max = r->holders_max < u->nsites ? r->holders_max : u->nsites;
    *out = vt_xcalloc(max ? max : 1, sizeof **out);
    return vt_usage_holders(u, device, true, *out, max);
}

const char *vt_report_cache_name(const struct vt_usage_cache *c)
{
    return c->torch && c->nvtx ? "PyTorch's cache and NVTX heaps"
           : c->nvtx           ? "NVTX heaps"
                               : "PyTorch's cache";
}

const char *vt_report_cache_parts(const struct vt_usage_cache *c)
{
    return c->torch && c->nvtx ? "tensors and regions" : c->nvtx ? "regions" : "tensors";
}

size_t vt_report_holders_at_peak(const struct vt_usage *u, int64_t device)
{
    size_t n = 0;
    for (size_t i = 0; i < u->nsites; i++)
        n += u->sites[i].device == device && vt_usage_is_holder(&u->sites[i]) &&
             u->sites[i].bytes_at_device_peak;
    return n;
}

static const struct vt_usage *churn_sorting; /* qsort has no context argument */

static int by_churn(const void *pa, const void *pb)
{
    const struct vt_usage_site *a = &churn_sorting->sites[*(const size_t *)pa],
                               *b = &churn_sorting->sites[*(const size_t *)pb];
    if (a->pairs != b->pairs) /* pairs, not times: a report of the same run reads the same */
        return a->pairs > b->pairs ? -1 : 1;
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

size_t vt_report_churn_sites(const struct vt_report *r, size_t **out)
{
    const struct vt_usage *u = &r->analysis->usage;
    size_t n = 0;
    *out = vt_xcalloc(u->nsites, sizeof **out);
    for (size_t i = 0; i < u->nsites; i++)
        if (u->sites[i].pairs)
            (*out)[n++] = i;
    churn_sorting = u;
    qsort(*out, n, sizeof **out, by_churn);
    return n < r->holders_max ? n : r->holders_max;
}

void vt_report_churn_totals(const struct vt_report *r, uint64_t *pairs, uint64_t *call_ns,
                            size_t *sites)
{
    const struct vt_usage *u = &r->analysis->usage;
    *pairs = *call_ns = 0;
    *sites = 0;
    for (size_t i = 0; i < u->nsites; i++)
        if (u->sites[i].pairs) {
            *pairs += u->sites[i].pairs;
            *call_ns += u->sites[i].call_ns;
            ++*sites;
        }
}

static struct vt_site *usage_sites(struct vt_symbolizer *sym, const struct vt_dump *dump,
                                   const struct vt_report *r, const size_t *order, size_t shown)
{
    const struct vt_analysis *a = r->analysis;
    const struct vt_usage *u = &a->usage;
    struct vt_site *sites = new_sites(u->nsites);
    bool *wanted = vt_xcalloc(u->nsites, sizeof *wanted);
    for (size_t i = 0; i < shown; i++)
        wanted[order[i]] = true;
    for (size_t d = 0; d < u->ndevices; d++) {
        size_t *holders, n = vt_report_peak_holders(r, u->devices[d].device, &holders);
        for (size_t i = 0; i < n; i++)
            wanted[holders[i]] = true;
        free(holders);
    }
    for (size_t f = 0; f < a->nfailures; f++)
        for (size_t i = 0; i < a->failures[f].nholders; i++)
            wanted[a->failures[f].holders[i].site] = true;
    size_t *churn, nchurn = vt_report_churn_sites(r, &churn);
    for (size_t i = 0; i < nchurn; i++)
        wanted[churn[i]] = true;
    free(churn);
    for (size_t i = 0; i < u->nsites; i++)
        if (wanted[i])
            vt_site_frames(sym, dump, u->sites[i].stack_id, u->sites[i].api, &sites[i]);
        else
            sites[i].api = u->sites[i].api;
    free(wanted);
    return sites;
}

/* The replay, and a tap beside it that sees every event too. */
struct tee {
    struct vt_analysis *analysis;
    const struct vt_event_sink *tap;
    void *tap_ctx;
};

static void tee_alloc(void *ctx, const struct vt_dump_alloc *ev)
{
    struct tee *t = ctx;
    vt_analysis_sink.alloc(t->analysis, ev);
    if (t->tap->alloc)
        t->tap->alloc(t->tap_ctx, ev);
}

static void tee_free(void *ctx, const struct vt_free_event *ev)
{
    struct tee *t = ctx;
    vt_analysis_sink.free(t->analysis, ev);
    if (t->tap->free)
        t->tap->free(t->tap_ctx, ev);
}

static void tee_failed(void *ctx, const struct vt_failed_event *ev)
{
    struct tee *t = ctx;
    vt_analysis_sink.failed(t->analysis, ev);
    if (t->tap->failed)
        t->tap->failed(t->tap_ctx, ev);
}

static void tee_mark(void *ctx, const struct vt_mark_event *ev)
{
    struct tee *t = ctx;
    vt_analysis_sink.mark(t->analysis, ev);
    if (t->tap->mark)
        t->tap->mark(t->tap_ctx, ev);
}

static void tee_sample(void *ctx, const struct vt_sample_event *ev)
{
    struct tee *t = ctx;
    vt_analysis_sink.sample(t->analysis, ev);
    if (t->tap->sample)
        t->tap->sample(t->tap_ctx, ev);
}

static void tee_sites(void *ctx, const struct vt_sites_event *ev)
{
    struct tee *t = ctx;
    vt_analysis_sink.sites(t->analysis, ev);
    if (t->tap->sites)
        t->tap->sites(t->tap_ctx, ev);
}

static void tee_totals(void *ctx, const struct vt_totals_event *ev)
{
    struct tee *t = ctx;
    vt_analysis_sink.totals(t->analysis, ev);
    if (t->tap->totals)
        t->tap->totals(t->tap_ctx, ev);
}

static void tee_device_usage(void *ctx, const struct vt_device_usage_event *ev)
{
    struct tee *t = ctx;
    vt_analysis_sink.device_usage(t->analysis, ev);
    if (t->tap->device_usage)
        t->tap->device_usage(t->tap_ctx, ev);
}

static void tee_bad_free(void *ctx, const struct vt_bad_free_event *ev)
{
    struct tee *t = ctx;
    vt_analysis_sink.bad_free(t->analysis, ev);
    if (t->tap->bad_free)
        t->tap->bad_free(t->tap_ctx, ev);
}

static void tee_py_finalizing(void *ctx, const struct vt_py_finalizing_event *ev)
{
    struct tee *t = ctx;
    vt_analysis_sink.py_finalizing(t->analysis, ev);
    if (t->tap->py_finalizing)
        t->tap->py_finalizing(t->tap_ctx, ev);
}

static void tee_cache_segment(void *ctx, const struct vt_cache_segment_event *ev)
{
    struct tee *t = ctx;
    vt_analysis_sink.cache_segment(t->analysis, ev);
    if (t->tap->cache_segment)
        t->tap->cache_segment(t->tap_ctx, ev);
}

static const struct vt_event_sink tee_sink = {
    tee_alloc,  tee_free,         tee_failed,   tee_mark,          tee_sample,       tee_sites,
    tee_totals, tee_device_usage, tee_bad_free, tee_py_finalizing, tee_cache_segment};

static int read_dump(const char *path, const struct vt_report_options *opts,
                     struct vt_loaded_report *l)
{
    struct tee tee = {&l->analysis, opts->tap, opts->tap_ctx};
    if (opts->tap)
        return vt_dump_read(path, &tee_sink, &tee, &l->dump);
    return vt_dump_read(path, &vt_analysis_sink, &l->analysis, &l->dump);
}

/* Without an ending of its own, what the process still held is live at
 * that moment, not leaked: the summary's leaked counts go to live_at_end. */
static void judge_ending(struct vt_summary *s, bool live_not_leaked)
{
    s->live_at_end_bytes = s->leaked_bytes;
    s->live_at_end_allocations = s->leaked_allocations;
    if (live_not_leaked)
        s->leaked_bytes = s->leaked_allocations = s->host_leaked_bytes =
            s->host_leaked_allocations = 0;
}

/* Three sites per invalid free: the refused free, what it tried to free
 * (allocation), the first free of a double free; empty where not known. */
static struct vt_site *invalid_free_sites(struct vt_symbolizer *sym, const struct vt_dump *dump,
                                          const struct vt_invalid_frees *f, size_t shown)
{
    struct vt_site *sites = new_sites(3 * shown);
    for (size_t i = 0; i < shown; i++) {
        const struct vt_bad_free_event *e = &f->list[i].first;
        vt_site_frames(sym, dump, e->stack_id, e->api, &sites[3 * i]);
        vt_site_frames(sym, dump, e->alloc_stack_id, e->alloc_api, &sites[3 * i + 1]);
        vt_site_frames(sym, dump, e->first_free_stack_id, e->first_free_api, &sites[3 * i + 2]);
    }
    return sites;
}

/* Sites listed per section, in text and JSON alike: with --top N, N; else
 * VT_TEXT_TOP (the JSON holds what the text shows). */
static size_t list_top(const struct vt_report_options *opts)
{
    return opts->top_given ? opts->top : VT_TEXT_TOP;
}

/* Leaks to symbolize: TOP, and as many more as there are growing sites (the
 * text lists the growing leaks among the growing sites, TOP others after). */
static size_t leaks_to_show(const struct vt_analysis *a, size_t top)
{
    size_t growing = vt_usage_growing_sites(&a->usage);
    if (!top || top + growing >= a->nleaks)
        return a->nleaks;
    return top + growing;
}

int vt_report_load(const char *path, const struct vt_report_options *opts,
                   struct vt_loaded_report *l)
{
    memset(l, 0, sizeof *l);
    l->analysis.skip = opts->skip;
    l->shown = vt_shown_stacks_new(&l->dump);
    l->analysis.site_stack = vt_shown_stack;
    l->analysis.site_stack_ctx = l->shown;
    if (read_dump(path, opts, l) != 0) {
        vt_analysis_free(&l->analysis);
        vt_shown_stacks_free(l->shown);
        vt_dump_free(&l->dump);
        return -1;
    }
    l->sym = vt_shown_stacks_take_symbolizer(l->shown);
    vt_report_build(path, opts, l);
    return 0;
}

static bool tensors_traced(const struct vt_usage *u)
{
    for (size_t i = 0; i < u->nsites; i++)
        if (vt_api_in_segment(u->sites[i].api))
            return true;
    return false;
}

/* A framework's objects own what STACK_ID allocated: a frame of PyTorch,
 * CuPy or JAX on it (the tensors they hand out, the segments and arrays
 * behind them). CTX: the struct vt_loaded_report. */
static bool framework_owned(void *ctx, uint64_t stack_id)
{
    struct vt_loaded_report *l = ctx;
    struct vt_site all;
    bool owned = false;
    vt_site_all_frames(l->sym, &l->dump, stack_id, &all);
    for (size_t i = 0; i < all.nframes && !owned; i++) {
        enum vt_framework fw = vt_frame_framework(all.frames[i]);
        owned = fw == VT_FRAMEWORK_PYTORCH || fw == VT_FRAMEWORK_CUPY || fw == VT_FRAMEWORK_JAX;
    }
    vt_site_free(&all);
    return owned;
}

void vt_report_build(const char *path, const struct vt_report_options *opts,
                     struct vt_loaded_report *l)
{
    const struct vt_analysis *a = &l->analysis;
    if (!l->sym)
        l->sym = vt_symbolizer_new(&l->dump);
    l->analysis.framework_owned = framework_owned;
    l->analysis.framework_owned_ctx = l;
    vt_analysis_finish(&l->analysis);
    if (opts->known)
        vt_known_tensors_traced(opts->known, tensors_traced(&a->usage));
    if (opts->suppressions || opts->known)
        sort_leaks(&l->analysis, l->sym, &l->dump, opts->suppressions, opts->known);
    struct vt_ending ending = vt_dump_ending_waited(&l->dump, opts->waits);
    bool live_not_leaked = !vt_ending_judges_leaks(&ending);
    judge_ending(&l->analysis.summary, live_not_leaked);
    size_t top = list_top(opts);
    /* the text lists growing leaks with their sites, TOP others after; the
     * JSON's leaks, TOP of them (its sites hold the growing ones) */
    size_t leaks_shown =
        opts->top_given || opts->json ? shown(a->nleaks, top) : leaks_to_show(a, top);
    l->leak_sites = new_sites(leaks_shown);
    l->held_sites = new_sites(shown(a->nheld, top));
    l->failure_sites = new_sites(shown(a->nfailures, top));
    l->site_order = vt_xcalloc(a->usage.nsites, sizeof *l->site_order);
    l->report = (struct vt_report){
        .path = path,
        .dump = &l->dump,
        .analysis = a,
        .top = top,
        .sym = l->sym,
        .text_top = opts->top_given ? opts->top : VT_TEXT_TOP,
        .text_short = opts->top_given ? opts->top : VT_TEXT_SHORT,
        .held_stacks = opts->top_given,
        .holders_max = !opts->top_given ? VT_PEAK_HOLDERS
                       : opts->top      ? opts->top
                                        : SIZE_MAX,
        .suppressions = opts->suppressions,
        .known = opts->known,
        .leaks_shown = leaks_shown,
        .held_shown = shown(a->nheld, top),
        .held_sites = l->held_sites,
        .failures_shown = shown(a->nfailures, top),
        .sites_shown = shown(a->usage.nsites, top),
        .site_order = l->site_order,
        .leak_sites = l->leak_sites,
        .failure_sites = l->failure_sites,
        .ending = ending,
        .live_not_leaked = live_not_leaked,
        .invalid_shown = shown(a->bad_frees.n, top),
        .unused_suppressions = !opts->part_of_many,
    };
    l->invalid_sites = invalid_free_sites(l->sym, &l->dump, &a->bad_frees, l->report.invalid_shown);
    l->report.invalid_sites = l->invalid_sites;
    for (size_t i = 0; i < l->report.leaks_shown; i++)
        vt_site_frames(l->sym, &l->dump, a->leaks[i].stack_id, a->leaks[i].api, &l->leak_sites[i]);
    for (size_t i = 0; i < l->report.held_shown; i++)
        vt_site_frames(l->sym, &l->dump, a->held[i].stack_id, a->held[i].api, &l->held_sites[i]);
    for (size_t i = 0; i < l->report.failures_shown; i++)
        vt_site_frames(l->sym, &l->dump, a->failures[i].stack_id, a->failures[i].api,
                       &l->failure_sites[i]);
    vt_usage_report_order(&a->usage, l->site_order);
    l->usage_sites =
        usage_sites(l->sym, &l->dump, &l->report, l->site_order, l->report.sites_shown);
    l->report.usage_sites = l->usage_sites;
    l->known_sites = new_sites(a->nknown);
    for (size_t i = 0; i < a->nknown; i++)
        vt_site_frames(l->sym, &l->dump, a->known_leaks[i].stack_id, a->known_leaks[i].api,
                       &l->known_sites[i]);
    l->report.known_sites = l->known_sites;
    l->site_known = sites_known(&l->report, opts->known, opts->suppressions);
    l->report.site_known = l->site_known;
}

void vt_report_unload(struct vt_loaded_report *l)
{
    free_sites(l->leak_sites, l->report.leaks_shown);
    free_sites(l->held_sites, l->report.held_shown);
    free_sites(l->failure_sites, l->report.failures_shown);
    free_sites(l->usage_sites, l->analysis.usage.nsites);
    free_sites(l->invalid_sites, 3 * l->report.invalid_shown);
    free_sites(l->known_sites, l->analysis.nknown);
    free(l->site_known);
    free(l->site_order);
    vt_symbolizer_free(l->sym);
    vt_shown_stacks_free(l->shown);
    vt_analysis_free(&l->analysis);
    vt_dump_free(&l->dump);
}
