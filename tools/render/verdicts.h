/* SPDX-License-Identifier: MIT */
/* The sentences that judge a dump, shared by every view (verdicts.c): each
 * says only what its evidence can tell. */
#ifndef VT_VERDICTS_H
#define VT_VERDICTS_H

#include <stddef.h>

struct vt_report;

/* How to add markers, for a verdict that needs them. */
#define VT_MARKER_HINT "mark each step with vramtrace_mark() or `kill -USR2 PID`"

/* The hint for a site whose allocate/free pairs cost much
 * (vt_usage_churn_large), worded for its allocating API: "each
 * cudaMalloc/cudaFree pair synchronizes the device: ..." into BUF. */
const char *vt_churn_hint(unsigned api, char *buf, size_t len);

/* What growth was judged on and what it found, without "vramtrace: ":
 * "growth judged on 10 markers (0 skipped as warm-up): 1 call site growing";
 * "growth judged on 58 ticks of 1 repeated allocation each (no markers):
 * nothing grows"; on time ticks never "nothing grows" (they mix steps). */
void vt_growth_verdict(const struct vt_report *r, char *buf, size_t len);

/* Leak sites still holding several allocations at exit (one never freed
 * again and again): evidence of growth that needs no markers. */
size_t vt_repeated_leak_sites(const struct vt_report *r, unsigned long long *allocations);

#endif
