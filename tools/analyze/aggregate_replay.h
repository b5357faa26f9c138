/* Replaying an aggregate-mode dump (no ALLOC/FREE records): each SAMPLE
 * moves the sites' live bytes in the usage series, SITES sets the exit
 * totals (leaks exact), TOTALS the exact peaks and free counts. */
#ifndef VT_AGGREGATE_REPLAY_H
#define VT_AGGREGATE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump_reader.h"

struct vt_analysis;
struct vt_agg_site_entry;   /* internal: site lookup */

struct vt_aggregate {
    struct vt_site_state *sites;   /* last known state of each site */
    size_t nsites;
    struct vt_agg_site_entry *index;
    size_t samples;
    uint64_t last_sample_ns;
    bool footer;                   /* SITES read: the exit totals */
    bool totals;                   /* TOTALS read: exact peaks */
    struct vt_device_bytes *peaks; /* from TOTALS */
    size_t npeaks;
};

void vt_aggregate_sample(void *analysis, const struct vt_sample_event *ev);
void vt_aggregate_sites(void *analysis, const struct vt_sites_event *ev);
void vt_aggregate_totals(void *analysis, const struct vt_totals_event *ev);

/* After the usage series is finished: each device's exact peak, with the
 * holders of the sample that held the most (vt_usage_device.holders_*). */
void vt_aggregate_finish(struct vt_analysis *a);
void vt_aggregate_free(struct vt_aggregate *g);

#endif
