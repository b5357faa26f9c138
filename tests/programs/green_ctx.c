/* Ground truth for green contexts: memory allocated on a green context's
 * stream belongs to the green context, not to the device's primary one.
 *   KEPT_BYTES: allocated, the primary context reset (cudaDeviceReset does
 *     this), then freed: a traced free, never torn down by the reset;
 *   DESTROYED_BYTES: freed by destroying its green context (teardown);
 *   LEAK_BYTES: on a second green context never destroyed: leaked. */
#include <cuda.h>
#include "check.h"

#define KEPT_BYTES 2100011
#define DESTROYED_BYTES 2200013
#define LEAK_BYTES 2300017

static CUgreenCtx green_context(CUdevice dev, CUstream *stream)
{
    CUdevResource sms;
    CUdevResourceDesc desc;
    CUgreenCtx g;
    CHECK(cuDeviceGetDevResource(dev, &sms, CU_DEV_RESOURCE_TYPE_SM));
    CHECK(cuDevResourceGenerateDesc(&desc, &sms, 1));
    CHECK(cuGreenCtxCreate(&g, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    CHECK(cuGreenCtxStreamCreate(stream, g, CU_STREAM_NON_BLOCKING, 0));
    return g;
}

static NOINLINE CUdeviceptr allocate(CUstream stream, size_t bytes)
{
    CUdeviceptr d = 0;
    CHECK(cuMemAllocAsync(&d, bytes, stream)); /* LEAK:green */
    return d;
}

int main(void)
{
    CUdevice dev;
    CUcontext primary;
    CUstream s1, s2;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&primary, dev));
    CHECK(cuCtxSetCurrent(primary));
    CUgreenCtx g1 = green_context(dev, &s1);
    CUdeviceptr kept = allocate(s1, KEPT_BYTES);
    CHECK(cuDevicePrimaryCtxReset(dev));
    CHECK(cuMemFreeAsync(kept, s1)); /* still allocated: the reset did not touch it */
    allocate(s1, DESTROYED_BYTES);
    CHECK(cuStreamDestroy(s1));
    CHECK(cuGreenCtxDestroy(g1));
    green_context(dev, &s2);
    allocate(s2, LEAK_BYTES);
    return 0;
}
/* SPDX-License-Identifier: MIT */
