/* Programs whose reports have a known shape (tests/test_readable.py and the
 * golden outputs in tests/golden/). Modes (argv[1]):
 *   c_leak       one leak two functions below main
 *   two_callers  two leaks through one helper (scratch_buffer), from
 *                prepare_batch and prepare_eval
 *   two_devices  device 0 holds TWO_DEV0_BYTES, then device 1 holds
 *                TWO_DEV1_BYTES with device 0's still held; both freed
 *   sites        SITES call sites, each leaking SITE_BYTES * (site + 1)
 *                per step over SITE_STEPS steps, a mark after each step
 *   steps N      a 1 MiB leak per step, N steps, a mark after each
 *   unmarked N   a 1 MiB leak per step, N steps, no marker; then UNMARKED_IDLE_NS
 *                idle and one balanced pair, so that the steps fill few ticks
 *   ramp         a leak that grows faster each step: RAMP_BYTES * (step + 1)
 *                in step 0 .. RAMP_STEPS - 1, a mark after each step
 *   cache        a cache that fills by CACHE_STEP_BYTES in each of the
 *                first CACHE_FILL steps of CACHE_STEPS, then stays (freed
 *                at the end), a mark after each step
 *   oom          a request the device cannot satisfy (STANDIN_CUDA_MEMORY)
 *   one_byte     one leak of 1 byte through scratch_buffer
 *   device1_first  device 1 holds TWO_DEV1_BYTES, then device 0 TWO_DEV0_BYTES;
 *                both freed */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "vramtrace.h"

#define C_LEAK_BYTES 3000000
#define TWO_DEV0_BYTES (35 << 20)
#define TWO_DEV1_BYTES (21 << 20)
#define SITES 40
#define SITE_BYTES 4096
#define SITE_STEPS 3
#define STEP_LEAK_BYTES (1 << 20)
#define UNMARKED_IDLE_NS 20000000
#define RAMP_STEPS 5
#define RAMP_BYTES (1 << 20)
#define CACHE_STEPS 6
#define CACHE_FILL 4
#define CACHE_STEP_BYTES (2 << 20)
#define OOM_REQUEST_BYTES (32 << 20)

static NOINLINE void *scratch_buffer(size_t bytes)
{
    void *p;
    CHECK(cudaMalloc(&p, bytes)); /* LEAK:scratch */
    return p;
}

static NOINLINE void prepare_batch(void)
{
    scratch_buffer(C_LEAK_BYTES); /* CALL:prepare */
}

static NOINLINE void prepare_eval(void)
{
    scratch_buffer(C_LEAK_BYTES / 2); /* CALL:eval */
}

static NOINLINE void *on_device(int device, size_t bytes)
{
    void *p;
    CHECK(cudaSetDevice(device));
    CHECK(cudaMalloc(&p, bytes)); /* LEAK:on_device */
    return p;
}

static void two_devices(void)
{
    void *a = on_device(0, TWO_DEV0_BYTES);
    void *b = on_device(1, TWO_DEV1_BYTES);
    CHECK(cudaFree(b));
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(a));
}

static void device1_first(void)
{
    CHECK(cudaFree(on_device(1, TWO_DEV1_BYTES)));
    CHECK(cudaFree(on_device(0, TWO_DEV0_BYTES)));
}

/* One call of cudaMalloc per site, each on its own line: SITES stacks. */
#define SITE(i) \
    case i: CHECK(cudaMalloc(&p, bytes)); break;
static NOINLINE void leak_at_site(int site, size_t bytes)
{
    void *p;
    switch (site) {
        SITE(0)
        SITE(1)
        SITE(2)
        SITE(3)
        SITE(4)
        SITE(5)
        SITE(6)
        SITE(7)
        SITE(8)
        SITE(9)
        SITE(10)
        SITE(11)
        SITE(12)
        SITE(13)
        SITE(14)
        SITE(15)
        SITE(16)
        SITE(17)
        SITE(18)
        SITE(19)
        SITE(20)
        SITE(21)
        SITE(22)
        SITE(23)
        SITE(24)
        SITE(25)
        SITE(26)
        SITE(27)
        SITE(28)
        SITE(29)
        SITE(30)
        SITE(31)
        SITE(32)
        SITE(33)
        SITE(34)
        SITE(35)
        SITE(36)
        SITE(37)
        SITE(38)
        SITE(39)
    }
}

static void many_sites(void)
{
    for (int step = 0; step < SITE_STEPS; step++) {
        for (int site = 0; site < SITES; site++)
            leak_at_site(site, (size_t)SITE_BYTES * (size_t)(site + 1));
        vramtrace_mark("step");
    }
}

static NOINLINE void leak_step(void)
{
    void *p;
    CHECK(cudaMalloc(&p, STEP_LEAK_BYTES)); /* LEAK:step */
}

static void steps(int n)
{
    for (int i = 0; i < n; i++) {
        leak_step();
        vramtrace_mark("step");
    }
}

static void unmarked(int n)
{
    for (int i = 0; i < n; i++)
        leak_step();
    struct timespec idle = {0, UNMARKED_IDLE_NS};
    nanosleep(&idle, NULL);
    void *p;
    CHECK(cudaMalloc(&p, STEP_LEAK_BYTES));
    CHECK(cudaFree(p));
}

static NOINLINE void ramp_leak(size_t bytes)
{
    void *p;
    CHECK(cudaMalloc(&p, bytes)); /* LEAK:ramp */
}

static void ramp(void)
{
    for (int i = 0; i < RAMP_STEPS; i++) {
        ramp_leak((size_t)RAMP_BYTES * (size_t)(i + 1));
        vramtrace_mark("step");
    }
}

static NOINLINE void *grow_cache(void)
{
    void *p;
    CHECK(cudaMalloc(&p, CACHE_STEP_BYTES)); /* LEAK:cache */
    return p;
}

static void cache(void)
{
    void *blocks[CACHE_FILL];
    for (int i = 0; i < CACHE_STEPS; i++) {
        if (i < CACHE_FILL)
            blocks[i] = grow_cache();
        vramtrace_mark("step");
    }
    for (int i = 0; i < CACHE_FILL; i++)
        CHECK(cudaFree(blocks[i]));
}

static NOINLINE void request_too_much(void)
{
    void *p;
    EXPECT(cudaMalloc(&p, OOM_REQUEST_BYTES), cudaErrorMemoryAllocation); /* LEAK:oom */
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "c_leak";
    if (!strcmp(mode, "c_leak"))
        prepare_batch(); /* CALL:main_c_leak */
    else if (!strcmp(mode, "two_callers")) {
        prepare_batch();
        prepare_eval();
    } else if (!strcmp(mode, "two_devices"))
        two_devices();
    else if (!strcmp(mode, "sites"))
        many_sites();
    else if (!strcmp(mode, "steps"))
        steps(argc > 2 ? atoi(argv[2]) : 5);
    else if (!strcmp(mode, "unmarked"))
        unmarked(argc > 2 ? atoi(argv[2]) : 10);
    else if (!strcmp(mode, "ramp"))
        ramp();
    else if (!strcmp(mode, "cache"))
        cache();
    else if (!strcmp(mode, "oom"))
        request_too_much();
    else if (!strcmp(mode, "device1_first"))
        device1_first();
    else if (!strcmp(mode, "one_byte"))
        scratch_buffer(1);
    else
        return 2;
    return 0;
}
/* SPDX-License-Identifier: MIT */
