/* Ground truth for virtual memory management (cuMemCreate & co.).
 *   h3 (8 MiB): created, mapped, never released nor unmapped: the leak.
 *   h1 (4 MiB): mapped twice, released while mapped; gone at the second unmap.
 *   h2 (6 MiB): created and released, never mapped: gone at the release.
 * Live VRAM: 8 -> 12 -> (release h1: still 12) -> 18 (peak) -> 12 -> 12 -> 8 MiB.
 * cuMemAddressReserve and cuMemMap never count as allocations (the
 * reservations are bigger than anything allocated). */
#include <cuda.h>
#include <string.h>
#include "check.h"

#define MiB ((size_t)1 << 20)
#define VMM_LEAK_BYTES (8 * MiB)
#define VMM_H1_BYTES (4 * MiB)
#define VMM_H2_BYTES (6 * MiB)
#define VMM_RESERVE1 (32 * MiB)
#define VMM_RESERVE3 (64 * MiB)

static CUmemAllocationProp prop;

NOINLINE CUmemGenericAllocationHandle leak_cuMemCreate(void)
{
    CUmemGenericAllocationHandle h = 0;
    CHECK(cuMemCreate(&h, VMM_LEAK_BYTES, &prop, 0)); /* LEAK:cuMemCreate */
    return h;
}

NOINLINE CUmemGenericAllocationHandle create_handle(size_t bytes)
{
    CUmemGenericAllocationHandle h = 0;
    CHECK(cuMemCreate(&h, bytes, &prop, 0));
    return h;
}

static void set_access(CUdeviceptr va, size_t size, int dev)
{
    CUmemAccessDesc ad;
    memset(&ad, 0, sizeof ad);
    ad.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ad.location.id = dev;
    ad.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK(cuMemSetAccess(va, size, &ad, 1));
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));

    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gran = 0;
    CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    REQUIRE(gran == 2 * MiB);

    size_t free0, freeN, total;
    CHECK(cuMemGetInfo(&free0, &total));

    /* the leak, mapped and used */
    CUmemGenericAllocationHandle h3 = leak_cuMemCreate();
    CUdeviceptr r3;
    CHECK(cuMemAddressReserve(&r3, VMM_RESERVE3, 0, 0, 0));
    CHECK(cuMemMap(r3, VMM_LEAK_BYTES, 0, h3, 0));
    set_access(r3, VMM_LEAK_BYTES, dev);
    memset((void *)r3, 0x5a, 4096);

    /* h1: two mappings, released while mapped */
    CUmemGenericAllocationHandle h1 = create_handle(VMM_H1_BYTES);
    CUdeviceptr r1;
    CHECK(cuMemAddressReserve(&r1, VMM_RESERVE1, 0, 0, 0));
    CHECK(cuMemMap(r1, VMM_H1_BYTES, 0, h1, 0));
    CHECK(cuMemMap(r1 + 8 * MiB, VMM_H1_BYTES, 0, h1, 0));
    CHECK(cuMemRelease(h1));
    EXPECT(cuMemRelease(h1), CUDA_ERROR_INVALID_VALUE); /* gone for the program... */
    CHECK(cuMemGetInfo(&freeN, &total));
    REQUIRE(free0 - freeN == VMM_LEAK_BYTES + VMM_H1_BYTES); /* ...but not for the device */

    /* h2: released before any mapping */
    CUmemGenericAllocationHandle h2 = create_handle(VMM_H2_BYTES);
    CHECK(cuMemGetInfo(&freeN, &total));
    REQUIRE(free0 - freeN == VMM_LEAK_BYTES + VMM_H1_BYTES + VMM_H2_BYTES); /* the peak */
    CHECK(cuMemRelease(h2));

    CHECK(cuMemUnmap(r1, VMM_H1_BYTES));
    CHECK(cuMemGetInfo(&freeN, &total));
    REQUIRE(free0 - freeN == VMM_LEAK_BYTES + VMM_H1_BYTES); /* one mapping left */
    CHECK(cuMemUnmap(r1 + 8 * MiB, VMM_H1_BYTES));
    CHECK(cuMemGetInfo(&freeN, &total));
    REQUIRE(free0 - freeN == VMM_LEAK_BYTES);
    CHECK(cuMemAddressFree(r1, VMM_RESERVE1));
    return 0;
}
/* SPDX-License-Identifier: MIT */
