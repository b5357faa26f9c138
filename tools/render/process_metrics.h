/* SPDX-License-Identifier: MIT */
/* What the metrics exposition of `vramtrace watch` says of one traced
 * process: taken from its report (the same values `report --json` prints),
 * kept as plain values so that a process that has ended is read once and
 * exported as it ended. Rendered family by family for several processes. */
#ifndef VT_PROCESS_METRICS_H
#define VT_PROCESS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

struct vt_metrics_device {
    char device[24];         /* "0", or "unknown" */
    char uuid[VT_UUID_TEXT]; /* "" when the dump has none */
    uint64_t live_bytes, peak_bytes;
};

/* The call sites of one label (first user frame), API and device, summed. */
struct vt_metrics_site {
    char *site; /* "function file:line" */
    const char *api;
    struct vt_metrics_device where; /* only device and uuid are set */
    uint64_t live_bytes;
    double growth_bytes_per_second;
};

/* The counters of a process. */
enum vt_metrics_count {
    VT_METRICS_ALLOCATIONS,
    VT_METRICS_FREES,
    VT_METRICS_FAILED_ALLOCATIONS,
    VT_METRICS_INVALID_FREES,
    VT_METRICS_COUNTS
};

struct vt_metrics_process {
    char *host, *process, *rank, *job; /* "" when unknown */
    char pid[24];
    bool running;
    uint64_t counts[VT_METRICS_COUNTS];
    struct vt_metrics_device *devices;
    size_t ndevices;
    struct vt_metrics_site *sites; /* at most the top asked, most live bytes first */
    size_t nsites;
};

/* P from report R: its devices, counts and the TOP sites by live bytes (0:
 * none). JOB may be NULL. */
void vt_metrics_from_report(const struct vt_report *r, bool running, const char *job, size_t top,
                            struct vt_metrics_process *p);
void vt_metrics_free(struct vt_metrics_process *p);

/* The exposition of N processes (none: the families without samples). */
void vt_metrics_render(const struct vt_metrics_process *p, size_t n, FILE *out);

#endif
