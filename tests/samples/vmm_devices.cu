// SPDX-License-Identifier: MIT
// In the shape of NVIDIA's vectorAddMMAP sample: one range of virtual
// addresses backed by physical memory on two devices (cuMemCreate on each,
// mapped side by side, each handle released once mapped), made accessible
// to both, used by a kernel, then unmapped and the range freed. Ground
// truth (tests/test_samples.py): a second range keeps KEPT_CHUNKS chunks of
// device 1 mapped at exit (cuMemCreate, device 1, a leak at its line);
// nothing else leaks. It prints the granularity ("granularity G").
#include "sample.h"

#define DEVICES 2
#define KEPT_CHUNKS 3

__global__ void iota(int *p, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = (int)i;
}

static CUmemAllocationProp prop_on(int device)
{
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    return prop;
}

static NOINLINE CUmemGenericAllocationHandle physical_on(int device, size_t bytes)
{
    CUmemGenericAllocationHandle h;
    CUmemAllocationProp prop = prop_on(device);
    CHECK(cuMemCreate(&h, bytes, &prop, 0)); // CALL:spread
    return h;
}

static NOINLINE CUmemGenericAllocationHandle kept_on(int device, size_t bytes)
{
    CUmemGenericAllocationHandle h;
    CUmemAllocationProp prop = prop_on(device);
    CHECK(cuMemCreate(&h, bytes, &prop, 0)); // LEAK:vmm_kept
    return h;
}

static void map_for_all(CUdeviceptr va, size_t bytes, CUmemGenericAllocationHandle h,
                        size_t offset)
{
    CHECK(cuMemMap(va + offset, bytes, 0, h, 0));
    CHECK(cuMemRelease(h)); // the mapping keeps the memory
    CUmemAccessDesc access[DEVICES];
    for (int d = 0; d < DEVICES; d++) {
        access[d].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access[d].location.id = d;
        access[d].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }
    CHECK(cuMemSetAccess(va + offset, bytes, access, DEVICES));
}

int main()
{
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(nullptr)); // the runtime makes device 0's context current
    size_t chunk = 0;
    CUmemAllocationProp prop = prop_on(0);
    CHECK(cuMemGetAllocationGranularity(&chunk, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_t total = DEVICES * chunk;
    CUdeviceptr va = 0;
    CHECK(cuMemAddressReserve(&va, total, 0, 0, 0));
    for (int d = 0; d < DEVICES; d++)
        map_for_all(va, chunk, physical_on(d, chunk), d * chunk);
    size_t n = total / sizeof(int);
    iota<<<(unsigned)((n + 255) / 256), 256>>>((int *)va, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cuMemUnmap(va, total));
    CHECK(cuMemAddressFree(va, total));

    CUdeviceptr kept = 0;
    size_t kept_bytes = KEPT_CHUNKS * chunk;
    CHECK(cuMemAddressReserve(&kept, kept_bytes, 0, 0, 0));
    map_for_all(kept, kept_bytes, kept_on(1, kept_bytes), 0);
    printf("granularity %zu\n", chunk);
    return 0;
}
