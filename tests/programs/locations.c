/* Ground truth for memory locations: cuMemCreate with each location type,
 * each handle leaked (never released), and an allocation from a pool
 * created with a host location, leaked. Only HOST, HOST_NUMA and
 * HOST_NUMA_CURRENT are host memory; a location type newer than the 13.0
 * header (argv[1], the stand-in driver told to know it as a part of a
 * device's memory) is VRAM.
 *     locations NEWER_TYPE */
#include <cuda.h>
#include <stdlib.h>
#include "check.h"

#define MiB ((size_t)1 << 20)
#define LOC_DEVICE_BYTES (2 * MiB)
#define LOC_HOST_BYTES (4 * MiB)
#define LOC_HOST_NUMA_BYTES (6 * MiB)
#define LOC_HOST_NUMA_CURRENT_BYTES (8 * MiB)
#define LOC_NEWER_BYTES (10 * MiB)
#define LOC_HOST_POOL_BYTES 123457


static NOINLINE CUmemGenericAllocationHandle create_at(int type, int id, size_t bytes)
{
    CUmemAllocationProp prop;
    CUmemGenericAllocationHandle h = 0;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = (CUmemLocationType)type;
    prop.location.id = id;
    CHECK(cuMemCreate(&h, bytes, &prop, 0)); /* LEAK:create_at */
    return h;
}

static NOINLINE void leak_from_host_pool(CUstream stream)
{
    CUmemPoolProps props;
    CUmemoryPool pool;
    CUdeviceptr d = 0;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_HOST;
    CHECK(cuMemPoolCreate(&pool, &props));
    CHECK(cuMemAllocFromPoolAsync(&d, LOC_HOST_POOL_BYTES, pool, stream)); /* LEAK:host_pool */
    vt_sink = (void *)(uintptr_t)d;
}

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    CUstream stream;
    REQUIRE(argc == 2);
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuStreamCreate(&stream, CU_STREAM_DEFAULT));
    create_at(CU_MEM_LOCATION_TYPE_DEVICE, 0, LOC_DEVICE_BYTES);
    create_at(CU_MEM_LOCATION_TYPE_HOST, 0, LOC_HOST_BYTES);
    create_at(CU_MEM_LOCATION_TYPE_HOST_NUMA, 0, LOC_HOST_NUMA_BYTES);
    create_at(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0, LOC_HOST_NUMA_CURRENT_BYTES);
    create_at(atoi(argv[1]), 0, LOC_NEWER_BYTES);
    leak_from_host_pool(stream);
    size_t free_bytes, total;
    CHECK(cuMemGetInfo(&free_bytes, &total));
    REQUIRE(total - free_bytes == LOC_DEVICE_BYTES + LOC_NEWER_BYTES); /* host memory is no VRAM */
    return 0;
}
/* SPDX-License-Identifier: MIT */
