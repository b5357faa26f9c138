/* SPDX-License-Identifier: MIT */
/* `vramtrace watch` as a metrics exporter: the traced processes whose
 * dumps are named (or found in directories, looked at again each refresh)
 * followed at once, their metrics exposition printed, written atomically to
 * a file (node_exporter's textfile collector) and/or served on /metrics. */
#ifndef VT_WATCH_METRICS_H
#define VT_WATCH_METRICS_H

#include <stdbool.h>
#include <stddef.h>

struct vt_watch_metrics {
    double interval;    /* seconds between refreshes */
    size_t top;         /* call sites per process */
    size_t skip;        /* warm-up markers left out of growth */
    bool once;          /* one exposition, then exit */
    bool print;         /* each exposition on stdout */
    const char *file;   /* or NULL: rewritten each refresh */
    const char *listen; /* or NULL: ADDR:PORT served */
};

/* TARGETS: PIDs, dumps, directories (none: the working directory). Runs
 * until every process has ended when it only prints, else until SIGINT or
 * SIGTERM. Returns the exit status (1 after one line on stderr when a
 * named dump cannot be read, the file not written or the port not had). */
int vt_watch_metrics(const struct vt_watch_metrics *o, char *const *targets, size_t ntargets);

#endif
