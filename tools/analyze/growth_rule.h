/* SPDX-License-Identifier: MIT */
/* The one growth rule: whether a call site's live bytes, sampled at
 * boundaries (markers, else time ticks), keep rising over the run. Report,
 * check, watch, the metrics and the pytest plugin all judge by it (through
 * usage_series.c); docs/reports.md states it and its limits. */
#ifndef VT_GROWTH_RULE_H
#define VT_GROWTH_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fewer boundaries than this: growth is not judged. */
#define VT_GROWTH_MIN_BOUNDARIES 3

struct vt_growth {
    size_t start;        /* the boundary growth started from: the last at its lowest */
    uint64_t bytes;      /* risen since start, to the last boundary */
    size_t rate_from;    /* the present rate: from the end of the rise before */
    size_t rate_to;      /* ... to the end of the last rise */
    uint64_t rate_bytes; /* what it rose over those */
};

/* The N samples V cut into thirds, A B C (each one boundary at least): the
 * site grows when
 *  1. the middle (median) of each third lies above the one before: it rose
 *     in the middle third and again in the last (a warm-up, a cache filled
 *     once, one jump however late, rise once);
 *  2. the lowest of C lies above the middle of A: the level rose and did not
 *     fall back (temporaries, a sawtooth, noise around a level do);
 *  3. the middle of C lies above the middle of A by more than the scatter
 *     within either third (its interquartile range): values that wander
 *     around a level rise from one third to the next by chance, by less;
 *  4. the last sample lies above the lowest of C (and of the boundary
 *     before it): a rise in the last third is kept to the end (growth that
 *     stopped halfway has stopped).
 * Medians, not extremes, so that a temporary held at one boundary neither
 * hides nor makes growth. Steps must come more often than once a third of
 * the run to be seen. Fills *G when it grows. */
bool vt_growth_judge(const uint64_t *v, size_t n, struct vt_growth *g);

#endif
