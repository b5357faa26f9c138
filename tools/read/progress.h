/* SPDX-License-Identifier: MIT */
/* A progress line on stderr while a large dump is read: shown only when
 * stderr is a terminal and the work has taken more than a second
 * (VRAMTRACE_PROGRESS_DELAY seconds). */
#ifndef VT_PROGRESS_H
#define VT_PROGRESS_H

#include <stddef.h>

struct vt_progress {
    const char *what;
    size_t total;
    double start, last_shown, delay;
    unsigned calls;
    int enabled, shown;
};

void vt_progress_start(struct vt_progress *p, const char *what, size_t total);
/* Cheap to call per record: looks at the clock once every few thousand calls. */
void vt_progress_update(struct vt_progress *p, size_t done);
void vt_progress_end(struct vt_progress *p);

#endif
