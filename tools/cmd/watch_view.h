/* SPDX-License-Identifier: MIT */
/* What `vramtrace watch` prints of a report of the dump so far: the
 * terminal view (refreshed in place), the plain line per refresh (stdout is
 * not a terminal), and the verdict when the process has ended. */
#ifndef VT_WATCH_VIEW_H
#define VT_WATCH_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "report.h"

struct vt_watch_look {
    bool running;
    bool terminal;          /* refreshed in place: clear each line's rest */
    size_t top;             /* call sites shown */
    unsigned columns, rows; /* the terminal's size; lines are cut to fit */
};

/* Symbolizes the TOP sites holding the most now (before a forked refresh:
 * what the symbolizer learns here, every refresh keeps). */
void vt_watch_warm(struct vt_symbolizer *sym, const struct vt_dump *dump, const struct vt_usage *u,
                   size_t top);
/* The view; returns how many lines it printed. */
unsigned vt_watch_view(const struct vt_report *r, const struct vt_watch_look *look, FILE *out);
/* One line: time, state, per device live and peak bytes, failed
 * allocations, the top call site (bytes exact, for logs and scripts). */
void vt_watch_line(const struct vt_report *r, bool running, FILE *out);
/* How the process ended and what it leaked, one line. */
void vt_watch_verdict(const struct vt_report *r, FILE *out);

#endif
