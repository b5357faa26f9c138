/* Aggregate mode (VRAMTRACE_MODE=aggregate), for runs too long to record
 * every event: per-call-site counts and live bytes kept in memory (O(sites)),
 * written as SAMPLE records at doubling intervals and as SITES and TOTALS at
 * exit, instead of one ALLOC or FREE record per call. The live table in
 * track.c still matches frees to allocations and calls these hooks. All
 * calls except vt_agg_configure with the tracer lock held. */
#ifndef VRAMTRACE_AGGREGATE_H
#define VRAMTRACE_AGGREGATE_H

#include "track.h"

#include <stdint.h>

/* Reads VRAMTRACE_MODE and VRAMTRACE_SAMPLE_INTERVAL_MS (once, at start). */
void vt_agg_configure(void);

/* 1 in aggregate mode; set once, before the first event. */
extern int vt_agg_mode;
static inline int vt_agg_enabled(void)
{
    return vt_agg_mode;
}

/* An allocation entered or left the live table. */
void vt_agg_insert(const struct vt_alloc_info *info, uint32_t stack);
void vt_agg_discard(const struct vt_alloc_info *info, uint32_t stack);

/* In place of the ALLOC and FREE records (same flags and status, TIME_NS as
 * theirs). INFO is NULL for a free of nothing traced. Return 0, or -1 when
 * tracing must stop (said on stderr). */
int vt_agg_alloc(const struct vt_alloc_info *info, uint32_t stack, unsigned kind_flags,
                 uint64_t time_ns);
int vt_agg_free(const struct vt_alloc_info *info, uint32_t stack, unsigned status_flags,
                uint64_t time_ns);

/* Live device + managed bytes on DEVICE now. */
uint64_t vt_agg_device_live(int device);

/* A SAMPLE now, when anything changed since the last one (before a MARK,
 * so growth between markers is exact). Async-signal-safe. */
int vt_agg_sample_now(void);

/* At exit and from the fatal-signal handler: SITES and TOTALS, before END.
 * Async-signal-safe. */
void vt_agg_finish(void);

/* Forked child: start over, empty. */
void vt_agg_reset(void);

#endif
