/* Aggregate-mode ground truth. Modes (argv[1]):
 *   sites        known sizes from distinct call sites, STEPS steps with a
 *                vramtrace_mark("step") after each: a per-step leak, a
 *                temporary, a managed leak once, a page-locked host leak
 *                once, and a weights buffer freed at the end
 *   pairs N      N cudaMalloc/cudaFree pairs of PAIR_BYTES from one site,
 *                then the sites run (a dump's size must not grow with N)
 *   busy MS      cudaMalloc/cudaFree pairs for MS milliseconds (sampling)
 * Leaked at exit (sites): STEPS * STEP_BYTES (leak_step), MANAGED_BYTES
 * (leak_managed), and HOST_BYTES of host memory (leak_host).
 * Peak: the weights, every step leak, the managed leak and the temporary of
 * the last step, all at once. */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "vramtrace.h"

#define STEPS 6
#define STEP_BYTES 1000000
#define TEMP_BYTES 3000000
#define MANAGED_BYTES 65536
#define HOST_BYTES 8192
#define WEIGHTS_BYTES 5000000
#define PAIR_BYTES 4096

static NOINLINE void leak_step(void)
{
    void *p;
    CHECK(cudaMalloc(&p, STEP_BYTES)); /* LEAK:step */
    vt_sink = p;
}

static NOINLINE void temporary(void)
{
    void *p;
    CHECK(cudaMalloc(&p, TEMP_BYTES)); /* LEAK:temp */
    CHECK(cudaFree(p));
}

static NOINLINE void leak_managed(void)
{
    void *p;
    CHECK(cudaMallocManaged(&p, MANAGED_BYTES, cudaMemAttachGlobal)); /* LEAK:managed */
    vt_sink = p;
}

static NOINLINE void leak_host(void)
{
    void *p;
    CHECK(cudaMallocHost(&p, HOST_BYTES)); /* LEAK:host */
    vt_sink = p;
}

static NOINLINE void pair(void)
{
    void *p;
    CHECK(cudaMalloc(&p, PAIR_BYTES));
    CHECK(cudaFree(p));
}

static void sites(void)
{
    void *weights;
    CHECK(cudaMalloc(&weights, WEIGHTS_BYTES)); /* LEAK:weights */
    leak_managed();
    leak_host();
    for (int i = 0; i < STEPS; i++) {
        leak_step();
        temporary();
        vramtrace_mark("step");
    }
    CHECK(cudaFree(weights));
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "sites";
    long n = argc > 2 ? atol(argv[2]) : 0;
    if (!strcmp(mode, "pairs")) {
        for (long i = 0; i < n; i++)
            pair();
    } else if (!strcmp(mode, "busy")) {
        /* runs for a time only so that enough samples are written; the
         * tests check the samples in the dump, never the time taken */
        for (double end = now_ms() + (double)n; now_ms() < end;)
            pair();
        return 0;
    } else if (strcmp(mode, "sites") != 0) {
        fputs("usage: aggregate sites|pairs N|busy MS\n", stderr);
        return 2;
    }
    sites();
    return 0;
}
/* SPDX-License-Identifier: MIT */
