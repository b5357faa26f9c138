/* SPDX-License-Identifier: MIT */
/* The program of tests/bench/nvtx.sh: NVTX push/pop pairs of a range named
 * "other" (not the marker's name: a compare) and of one named "step" (each
 * pop a marker), and start/end pairs of "other", timed in one run:
 *     bench_nvtx PAIRS
 * prints "other_push_pop NS", "other_start_end NS", "step_push_pop NS",
 * ns per pair. One cudaMalloc first, so a traced run has its dump open. */
#include <cuda_runtime_api.h>
#include <nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void push_pop(const char *name, long pairs)
{
    for (long i = 0; i < pairs; i++) {
        nvtxRangePushA(name);
        nvtxRangePop();
    }
}

static void start_end(const char *name, long pairs)
{
    for (long i = 0; i < pairs; i++)
        nvtxRangeEnd(nvtxRangeStartA(name));
}

static void timed(const char *what, void (*loop)(const char *, long), const char *name, long pairs)
{
    loop(name, pairs / 10 + 1); /* NVTX's first call loads the injection */
    double t = now_ns();
    loop(name, pairs);
    printf("%s %.1f\n", what, (now_ns() - t) / pairs);
}

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 1000000;
    void *p;
    if (cudaMalloc(&p, 1 << 20) != cudaSuccess)
        return 1;
    timed("other_push_pop", push_pop, "other", pairs);
    timed("other_start_end", start_end, "other", pairs);
    timed("step_push_pop", push_pop, "step", pairs / 10);
    cudaFree(p);
    return 0;
}
