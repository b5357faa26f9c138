/* SPDX-License-Identifier: MIT */
/* Programs shaped like NVIDIA's CUDA samples whose reports have a known
 * shape (tests/test_readable.py and tests/golden/). Modes (argv[1]):
 *   pinned_only [K]  only mapped page-locked host memory, as simpleZeroCopy:
 *                PINNED_BUFFERS buffers of PINNED_BYTES (cudaHostAlloc with
 *                cudaHostAllocMapped), all freed but the last K
 *   device1_released  device 0 holds and frees DEV0_BYTES (runtime API);
 *                device 1's primary context, retained through the driver
 *                API, holds and frees DEV1_BYTES, and its release destroys
 *                the context: the driver cannot be asked about device 1
 *                at exit (the tracer asks it before the release)
 *   killed       device 0 holds and frees DEV0_BYTES, device 1 DEV1_BYTES,
 *                then the process is killed (SIGKILL): no exit sample */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define PINNED_BUFFERS 3
#define PINNED_BYTES (4 << 20)
#define DEV0_BYTES (35 << 20)
#define DEV1_BYTES (2 << 20)

static NOINLINE void *pinned_buffer(void)
{
    void *p;
    CHECK(cudaHostAlloc(&p, PINNED_BYTES, cudaHostAllocMapped)); /* LEAK:pinned */
    return p;
}

static void pinned_only(int kept)
{
    void *buffers[PINNED_BUFFERS];
    for (int i = 0; i < PINNED_BUFFERS; i++)
        buffers[i] = pinned_buffer();
    for (int i = 0; i < PINNED_BUFFERS - kept; i++)
        CHECK(cudaFreeHost(buffers[i]));
}

static void device1_released(void)
{
    CUcontext ctx, popped;
    CUdeviceptr dev1;
    void *dev0;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&dev0, DEV0_BYTES)); /* LEAK:dev0 */
    CHECK(cudaFree(dev0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 1));
    CHECK(cuCtxPushCurrent(ctx));
    CHECK(cuMemAlloc(&dev1, DEV1_BYTES)); /* LEAK:dev1 */
    CHECK(cuMemFree(dev1));
    CHECK(cuCtxPopCurrent(&popped));
    CHECK(cuDevicePrimaryCtxRelease(1));
}

static void killed(void)
{
    void *p;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&p, DEV0_BYTES));
    CHECK(cudaFree(p));
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&p, DEV1_BYTES));
    CHECK(cudaFree(p));
    raise(SIGKILL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "pinned_only";
    if (!strcmp(mode, "pinned_only"))
        pinned_only(argc > 2 ? atoi(argv[2]) : 0);
    else if (!strcmp(mode, "device1_released"))
        device1_released();
    else if (!strcmp(mode, "killed"))
        killed();
    else
        return 2;
    return 0;
}
