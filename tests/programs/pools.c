/* Ground truth for the device of stream-ordered and pool memory
 * (tests/test_teardown.py): the memory lives on the pool's device or the
 * stream's device, whichever device is current, and goes with that device's
 * reset.
 *   A. device 0 current: cudaMallocFromPoolAsync from a pool created on
 *      device 1 -> device 1.
 *   B. device 0 current: cudaMallocAsync on a stream of device 1 -> device 1.
 *   C. device 1 current: cudaMallocFromPoolAsync from a pool of device 0 ->
 *      device 0, leaked (the pool is trimmed and destroyed with it still
 *      allocated: the driver releases it only once freed).
 *   D. device 0 current: cudaMallocAsync on the per-thread default stream
 *      -> device 0, freed with cudaFreeAsync.
 *   E. device 1: cudaDeviceReset frees A and B.
 * allocations 4, frees 1, teardown-freed 2 (A + B bytes), leaked C;
 * peak of device 1: A + B; of device 0: C + D. */
#include "check.h"
#include "cuda.h"
#include "cuda_runtime_api.h"

#define PL_POOL1_BYTES 3100007
#define PL_STREAM1_BYTES 3200009
#define PL_POOL0_BYTES 3300011
#define PL_STREAM0_BYTES 3400013

static cudaMemPool_t pool_on(int device)
{
    struct cudaMemPoolProps props = {0};
    cudaMemPool_t pool;
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    CHECK(cudaMemPoolCreate(&pool, &props));
    return pool;
}

static size_t used_on(int device)
{
    size_t free_bytes, total;
    CHECK(cudaSetDevice(device));
    CHECK(cudaMemGetInfo(&free_bytes, &total));
    return total - free_bytes;
}

static NOINLINE void *from_pool_of_other_device(cudaMemPool_t pool1)
{
    void *p = NULL;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMallocFromPoolAsync(&p, PL_POOL1_BYTES, pool1, cudaStreamPerThread));
    return p;
}

static NOINLINE void *on_stream_of_other_device(cudaStream_t stream1)
{
    void *p = NULL;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMallocAsync(&p, PL_STREAM1_BYTES, stream1));
    return p;
}

static NOINLINE void *leak_from_pool_of_device0(cudaMemPool_t pool0)
{
    void *p = NULL;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync(&p, PL_POOL0_BYTES, pool0, cudaStreamPerThread)); /* LEAK:pool0 */
    return p;
}

static NOINLINE void pair_on_device0(void)
{
    void *p = NULL;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMallocAsync(&p, PL_STREAM0_BYTES, cudaStreamPerThread));
    CHECK(cudaFreeAsync(p, cudaStreamPerThread));
}

int main(void)
{
    cudaStream_t stream1;
    cudaMemPool_t pool0 = pool_on(0), pool1 = pool_on(1);
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamCreate(&stream1));
    vt_sink = from_pool_of_other_device(pool1);
    vt_sink = on_stream_of_other_device(stream1);
    REQUIRE(used_on(1) == PL_POOL1_BYTES + PL_STREAM1_BYTES);
    vt_sink = leak_from_pool_of_device0(pool0);
    pair_on_device0();
    REQUIRE(used_on(0) == PL_POOL0_BYTES);
    CHECK(cudaMemPoolTrimTo(pool0, 0));
    CHECK(cudaMemPoolDestroy(pool0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaDeviceReset());
    REQUIRE(used_on(1) == 0);
    REQUIRE(used_on(0) == PL_POOL0_BYTES);
    (void)pool1;
    return 0;
}
/* SPDX-License-Identifier: MIT */
