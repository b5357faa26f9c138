/* SPDX-License-Identifier: MIT */
#include "aggregate_replay.h"

#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "xalloc.h"

struct vt_agg_site_entry {
    struct vt_site_key key;
    size_t index;
    UT_hash_handle hh;
};

static struct vt_site_state *find_site(struct vt_aggregate *g, const struct vt_site_state *s)
{
    struct vt_site_key key = vt_site_key(s->stack_id, s->api, s->kind, s->device);
    struct vt_agg_site_entry *e;
    HASH_FIND(hh, g->index, &key, sizeof key, e);
    if (e)
        return &g->sites[e->index];
    e = vt_xcalloc(1, sizeof *e);
    e->key = key;
    e->index = g->nsites;
    HASH_ADD(hh, g->index, key, sizeof e->key, e);
    g->sites = vt_xgrow(g->sites, g->nsites, sizeof *g->sites);
    g->sites[g->nsites] = (struct vt_site_state){
        .stack_id = s->stack_id, .api = s->api, .kind = s->kind, .device = s->device};
    return &g->sites[g->nsites++];
}

/* Moves each listed site to its new live bytes at TIME_NS: falls first,
 * rises after, so a device's total never passes what it really held. Sites
 * are kept by the tracer's stacks (their values are absolute), their usage
 * counted under the stack their call site is known by. */
static void apply(const struct vt_aggregate_target *t, uint64_t time_ns,
                  const struct vt_site_state *sites, size_t n)
{
    for (int rising = 0; rising < 2; rising++)
        for (size_t i = 0; i < n; i++) {
            const struct vt_site_state *s = &sites[i];
            struct vt_site_state *known = find_site(t->agg, s);
            int64_t delta = (int64_t)(s->live_bytes - known->live_bytes);
            if ((delta > 0) != rising)
                continue;
            uint64_t stack_id =
                t->site_stack ? t->site_stack(t->site_stack_ctx, s->stack_id) : s->stack_id;
            vt_usage_change(t->usage, time_ns, stack_id, s->api, s->kind, s->device, delta);
            if (vt_kind_counts_as_vram(s->kind) && !vt_api_in_segment(s->api))
                *t->live_bytes += (uint64_t)delta;
            known->live_bytes = s->live_bytes;
            known->live_count = s->live_count;
        }
}

void vt_aggregate_sample(const struct vt_aggregate_target *t, const struct vt_sample_event *ev)
{
    t->summary->allocations = ev->allocations;
    t->summary->frees = ev->frees;
    apply(t, ev->time_ns, ev->sites, ev->nsites);
    t->agg->samples++;
    t->agg->last_sample_ns = ev->time_ns;
}

void vt_aggregate_sites(const struct vt_aggregate_target *t, const struct vt_sites_event *ev)
{
    apply(t, ev->time_ns, ev->sites, ev->nsites);
    t->summary->allocations = t->summary->frees = 0;
    for (size_t i = 0; i < ev->nsites; i++) {
        struct vt_site_state *known = find_site(t->agg, &ev->sites[i]);
        *known = ev->sites[i];
        t->summary->allocations += known->allocations;
        t->summary->frees += known->frees;
    }
    t->agg->footer = true;
}

void vt_aggregate_totals(const struct vt_aggregate_target *t, const struct vt_totals_event *ev)
{
    vt_usage_advance(t->usage, ev->time_ns);
    t->summary->invalid_frees = ev->invalid_frees;
    t->summary->untraced_frees = ev->untraced_frees;
    t->summary->teardown_freed_allocations = ev->teardown_allocations;
    t->summary->teardown_freed_bytes = ev->teardown_bytes;
    free(t->agg->peaks);
    t->agg->peaks = vt_xcalloc(ev->ndevices, sizeof *t->agg->peaks);
    memcpy(t->agg->peaks, ev->devices, ev->ndevices * sizeof *ev->devices);
    t->agg->npeaks = ev->ndevices;
    t->agg->totals = true;
}

void vt_aggregate_finish(const struct vt_aggregate *g, struct vt_usage *u)
{
    for (size_t i = 0; i < u->ndevices; i++) {
        struct vt_usage_device *d = &u->devices[i];
        d->holders_approx = true;
        d->holders_time_ns = d->peak_time_ns;
        d->holders_bytes = d->peak_bytes;
        for (size_t p = 0; p < g->npeaks; p++)
            if (g->peaks[p].device == d->device) {
                d->peak_bytes = g->peaks[p].bytes;
                d->peak_time_ns = g->peaks[p].time_ns;
            }
    }
}

void vt_aggregate_free(struct vt_aggregate *g)
{
    struct vt_agg_site_entry *e, *tmp;
    HASH_ITER(hh, g->index, e, tmp) {
        HASH_DEL(g->index, e);
        free(e);
    }
    free(g->sites);
    free(g->peaks);
    memset(g, 0, sizeof *g);
}
