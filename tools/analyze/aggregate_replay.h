/* SPDX-License-Identifier: MIT */
/* Replaying an aggregate-mode dump (no ALLOC/FREE records): each SAMPLE
 * moves the sites' live bytes in the usage series, SITES sets the exit
 * totals (leaks exact), TOTALS the exact peaks and free counts. */
#ifndef VT_AGGREGATE_REPLAY_H
#define VT_AGGREGATE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump_reader.h"
#include "summary.h"
#include "usage_series.h"

struct vt_agg_site_entry; /* internal: site lookup */

struct vt_aggregate {
    struct vt_site_state *sites; /* last known state of each site */
    size_t nsites;
    struct vt_agg_site_entry *index;
    size_t samples;
    uint64_t last_sample_ns;
    bool footer;                   /* SITES read: the exit totals */
    bool totals;                   /* TOTALS read: exact peaks */
    struct vt_device_bytes *peaks; /* from TOTALS */
    size_t npeaks;
};

/* What the records move: the replay's counters (analysis.c passes its own). */
struct vt_aggregate_target {
    struct vt_aggregate *agg;
    struct vt_summary *summary;
    struct vt_usage *usage;
    uint64_t *live_bytes; /* device + managed */
    /* the stack a site's usage is counted under (vt_analysis.site_stack) */
    uint64_t (*site_stack)(void *ctx, uint64_t stack_id);
    void *site_stack_ctx;
};

void vt_aggregate_sample(const struct vt_aggregate_target *t, const struct vt_sample_event *ev);
void vt_aggregate_sites(const struct vt_aggregate_target *t, const struct vt_sites_event *ev);
void vt_aggregate_totals(const struct vt_aggregate_target *t, const struct vt_totals_event *ev);

/* After the usage series U is finished: each device's exact peak, with the
 * holders of the sample that held the most (vt_usage_device.holders_*). */
void vt_aggregate_finish(const struct vt_aggregate *g, struct vt_usage *u);
void vt_aggregate_free(struct vt_aggregate *g);

#endif
