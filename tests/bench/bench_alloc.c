/* Alloc/free pairs through the CUDA runtime at a chosen stack depth, timed.
 * Usage: bench_alloc PAIRS DEPTH THREADS; prints "ns_per_pair N" (wall time
 * of the timed loop divided by all pairs of all threads), then how much the
 * malloc heap and the resident set grew over the loop. Run it traced and
 * untraced (tests/bench/run.sh) to get the tracer's added cost.
 * bench_alloc --live COUNT STACKS keeps COUNT small allocations live, made
 * from STACKS distinct call stacks, and prints "heap_bytes N", the malloc
 * heap in use afterwards less before: traced minus untraced is the tracer's
 * memory (its dump is a file mapping, not heap).
 * bench_alloc --unwind COUNT DEPTH times libunwind's unw_backtrace alone,
 * called where the allocation loop would call cudaMalloc, and prints
 * "ns_per_backtrace N": the part of the tracer's cost it cannot avoid. */
#define UNW_LOCAL_ONLY
#include <cuda_runtime.h>
#include <libunwind.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long pairs;

static __attribute__((noinline)) long alloc_free_loop(long n)
{
    long failures = 0;
    for (long i = 0; i < n; i++) {
        void *p;
        if (cudaMalloc(&p, 256 + (size_t)(i & 1023) * 256) != cudaSuccess || cudaFree(p))
            failures++;
    }
    return failures;
}

/* Recurses DEPTH frames before the loop, so the tracer unwinds that deep. */
static __attribute__((noinline)) long at_depth(int depth, long n)
{
    if (depth <= 0)
        return alloc_free_loop(n);
    long r = at_depth(depth - 1, n);
    __asm__ volatile("" ::: "memory"); /* no tail call: keep the frame */
    return r;
}

static int depth;

static long rss_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

static size_t heap_in_use(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

/* One allocation, DEPTH frames down: each depth is a distinct stack. */
static __attribute__((noinline)) void *alloc_at(int frames)
{
    void *p = NULL;
    if (frames > 0) {
        p = alloc_at(frames - 1);
        __asm__ volatile("" ::: "memory");
        return p;
    }
    return cudaMalloc(&p, 64) == cudaSuccess ? p : NULL;
}

static int keep_live(long count, int stacks)
{
    size_t before = heap_in_use();
    long missing = 0;
    for (long i = 0; i < count; i++)
        missing += alloc_at((int)(i % stacks)) == NULL;
    printf("heap_bytes %zd\n", (ssize_t)(heap_in_use() - before));
    return missing != 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static __attribute__((noinline)) int unwind_loop(long n)
{
    void *frames[128];
    int got = 0;
    double start = now();
    for (long i = 0; i < n; i++)
        got += unw_backtrace(frames, 128) > 0;
    printf("ns_per_backtrace %.1f\n", (now() - start) * 1e9 / (double)n);
    return got != n;
}

static __attribute__((noinline)) int unwind_at_depth(int frames, long n)
{
    if (frames <= 0)
        return unwind_loop(n);
    int r = unwind_at_depth(frames - 1, n);
    __asm__ volatile("" ::: "memory");
    return r;
}

static void *worker(void *arg)
{
    (void)arg;
    return (void *)at_depth(depth, pairs);
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--live"))
        return keep_live(atol(argv[2]), atoi(argv[3]));
    if (argc == 4 && !strcmp(argv[1], "--unwind"))
        return unwind_at_depth(atoi(argv[3]), atol(argv[2]));
    if (argc != 4) {
        fprintf(stderr, "usage: bench_alloc PAIRS DEPTH THREADS\n");
        return 2;
    }
    pairs = atol(argv[1]);
    depth = atoi(argv[2]);
    int threads = atoi(argv[3]);
    pthread_t tid[64];
    void *p;
    cudaMalloc(&p, 1); /* initialise outside the timed part */
    cudaFree(p);
    size_t heap_before = heap_in_use();
    long rss_before = rss_kb();
    double start = now();
    long failures = 0;
    for (int t = 0; t < threads && t < 64; t++)
        pthread_create(&tid[t], NULL, worker, NULL);
    for (int t = 0; t < threads && t < 64; t++) {
        void *r;
        pthread_join(tid[t], &r);
        failures += (long)r;
    }
    double elapsed = now() - start;
    printf("ns_per_pair %.1f\n", elapsed * 1e9 / ((double)pairs * threads));
    /* What the pairs left behind: a tracer must not grow per event. */
    printf("heap_growth_bytes %zd\nrss_growth_kb %ld\n", (ssize_t)(heap_in_use() - heap_before),
           rss_kb() - rss_before);
    return failures != 0;
}
/* SPDX-License-Identifier: MIT */
