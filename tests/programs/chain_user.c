/* Ground truth for interposer chains (tests/test_chain.py): runtime and
 * driver allocations, some freed, some leaked, every result checked. */
#include "check.h"
#include "cuda.h"
#include "cuda_runtime_api.h"

#include <string.h>

#define CH_RT_LEAK_BYTES ((size_t)1 << 20)
#define CH_RT_PAIR_BYTES ((size_t)2 << 20)
#define CH_DRV_LEAK_BYTES ((size_t)4 << 20)
#define CH_DRV_PAIR_BYTES ((size_t)8 << 20)

static NOINLINE void *runtime_leak(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, CH_RT_LEAK_BYTES)); /* LEAK:chain_runtime */
    REQUIRE(p != NULL);
    memset(p, 1, CH_RT_LEAK_BYTES); /* the stand-in's device memory is host memory */
    return p;
}

static NOINLINE void runtime_pair(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, CH_RT_PAIR_BYTES));
    REQUIRE(p != NULL);
    CHECK(cudaFree(p));
}

static NOINLINE CUdeviceptr driver_leak(void)
{
    CUdeviceptr d = 0;
    CHECK(cuMemAlloc_v2(&d, CH_DRV_LEAK_BYTES)); /* LEAK:chain_driver */
    REQUIRE(d != 0);
    return d;
}

static NOINLINE void driver_pair(void)
{
    CUdeviceptr d = 0;
    CHECK(cuMemAlloc_v2(&d, CH_DRV_PAIR_BYTES));
    CHECK(cuMemFree_v2(d));
}

int main(void)
{
    vt_sink = runtime_leak();
    runtime_pair();
    vt_sink = (void *)(uintptr_t)driver_leak();
    driver_pair();
    /* An invalid free keeps its error code through every wrapper. */
    EXPECT(cuMemFree_v2((CUdeviceptr)0x10), CUDA_ERROR_INVALID_VALUE);
    printf("chain_user: ok\n");
    return 0;
}
/* SPDX-License-Identifier: MIT */
