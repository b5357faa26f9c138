/* Ground truth for the driver reached without linking it (ctypes, XLA):
 * dlopen("libcuda.so.1", RTLD_LOCAL) and dlsym, and cuGetProcAddress_v2
 * from dlsym asked for "cuMemAlloc" (12000) and for the 4-argument
 * "cuGetProcAddress" (11030), each route leaking from its own function.
 * With --check-names (run without a tracer) it also checks with dladdr that
 * the stand-in hands out exactly the versioned symbols. */
#include <cuda.h>
#include <dlfcn.h>
#include <string.h>
#include "check.h"

#define DLSYM_LEAK_BYTES 1400017
#define GPA_V2_LEAK_BYTES 1400023
#define GPA_V1_LEAK_BYTES 1400029
#define LOOP 10

typedef CUresult (*cuInit_fn)(unsigned int);
typedef CUresult (*cuDeviceGet_fn)(CUdevice *, int);
typedef CUresult (*cuDevicePrimaryCtxRetain_fn)(CUcontext *, CUdevice);
typedef CUresult (*cuCtxSetCurrent_fn)(CUcontext);
typedef CUresult (*cuMemAlloc_v2_fn)(CUdeviceptr *, size_t);
typedef CUresult (*cuMemFree_v2_fn)(CUdeviceptr);
typedef CUresult (*cuGetProcAddress_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*cuGetProcAddress_v2_fn)(const char *, void **, int, cuuint64_t,
                                           CUdriverProcAddressQueryResult *);

static void *lib;
static cuMemAlloc_v2_fn dl_alloc;
static cuMemFree_v2_fn dl_free;
static cuGetProcAddress_v2_fn dl_gpa_v2;

static void *need(const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "stand-in misbehaved: dlsym(%s): %s\n", name, dlerror());
        exit(STANDIN_FAILURE);
    }
    return p;
}

static void check_name(void *fn, const char *want)
{
    Dl_info info;
    REQUIRE(dladdr(fn, &info) && info.dli_sname && info.dli_fname);
    if (strcmp(info.dli_sname, want) != 0 || !strstr(info.dli_fname, "libcuda.so")) {
        fprintf(stderr, "stand-in misbehaved: got %s in %s, expected %s in libcuda.so.1\n",
                info.dli_sname, info.dli_fname, want);
        exit(STANDIN_FAILURE);
    }
}

NOINLINE void balanced_via_dlsym(void)
{
    for (int i = 0; i < LOOP; i++) {
        CUdeviceptr d;
        CHECK(dl_alloc(&d, 1400 + i));
        CHECK(dl_free(d));
    }
}

NOINLINE void leak_via_dlsym(void)
{
    CUdeviceptr d = 0;
    CHECK(dl_alloc(&d, DLSYM_LEAK_BYTES)); /* LEAK:dlsym */
    vt_sink = (void *)d;
}

NOINLINE void leak_via_proc_address(void)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CHECK(dl_gpa_v2("cuMemAlloc", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
    REQUIRE(st == CU_GET_PROC_ADDRESS_SUCCESS && fn);
    cuMemAlloc_v2_fn alloc = (cuMemAlloc_v2_fn)fn;
    CUdeviceptr d = 0;
    CHECK(alloc(&d, GPA_V2_LEAK_BYTES)); /* LEAK:proc_address_v2 */
    vt_sink = (void *)d;
}

NOINLINE void leak_via_proc_address_v1(void)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CHECK(dl_gpa_v2("cuGetProcAddress", &fn, 11030, CU_GET_PROC_ADDRESS_DEFAULT, &st));
    REQUIRE(st == CU_GET_PROC_ADDRESS_SUCCESS && fn);
    cuGetProcAddress_fn gpa4 = (cuGetProcAddress_fn)fn; /* the 4-argument ABI */
    void *afn = NULL;
    CHECK(gpa4("cuMemAlloc", &afn, 11030, CU_GET_PROC_ADDRESS_DEFAULT));
    REQUIRE(afn);
    cuMemAlloc_v2_fn alloc = (cuMemAlloc_v2_fn)afn;
    CUdeviceptr d = 0;
    CHECK(alloc(&d, GPA_V1_LEAK_BYTES)); /* LEAK:proc_address_v1 */
    vt_sink = (void *)d;
}

static void check_resolver(void)
{
    void *fn;
    CUdriverProcAddressQueryResult st;
    CHECK(dl_gpa_v2("cuMemAlloc", &fn, 12000, 0, &st));
    check_name(fn, "cuMemAlloc_v2");
    CHECK(dl_gpa_v2("cuMemAlloc", &fn, 3000, 0, &st));
    check_name(fn, "cuMemAlloc");
    CHECK(dl_gpa_v2("cuMemFree", &fn, 12000, 0, &st));
    check_name(fn, "cuMemFree_v2");
    CHECK(dl_gpa_v2("cuMemAllocHost", &fn, 12000, 0, &st));
    check_name(fn, "cuMemAllocHost_v2");
    CHECK(dl_gpa_v2("cuCtxDestroy", &fn, 12000, 0, &st));
    check_name(fn, "cuCtxDestroy_v2");
    CHECK(dl_gpa_v2("cuDevicePrimaryCtxReset", &fn, 12000, 0, &st));
    check_name(fn, "cuDevicePrimaryCtxReset_v2");
    CHECK(dl_gpa_v2("cuDevicePrimaryCtxRelease", &fn, 11000, 0, &st));
    check_name(fn, "cuDevicePrimaryCtxRelease_v2");
    CHECK(dl_gpa_v2("cuMemAllocAsync", &fn, 12000, 0, &st));
    check_name(fn, "cuMemAllocAsync");
    CHECK(dl_gpa_v2("cuMemAllocAsync", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
    check_name(fn, "cuMemAllocAsync_ptsz");
    CHECK(dl_gpa_v2("cuMemFreeAsync", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
    check_name(fn, "cuMemFreeAsync_ptsz");
    CHECK(dl_gpa_v2("cuMemAllocFromPoolAsync", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
    check_name(fn, "cuMemAllocFromPoolAsync_ptsz");
    CHECK(dl_gpa_v2("cuGetProcAddress", &fn, 12000, 0, &st));
    check_name(fn, "cuGetProcAddress_v2");
    CHECK(dl_gpa_v2("cuGetProcAddress", &fn, 11030, 0, &st));
    check_name(fn, "cuGetProcAddress");
    EXPECT(dl_gpa_v2("cuMemAllocAsync", &fn, 11000, 0, &st), CUDA_ERROR_NOT_FOUND);
    REQUIRE(st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT && fn == NULL);
    EXPECT(dl_gpa_v2("cuNoSuchFunction", &fn, 12000, 0, &st), CUDA_ERROR_NOT_FOUND);
    REQUIRE(st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND && fn == NULL);
    check_name((void *)dl_alloc, "cuMemAlloc_v2");
}

int main(int argc, char **argv)
{
    lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "stand-in missing: dlopen libcuda.so.1: %s\n", dlerror());
        return STANDIN_FAILURE;
    }
    cuInit_fn init = (cuInit_fn)need("cuInit");
    cuDeviceGet_fn device_get = (cuDeviceGet_fn)need("cuDeviceGet");
    cuDevicePrimaryCtxRetain_fn retain = (cuDevicePrimaryCtxRetain_fn)need("cuDevicePrimaryCtxRetain");
    cuCtxSetCurrent_fn set_current = (cuCtxSetCurrent_fn)need("cuCtxSetCurrent");
    dl_alloc = (cuMemAlloc_v2_fn)need("cuMemAlloc_v2");
    dl_free = (cuMemFree_v2_fn)need("cuMemFree_v2");
    dl_gpa_v2 = (cuGetProcAddress_v2_fn)need("cuGetProcAddress_v2");

    CUdevice dev;
    CUcontext ctx;
    CHECK(init(0));
    CHECK(device_get(&dev, 0));
    CHECK(retain(&ctx, dev));
    CHECK(set_current(ctx));
    if (argc > 1 && strcmp(argv[1], "--check-names") == 0)
        check_resolver();

    balanced_via_dlsym();
    leak_via_dlsym();
    leak_via_proc_address();
    leak_via_proc_address_v1();
    return 0;
}
/* SPDX-License-Identifier: MIT */
