/* SPDX-License-Identifier: MIT */
/* Verdicts every view shares: see verdicts.h. */
#include "verdicts.h"

#include <stdio.h>

#include "churn_apis.h"
#include "format.h"
#include "report.h"

/* A site that leaked this many allocations or more leaked again and again. */
#define REPEATED_LEAK_ALLOCATIONS 3

static const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

size_t vt_repeated_leak_sites(const struct vt_report *r, unsigned long long *allocations)
{
    size_t sites = 0;
    *allocations = 0;
    for (size_t i = 0; !r->live_not_leaked && i < r->analysis->nleaks; i++) {
        const struct vt_leak *l = &r->analysis->leaks[i];
        if (vt_kind_counts_as_vram(l->kind) && l->allocations >= REPEATED_LEAK_ALLOCATIONS) {
            sites++;
            *allocations += l->allocations;
        }
    }
    return sites;
}

/* Time ticks found nothing growing: that is no evidence either way. */
static void unmarked_verdict(const struct vt_report *r, size_t ticks, char *buf, size_t len)
{
    unsigned long long allocations;
    size_t repeated = vt_repeated_leak_sites(r, &allocations);
    int n = snprintf(buf, len,
                     "growth not judged reliably: no markers (%zu time ticks show no call site "
                     "growing",
                     ticks);
    if (n >= 0 && (size_t)n < len && repeated)
        n += snprintf(buf + n, len - (size_t)n,
                      ", but %zu call %s leaked again and again: %llu allocations never freed",
                      repeated, plural(repeated, "site", "sites"), allocations);
    if (n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "); " VT_MARKER_HINT);
}

/* Allocation ticks follow the program's steps: both verdicts hold. */
static void alloc_ticks_verdict(const struct vt_usage *u, char *buf, size_t len)
{
    size_t n = vt_usage_boundaries(u), growing = vt_usage_growing_sites(u);
    int w = snprintf(buf, len, "growth judged on %zu ticks of %llu repeated %s each (no markers", n,
                     (unsigned long long)u->tick_allocs,
                     plural(u->tick_allocs, "allocation", "allocations"));
    if (w >= 0 && (size_t)w < len && u->skip) /* ticks of a loop over before the last began */
        w += snprintf(buf + w, len - (size_t)w,
                      "; the first %zu, before the loop at the end, left out", u->skip);
    if (w >= 0 && (size_t)w < len)
        w += snprintf(buf + w, len - (size_t)w, "): ");
    if (w < 0 || (size_t)w >= len)
        return;
    if (growing)
        snprintf(buf + w, len - (size_t)w, "%zu call %s growing", growing,
                 plural(growing, "site", "sites"));
    else
        snprintf(buf + w, len - (size_t)w, "nothing grows");
}

void vt_growth_verdict(const struct vt_report *r, char *buf, size_t len)
{
    const struct vt_usage *u = &r->analysis->usage;
    size_t n = vt_usage_boundaries(u), growing = vt_usage_growing_sites(u);
    if (u->by_allocs)
        alloc_ticks_verdict(u, buf, len);
    else if (!u->by_marks && !vt_usage_growth_judged(u))
        snprintf(
            buf, len,
            "growth not judged: no markers, and fewer than 3 time ticks (%zu); " VT_MARKER_HINT, n);
    else if (!vt_usage_growth_judged(u) && u->skip)
        snprintf(buf, len,
                 "growth not judged: fewer than 3 markers after the warm-up (%zu, %zu "
                 "skipped)",
                 n, u->skip);
    else if (!vt_usage_growth_judged(u))
        snprintf(buf, len, "growth not judged: fewer than 3 markers (%zu)", n);
    else if (!u->by_marks && !growing)
        unmarked_verdict(r, n, buf, len);
    else if (!u->by_marks)
        snprintf(buf, len, "growth judged on %zu time ticks (no markers): %zu call %s growing", n,
                 growing, plural(growing, "site", "sites"));
    else if (growing)
        snprintf(buf, len,
                 "growth judged on %zu markers (%zu skipped as warm-up): %zu call %s growing", n,
                 u->skip, growing, plural(growing, "site", "sites"));
    else
        snprintf(buf, len, "growth judged on %zu markers (%zu skipped as warm-up): nothing grows",
                 n, u->skip);
}

const char *vt_churn_hint(unsigned api, char *buf, size_t len)
{
    const char *name = vt_api_name(api), *free_name = vt_churn_sync_free(api);
    snprintf(buf, len,
             "each %s/%s pair synchronizes the device: the caching allocator or a pool would "
             "avoid it",
             name ? name : "allocate", free_name ? free_name : "free");
    return buf;
}
