/* SPDX-License-Identifier: MIT */
/* Aggregate mode (VRAMTRACE_MODE=aggregate), for runs too long to record
 * every event: per-call-site counts and live bytes kept in memory (O(sites)),
 * written as SAMPLE records at doubling intervals and as SITES and TOTALS at
 * exit, instead of one ALLOC or FREE record per call. The live table in
 * track.c still matches frees to allocations and calls this output
 * (output.h) with the tracer lock held. */
#ifndef VRAMTRACE_AGGREGATE_H
#define VRAMTRACE_AGGREGATE_H

#include "output.h"

/* Reads VRAMTRACE_MODE and VRAMTRACE_SAMPLE_INTERVAL_MS (once, at start):
 * 1 when aggregate mode is asked for. */
int vt_agg_configure(void);

extern const struct vt_output vt_output_aggregate;

/* Forked child: start over, empty. */
void vt_agg_reset(void);

#endif
