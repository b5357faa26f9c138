/* SPDX-License-Identifier: MIT */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define CHECK_EVERY 4096
#define DEFAULT_DELAY 1.0
#define REFRESH 0.2 /* seconds between updates */

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* VRAMTRACE_PROGRESS_DELAY: seconds before the line appears (default 1). */
static double delay_seconds(void)
{
    const char *text = getenv("VRAMTRACE_PROGRESS_DELAY");
    char *end;
    double delay = text && *text ? strtod(text, &end) : DEFAULT_DELAY;
    return text && *text && (*end || delay < 0) ? DEFAULT_DELAY : delay;
}

void vt_progress_start(struct vt_progress *p, const char *what, size_t total)
{
    *p = (struct vt_progress){.what = what, .total = total};
    p->enabled = isatty(STDERR_FILENO);
    p->delay = delay_seconds();
    p->start = seconds_now();
    p->last_shown = p->start - REFRESH;
}

void vt_progress_update(struct vt_progress *p, size_t done)
{
    if (!p->enabled || ++p->calls % CHECK_EVERY)
        return;
    double now = seconds_now();
    if (now - p->start < p->delay || now - p->last_shown < REFRESH)
        return;
    p->last_shown = now;
    p->shown = 1;
    fprintf(stderr, "\rvramtrace: reading %s: %3.0f%%", p->what,
            p->total ? 100.0 * (double)done / (double)p->total : 0.0);
    fflush(stderr);
}

void vt_progress_end(struct vt_progress *p)
{
    if (p->shown)
        fputs("\r\033[K", stderr); /* clear the line */
}
