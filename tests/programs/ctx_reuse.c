/* A destroyed context's address comes back as a context of another device
 * (the stand-in does this under STANDIN_CUDA_REUSE_CONTEXTS=1): the
 * allocation in the new context must be on device 1, not on the device the
 * tracer saw for that address before.
 *   cuCtxCreate (device 0) -> cuMemAlloc/cuMemFree -> cuCtxDestroy
 *   cuCtxCreate (device 1, same address) -> cuMemAlloc: leaked. */
#include <cuda.h>
#include "check.h"

#define CR_PAIR_BYTES 1100009
#define CR_LEAK_BYTES 1200007

NOINLINE CUcontext allocate_on_device0(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr d;
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, CU_CTX_SCHED_AUTO, dev));
    CHECK(cuMemAlloc(&d, CR_PAIR_BYTES));
    CHECK(cuMemFree(d));
    CHECK(cuCtxDestroy(ctx));
    return ctx;
}

NOINLINE void leak_in_reused_context(CUcontext old)
{
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr d = 0;
    CHECK(cuDeviceGet(&dev, 1));
    CHECK(cuCtxCreate_v2(&ctx, CU_CTX_SCHED_AUTO, dev));
    REQUIRE(ctx == old); /* the case under test really happens */
    CHECK(cuMemAlloc(&d, CR_LEAK_BYTES)); /* LEAK:reused_context */
    vt_sink = (void *)d;
}

int main(void)
{
    CHECK(cuInit(0));
    leak_in_reused_context(allocate_on_device0());
    return 0;
}
/* SPDX-License-Identifier: MIT */
