#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define CHECK_EVERY 4096

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void vt_progress_start(struct vt_progress *p, const char *what, size_t total)
{
    *p = (struct vt_progress){.what = what, .total = total};
    p->enabled = isatty(STDERR_FILENO);
    p->start = p->last_shown = seconds_now();
}

void vt_progress_update(struct vt_progress *p, size_t done)
{
    if (!p->enabled || ++p->calls % CHECK_EVERY)
        return;
    double now = seconds_now();
    if (now - p->start < 1.0 || now - p->last_shown < 0.2)
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
