/* Growth detection per call site (tools/analyze/usage_series.c): samples at
 * markers, which sites grow, from where, and how fast; the device peak and
 * what each site held then. */
#include <string.h>

#include "format.h"
#include "unit_check.h"
#include "usage_series.h"

enum { GROWING = 1, TEMPORARY, PLATEAU, ROSE_ONCE, FELL_BACK };

static void change(struct vt_usage *u, uint64_t t, uint64_t site, int64_t device, int64_t delta)
{
    vt_usage_change(u, t, site, VT_API_cudaMalloc, VT_KIND_DEVICE, device, delta);
}

static const struct vt_usage_site *site(const struct vt_usage *u, uint64_t stack_id)
{
    for (size_t i = 0; i < u->nsites; i++)
        if (u->sites[i].stack_id == stack_id)
            return &u->sites[i];
    return NULL;
}

/* Five iterations, a marker at the end of each (t = 1000, 2000, ... 5000 ns):
 *   GROWING    +100 every iteration                    100 200 300 400 500
 *   TEMPORARY  +500 and -500 inside each iteration       0   0   0   0   0
 *   PLATEAU    +300 before the first marker            300 300 300 300 300
 * and on device 1:
 *   ROSE_ONCE  +1000 in the fourth iteration             0   0   0 1000 1000
 *   FELL_BACK  +100 a time, -50 in the last            100 200 300 400 350 */
static void replay(struct vt_usage *u)
{
    change(u, 50, PLATEAU, 0, 300);
    for (uint64_t k = 0; k < 5; k++) {
        uint64_t t = k * 1000;
        change(u, t + 100, GROWING, 0, 100);
        change(u, t + 200, TEMPORARY, 0, 500);
        change(u, t + 300, TEMPORARY, 0, -500);
        if (k == 3)
            change(u, t + 400, ROSE_ONCE, 1, 1000);
        change(u, t + 500, FELL_BACK, 1, k == 4 ? -50 : 100);
        char label[16];
        snprintf(label, sizeof label, "iteration %d", (int)k);
        vt_usage_mark(u, (k + 1) * 1000, label);
    }
}

static void growth_at_markers(void)
{
    struct vt_usage u = {0};
    replay(&u);
    vt_usage_finish(&u, 6000, 0);
    CHECK("boundaries are the markers", u.by_marks);
    CHECK_EQ("boundaries", vt_usage_boundaries(&u), 5);
    CHECK_EQ("sites", u.nsites, 5);
    const struct vt_usage_site *g = site(&u, GROWING);
    const uint64_t want[5] = {100, 200, 300, 400, 500};
    CHECK_EQ("growing: samples", vt_usage_site_samples(&u, g)->n, 5);
    for (size_t i = 0; i < 5; i++)
        CHECK_EQ("growing: live bytes at a marker", vt_usage_site_samples(&u, g)->bytes[i],
                 want[i]);
    CHECK("growing: grows", g->growing);
    CHECK_EQ("growing: from the first marker", g->growth_start, 0);
    CHECK_EQ("growing: growth start time", g->growth_start_ns, 1000);
    CHECK_EQ("growing: bytes per interval", g->bytes_per_interval, 100);
    /* 400 bytes in the 4000 ns from the first marker to the last */
    CHECK_EQ("growing: bytes per second", (long long)g->bytes_per_second, 100000000);
    CHECK("temporary: does not grow", !site(&u, TEMPORARY)->growing);
    CHECK_EQ("temporary: bytes per interval", site(&u, TEMPORARY)->bytes_per_interval, 0);
    CHECK_EQ("temporary: its own peak", site(&u, TEMPORARY)->peak_live_bytes, 500);
    CHECK("plateau: does not grow", !site(&u, PLATEAU)->growing);
    CHECK("rose once: does not grow (1 rise in 4 intervals)", !site(&u, ROSE_ONCE)->growing);
    /* 350 at the end lies above the middle third (200 300): a fall at the
     * last marker does not hide a leak; the rate is the last rise's */
    CHECK("fell back: still grows", site(&u, FELL_BACK)->growing);
    CHECK_EQ("fell back: bytes per interval", site(&u, FELL_BACK)->bytes_per_interval, 100);
    CHECK_EQ("fell back: grew by", site(&u, FELL_BACK)->growth_bytes, 250);

    /* device 0 peaks when TEMPORARY holds its 500 in the last iteration:
     * 500 + 500 + 300 at t = 4200 */
    const struct vt_usage_device *d0 = vt_usage_device(&u, 0), *d1 = vt_usage_device(&u, 1);
    CHECK_EQ("device 0 peak", d0->peak_bytes, 1300);
    CHECK_EQ("device 0 peak time", d0->peak_time_ns, 4200);
    CHECK_EQ("device 0 live at the end", d0->live_bytes, 800);
    CHECK_EQ("growing at device 0's peak", g->bytes_at_device_peak, 500);
    CHECK_EQ("temporary at device 0's peak", site(&u, TEMPORARY)->bytes_at_device_peak, 500);
    CHECK_EQ("plateau at device 0's peak", site(&u, PLATEAU)->bytes_at_device_peak, 300);
    /* device 1: 1000 + 400 at t = 3500, before FELL_BACK's -50 */
    CHECK_EQ("device 1 peak", d1->peak_bytes, 1400);
    CHECK_EQ("device 1 peak time", d1->peak_time_ns, 3500);
    CHECK_EQ("fell back at device 1's peak", site(&u, FELL_BACK)->bytes_at_device_peak, 400);

    size_t holders[5];
    CHECK_EQ("holders at device 0's peak", vt_usage_holders(&u, 0, true, holders, 5), 3);
    CHECK_EQ("first holder at the peak (500, first seen)", u.sites[holders[0]].stack_id, GROWING);
    CHECK_EQ("second holder at the peak", u.sites[holders[1]].stack_id, TEMPORARY);
    CHECK_EQ("third holder at the peak", u.sites[holders[2]].stack_id, PLATEAU);
    vt_usage_free(&u);
}

/* Skipping the first two markers (warm-up): growth judged on 300 400 500. */
static void growth_after_warm_up(void)
{
    struct vt_usage u = {0};
    replay(&u);
    vt_usage_finish(&u, 6000, 2);
    const struct vt_usage_site *g = site(&u, GROWING);
    CHECK("growing after warm-up", g->growing);
    CHECK_EQ("growth starts at the third marker", g->growth_start, 2);
    CHECK_EQ("growth start time", g->growth_start_ns, 3000);
    CHECK_EQ("bytes per interval", g->bytes_per_interval, 100);
    CHECK_EQ("bytes per second", (long long)g->bytes_per_second, 100000000);
    /* 0 1000 1000 after the warm-up: one rise in two intervals */
    CHECK("rose once: still not growing", !site(&u, ROSE_ONCE)->growing);
    vt_usage_free(&u);

    /* with all but two markers skipped there is one interval: nothing grows */
    struct vt_usage v = {0};
    replay(&v);
    vt_usage_finish(&v, 6000, 3);
    CHECK("two boundaries are too few to judge", !site(&v, GROWING)->growing);
    vt_usage_free(&v);
}

/* A dip before the rise: growth starts at the lowest point. */
static void growth_from_the_lowest_point(void)
{
    struct vt_usage u = {0};
    const int64_t deltas[6] = {400, -300, 100, 100, 100, 100}; /* 400 100 200 300 400 500 */
    for (int k = 0; k < 6; k++) {
        change(&u, (uint64_t)k * 1000 + 10, GROWING, 0, deltas[k]);
        vt_usage_mark(&u, (uint64_t)(k + 1) * 1000, "step");
    }
    vt_usage_finish(&u, 7000, 0);
    const struct vt_usage_site *g = site(&u, GROWING);
    CHECK("grows", g->growing);
    CHECK_EQ("growth starts at the second marker", g->growth_start, 1);
    CHECK_EQ("growth start time", g->growth_start_ns, 2000);
    CHECK_EQ("bytes per interval from there", g->bytes_per_interval, 100);
    vt_usage_free(&u);
}

/* A 2 MiB step every other marker (0 2 2 4 4 6 MiB): growing by 1 MiB per
 * interval, measured over the two intervals since the rise before. */
static void growth_every_other_step(void)
{
    struct vt_usage u = {0};
    for (uint64_t k = 0; k < 6; k++) {
        if (k % 2)
            change(&u, k * 1000 + 10, GROWING, 0, 2 << 20);
        vt_usage_mark(&u, (k + 1) * 1000, "step");
    }
    vt_usage_finish(&u, 7000, 0);
    const struct vt_usage_site *g = site(&u, GROWING);
    CHECK("grows", g->growing);
    CHECK_EQ("bytes per interval", g->bytes_per_interval, 1 << 20);
    CHECK_EQ("measured over", g->rate_intervals, 2);
    CHECK_EQ("over that time", g->rate_interval_ns, 2000);
    CHECK_EQ("bytes per second", (long long)g->bytes_per_second, 1000000LL << 20);
    vt_usage_free(&u);
}

/* The rule's table of shapes (growth_rule.h): live bytes at each marker,
 * and the exact verdict. */
#define MAX_SHAPE 300
struct shape {
    const char *name;
    size_t n;
    uint64_t (*at)(size_t i);
    bool grows;
    int64_t per_interval; /* growing: the present rate */
};

static uint64_t linear(size_t i)
{
    return 100 * (i + 1);
}
static uint64_t staircase(size_t i)
{
    return (i / 3) * (2 << 20);
} /* a segment every 3 */
static uint64_t slow_staircase(size_t i)
{
    return (i / 6) * (2 << 20);
} /* every 6 */
static uint64_t sawtooth(size_t i)
{
    return (i % 4) * 1000;
}
static uint64_t warm_up_then_flat(size_t i)
{
    return i < 4 ? i * 1000 : 3000;
}
static uint64_t slow_drift(size_t i)
{
    return (24 << 20) + i * 8192;
} /* 8 KiB a step */
static uint64_t one_jump(size_t i)
{
    return i < 15 ? 0 : 5000;
}
static uint64_t early_jump(size_t i)
{
    return i < 9 ? 0 : 5000;
}
static uint64_t late_jump(size_t i)
{
    return i < 28 ? 1000 : 6000;
}
static uint64_t cache_filled_once(size_t i)
{
    return i < 2 ? 0 : 20 << 20;
}
static uint64_t stopped_halfway(size_t i)
{
    return i < 15 ? 100 * i : 1500;
}
/* a leak of 1000 a step, a temporary of 50000 held at every seventh marker */
static uint64_t leak_with_temporaries(size_t i)
{
    return 1000 * i + (i % 7 == 3 ? 50000 : 0);
}
/* 1000 +- up to 500, a fixed pseudo-random walk around a level */
static uint64_t noise(size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u;
    return 1000 + (x >> 7) % 1000 - 500;
}

/* 12 markers wandering around 500 whose thirds' medians happen to rise
 * (200, 400, 500), each third scattered by more than that */
static uint64_t wandering(size_t i)
{
    static const uint64_t at[12] = {200, 300, 500, 100, 300, 400, 500, 500, 900, 400, 500, 800};
    return at[i];
}

static const struct shape shapes[] = {
    {"linear", 30, linear, true, 100},
    {"staircase: 2 MiB every third step", 30, staircase, true, (2 << 20) / 3},
    {"staircase: 2 MiB every sixth step", 30, slow_staircase, true, (2 << 20) / 6},
    {"sawtooth", 30, sawtooth, false, 0},
    {"warm-up then flat", 30, warm_up_then_flat, false, 0},
    {"slow drift: 8 KiB a step for 300 steps", 300, slow_drift, true, 8192},
    {"one jump", 30, one_jump, false, 0},
    {"one early jump", 30, early_jump, false, 0},
    {"one late jump", 30, late_jump, false, 0},
    {"a cache filled once", 30, cache_filled_once, false, 0},
    {"stopped growing halfway", 30, stopped_halfway, false, 0},
    {"a leak under temporaries", 30, leak_with_temporaries, true, 1000},
    {"noise around a level", 30, noise, false, 0},
    {"values wandering around a level, medians rising by chance", 12, wandering, false, 0},
};

static void growth_shapes(void)
{
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const struct shape *sh = &shapes[k];
        for (size_t skip = 0; skip <= 2; skip += 2) { /* with or without --skip */
            struct vt_usage u = {0};
            uint64_t live = 0;
            for (size_t i = 0; i < sh->n; i++) {
                uint64_t want = sh->at(i);
                change(&u, i * 1000 + 10, GROWING, 0, (int64_t)(want - live));
                live = want;
                vt_usage_mark(&u, (i + 1) * 1000, "step");
            }
            vt_usage_finish(&u, (sh->n + 1) * 1000, skip);
            const struct vt_usage_site *g = site(&u, GROWING);
            char what[128];
            snprintf(what, sizeof what, "%s (--skip %zu): grows", sh->name, skip);
            CHECK_EQ(what, g->growing, sh->grows);
            snprintf(what, sizeof what, "%s (--skip %zu): per interval", sh->name, skip);
            CHECK_EQ(what, g->bytes_per_interval, sh->per_interval);
            vt_usage_free(&u);
        }
    }
}

int main(void)
{
    growth_shapes();
    growth_at_markers();
    growth_after_warm_up();
    growth_from_the_lowest_point();
    growth_every_other_step();
    return unit_result("usage_growth");
}
/* SPDX-License-Identifier: MIT */
