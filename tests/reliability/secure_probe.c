/* Loads the tracer by path (argv[1]) into this process, with the stand-in
 * driver (argv[2]), and allocates through the tracer's cuMemAlloc_v2.
 * Prints "active N" (vramtrace_active()) and exits 0. Run setuid, where the
 * dynamic linker ignores LD_PRELOAD, it shows whether the tracer itself
 * stays out of a privileged process. */
#include <dlfcn.h>
#include <stdio.h>
#include "check.h"
#include "cuda_abi.h"

static void *symbol(void *handle, const char *name)
{
    void *p = dlsym(handle, name);
    REQUIRE(p);
    return p;
}

int main(int argc, char **argv)
{
    CUcontext ctx = NULL;
    CUdeviceptr d = 0;
    REQUIRE(argc == 3);
    void *cuda = dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL);
    REQUIRE(cuda);
    CHECK(((CUresult(*)(unsigned))symbol(cuda, "cuInit"))(0));
    CHECK(((CUresult(*)(CUcontext *, CUdevice))symbol(cuda, "cuDevicePrimaryCtxRetain"))(&ctx, 0));
    CHECK(((CUresult(*)(CUcontext))symbol(cuda, "cuCtxSetCurrent"))(ctx));
    void *tracer = dlopen(argv[1], RTLD_NOW);
    REQUIRE(tracer);
    CHECK(((CUresult(*)(CUdeviceptr *, size_t))symbol(tracer, "cuMemAlloc_v2"))(&d, 9100003));
    printf("active %d\n", ((int (*)(void))symbol(tracer, "vramtrace_active"))());
    return 0;
}
/* SPDX-License-Identifier: MIT */
