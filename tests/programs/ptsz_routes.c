/* Ground truth for the entry points code built with --default-stream
 * per-thread calls (compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM: the
 * runtime header renames cudaGetDriverEntryPoint(ByVersion) and the
 * stream-ordered calls to their _ptsz variants), plus libcuda's
 * cuGetProcAddress_v2_ptsz by dlsym and the runtime by dlvsym with its
 * version; each route leaks from its own function. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include "check.h"

/* The entry points' types, as the program calls them. */
typedef CUresult (*cuGetProcAddress_v2_fn)(const char *, void **, int, cuuint64_t,
                                           CUdriverProcAddressQueryResult *);
typedef CUresult (*cuMemAllocAsync_fn)(CUdeviceptr *, size_t, CUstream);
typedef cudaError_t (*cudaMalloc_fn)(void **, size_t);

#define PT_GPA_BYTES 1600003
#define PT_ENTRY_BYTES 1600009
#define PT_BY_VERSION_BYTES 1600013
#define PT_POOL_BYTES 1600021
#define PT_DLVSYM_BYTES 1600027
#define PT_PAIR_BYTES 1600033

static NOINLINE void leak_via_proc_address_ptsz(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    REQUIRE(lib);
    cuGetProcAddress_v2_fn gpa = (cuGetProcAddress_v2_fn)dlsym(lib, "cuGetProcAddress_v2_ptsz");
    REQUIRE(gpa);
    void *fn = NULL;
    CUdriverProcAddressQueryResult st;
    CHECK(gpa("cuMemAllocAsync", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
    CUdeviceptr d = 0;
    CHECK(((cuMemAllocAsync_fn)fn)(&d, PT_GPA_BYTES, 0)); /* LEAK:gpa_ptsz */
    vt_sink = (void *)d;
}

static NOINLINE void leak_via_entry_point_ptsz(void)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult st;
    CHECK(cudaGetDriverEntryPoint("cuMemAllocAsync", &fn, cudaEnableDefault, &st));
    CUdeviceptr d = 0;
    CHECK(((cuMemAllocAsync_fn)fn)(&d, PT_ENTRY_BYTES, 0)); /* LEAK:entry_ptsz */
    vt_sink = (void *)d;
}

static NOINLINE void leak_via_entry_point_by_version_ptsz(void)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult st;
    CHECK(cudaGetDriverEntryPointByVersion("cuMemAllocAsync", &fn, 12000, cudaEnableDefault, &st));
    CUdeviceptr d = 0;
    CHECK(((cuMemAllocAsync_fn)fn)(&d, PT_BY_VERSION_BYTES, 0)); /* LEAK:by_version_ptsz */
    vt_sink = (void *)d;
}

static NOINLINE void leak_from_pool_ptsz(void)
{
    cudaMemPool_t pool;
    void *p = NULL, *q = NULL;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    CHECK(cudaMallocFromPoolAsync(&p, PT_POOL_BYTES, pool, 0)); /* LEAK:pool_ptsz */
    vt_sink = p;
    CHECK(cudaMallocAsync(&q, PT_PAIR_BYTES, 0));
    CHECK(cudaFreeAsync(q, 0));
}

static NOINLINE void leak_via_dlvsym(void)
{
    void *rt = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
    REQUIRE(rt);
    cudaMalloc_fn alloc = (cudaMalloc_fn)dlvsym(rt, "cudaMalloc", "libcudart.so.13");
    REQUIRE(alloc);
    void *p = NULL;
    CHECK(alloc(&p, PT_DLVSYM_BYTES)); /* LEAK:dlvsym */
    vt_sink = p;
}

int main(void)
{
    CHECK(cudaSetDevice(0));
    leak_via_proc_address_ptsz();
    leak_via_entry_point_ptsz();
    leak_via_entry_point_by_version_ptsz();
    leak_from_pool_ptsz();
    leak_via_dlvsym();
    return 0;
}
/* SPDX-License-Identifier: MIT */
