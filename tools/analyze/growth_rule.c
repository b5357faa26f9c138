/* SPDX-License-Identifier: MIT */
/* The growth rule: see growth_rule.h. */
#include "growth_rule.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static int by_value(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* V[FROM..TO) sorted, in a copy the caller frees. */
static uint64_t *sorted_copy(const uint64_t *v, size_t from, size_t to)
{
    uint64_t *copy = vt_xcalloc(to - from, sizeof *copy);
    memcpy(copy, v + from, (to - from) * sizeof *copy);
    qsort(copy, to - from, sizeof *copy, by_value);
    return copy;
}

/* The lower median of V[FROM..TO). */
static uint64_t median(const uint64_t *v, size_t from, size_t to)
{
    uint64_t *s = sorted_copy(v, from, to), m = s[(to - from - 1) / 2];
    free(s);
    return m;
}

/* How far V[FROM..TO) spreads around its middle: its interquartile range. */
static uint64_t spread(const uint64_t *v, size_t from, size_t to)
{
    size_t n = to - from;
    uint64_t *s = sorted_copy(v, from, to), range = s[3 * (n - 1) / 4] - s[(n - 1) / 4];
    free(s);
    return range;
}

/* The end of the last rise at or before BEFORE and after LOW, else LOW. */
static size_t last_rise(const uint64_t *v, size_t before, size_t low)
{
    for (size_t i = before; i > low; i--)
        if (v[i] > v[i - 1])
            return i;
    return low;
}

/* Where growth started and how fast it goes now: the last rise over the
 * boundaries since the rise before it (2 MiB every other step: 1 MiB per
 * step), not an average since the start. */
static void measure(const uint64_t *v, size_t n, struct vt_growth *g)
{
    size_t low = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] <= v[low])
            low = i;
    g->start = low;
    g->bytes = v[n - 1] - v[low];
    g->rate_to = last_rise(v, n - 1, low);
    g->rate_from = g->rate_to > low ? last_rise(v, g->rate_to - 1, low) : low;
    g->rate_bytes = v[g->rate_to] - v[g->rate_from];
}

static uint64_t lowest(const uint64_t *v, size_t from, size_t to)
{
    uint64_t low = v[from];
    for (size_t i = from + 1; i < to; i++)
        low = v[i] < low ? v[i] : low;
    return low;
}

bool vt_growth_judge(const uint64_t *v, size_t n, struct vt_growth *g)
{
    if (n < VT_GROWTH_MIN_BOUNDARIES)
        return false;
    size_t b = n / 3, c = 2 * n / 3; /* A = [0, b), B = [b, c), C = [c, n) */
    uint64_t mid_a = median(v, 0, b), mid_b = median(v, b, c), mid_c = median(v, c, n);
    if (!(mid_a < mid_b && mid_b < mid_c)) /* rose from each third to the next */
        return false;
    if (lowest(v, c, n) <= mid_a) /* fell back to where it stood: no level kept */
        return false;
    uint64_t spread_a = spread(v, 0, b), spread_c = spread(v, c, n);
    if (mid_c - mid_a <= (spread_a > spread_c ? spread_a : spread_c))
        return false; /* a rise no larger than the scatter within a third: noise */
    if (v[n - 1] <= lowest(v, c - 1, n)) /* nothing kept of a rise in the last third */
        return false;
    memset(g, 0, sizeof *g);
    measure(v, n, g);
    return true;
}
