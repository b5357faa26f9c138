/* SPDX-License-Identifier: MIT */
/* An expandable segment as PyTorch's allocator grows and frees one: an
 * address range reserved, then PAGES pages of the allocation granularity
 * each created (cuMemCreate) and mapped, then each unmapped and released,
 * one by one. Usage: bench_vmm PAGES; prints "ns_per_map N" and
 * "ns_per_unmap N" (each page's create+map and unmap+release, wall time).
 * tests/bench/vmm.sh runs it traced and untraced. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void check(CUresult r, const char *what)
{
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "bench_vmm: %s: error %d\n", what, (int)r);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    size_t pages = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000, granularity;
    CUdevice device;
    CUcontext context;
    CUdeviceptr base;
    CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0}};
    CUmemGenericAllocationHandle *handles = calloc(pages, sizeof *handles);
    if (!handles || !pages)
        return 2;
    check(cuInit(0), "cuInit");
    check(cuDeviceGet(&device, 0), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
    check(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
          "cuMemGetAllocationGranularity");
    check(cuMemAddressReserve(&base, pages * granularity, 0, 0, 0), "cuMemAddressReserve");
    double start = now_ns();
    for (size_t i = 0; i < pages; i++) {
        check(cuMemCreate(&handles[i], granularity, &prop, 0), "cuMemCreate");
        check(cuMemMap(base + i * granularity, granularity, 0, handles[i], 0), "cuMemMap");
    }
    double mapped = now_ns();
    for (size_t i = 0; i < pages; i++) {
        check(cuMemUnmap(base + i * granularity, granularity), "cuMemUnmap");
        check(cuMemRelease(handles[i]), "cuMemRelease");
    }
    double unmapped = now_ns();
    check(cuMemAddressFree(base, pages * granularity), "cuMemAddressFree");
    printf("ns_per_map %.1f\nns_per_unmap %.1f\n", (mapped - start) / (double)pages,
           (unmapped - mapped) / (double)pages);
    free(handles);
    return 0;
}
