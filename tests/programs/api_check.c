/* The C API of include/vramtrace.h against known allocations.
 *
 *   api_check          prints what the API answered (one "key=value" a line)
 *   api_check peaks    the same for vramtrace_peak_since (see peaks())
 *
 * BASE is live before the checkpoint; between the "step-start" and
 * "step-end" markers LEAK (kept to the end) and STEP (freed after the end
 * marker) are allocated and SCRATCH allocated and freed; EXTRA is leaked
 * after the last marker. So, in the dump: growth between the markers is
 * LEAK + STEP, leaked at exit LEAK + EXTRA, the largest call site LEAK.
 * Linked with -rdynamic so dladdr names these functions. */
#include <cuda_runtime_api.h>
#include <inttypes.h>
#include <vramtrace.h>

#include "check.h"

#define API_BASE_BYTES 3000017
#define API_LEAK_BYTES 3145728        /* 3 MiB */
#define API_STEP_BYTES 524288         /* 512 KiB */
#define API_SCRATCH_BYTES 2000029
#define API_EXTRA_BYTES 1048576       /* 1 MiB */
#define API_GROWTH_BYTES (API_LEAK_BYTES + API_STEP_BYTES)
#define API_LEAKED_BYTES (API_LEAK_BYTES + API_EXTRA_BYTES)
#define PEAK_A_BYTES 1048583
#define PEAK_B_BYTES 2097169
#define PEAK_C_BYTES 524309
#define PEAK_NEWER_CHECKPOINTS 16 /* VRAMTRACE_PEAK_CHECKPOINTS */

NOINLINE void *leak_after_checkpoint(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, API_LEAK_BYTES)); /* LEAK:api */
    return p;
}

NOINLINE void *step_buffer(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, API_STEP_BYTES));
    return p;
}

NOINLINE void scratch(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, API_SCRATCH_BYTES));
    CHECK(cudaFree(p));
}

NOINLINE void *leak_after_last_mark(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, API_EXTRA_BYTES)); /* LEAK:extra */
    return p;
}

static NOINLINE void *allocate(size_t bytes)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, bytes));
    return p;
}

/* BASE is live before checkpoint FIRST; then A and B live at once (the
 * peak since FIRST: A + B), A freed, checkpoint SECOND, C allocated (since
 * FIRST: B + C, less than A + B; since SECOND: C), all freed; then
 * PEAK_NEWER_CHECKPOINTS checkpoints with a one-byte allocation after each:
 * FIRST and SECOND are no longer followed, the last one's peak is 1. */
static int peaks(void)
{
    void *base = allocate(API_BASE_BYTES);
    uint64_t first = vramtrace_checkpoint(), second, last = 0;
    void *a = allocate(PEAK_A_BYTES), *b = allocate(PEAK_B_BYTES);
    CHECK(cudaFree(a));
    second = vramtrace_checkpoint();
    void *c = allocate(PEAK_C_BYTES);
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    printf("peak_first=%" PRIu64 "\n", vramtrace_peak_since(first));
    printf("peak_second=%" PRIu64 "\n", vramtrace_peak_since(second));
    printf("leaked_first=%" PRIu64 "\n", vramtrace_leaked_since(first));
    for (int i = 0; i < PEAK_NEWER_CHECKPOINTS; i++) {
        last = vramtrace_checkpoint();
        CHECK(cudaFree(allocate(1)));
    }
    printf("peak_first_forgotten=%" PRIu64 "\n", vramtrace_peak_since(first));
    printf("peak_last=%" PRIu64 "\n", vramtrace_peak_since(last));
    CHECK(cudaFree(base));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "peaks"))
        return peaks();
    void *base = NULL, *step, *leak;
    char sites[1024];
    printf("active=%d\n", vramtrace_active());
    CHECK(cudaMalloc(&base, API_BASE_BYTES));
    printf("live_base=%" PRIu64 "\n", vramtrace_live_bytes());
    vramtrace_mark("step-start");
    uint64_t token = vramtrace_checkpoint();
    leak = leak_after_checkpoint();
    step = step_buffer();
    scratch();
    printf("leaked_since=%" PRIu64 "\n", vramtrace_leaked_since(token));
    printf("live_step=%" PRIu64 "\n", vramtrace_live_bytes());
    size_t need = vramtrace_leak_sites_since(token, sites, sizeof sites);
    printf("sites_length=%zu\n", need);
    printf("sites=%s", sites);   /* newline-terminated lines */
    printf("sites_end\n");
    char tiny[8];
    printf("tiny_length=%zu tiny=%s\n", vramtrace_leak_sites_since(token, tiny, sizeof tiny), tiny);
    vramtrace_mark("step-end");
    CHECK(cudaFree(step));
    CHECK(cudaFree(base));
    vt_sink = leak;
    vt_sink = leak_after_last_mark();
    printf("leaked_since_end=%" PRIu64 "\n", vramtrace_leaked_since(token));
    printf("live_end=%" PRIu64 "\n", vramtrace_live_bytes());
    return 0;
}
/* SPDX-License-Identifier: MIT */
