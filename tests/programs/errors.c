/* Ground truth for failures: out of memory through cudaMalloc and
 * cuMemAlloc (the codes must reach the program unchanged and the output
 * pointer untouched), cudaFree(NULL), frees the driver rejects, and one
 * normal leak beside them.
 *   allocations 2 (the leak, the double-freed one), frees 1,
 *   failed_allocations 2, invalid_frees 3 (bogus cudaFree, bogus
 *   cuMemFree, second cudaFree of the same pointer). */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "check.h"

#define ERR_LEAK_BYTES 1600003
#define ERR_DOUBLE_FREE_BYTES 1600009
#define SENTINEL ((uintptr_t)0x5e5e5e5e)

NOINLINE void oom_runtime(size_t too_much)
{
    void *p = (void *)SENTINEL;
    EXPECT(cudaMalloc(&p, too_much), cudaErrorMemoryAllocation);
    REQUIRE(p == (void *)SENTINEL);
    EXPECT(cudaGetLastError(), cudaErrorMemoryAllocation);
    EXPECT(cudaGetLastError(), cudaSuccess);
}

NOINLINE void oom_driver(size_t too_much)
{
    CUdeviceptr d = SENTINEL;
    EXPECT(cuMemAlloc(&d, too_much), CUDA_ERROR_OUT_OF_MEMORY);
    REQUIRE(d == SENTINEL);
}

NOINLINE void invalid_frees(void)
{
    CHECK(cudaFree(NULL));
    EXPECT(cudaFree((void *)0xdead0000), cudaErrorInvalidValue);
    EXPECT(cuMemFree((CUdeviceptr)0xbeef0000), CUDA_ERROR_INVALID_VALUE);
    void *p = NULL;
    CHECK(cudaMalloc(&p, ERR_DOUBLE_FREE_BYTES));
    CHECK(cudaFree(p));
    EXPECT(cudaFree(p), cudaErrorInvalidValue);
    (void)cudaGetLastError();
}

NOINLINE void errors_leak(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, ERR_LEAK_BYTES)); /* LEAK:errors */
    vt_sink = p;
}

int main(void)
{
    size_t free_bytes, total;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemGetInfo(&free_bytes, &total));
    CHECK(cuInit(0)); /* the runtime's primary context is current: the driver API uses it */
    oom_runtime(total + 4096);
    oom_driver(total + 8192);
    invalid_frees();
    errors_leak();
    size_t after;
    CHECK(cudaMemGetInfo(&after, &total));
    REQUIRE(free_bytes - after == ERR_LEAK_BYTES);
    return 0;
}
/* SPDX-License-Identifier: MIT */
