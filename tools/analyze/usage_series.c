/* SPDX-License-Identifier: MIT */
/* Usage over time: per-site samples, per-device bins, peaks and growth. */
#include "usage_series.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "churn_apis.h"
#include "format.h"
#include "growth_rule.h"
#include "xalloc.h"

#define FIRST_TICK_NS 1000u /* 1 us; doubles whenever the ticks fill up */

struct vt_usage_site_entry {
    struct vt_site_key key;
    size_t index;
    UT_hash_handle hh;
};

static void push(struct vt_usage_samples *s, uint64_t v)
{
    s->bytes = vt_xgrow(s->bytes, s->n, sizeof *s->bytes);
    s->bytes[s->n++] = v;
}

static void pad_to(struct vt_usage_samples *s, size_t n)
{
    while (s->n < n)
        push(s, 0);
}

static struct vt_usage_device *find_device(struct vt_usage *u, int64_t device)
{
    if (u->ndevices && u->devices[u->last_device].device == device)
        return &u->devices[u->last_device];
    for (size_t i = 0; i < u->ndevices; i++)
        if (u->devices[i].device == device) {
            u->last_device = i;
            return &u->devices[i];
        }
    u->last_device = u->ndevices;
    u->devices = vt_xgrow(u->devices, u->ndevices, sizeof *u->devices);
    struct vt_usage_device *d = &u->devices[u->ndevices++];
    memset(d, 0, sizeof *d);
    d->device = device;
    pad_to(&d->bin_max, u->nticks);
    pad_to(&d->bin_last, u->nticks);
    return d;
}

const struct vt_usage_device *vt_usage_device(const struct vt_usage *u, int64_t device)
{
    for (size_t i = 0; i < u->ndevices; i++)
        if (u->devices[i].device == device)
            return &u->devices[i];
    return NULL;
}

const struct vt_usage_site *vt_usage_find_site(const struct vt_usage *u, uint64_t stack_id,
                                               unsigned api, unsigned kind, int64_t device)
{
    struct vt_site_key key = vt_site_key(stack_id, api, kind, device);
    struct vt_usage_site_entry *e;
    HASH_FIND(hh, u->index, &key, sizeof key, e);
    return e ? &u->sites[e->index] : NULL;
}

static struct vt_usage_site *find_site(struct vt_usage *u, uint64_t stack_id, unsigned api,
                                       unsigned kind, int64_t device)
{
    struct vt_site_key key = vt_site_key(stack_id, api, kind, device);
    struct vt_usage_site_entry *e = u->last_site;
    if (e && !memcmp(&e->key, &key, sizeof key)) /* an alloc and its free, a loop */
        return &u->sites[e->index];
    HASH_FIND(hh, u->index, &key, sizeof key, e);
    if (e) {
        u->last_site = e;
        return &u->sites[e->index];
    }
    e = vt_xrealloc(NULL, 1, sizeof *e);
    memset(e, 0, sizeof *e);
    e->key = key;
    e->index = u->nsites;
    HASH_ADD(hh, u->index, key, sizeof e->key, e);
    u->last_site = e;
    u->sites = vt_xgrow(u->sites, u->nsites, sizeof *u->sites);
    struct vt_usage_site *s = &u->sites[u->nsites++];
    *s = (struct vt_usage_site){.stack_id = stack_id, .api = api, .kind = kind, .device = device};
    if (vt_kind_counts_as_vram(kind))
        s->peak_epoch_saved = find_device(u, device)->peak_epoch;
    pad_to(&s->at_marks, u->nmarks);
    pad_to(&s->at_ticks, u->nticks);
    pad_to(&s->at_allocs, u->nalloc_ticks);
    return s;
}

/* Keeps every second tick and merges bins pairwise: the tick spacing doubles. */
static void coarsen(struct vt_usage *u)
{
    size_t half = u->nticks / 2;
    for (size_t i = 0; i < u->nsites; i++) {
        struct vt_usage_samples *t = &u->sites[i].at_ticks;
        for (size_t k = 0; k < half; k++)
            t->bytes[k] = t->bytes[2 * k + 1];
        t->n = half;
    }
    for (size_t i = 0; i < u->ndevices; i++) {
        struct vt_usage_device *d = &u->devices[i];
        for (size_t k = 0; k < half; k++) {
            uint64_t a = d->bin_max.bytes[2 * k], b = d->bin_max.bytes[2 * k + 1];
            d->bin_max.bytes[k] = a > b ? a : b;
            d->bin_last.bytes[k] = d->bin_last.bytes[2 * k + 1];
        }
        d->bin_max.n = d->bin_last.n = half;
    }
    u->nticks = half;
    u->tick_ns *= 2;
}

static void pass_tick(struct vt_usage *u)
{
    for (size_t i = 0; i < u->nsites; i++)
        push(&u->sites[i].at_ticks, u->sites[i].live_bytes);
    for (size_t i = 0; i < u->ndevices; i++) {
        struct vt_usage_device *d = &u->devices[i];
        push(&d->bin_max, d->open_bin_max);
        push(&d->bin_last, d->live_bytes);
        d->open_bin_max = d->live_bytes;
    }
    u->nticks++;
    if (u->nticks == VT_USAGE_MAX_TICKS)
        coarsen(u);
}

/* Keeps every second allocation tick: the allocations per tick double. */
static void coarsen_allocs(struct vt_usage *u)
{
    size_t half = u->nalloc_ticks / 2;
    for (size_t i = 0; i < u->nsites; i++) {
        struct vt_usage_samples *t = &u->sites[i].at_allocs;
        for (size_t k = 0; k < half; k++)
            t->bytes[k] = t->bytes[2 * k + 1];
        t->n = half;
    }
    for (size_t k = 0; k < half; k++)
        u->alloc_tick_ns[k] = u->alloc_tick_ns[2 * k + 1];
    u->nalloc_ticks = half;
    u->tick_allocs *= 2;
}

/* A repeated allocation at TIME_NS, not yet applied: the tick it passes
 * samples every site right before it, as a marker would before a step. */
static void count_repeat(struct vt_usage *u, uint64_t time_ns)
{
    if (!u->tick_allocs)
        u->tick_allocs = 1;
    if (++u->repeats % u->tick_allocs)
        return;
    for (size_t i = 0; i < u->nsites; i++)
        push(&u->sites[i].at_allocs, u->sites[i].live_bytes);
    u->alloc_tick_ns = vt_xgrow(u->alloc_tick_ns, u->nalloc_ticks, sizeof *u->alloc_tick_ns);
    u->alloc_tick_ns[u->nalloc_ticks++] = time_ns;
    if (u->nalloc_ticks == VT_USAGE_MAX_TICKS)
        coarsen_allocs(u);
}

void vt_usage_advance(struct vt_usage *u, uint64_t time_ns)
{
    if (!u->tick_ns)
        u->tick_ns = FIRST_TICK_NS;
    /* tick k (1-based) lies at k * tick_ns; the loop ends as the spacing
     * doubles, or where the next tick lies past any time (a corrupt dt) */
    uint64_t next;
    while (!__builtin_mul_overflow((uint64_t)(u->nticks + 1), u->tick_ns, &next) && time_ns >= next)
        pass_tick(u);
    if (time_ns > u->end_ns)
        u->end_ns = time_ns;
}

/* The first change of a site after its device peaked saves what it held then. */
static void save_at_peak(struct vt_usage_site *s, const struct vt_usage_device *d)
{
    if (s->peak_epoch_saved != d->peak_epoch) {
        s->bytes_at_device_peak = s->live_bytes;
        s->peak_epoch_saved = d->peak_epoch;
    }
}

static void host_change(struct vt_usage *u, uint64_t time_ns, int64_t delta)
{
    u->host_live_bytes += (uint64_t)delta;
    if (u->host_live_bytes > u->host_peak_bytes) {
        u->host_peak_bytes = u->host_live_bytes;
        u->host_peak_time_ns = time_ns;
    }
}

/* A tensor inside a segment changed by DELTA: while the device stays at
 * its peak, the most in tensors is the peak's moment (every site then
 * saves what it holds, at its next change). */
static void tensor_change(struct vt_usage_device *d, int64_t delta)
{
    d->tensor_live_bytes += (uint64_t)delta;
    if (d->at_peak && d->tensor_live_bytes > d->tensor_peak_bytes) {
        d->tensor_peak_bytes = d->tensor_live_bytes;
        d->peak_epoch++;
    }
}

/* The device's bytes changed by DELTA at TIME_NS. */
static void device_change(struct vt_usage_device *d, uint64_t time_ns, int64_t delta)
{
    d->live_bytes += (uint64_t)delta;
    if (d->live_bytes > d->open_bin_max)
        d->open_bin_max = d->live_bytes;
    d->at_peak = d->live_bytes > d->peak_bytes;
    if (d->at_peak) {
        d->peak_bytes = d->live_bytes;
        d->peak_time_ns = time_ns;
        d->tensor_peak_bytes = d->tensor_live_bytes;
        d->peak_epoch++; /* every site now holds its at-peak value */
    }
}

void vt_usage_change(struct vt_usage *u, uint64_t time_ns, uint64_t stack_id, unsigned api,
                     unsigned kind, int64_t device, int64_t delta)
{
    vt_usage_advance(u, time_ns);
    struct vt_usage_site *s = find_site(u, stack_id, api, kind, device);
    struct vt_usage_device *d = vt_kind_counts_as_vram(kind) ? find_device(u, device) : NULL;
    if (d)
        save_at_peak(s, d);
    if (delta > 0 && s->pairs)
        s->reallocs++;
    if (delta > 0 && s->freed) {
        count_repeat(u, time_ns);
        s->first_repeat = s->first_repeat ? s->first_repeat : u->repeats;
        s->last_repeat = u->repeats;
    }
    if (delta < 0)
        s->freed = true;
    s->live_bytes += (uint64_t)delta;
    if (s->live_bytes > s->peak_live_bytes)
        s->peak_live_bytes = s->live_bytes;
    if (kind == VT_KIND_HOST)
        host_change(u, time_ns, delta);
    if (d && vt_api_in_segment(api)) /* the device's view: a tensor's bytes are its segment's */
        tensor_change(d, delta);
    else if (d)
        device_change(d, time_ns, delta);
}

void vt_usage_script_ended(struct vt_usage *u)
{
    for (size_t i = 0; i < u->nsites; i++)
        u->sites[i].bytes_at_script_end = u->sites[i].live_bytes;
    u->script_ended = true;
}

void vt_usage_holds_tensors(struct vt_usage *u, uint64_t stack_id, unsigned api, unsigned kind,
                            int64_t device, bool nvtx_heap)
{
    struct vt_usage_site *s = find_site(u, stack_id, api, kind, device);
    s->holds_tensors = true;
    s->nvtx_heap |= nvtx_heap;
}

void vt_usage_phase(struct vt_usage *u, uint64_t stack_id, unsigned api, unsigned kind,
                    int64_t device, uint64_t phase, uint64_t bytes)
{
    struct vt_usage_site *s = find_site(u, stack_id, api, kind, device);
    for (size_t i = 0; i < s->nphases; i++)
        if (s->phases[i].id == phase) {
            s->phases[i].bytes += bytes;
            return;
        }
    if (s->nphases == VT_SITE_PHASES) {
        s->phase_others = true;
        return;
    }
    s->phases[s->nphases].id = phase;
    s->phases[s->nphases++].bytes = bytes;
}

uint64_t vt_usage_site_phase(const struct vt_usage_site *s, bool *several)
{
    size_t main = 0, ranges = 0;
    for (size_t i = 0; i < s->nphases; i++) {
        ranges += s->phases[i].id != 0;
        if (s->phases[i].bytes > s->phases[main].bytes)
            main = i;
    }
    if (several)
        *several = ranges > 1 || s->phase_others;
    return s->nphases ? s->phases[main].id : 0;
}

void vt_usage_churn(struct vt_usage *u, uint64_t stack_id, unsigned api, unsigned kind,
                    int64_t device, uint64_t pairs, uint64_t call_ns)
{
    struct vt_usage_site *s = find_site(u, stack_id, api, kind, device);
    s->pairs += pairs;
    s->call_ns += call_ns;
}

bool vt_usage_churn_large(const struct vt_usage *u, const struct vt_usage_site *s)
{
    /* the pairs of a chain: one allocation, then one again after each free */
    return s->pairs >= VT_CHURN_HINT_PAIRS && s->reallocs + 1 >= VT_CHURN_HINT_PAIRS &&
           vt_churn_sync_free(s->api) && s->call_ns * 1000 >= u->end_ns * VT_CHURN_HINT_PERMILLE;
}

void vt_usage_mark(struct vt_usage *u, uint64_t time_ns, const char *label)
{
    vt_usage_advance(u, time_ns);
    for (size_t i = 0; i < u->nsites; i++)
        push(&u->sites[i].at_marks, u->sites[i].live_bytes);
    u->marks = vt_xgrow(u->marks, u->nmarks, sizeof *u->marks);
    u->marks[u->nmarks].time_ns = time_ns;
    u->marks[u->nmarks].label = strdup(label);
    if (!u->marks[u->nmarks].label) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    u->nmarks++;
}

size_t vt_usage_boundaries(const struct vt_usage *u)
{
    return u->by_marks ? u->nmarks : u->by_allocs ? u->nalloc_ticks : u->nticks;
}

uint64_t vt_usage_boundary_ns(const struct vt_usage *u, size_t i)
{
    if (u->by_marks)
        return u->marks[i].time_ns;
    return u->by_allocs ? u->alloc_tick_ns[i] : (uint64_t)(i + 1) * u->tick_ns;
}

/* Growth by the one rule (growth_rule.h), on the boundaries after the
 * SKIP warm-up ones. */
static void judge_growth(const struct vt_usage *u, struct vt_usage_site *s)
{
    const struct vt_usage_samples *all = vt_usage_site_samples(u, s);
    size_t first = u->skip, n = all->n > first ? all->n - first : 0;
    struct vt_growth g;
    s->growing = n && vt_growth_judge(all->bytes + first, n, &g);
    if (!s->growing)
        return;
    s->growth_start = first + g.start;
    s->growth_start_ns = vt_usage_boundary_ns(u, first + g.start);
    s->growth_bytes = g.bytes;
    uint64_t rate_ns =
        vt_usage_boundary_ns(u, first + g.rate_to) - vt_usage_boundary_ns(u, first + g.rate_from);
    s->rate_intervals = g.rate_to - g.rate_from;
    s->bytes_per_interval = (int64_t)(g.rate_bytes / s->rate_intervals);
    s->rate_interval_ns = rate_ns;
    s->bytes_per_second = rate_ns ? (double)g.rate_bytes * 1e9 / (double)rate_ns : 0.0;
}

bool vt_usage_growth_judged(const struct vt_usage *u)
{
    return vt_usage_boundaries(u) >= u->skip + VT_GROWTH_MIN_BOUNDARIES;
}

bool vt_usage_growth_reliable(const struct vt_usage *u)
{
    return (u->by_marks || u->by_allocs) && vt_usage_growth_judged(u);
}

uint64_t vt_usage_growth_bytes(const struct vt_usage *u)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < u->nsites; i++)
        if (u->sites[i].growing && vt_kind_counts_as_vram(u->sites[i].kind))
            sum += u->sites[i].growth_bytes;
    return sum;
}

size_t vt_usage_growing_sites(const struct vt_usage *u)
{
    size_t n = 0;
    for (size_t i = 0; i < u->nsites; i++)
        n += u->sites[i].growing;
    return n;
}

/* A site's value at its device's peak: saved if it changed since, else now. */
static void settle_peak(struct vt_usage *u, struct vt_usage_site *s)
{
    const struct vt_usage_device *d = vt_usage_device(u, s->device);
    if (!vt_kind_counts_as_vram(s->kind) || !d)
        s->bytes_at_device_peak = 0;
    else if (s->peak_epoch_saved != d->peak_epoch)
        s->bytes_at_device_peak = s->live_bytes;
}

static int by_device(const void *pa, const void *pb)
{
    const struct vt_usage_device *a = pa, *b = pb;
    return a->device < b->device ? -1 : a->device > b->device;
}

struct repeats {
    uint64_t first, last;
};

static int by_last_desc(const void *pa, const void *pb)
{
    const struct repeats *a = pa, *b = pb;
    return a->last > b->last ? -1 : a->last < b->last;
}

/* The allocation ticks before the loop that ran at the end began, left out
 * as a warm-up: a model copied in through a staging buffer made again for
 * each part is a loop of its own, over before the steps (memory that rose
 * in it then stopped). The loop at the end: the sites repeating at the end
 * and every site whose repeated allocations overlap theirs, back to the
 * first of them. */
static size_t loop_skip(const struct vt_usage *u)
{
    if (!u->nalloc_ticks)
        return 0;
    struct repeats *r = vt_xcalloc(u->nsites ? u->nsites : 1, sizeof *r);
    size_t n = 0;
    for (size_t i = 0; i < u->nsites; i++)
        if (u->sites[i].first_repeat)
            r[n++] = (struct repeats){u->sites[i].first_repeat, u->sites[i].last_repeat};
    qsort(r, n, sizeof *r, by_last_desc);
    uint64_t start = n ? r[0].first : 1;
    for (size_t i = 1; i < n && r[i].last >= start; i++)
        start = r[i].first < start ? r[i].first : start;
    free(r);
    return (size_t)((start - 1) / u->tick_allocs);
}

void vt_usage_finish(struct vt_usage *u, uint64_t end_ns, size_t skip)
{
    vt_usage_advance(u, end_ns);
    if (u->ndevices)
        qsort(u->devices, u->ndevices, sizeof *u->devices, by_device);
    u->by_marks = u->nmarks > 0;
    size_t loop = u->nalloc_ticks - loop_skip(u); /* ticks of the loop at the end */
    u->by_allocs = !u->by_marks && loop >= VT_USAGE_MIN_ALLOC_TICKS;
    u->skip = u->by_marks ? skip : u->by_allocs ? u->nalloc_ticks - loop : 0;
    for (size_t i = 0; i < u->nsites; i++) {
        if (!u->sites[i].holds_tensors)
            judge_growth(u, &u->sites[i]);
        settle_peak(u, &u->sites[i]);
    }
}

void vt_usage_free(struct vt_usage *u)
{
    struct vt_usage_site_entry *e, *tmp;
    HASH_ITER(hh, u->index, e, tmp) {
        HASH_DEL(u->index, e);
        free(e);
    }
    for (size_t i = 0; i < u->nsites; i++) {
        free(u->sites[i].at_marks.bytes);
        free(u->sites[i].at_ticks.bytes);
        free(u->sites[i].at_allocs.bytes);
    }
    for (size_t i = 0; i < u->ndevices; i++) {
        free(u->devices[i].bin_max.bytes);
        free(u->devices[i].bin_last.bytes);
    }
    for (size_t i = 0; i < u->nmarks; i++)
        free(u->marks[i].label);
    free(u->sites);
    free(u->devices);
    free(u->marks);
    free(u->alloc_tick_ns);
    memset(u, 0, sizeof *u);
}

static const struct vt_usage *sort_usage; /* qsort has no context argument */
static bool sort_at_peak;

static uint64_t held(const struct vt_usage_site *s, bool at_peak)
{
    return at_peak ? s->bytes_at_device_peak : s->live_bytes;
}

static int by_held_desc(const void *pa, const void *pb)
{
    const struct vt_usage_site *a = &sort_usage->sites[*(const size_t *)pa];
    const struct vt_usage_site *b = &sort_usage->sites[*(const size_t *)pb];
    uint64_t ha = held(a, sort_at_peak), hb = held(b, sort_at_peak);
    if (ha != hb)
        return ha > hb ? -1 : 1;
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

static uint64_t held_when(const struct vt_usage *u, const struct vt_usage_site *s,
                          enum vt_usage_when when)
{
    if (when == VT_USAGE_AT_SCRIPT_END && u->script_ended)
        return s->bytes_at_script_end;
    return held(s, when == VT_USAGE_AT_PEAK);
}

struct vt_usage_cache vt_usage_cache(const struct vt_usage *u, int64_t device,
                                     enum vt_usage_when when)
{
    struct vt_usage_cache c = {0};
    for (size_t i = 0; i < u->nsites; i++) {
        const struct vt_usage_site *s = &u->sites[i];
        if (s->device != device || !vt_kind_counts_as_vram(s->kind))
            continue;
        if (s->holds_tensors) {
            c.reserved += held_when(u, s, when);
        } else if (vt_api_in_segment(s->api)) {
            c.in_tensors += held_when(u, s, when);
            c.torch |= s->api == VT_API_torchTensorAlloc;
            c.nvtx |= s->api == VT_API_nvtxMemRegionsRegister;
        }
    }
    c.free = c.reserved > c.in_tensors ? c.reserved - c.in_tensors : 0;
    return c;
}

/* The user's view: a framework's tensors at their lines, not the segments
 * that hold them. */
bool vt_usage_is_holder(const struct vt_usage_site *s)
{
    return vt_kind_counts_as_vram(s->kind) && !s->holds_tensors;
}

size_t vt_usage_holders(const struct vt_usage *u, int64_t device, bool at_peak, size_t *out,
                        size_t max)
{
    size_t n = 0, *all = vt_xrealloc(NULL, u->nsites, sizeof *all);
    for (size_t i = 0; i < u->nsites; i++) {
        const struct vt_usage_site *s = &u->sites[i];
        if (s->device == device && vt_usage_is_holder(s) && held(s, at_peak))
            all[n++] = i;
    }
    sort_usage = u;
    sort_at_peak = at_peak;
    qsort(all, n, sizeof *all, by_held_desc);
    n = n < max ? n : max;
    memcpy(out, all, n * sizeof *out);
    free(all);
    return n;
}

static int by_report_order(const void *pa, const void *pb)
{
    const struct vt_usage_site *a = &sort_usage->sites[*(const size_t *)pa];
    const struct vt_usage_site *b = &sort_usage->sites[*(const size_t *)pb];
    if (a->growing != b->growing)
        return a->growing ? -1 : 1;
    if (a->growing && a->bytes_per_interval != b->bytes_per_interval)
        return a->bytes_per_interval > b->bytes_per_interval ? -1 : 1;
    if (a->live_bytes != b->live_bytes)
        return a->live_bytes > b->live_bytes ? -1 : 1;
    if (a->peak_live_bytes != b->peak_live_bytes)
        return a->peak_live_bytes > b->peak_live_bytes ? -1 : 1;
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

void vt_usage_report_order(const struct vt_usage *u, size_t *out)
{
    for (size_t i = 0; i < u->nsites; i++)
        out[i] = i;
    sort_usage = u;
    if (u->nsites)
        qsort(out, u->nsites, sizeof *out, by_report_order);
}
