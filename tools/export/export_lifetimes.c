/* SPDX-License-Identifier: MIT */
/* Allocation lifetimes for the Chrome/Perfetto export: one slice per
 * allocation (events mode) or per stretch of time a call site holds memory
 * (aggregate mode), from allocation to free, on tracks named after the
 * device and call site.
 *
 * Perfetto's JSON importer wants the slices of one thread track to nest, and
 * allocations of one site overlap without nesting: each site gets as many
 * tracks (lanes, one "tid" each) as it has allocations live at once, and an
 * allocation takes the lowest free lane, so the slices of a lane never
 * overlap. A freed allocation is a complete event ("X", ts + dur). One still
 * held when the dump ends is a "B" event without its "E": the trace
 * processor keeps it as a slice that did not end (dur -1), which the UI draws
 * to the end of the trace; its args say "leaked" (the process ended on its
 * own) or only "live_at_end" (killed, still running); an allocation made
 * inside an NVTX range says which in "phase". */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export_lifetimes.h"
#include "xalloc.h"

struct site {
    struct vt_site_key key;
    char name[512];      /* "function (file:line)" */
    uint64_t *lane_tids; /* the tid of each lane (0: not named yet) */
    bool *busy;
    size_t nlanes;
    /* aggregate mode: held since (valid when held) */
    bool held;
    uint64_t held_since_ns, held_bytes, held_count;
    UT_hash_handle hh;
};

struct live_key {
    uint64_t address, is_handle;
};

struct live {
    struct live_key key;
    struct site *site;
    size_t lane;
    uint64_t start_ns, size, stream, phase;
    UT_hash_handle hh;
};

struct lifetimes {
    struct vt_chrome_trace *t;
    const struct vt_export *e;
    struct site *sites;
    struct live *live;
    uint64_t next_tid;
};

static const char *base(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

static void name_site(struct lifetimes *l, struct site *s)
{
    struct vt_site frames;
    vt_site_frames(l->e->loaded.sym, &l->e->loaded.dump, s->key.stack_id, (unsigned)s->key.api,
                   &frames);
    const struct vt_frame *f = frames.nframes ? frames.frames[0] : NULL;
    if (!f)
        snprintf(s->name, sizeof s->name, "%s (no stack)", vt_api_label(frames.api));
    else if (f->file)
        snprintf(s->name, sizeof s->name, "%s (%s:%u)", f->function ? f->function : "??",
                 base(f->file), f->line);
    else
        snprintf(s->name, sizeof s->name, "%s (%s+0x%" PRIx64 ")", f->function ? f->function : "??",
                 f->module ? base(f->module) : "?", f->offset);
    vt_site_free(&frames);
}

/* By the stack the report knows the call site by. */
static struct site *site_of(struct lifetimes *l, uint64_t stack_id, unsigned api, unsigned kind,
                            int64_t device)
{
    struct vt_site_key k =
        vt_site_key(vt_analysis_site_stack(&l->e->loaded.analysis, stack_id), api, kind, device);
    struct site *s;
    HASH_FIND(hh, l->sites, &k, sizeof k, s);
    if (s)
        return s;
    s = vt_xcalloc(1, sizeof *s);
    s->key = k;
    name_site(l, s);
    HASH_ADD(hh, l->sites, key, sizeof s->key, s);
    return s;
}

/* The lane's track: named on first use ("device 0 · f (file:line) #2"). */
static uint64_t lane_tid(struct lifetimes *l, struct site *s, size_t lane)
{
    char name[600], device[32];
    if (s->lane_tids[lane])
        return s->lane_tids[lane];
    s->lane_tids[lane] = l->next_tid++;
    if (s->key.device < 0)
        snprintf(device, sizeof device, "unknown device");
    else
        snprintf(device, sizeof device, "device %" PRId64, s->key.device);
    snprintf(name, sizeof name, "%s%s: %s #%zu", device,
             s->key.kind == VT_KIND_HOST ? " (host)" : "", s->name, lane + 1);
    vt_chrome_thread_name(l->t, s->lane_tids[lane], name);
    return s->lane_tids[lane];
}

static size_t take_lane(struct site *s)
{
    size_t lane = 0;
    while (lane < s->nlanes && s->busy[lane])
        lane++;
    if (lane == s->nlanes) {
        s->nlanes++;
        s->busy = vt_xrealloc(s->busy, s->nlanes, sizeof *s->busy);
        s->lane_tids = vt_xrealloc(s->lane_tids, s->nlanes, sizeof *s->lane_tids);
        s->lane_tids[lane] = 0;
    }
    s->busy[lane] = true;
    return lane;
}

/* The args of a slice; PHASE: the NVTX range its allocation was made in
 * (events mode; 0: none or aggregate). */
static void slice_args(struct lifetimes *l, uint64_t bytes, uint64_t count, uint64_t address,
                       unsigned api, uint64_t phase, bool ended)
{
    struct vt_json *j = &l->t->j;
    vt_json_key(j, "args");
    vt_json_begin_object(j);
    vt_json_key(j, "bytes");
    vt_json_uint(j, bytes);
    if (count) {
        vt_json_key(j, "allocations");
        vt_json_uint(j, count);
    } else {
        char hex[32];
        snprintf(hex, sizeof hex, "0x%" PRIx64, address);
        vt_json_key(j, "address");
        vt_json_string(j, hex);
    }
    vt_json_key(j, "api");
    vt_json_string(j, vt_api_label(api));
    const char *name = vt_dump_phase_name(&l->e->loaded.dump, phase);
    if (name) {
        vt_json_key(j, "phase");
        vt_json_string(j, name);
    }
    if (!ended) {
        vt_json_key(j, l->e->loaded.report.live_not_leaked ? "live_at_end" : "leaked");
        vt_json_bool(j, true);
    }
    vt_json_end_object(j);
}

/* A slice from START_NS; ended (X, to END_NS) or not (a B without E). */
static void slice(struct lifetimes *l, struct site *s, size_t lane, uint64_t start_ns,
                  const uint64_t *end_ns, uint64_t bytes, uint64_t count, uint64_t address,
                  uint64_t phase)
{
    uint64_t tid = lane_tid(l, s, lane);
    struct vt_json *j = &l->t->j;
    vt_chrome_begin_event(l->t, s->name, end_ns ? "X" : "B", tid, start_ns);
    vt_json_key(j, "cat");
    vt_json_string(j, "allocation");
    if (end_ns) {
        vt_json_key(j, "dur");
        vt_json_ns_as_us(j, *end_ns - start_ns);
    }
    slice_args(l, bytes, count, address, (unsigned)s->key.api, phase, end_ns != NULL);
    vt_json_end_object(j);
}

static void end_live(struct lifetimes *l, struct live *a, const uint64_t *end_ns)
{
    slice(l, a->site, a->lane, a->start_ns, end_ns, a->size, 0, a->key.address, a->phase);
    a->site->busy[a->lane] = false;
    HASH_DEL(l->live, a);
    free(a);
}

static void on_alloc(void *ctx, const struct vt_dump_alloc *ev)
{
    struct lifetimes *l = ctx;
    struct live_key k = {ev->address, (ev->flags & VT_ADDR_HANDLE) != 0};
    struct live *a;
    HASH_FIND(hh, l->live, &k, sizeof k, a);
    if (a) /* a free the tracer never saw: the newer allocation wins */
        end_live(l, a, &ev->time_ns);
    a = vt_xcalloc(1, sizeof *a);
    a->key = k;
    a->site = site_of(l, ev->stack_id, ev->api, ev->kind, ev->device);
    a->lane = take_lane(a->site);
    a->start_ns = ev->time_ns;
    a->size = ev->size;
    a->phase = ev->phase;
    HASH_ADD(hh, l->live, key, sizeof a->key, a);
}

static void on_free(void *ctx, const struct vt_free_event *ev)
{
    struct lifetimes *l = ctx;
    struct live_key k = {ev->address, (ev->flags & VT_ADDR_HANDLE) != 0};
    struct live *a;
    if (ev->status != VT_FREE_OK && ev->status != VT_FREE_TEARDOWN)
        return;
    HASH_FIND(hh, l->live, &k, sizeof k, a);
    if (a)
        end_live(l, a, &ev->time_ns);
}

/* A failed allocation has no lifetime (the chrome export marks it apart). */
static void on_failed(void *ctx, const struct vt_failed_event *ev)
{
    (void)ctx, (void)ev;
}

/* Aggregate mode: a site's stretch starts when a sample first shows it
 * holding memory and ends at the sample (or the exit totals) where it holds
 * none; the slice shows the most it held. */
static void site_state(struct lifetimes *l, const struct vt_site_state *st, uint64_t time_ns)
{
    struct site *s = site_of(l, st->stack_id, st->api, st->kind, st->device);
    if (!s->held && st->live_bytes) {
        s->held = true;
        s->held_since_ns = time_ns;
        s->held_bytes = 0;
        (void)take_lane(s); /* lane 0: the stretches of a site never overlap */
    }
    if (!s->held)
        return;
    if (st->live_bytes > s->held_bytes)
        s->held_bytes = st->live_bytes, s->held_count = st->live_count;
    if (!st->live_bytes) {
        slice(l, s, 0, s->held_since_ns, &time_ns, s->held_bytes, s->held_count, 0, 0);
        s->held = s->busy[0] = false;
    }
}

static void on_sample(void *ctx, const struct vt_sample_event *ev)
{
    for (size_t i = 0; i < ev->nsites; i++)
        site_state(ctx, &ev->sites[i], ev->time_ns);
}

static void on_sites(void *ctx, const struct vt_sites_event *ev)
{
    for (size_t i = 0; i < ev->nsites; i++)
        site_state(ctx, &ev->sites[i], ev->time_ns);
}

static const struct vt_event_sink lifetimes_sink = {.alloc = on_alloc,
                                                    .free = on_free,
                                                    .failed = on_failed,
                                                    .sample = on_sample,
                                                    .sites = on_sites};

static void free_lifetimes(struct lifetimes *l)
{
    struct site *s, *stmp;
    struct live *a, *atmp;
    HASH_ITER(hh, l->live, a, atmp) {
        HASH_DEL(l->live, a);
        free(a);
    }
    HASH_ITER(hh, l->sites, s, stmp) {
        HASH_DEL(l->sites, s);
        free(s->lane_tids);
        free(s->busy);
        free(s);
    }
}

int vt_chrome_lifetimes(struct vt_chrome_trace *t, const struct vt_export *e, uint64_t first_tid)
{
    struct lifetimes l = {.t = t, .e = e, .next_tid = first_tid};
    struct vt_dump again;
    int status = vt_dump_reread(e->loaded.dump.path, &lifetimes_sink, &l, &again);
    vt_dump_free(&again);
    if (status == 0) {
        struct live *a, *atmp;
        struct site *s, *stmp;
        HASH_ITER(hh, l.live, a, atmp) /* still held: slices that never end */
            end_live(&l, a, NULL);
        HASH_ITER(hh, l.sites, s, stmp)
            if (s->held)
                slice(&l, s, 0, s->held_since_ns, NULL, s->held_bytes, s->held_count, 0, 0);
    }
    free_lifetimes(&l);
    return status;
}
