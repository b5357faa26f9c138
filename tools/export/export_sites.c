/* SPDX-License-Identifier: MIT */
/* The per-site values of an export: what the report's replay knows (live
 * and peak bytes per site) plus allocations counted over the whole run. */
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "export.h"
#include "format.h"
#include "xalloc.h"

struct vt_alloc_tally {
    struct vt_site_key key;
    uint64_t bytes, count;
    UT_hash_handle hh;
};

static void add_tally(struct vt_alloc_tally **table, struct vt_site_key key, uint64_t bytes,
                      uint64_t count)
{
    struct vt_alloc_tally *t;
    HASH_FIND(hh, *table, &key, sizeof key, t);
    if (!t) {
        t = vt_xcalloc(1, sizeof *t);
        t->key = key;
        HASH_ADD(hh, *table, key, sizeof t->key, t);
    }
    t->bytes += bytes;
    t->count += count;
}

/* Counted under the stack the report knows the call site by. */
static void tally_alloc(void *ctx, const struct vt_dump_alloc *ev)
{
    struct vt_export *e = ctx;
    if (ev->flags & VT_ALLOC_RESTORED) /* a failed free put it back: not a new allocation */
        return;
    uint64_t stack_id = vt_analysis_site_stack(&e->loaded.analysis, ev->stack_id);
    add_tally(&e->tally, vt_site_key(stack_id, ev->api, ev->kind, ev->device), ev->size, 1);
}

/* Aggregate mode: the totals at exit say it all at once. */
static void tally_sites(void *ctx, const struct vt_sites_event *ev)
{
    struct vt_export *e = ctx;
    for (size_t i = 0; i < ev->nsites; i++) {
        const struct vt_site_state *s = &ev->sites[i];
        uint64_t stack_id = vt_analysis_site_stack(&e->loaded.analysis, s->stack_id);
        add_tally(&e->tally, vt_site_key(stack_id, s->api, s->kind, s->device), s->bytes_allocated,
                  s->allocations);
    }
}

static const struct vt_event_sink tally_sink = {.alloc = tally_alloc, .sites = tally_sites};

static void free_tally(struct vt_alloc_tally **table)
{
    struct vt_alloc_tally *t, *tmp;
    HASH_ITER(hh, *table, t, tmp) {
        HASH_DEL(*table, t);
        free(t);
    }
}

static uint64_t leaked_allocations(const struct vt_analysis *a, const struct vt_usage_site *s)
{
    for (size_t i = 0; i < a->nleaks; i++) {
        const struct vt_leak *l = &a->leaks[i];
        if (l->stack_id == s->stack_id && l->api == s->api && l->kind == s->kind &&
            l->device == s->device)
            return l->allocations;
    }
    return 0;
}

int vt_export_load(const char *path, struct vt_export *e)
{
    memset(e, 0, sizeof *e);
    struct vt_report_options opts = {.tap = &tally_sink, .tap_ctx = e};
    if (vt_report_load(path, &opts, &e->loaded) != 0) {
        free_tally(&e->tally);
        return -1;
    }
    const struct vt_report *r = &e->loaded.report;
    const struct vt_usage *u = &e->loaded.analysis.usage;
    e->nsites = u->nsites;
    e->sites = vt_xcalloc(e->nsites, sizeof *e->sites);
    for (size_t i = 0; i < e->nsites; i++) {
        size_t index = r->site_order[i];
        const struct vt_usage_site *s = &u->sites[index];
        struct vt_site_key key = vt_site_key(s->stack_id, s->api, s->kind, s->device);
        struct vt_alloc_tally *t;
        HASH_FIND(hh, e->tally, &key, sizeof key, t);
        e->sites[i] = (struct vt_export_site){.usage = s,
                                              .site = &r->usage_sites[index],
                                              .leaked_allocations =
                                                  leaked_allocations(&e->loaded.analysis, s),
                                              .allocated_bytes = t ? t->bytes : 0,
                                              .allocations = t ? t->count : 0};
    }
    return 0;
}

void vt_export_unload(struct vt_export *e)
{
    free_tally(&e->tally);
    free(e->sites);
    vt_report_unload(&e->loaded);
    memset(e, 0, sizeof *e);
}

uint64_t vt_export_value(const struct vt_export_site *s, enum vt_export_what what)
{
    switch (what) {
    case VT_WHAT_PEAK:
        return s->usage->bytes_at_device_peak;
    case VT_WHAT_ALLOCATED:
        return s->allocated_bytes;
    default:
        return s->usage->live_bytes;
    }
}
