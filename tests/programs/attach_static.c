/* SPDX-License-Identifier: MIT */
/* Started untraced and attached while it runs (tests/test_attach.py), with
 * the CUDA runtime linked into it (the stand-in's cudart_static, as nvcc
 * links by default): the runtime fetched its driver functions through
 * cuGetProcAddress before attach and calls them through its own table. It
 * allocates before attach, waits for a line (attach), allocates and frees
 * through the runtime, waits again (detach), allocates once more, and says
 * whether the runtime's table is as it was before attach. Its output is the
 * same traced or not. */
#include <cuda_runtime_api.h>
#include <string.h>
#include "../standin/cudart_internal.h"
#include "check.h"
#include "wait_line.h"

#define HELD_BYTES 1048576 /* before attach, never freed */
#define STATIC_LEAK_BYTES 200003
#define STATIC_MANAGED_BYTES 300007
#define STATIC_PAIR_BYTES 400009
#define AFTER_DETACH_BYTES 700001

static void *sink[8];
static int sinks;

NOINLINE static void static_leak(void)
{
    CHECK(cudaMalloc(&sink[sinks++], STATIC_LEAK_BYTES)); /* LEAK:static_after */
}

NOINLINE static void static_managed(void)
{
    CHECK(cudaMallocManaged(&sink[sinks++], STATIC_MANAGED_BYTES, cudaMemAttachGlobal)); /* LEAK:managed_after */
}

NOINLINE static void static_pair(void)
{
    void *p;
    CHECK(cudaMalloc(&p, STATIC_PAIR_BYTES));
    CHECK(cudaFree(p));
}

int main(void)
{
    struct rt_driver before;
    void *held;
    CHECK(cudaMalloc(&held, HELD_BYTES));
    before = rt_drv;
    wait_for("ready");
    static_leak();
    static_managed();
    static_pair();
    wait_for("attached part done");
    static_pair();
    CHECK(cudaMalloc(&sink[sinks++], AFTER_DETACH_BYTES));
    printf("driver table %s\n",
           memcmp(&before, &rt_drv, sizeof before) ? "changed" : "as before attach");
    printf("done: %d allocations kept\n", sinks);
    return 0;
}
