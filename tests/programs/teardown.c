/* Ground truth for context teardown.  Nothing here leaks except the one
 * allocation on a context that stays alive:
 *   A. runtime: cudaMalloc + cudaMallocManaged + cudaMallocHost, one
 *      cudaMalloc/cudaFree pair, then cudaDeviceReset (device 0) frees the
 *      three; after the reset a new cudaMalloc/cudaFree pair works.
 *   B. cuCtxCreate_v2 (device 0) -> 2 x cuMemAlloc_v2 -> cuCtxDestroy_v2.
 *   C. cuDevicePrimaryCtxRetain (device 1) -> cuMemAlloc_v2 ->
 *      cuDevicePrimaryCtxRelease_v2: the count drops to 0 and the driver
 *      destroys the primary context with its memory.
 *   D. cuCtxCreate_v2 (device 1) -> cuMemAlloc_v2: leaked (context alive).
 * allocations 9, frees 2, teardown-freed 6 allocations (5 device/managed
 * = 8900023 bytes, 1 host = 17011 bytes), leaked 1 (2000003 bytes); peak
 * device+managed 5100033 (part A before its free). */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "check.h"

#define TD_RT_MALLOC_BYTES 1700003
#define TD_RT_MANAGED_BYTES 1700009
#define TD_RT_HOST_BYTES 17011
#define TD_RT_PAIR_BYTES 1700021
#define TD_RT_AFTER_BYTES 1700027
#define TD_CTX_BYTES_1 1800001
#define TD_CTX_BYTES_2 1800007
#define TD_PRIMARY_BYTES 1900003
#define TD_LIVE_BYTES 2000003

NOINLINE void runtime_then_reset(void)
{
    void *a, *b, *h, *pair;
    size_t free0, free1, total;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemGetInfo(&free0, &total));
    CHECK(cudaMalloc(&a, TD_RT_MALLOC_BYTES));
    CHECK(cudaMallocManaged(&b, TD_RT_MANAGED_BYTES, cudaMemAttachGlobal));
    CHECK(cudaMallocHost(&h, TD_RT_HOST_BYTES));
    CHECK(cudaMalloc(&pair, TD_RT_PAIR_BYTES));
    CHECK(cudaFree(pair));
    CHECK(cudaDeviceReset());
    CHECK(cudaMemGetInfo(&free1, &total)); /* the runtime re-initializes device 0 */
    REQUIRE(free1 == free0);
    CHECK(cudaMalloc(&pair, TD_RT_AFTER_BYTES));
    CHECK(cudaFree(pair));
}

NOINLINE void driver_context_destroyed(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr d1, d2;
    size_t free0, free1, total;
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, CU_CTX_SCHED_AUTO, dev));
    CHECK(cuMemGetInfo(&free0, &total));
    CHECK(cuMemAlloc(&d1, TD_CTX_BYTES_1));
    CHECK(cuMemAlloc(&d2, TD_CTX_BYTES_2));
    CHECK(cuCtxDestroy(ctx));
    CUcontext cur;
    CHECK(cuCtxGetCurrent(&cur));
    REQUIRE(cur != ctx);
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemGetInfo(&free1, &total));
    REQUIRE(free1 == free0);
}

NOINLINE void primary_context_released(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr d;
    unsigned flags;
    int active;
    CHECK(cuDeviceGet(&dev, 1));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxPushCurrent(ctx));
    CHECK(cuMemAlloc(&d, TD_PRIMARY_BYTES));
    CHECK(cuCtxPopCurrent(&ctx));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    CHECK(cuDevicePrimaryCtxGetState(dev, &flags, &active));
    REQUIRE(!active); /* leak_on_live_context checks that its memory went back */
}

NOINLINE void leak_on_live_context(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr d = 0;
    CHECK(cuDeviceGet(&dev, 1));
    CHECK(cuCtxCreate_v2(&ctx, CU_CTX_SCHED_AUTO, dev));
    CHECK(cuMemAlloc(&d, TD_LIVE_BYTES)); /* LEAK:live_context */
    vt_sink = (void *)d;
    size_t free_bytes, total;
    CHECK(cuMemGetInfo(&free_bytes, &total));
    REQUIRE(total - free_bytes == TD_LIVE_BYTES);
}

int main(void)
{
    runtime_then_reset();
    CHECK(cuInit(0));
    driver_context_destroyed();
    primary_context_released();
    leak_on_live_context();
    return 0;
}
/* SPDX-License-Identifier: MIT */
