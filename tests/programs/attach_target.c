/* SPDX-License-Identifier: MIT */
/* Started untraced, attached and detached while it runs (tests/test_attach.py):
 * allocates before attach, waits for a line on stdin, allocates and frees
 * through every route (the runtime, the driver through cuGetProcAddress,
 * a plugin dlopen'ed after attach, another thread), waits again (detach),
 * then allocates through the same routes once more. Its output is the same
 * traced or not: no pointer is printed. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include "check.h"
#include "wait_line.h"

#define HELD_BYTES 1048576     /* before attach, never freed */
#define FREED_LATER_BYTES 65536 /* before attach, freed after */
#define RT_LEAK_BYTES 200003
#define RT_PAIR_BYTES 300007
#define DRV_LEAK_BYTES 400009
#define THREAD_LEAK_BYTES 600011
#define AFTER_DETACH_BYTES 700001

static void *sink[16];
static int sinks;
typedef CUresult (*mem_alloc_fn)(CUdeviceptr *dptr, size_t bytes);

NOINLINE static void rt_leak(void)
{
    CHECK(cudaMalloc(&sink[sinks++], RT_LEAK_BYTES)); /* LEAK:rt_after */
}

NOINLINE static void rt_pair(void)
{
    void *p;
    CHECK(cudaMalloc(&p, RT_PAIR_BYTES));
    CHECK(cudaFree(p));
}

NOINLINE static void drv_leak(mem_alloc_fn alloc, size_t bytes)
{
    CUdeviceptr d;
    CHECK(alloc(&d, bytes)); /* LEAK:drv_after */
    sink[sinks++] = (void *)(uintptr_t)d;
}

NOINLINE static void *thread_leak(void *unused)
{
    (void)unused;
    CHECK(cudaMalloc(&sink[sinks++], THREAD_LEAK_BYTES)); /* LEAK:thread_after */
    return NULL;
}

static void in_thread(void)
{
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, thread_leak, NULL) == 0);
    REQUIRE(pthread_join(t, NULL) == 0);
}

static void plugin_call(const char *plugin)
{
    void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(h);
    void (*leak)(void) = (void (*)(void))dlsym(h, "plugin_leak");
    REQUIRE(leak);
    leak();
}

int main(int argc, char **argv)
{
    void *held, *freed_later;
    mem_alloc_fn alloc = NULL;
    REQUIRE(argc == 2);
    CHECK(cudaMalloc(&held, HELD_BYTES));
    CHECK(cudaMalloc(&freed_later, FREED_LATER_BYTES));
    wait_for("ready");
    rt_leak();
    rt_pair();
    CHECK(cudaFree(freed_later));
    CHECK(cuGetProcAddress("cuMemAlloc", (void **)&alloc, 12000, CU_GET_PROC_ADDRESS_DEFAULT, NULL));
    drv_leak(alloc, DRV_LEAK_BYTES);
    plugin_call(argv[1]);
    in_thread();
    wait_for("attached part done");
    rt_pair();
    CHECK(cudaMalloc(&sink[sinks++], AFTER_DETACH_BYTES));
    drv_leak(alloc, AFTER_DETACH_BYTES + 2);
    plugin_call(argv[1]);
    printf("done: %d allocations kept\n", sinks);
    return 0;
}
