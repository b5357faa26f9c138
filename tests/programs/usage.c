/* Usage-over-time ground truth. Modes (argv[1]):
 *   grow    a cache allocated once, a temporary per step, a 1 MiB leak per
 *           step, vramtrace_mark("step") after each step
 *   signal  the same steps, marked by raise(SIGUSR2) (or the signal named
 *           by USAGE_SIGNAL's number) instead of vramtrace_mark
 *   handled the program handles SIGUSR2 itself: the handler must run once
 *           per step and the tracer must not mark
 *   early   EARLY_MARKS signals after the first CUDA call, which allocates
 *           nothing (no dump yet), then "signal"
 *   busy    a thread allocates and frees in a loop while main sends it
 *           BUSY_MARKS of the (queued, real-time) signal USAGE_SIGNAL, so
 *           that some arrive while the tracer is busy on that thread
 *   oom     two holders, then a request the device cannot satisfy
 *   rank    one allocation on device $RANK, except rank 2 which (the
 *           classic bug) allocates on device 0; $USAGE_DEVICE, when set,
 *           names the device instead (with CUDA_VISIBLE_DEVICES per rank)
 *   warmup  a cache that fills by WARMUP_BYTES in each of the first
 *           WARMUP_STEPS steps, then stays flat for the other STEPS, a mark
 *           after each step; the cache is freed at the end
 *   kept N  a LEAK_BYTES buffer kept per step, N steps (at most STEPS; 0 or
 *           none: STEPS), a mark after each; all freed at the end: growth
 *           without a leak
 * Peak (grow): during the last step the cache, the temporary and every
 * leak are live: CACHE + TEMP + STEPS * LEAK. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vramtrace.h"

#define STEPS 10
#define CACHE_BYTES (8 << 20)
#define TEMP_BYTES (4 << 20)
#define LEAK_BYTES (1 << 20)
#define OOM_BIG_BYTES (30 << 20)      /* of a 64 MiB device (STANDIN_CUDA_MEMORY=64M) */
#define OOM_SMALL_BYTES (20 << 20)
#define OOM_REQUEST_BYTES (32 << 20)
#define RANK_BYTES 3000000
#define EARLY_MARKS 3
#define BUSY_MARKS 200
#define BUSY_BYTES 4093
#define WARMUP_STEPS 4
#define WARMUP_BYTES 1000003

static volatile sig_atomic_t handled;

static void count_signal(int sig)
{
    (void)sig;
    handled++;
}

static NOINLINE void *make_cache(void)
{
    void *p;
    CHECK(cudaMalloc(&p, CACHE_BYTES)); /* LEAK:cache */
    return p;
}

static NOINLINE void *make_temp(void)
{
    void *p;
    CHECK(cudaMalloc(&p, TEMP_BYTES)); /* LEAK:temp */
    return p;
}

static NOINLINE void leak_step(void)
{
    void *p;
    CHECK(cudaMalloc(&p, LEAK_BYTES)); /* LEAK:step */
    vt_sink = p;
}

static void step(void)
{
    void *temp = make_temp();
    leak_step();
    CHECK(cudaFree(temp));
}

static void step_without_leak(void)
{
    CHECK(cudaFree(make_temp()));
}

static int run_steps(int mark_signal)
{
    void *cache = make_cache();
    for (int i = 0; i < STEPS; i++) {
        step();
        if (mark_signal)
            raise(mark_signal);
        else
            vramtrace_mark("step");
    }
    CHECK(cudaFree(cache));
    return 0;
}

static NOINLINE void *fill_cache(void)
{
    void *p;
    CHECK(cudaMalloc(&p, WARMUP_BYTES)); /* LEAK:warmup */
    return p;
}

static int run_warmup(void)
{
    void *cache[WARMUP_STEPS];
    for (int i = 0; i < STEPS; i++) {
        if (i < WARMUP_STEPS)
            cache[i] = fill_cache();
        step_without_leak();
        vramtrace_mark("step");
    }
    for (int i = 0; i < WARMUP_STEPS; i++)
        CHECK(cudaFree(cache[i]));
    return 0;
}

static NOINLINE void *hold_big(void)
{
    void *p;
    CHECK(cudaMalloc(&p, OOM_BIG_BYTES)); /* LEAK:big */
    return p;
}

static NOINLINE void *hold_small(void)
{
    void *p;
    CHECK(cudaMalloc(&p, OOM_SMALL_BYTES)); /* LEAK:small */
    return p;
}

static NOINLINE void request_too_much(void)
{
    void *p;
    EXPECT(cudaMalloc(&p, OOM_REQUEST_BYTES), cudaErrorMemoryAllocation); /* CALL:oom */
}

static int run_oom(void)
{
    void *big = hold_big(), *small = hold_small();
    request_too_much();
    CHECK(cudaFree(big));
    CHECK(cudaFree(small));
    return 0;
}

static NOINLINE int run_rank(void)
{
    const char *rank = getenv("RANK"), *chosen = getenv("USAGE_DEVICE");
    int device = rank ? atoi(rank) : 0;
    void *p;
    if (device == 2)
        device = 0;   /* the bug the report must show */
    if (chosen)
        device = atoi(chosen);
    CHECK(cudaSetDevice(device));
    CHECK(cudaMalloc(&p, RANK_BYTES)); /* LEAK:rank */
    vt_sink = p;
    return 0;
}

static volatile int stop_busy;

static void *busy_allocating(void *arg)
{
    (void)arg;
    while (!stop_busy) {
        void *p;
        CHECK(cudaMalloc(&p, BUSY_BYTES));
        CHECK(cudaFree(p));
    }
    return NULL;
}

static int run_busy(int sig)
{
    pthread_t worker;
    struct timespec pause = {0, 100 * 1000};
    CHECK(cudaFree(0));
    REQUIRE(pthread_create(&worker, NULL, busy_allocating, NULL) == 0);
    for (int i = 0; i < BUSY_MARKS; i++) {
        REQUIRE(pthread_kill(worker, sig) == 0);
        nanosleep(&pause, NULL);
    }
    stop_busy = 1;
    REQUIRE(pthread_join(worker, NULL) == 0);
    void *p;
    CHECK(cudaMalloc(&p, BUSY_BYTES)); /* an event after the last signal */
    CHECK(cudaFree(p));
    return 0;
}

static NOINLINE void *keep_step(void)
{
    void *p;
    CHECK(cudaMalloc(&p, LEAK_BYTES)); /* LEAK:kept */
    return p;
}

static int run_kept(int n)
{
    void *kept[STEPS];
    n = n > 0 && n < STEPS ? n : STEPS;
    for (int i = 0; i < n; i++) {
        kept[i] = keep_step();
        vramtrace_mark("step");
    }
    for (int i = 0; i < n; i++)
        CHECK(cudaFree(kept[i]));
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "grow";
    if (!strcmp(mode, "grow"))
        return run_steps(0);
    if (!strcmp(mode, "signal")) {
        const char *sig = getenv("USAGE_SIGNAL");
        return run_steps(sig ? atoi(sig) : SIGUSR2);
    }
    if (!strcmp(mode, "handled")) {
        signal(SIGUSR2, count_signal);
        run_steps(SIGUSR2);
        REQUIRE(handled == STEPS);
        return 0;
    }
    if (!strcmp(mode, "early")) {
        int devices;
        CHECK(cudaGetDeviceCount(&devices));
        for (int i = 0; i < EARLY_MARKS; i++)
            raise(SIGUSR2);
        return run_steps(SIGUSR2);
    }
    if (!strcmp(mode, "busy"))
        return run_busy(atoi(getenv("USAGE_SIGNAL") ? getenv("USAGE_SIGNAL") : "0"));
    if (!strcmp(mode, "oom"))
        return run_oom();
    if (!strcmp(mode, "rank"))
        return run_rank();
    if (!strcmp(mode, "warmup"))
        return run_warmup();
    if (!strcmp(mode, "kept"))
        return run_kept(argc > 2 ? atoi(argv[2]) : 0);
    fprintf(stderr, "usage: usage grow|signal|handled|early|busy|warmup|kept N|oom|rank\n");
    return 2;
}
/* SPDX-License-Identifier: MIT */
