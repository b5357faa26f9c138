/* Ground truth for driver functions fetched through the runtime
 * (cudaGetDriverEntryPoint / ...ByVersion, as PyTorch does for the VMM
 * API), each route leaking from its own function.  With --check-names (no
 * tracer) it checks with dladdr which driver symbol each route got. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <string.h>
#include "check.h"

/* The entry points' types, as the program calls them. */
typedef CUresult (*cuMemAlloc_v2_fn)(CUdeviceptr *, size_t);
typedef CUresult (*cuMemFree_v2_fn)(CUdeviceptr);
typedef CUresult (*cuMemAllocAsync_fn)(CUdeviceptr *, size_t, CUstream);
typedef CUresult (*cuMemCreate_fn)(CUmemGenericAllocationHandle *, size_t,
                                   const CUmemAllocationProp *, unsigned long long);

#define EP_LEAK_BYTES 1500007
#define EP_BYVERSION_LEAK_BYTES 1500013
#define EP_PTSZ_LEAK_BYTES 1500019
#define EP_VMM_LEAK_BYTES ((size_t)6 << 20)
#define LOOP 10

static int check_names;

static void *entry(const char *name, int version, unsigned long long flags, const char *want)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult st = cudaDriverEntryPointSymbolNotFound;
    if (version)
        CHECK(cudaGetDriverEntryPointByVersion(name, &fn, version, flags, &st));
    else
        CHECK(cudaGetDriverEntryPoint(name, &fn, flags, &st));
    REQUIRE(st == cudaDriverEntryPointSuccess && fn);
    if (check_names) {
        Dl_info info;
        REQUIRE(dladdr(fn, &info) && info.dli_sname && strcmp(info.dli_sname, want) == 0 &&
                info.dli_fname && strstr(info.dli_fname, "libcuda.so"));
    }
    return fn;
}

NOINLINE void balanced_via_entry_point(void)
{
    cuMemAlloc_v2_fn alloc = (cuMemAlloc_v2_fn)entry("cuMemAlloc", 0, cudaEnableDefault, "cuMemAlloc_v2");
    cuMemFree_v2_fn free_ = (cuMemFree_v2_fn)entry("cuMemFree", 0, cudaEnableDefault, "cuMemFree_v2");
    for (int i = 0; i < LOOP; i++) {
        CUdeviceptr d;
        CHECK(alloc(&d, 1500 + i));
        CHECK(free_(d));
    }
}

NOINLINE void leak_via_entry_point(void)
{
    cuMemAlloc_v2_fn alloc = (cuMemAlloc_v2_fn)entry("cuMemAlloc", 0, cudaEnableDefault, "cuMemAlloc_v2");
    CUdeviceptr d = 0;
    CHECK(alloc(&d, EP_LEAK_BYTES)); /* LEAK:entry_point */
    vt_sink = (void *)d;
}

NOINLINE void leak_via_entry_point_by_version(void)
{
    cuMemAlloc_v2_fn alloc = (cuMemAlloc_v2_fn)entry("cuMemAlloc", 12000, cudaEnableDefault, "cuMemAlloc_v2");
    CUdeviceptr d = 0;
    CHECK(alloc(&d, EP_BYVERSION_LEAK_BYTES)); /* LEAK:entry_point_by_version */
    vt_sink = (void *)d;
}

NOINLINE void leak_via_entry_point_ptsz(void)
{
    cuMemAllocAsync_fn alloc = (cuMemAllocAsync_fn)entry(
        "cuMemAllocAsync", 0, cudaEnablePerThreadDefaultStream, "cuMemAllocAsync_ptsz");
    CUdeviceptr d = 0;
    CHECK(alloc(&d, EP_PTSZ_LEAK_BYTES, 0)); /* LEAK:entry_point_ptsz */
    vt_sink = (void *)d;
}

NOINLINE void leak_via_entry_point_vmm(void)
{
    cuMemCreate_fn create = (cuMemCreate_fn)entry("cuMemCreate", 12000, cudaEnableDefault, "cuMemCreate");
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CUmemGenericAllocationHandle h = 0;
    CHECK(create(&h, EP_VMM_LEAK_BYTES, &prop, 0)); /* LEAK:entry_point_vmm */
    vt_sink = (void *)(uintptr_t)h;
}

int main(int argc, char **argv)
{
    check_names = argc > 1 && strcmp(argv[1], "--check-names") == 0;
    CHECK(cudaSetDevice(0)); /* the primary context, current on this thread */
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult st;
    /* a symbol the driver lacks is an answer, not an error (13.0 header) */
    EXPECT(cudaGetDriverEntryPoint("cuNoSuchFunction", &fn, cudaEnableDefault, &st), cudaSuccess);
    REQUIRE(st == cudaDriverEntryPointSymbolNotFound && fn == NULL);

    balanced_via_entry_point();
    leak_via_entry_point();
    leak_via_entry_point_by_version();
    leak_via_entry_point_ptsz();
    leak_via_entry_point_vmm();
    return 0;
}
/* SPDX-License-Identifier: MIT */
