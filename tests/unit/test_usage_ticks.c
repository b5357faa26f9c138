/* SPDX-License-Identifier: MIT */
/* Growth without markers (issue 38), judged on allocation ticks
 * (tools/analyze/usage_series.c): programs of known shape replayed through
 * the usage series, no marker, a slow start before their steps. Clean
 * shapes (a loop of temporaries, a cache warmed up then flat, a model
 * loaded first, ...) must not read as growing; a site that keeps memory
 * step after step must. Random shapes come from fixed seeds; the figures
 * docs/reports.md quotes are `test_usage_ticks --figures [DRAWS]` (20,000
 * draws a shape). */
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "growth_rule.h"
#include "unit_check.h"
#include "usage_series.h"

enum { MODEL = 1, STAGING = 5, CACHE = 10, POOL, QUEUE, LEAK, TEMP = 100 };
#define MAX_TEMPS 6
#define SLOW_START_NS 2000000000ull

static bool marking; /* the programs mark each step (to compare) */

struct rng {
    uint64_t s;
};

static uint64_t next(struct rng *r) /* xorshift64* */
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}

/* Uniform in [lo, hi]. */
static uint64_t pick(struct rng *r, uint64_t lo, uint64_t hi)
{
    return lo + next(r) % (hi - lo + 1);
}

static bool chance(struct rng *r, unsigned percent)
{
    return next(r) % 100 < percent;
}

/* One program: its steps' temporaries and what else it does. */
struct program {
    struct vt_usage u;
    struct rng r;
    uint64_t t;
    size_t steps, ntemps;
    uint64_t temp_bytes[MAX_TEMPS];
    bool carried[MAX_TEMPS]; /* freed at the next step's start (an activation kept for it) */
    bool dynamic;            /* sizes vary step to step (dynamic shapes) */
    int64_t live[MAX_TEMPS];
    bool marked; /* a marker after each step, to compare */
};

static void change(struct program *p, uint64_t site, int64_t delta)
{
    p->t += pick(&p->r, 500, 1500); /* fast steps: microseconds apart */
    vt_usage_change(&p->u, p->t, site, VT_API_cudaMalloc, VT_KIND_DEVICE, 0, delta);
}

static void free_temp(struct program *p, size_t i)
{
    if (p->live[i])
        change(p, TEMP + i, -p->live[i]);
    p->live[i] = 0;
}

static void setup(struct program *p, uint64_t seed, bool dynamic)
{
    memset(p, 0, sizeof *p);
    p->marked = marking;
    p->r.s = seed * 0x9e3779b97f4a7c15ull + 1;
    p->steps = pick(&p->r, 10, 300);
    p->ntemps = pick(&p->r, 1, MAX_TEMPS);
    p->dynamic = dynamic;
    for (size_t i = 0; i < p->ntemps; i++) {
        p->temp_bytes[i] = pick(&p->r, 1, 64) << 16;
        p->carried[i] = chance(&p->r, 20);
    }
}

/* A step's temporaries, freed in a random order as the step goes on (the
 * carried ones at the next step's start); returns what they came to. */
static uint64_t step(struct program *p)
{
    uint64_t demand = 0;
    for (size_t i = 0; i < p->ntemps; i++)
        if (p->carried[i])
            free_temp(p, i);
    for (size_t i = 0; i < p->ntemps; i++) {
        for (size_t k = 0; k < i; k++)
            if (!p->carried[k] && chance(&p->r, 50))
                free_temp(p, k);
        uint64_t bytes = p->temp_bytes[i];
        if (p->dynamic)
            bytes = bytes / 2 + pick(&p->r, 0, bytes);
        p->live[i] = (int64_t)bytes;
        demand += bytes;
        change(p, TEMP + i, (int64_t)bytes);
    }
    for (size_t i = 0; i < p->ntemps; i++)
        if (!p->carried[i])
            free_temp(p, i);
    if (p->marked)
        vt_usage_mark(&p->u, p->t, "step");
    return demand;
}

/* The slow start: the clock jumps as `import torch` makes it. */
static void slow_start(struct program *p)
{
    p->t += SLOW_START_NS;
}

/* Frees a site's bytes at the end (an interpreter's shutdown). */
static void finish(struct program *p, const uint64_t *kept, const uint64_t *sites, size_t n)
{
    for (size_t i = 0; i < p->ntemps; i++)
        free_temp(p, i);
    for (size_t i = 0; i < n; i++)
        if (kept[i])
            change(p, sites[i], -(int64_t)kept[i]);
    vt_usage_finish(&p->u, p->t + 1000, 0);
}

/* The shapes: each plays one random program; LEAK is its only growth. */
typedef void (*shape_fn)(struct program *p, uint64_t seed);

static void clean(struct program *p, uint64_t seed)
{
    setup(p, seed, false);
    slow_start(p);
    for (size_t s = 0; s < p->steps; s++)
        step(p);
    finish(p, NULL, NULL, 0);
}

static void dynamic(struct program *p, uint64_t seed)
{
    setup(p, seed, true);
    slow_start(p);
    for (size_t s = 0; s < p->steps; s++)
        step(p);
    finish(p, NULL, NULL, 0);
}

/* A cache that fills in each of the first steps (up to half), then stays. */
static void warm_up(struct program *p, uint64_t seed)
{
    setup(p, seed, false);
    slow_start(p);
    size_t fill = pick(&p->r, 1, p->steps / 2);
    uint64_t kept = 0, site = CACHE;
    for (size_t s = 0; s < p->steps; s++) {
        if (s < fill) {
            uint64_t bytes = pick(&p->r, 1, 16) << 16;
            change(p, CACHE, (int64_t)bytes);
            kept += bytes;
        }
        step(p);
    }
    finish(p, &kept, &site, 1);
}

/* Up to 1000 parts of a model at one to three lines, before the steps. */
static void model(struct program *p, uint64_t seed)
{
    setup(p, seed, false);
    size_t parts = pick(&p->r, 1, 1000), lines = pick(&p->r, 1, 3);
    uint64_t kept[3] = {0}, sites[3] = {MODEL, MODEL + 1, MODEL + 2};
    for (size_t i = 0; i < parts; i++) {
        size_t line = i % lines;
        uint64_t bytes = pick(&p->r, 1, 64) << 12;
        change(p, sites[line], (int64_t)bytes);
        kept[line] += bytes;
    }
    slow_start(p);
    for (size_t s = 0; s < p->steps; s++)
        step(p);
    finish(p, kept, sites, 3);
}

/* The same model copied in through a staging buffer made and freed again
 * for each part: its load ticks the clock (the known weak case). */
static void model_staged(struct program *p, uint64_t seed)
{
    setup(p, seed, false);
    size_t parts = pick(&p->r, 1, 1000);
    uint64_t kept = 0, site = MODEL;
    for (size_t i = 0; i < parts; i++) {
        uint64_t bytes = pick(&p->r, 1, 64) << 12;
        change(p, STAGING, (int64_t)bytes);
        change(p, MODEL, (int64_t)bytes);
        change(p, STAGING, -(int64_t)bytes);
        kept += bytes;
    }
    slow_start(p);
    for (size_t s = 0; s < p->steps; s++)
        step(p);
    finish(p, &kept, &site, 1);
}

/* A pool (a caching allocator's segments, tensors not traced) that takes
 * a new block whenever a step's demand passes what it holds: it grows at
 * each new record of dynamic sizes, ever more rarely. */
static void pool(struct program *p, uint64_t seed)
{
    setup(p, seed, true);
    slow_start(p);
    uint64_t held = 0, site = POOL;
    for (size_t s = 0; s < p->steps; s++) {
        uint64_t demand = step(p);
        if (demand > held) {
            change(p, POOL, (int64_t)(demand - held));
            held = demand;
        }
    }
    finish(p, &held, &site, 1);
}

/* A queue of prefetched batches: up to 1..8 held, one more or one fewer
 * at random each step. */
static void queue(struct program *p, uint64_t seed)
{
    setup(p, seed, false);
    slow_start(p);
    size_t depth = pick(&p->r, 1, 8), held = 0;
    const uint64_t batch = 1 << 20;
    for (size_t s = 0; s < p->steps; s++) {
        if (held < depth && chance(&p->r, 50)) {
            change(p, QUEUE, batch);
            held++;
        } else if (held && chance(&p->r, 50)) {
            change(p, QUEUE, -(int64_t)batch);
            held--;
        }
        step(p);
    }
    uint64_t kept = held * batch, site = QUEUE;
    finish(p, &kept, &site, 1);
}

/* The leaks: LEAK keeps bytes every EVERY-th step (1..5), the rest clean
 * or dynamic, a model loaded first. */
static void leak(struct program *p, uint64_t seed, bool dyn)
{
    setup(p, seed, dyn);
    size_t parts = pick(&p->r, 0, 200), every = pick(&p->r, 1, 5);
    uint64_t kept[2] = {0}, sites[2] = {MODEL, LEAK};
    for (size_t i = 0; i < parts; i++) {
        change(p, MODEL, 1 << 16);
        kept[0] += 1 << 16;
    }
    slow_start(p);
    uint64_t bytes = pick(&p->r, 1, 64) << 12;
    for (size_t s = 0; s < p->steps; s++) {
        if (s % every == 0) {
            change(p, LEAK, (int64_t)bytes);
            kept[1] += bytes;
        }
        step(p);
    }
    finish(p, kept, sites, 2);
}

static void leak_clean(struct program *p, uint64_t seed)
{
    leak(p, seed, false);
}

static void leak_dynamic(struct program *p, uint64_t seed)
{
    leak(p, seed, true);
}

struct outcome {
    size_t draws, by_allocs, growing, leak_found, other_growing;
};

static const struct vt_usage_site *find(const struct vt_usage *u, uint64_t stack_id)
{
    for (size_t i = 0; i < u->nsites; i++)
        if (u->sites[i].stack_id == stack_id)
            return &u->sites[i];
    return NULL;
}

static struct outcome play(shape_fn shape, size_t draws, uint64_t seed0)
{
    struct outcome o = {.draws = draws};
    for (size_t d = 0; d < draws; d++) {
        struct program p;
        shape(&p, seed0 + d);
        o.by_allocs += p.u.by_allocs || p.u.by_marks;
        {
            const struct vt_usage_site *l = find(&p.u, LEAK);
            size_t growing = vt_usage_growing_sites(&p.u);
            bool leak_grows = l && l->growing;
            o.growing += growing > 0;
            o.leak_found += leak_grows;
            o.other_growing += growing > (size_t)leak_grows;
        }
        vt_usage_free(&p.u);
    }
    return o;
}

/* The rule itself on N values drawn at random: how often they "grow". */
static size_t random_values(size_t n, size_t draws, uint64_t seed)
{
    struct rng r = {seed};
    uint64_t v[VT_USAGE_MAX_TICKS];
    struct vt_growth g;
    size_t grew = 0;
    for (size_t d = 0; d < draws; d++) {
        for (size_t i = 0; i < n; i++)
            v[i] = next(&r) % 1000;
        grew += vt_growth_judge(v, n, &g);
    }
    return grew;
}

static const struct {
    const char *name;
    shape_fn fn;
    bool leaks;
} shapes[] = {
    {"clean loop", clean, false},
    {"clean loop, dynamic sizes", dynamic, false},
    {"warm-up then flat", warm_up, false},
    {"model loaded first", model, false},
    {"model through a staging buffer", model_staged, false},
    {"pool growing at new records", pool, false},
    {"queue of 1..8 batches", queue, false},
    {"leak every 1..5 steps", leak_clean, true},
    {"leak, dynamic sizes", leak_dynamic, true},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static double percent(size_t n, size_t of)
{
    return of ? 100.0 * (double)n / (double)of : 0.0;
}

static void figures(size_t draws)
{
    printf("%-32s %8s %10s %9s %14s\n", "shape", "draws", "by ticks", "growing", "with markers");
    for (size_t i = 0; i < NSHAPES; i++) {
        marking = false;
        struct outcome o = play(shapes[i].fn, draws, 1);
        marking = true;
        struct outcome m = play(shapes[i].fn, draws, 1);
        marking = false;
        printf("%-32s %8zu %10zu %8.2f%% %13.2f%%", shapes[i].name, o.draws, o.by_allocs,
               percent(shapes[i].leaks ? o.leak_found : o.growing, o.draws),
               percent(shapes[i].leaks ? m.leak_found : m.growing, m.draws));
        if (shapes[i].leaks)
            printf("  (another site growing: %.2f%%)", percent(o.other_growing, o.draws));
        putchar('\n');
    }
    for (size_t n = VT_USAGE_MIN_ALLOC_TICKS; n < VT_USAGE_MAX_TICKS; n *= 2)
        printf("random values, %3zu ticks: %.2f%% grow\n", n,
               percent(random_values(n, draws, 7), draws));
}

/* Issue 38's program: a model, a slow start, 30 fast steps of two
 * temporaries, 1 MiB kept a step; each repeated allocation one tick. */
static void slow_start_steps(void)
{
    struct program p;
    setup(&p, 1, false);
    for (int i = 0; i < 20; i++)
        change(&p, MODEL, 1 << 18);
    slow_start(&p);
    for (int s = 0; s < 30; s++) {
        change(&p, TEMP, 3 << 20);
        change(&p, LEAK, 1 << 20);
        change(&p, TEMP + 1, 2 << 20);
        change(&p, TEMP, -(3 << 20));
        change(&p, TEMP + 1, -(2 << 20));
    }
    vt_usage_finish(&p.u, p.t + 1000, 0);
    CHECK("judged on allocation ticks", p.u.by_allocs && !p.u.by_marks);
    CHECK_EQ("ticks: one per repeated allocation", vt_usage_boundaries(&p.u), 58);
    CHECK_EQ("allocations per tick", p.u.tick_allocs, 1);
    CHECK_EQ("nothing before the loop left out", p.u.skip, 0);
    const struct vt_usage_site *leak = find(&p.u, LEAK), *model = find(&p.u, MODEL);
    CHECK("the kept MiB grows", leak && leak->growing);
    CHECK_EQ("growing sites", vt_usage_growing_sites(&p.u), 1);
    /* sampled right before the tick's allocation: step 2's first temporary */
    CHECK_EQ("first sample: step 1's MiB", leak->at_allocs.bytes[0], 1 << 20);
    CHECK("the model does not", model && !model->growing);
    CHECK("ticks at the steps' times, after the slow start",
          vt_usage_boundary_ns(&p.u, 0) > SLOW_START_NS);
    CHECK("reliable", vt_usage_growth_reliable(&p.u));
    vt_usage_free(&p.u);
}

/* A long run: the ticks fill up and merge pairwise (64 to 127 of them),
 * the allocations per tick doubling; their times keep their order. */
static void ticks_merge(void)
{
    struct program p;
    setup(&p, 2, false);
    for (int s = 0; s < 5000; s++) {
        change(&p, TEMP, 4096);
        change(&p, TEMP, -4096);
    }
    vt_usage_finish(&p.u, p.t + 1000, 0);
    size_t n = vt_usage_boundaries(&p.u);
    CHECK("64 to 127 ticks", n >= 64 && n < VT_USAGE_MAX_TICKS);
    CHECK_EQ("4999 repeated allocations in them", n * p.u.tick_allocs <= 4999, 1);
    CHECK_EQ("... all but the last part-tick", (n + 1) * p.u.tick_allocs > 4999, 1);
    for (size_t i = 1; i < n; i++)
        CHECK("times in order", vt_usage_boundary_ns(&p.u, i) > vt_usage_boundary_ns(&p.u, i - 1));
    vt_usage_free(&p.u);
}

/* No site frees: no repeated allocation, no allocation tick; time ticks,
 * not reliable (what leaked still shows among the leaks). */
static void no_repeats(void)
{
    struct program p;
    setup(&p, 3, false);
    for (int s = 0; s < 100; s++)
        change(&p, LEAK, 4096);
    vt_usage_finish(&p.u, p.t + 1000, 0);
    CHECK("time ticks", !p.u.by_allocs && !p.u.by_marks);
    CHECK("not reliable", !vt_usage_growth_reliable(&p.u));
    vt_usage_free(&p.u);
}

/* Each shape over DRAWS random programs: the clean ones never grow, the
 * staged model almost never, the pool and the queue no more often than
 * with a marker each step (those are the rule's own), the leak is found. */
static void random_programs(size_t draws)
{
    for (size_t i = 0; i < NSHAPES; i++) {
        struct outcome o = play(shapes[i].fn, draws, 1);
        marking = true;
        struct outcome m = play(shapes[i].fn, draws, 1);
        marking = false;
        if (shapes[i].leaks) {
            CHECK(shapes[i].name, o.leak_found * 100 >= o.draws * 98);
            CHECK_EQ(shapes[i].name, o.other_growing, 0);
        } else if (shapes[i].fn == pool || shapes[i].fn == queue) {
            CHECK(shapes[i].name, o.growing <= m.growing + draws / 100);
        } else {
            CHECK(shapes[i].name, o.growing * 1000 <= o.draws * 2);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--figures")) {
        figures(argc > 2 ? (size_t)atol(argv[2]) : 20000);
        return 0;
    }
    slow_start_steps();
    ticks_merge();
    no_repeats();
    random_programs(2000);
    return unit_result("usage_ticks");
}
