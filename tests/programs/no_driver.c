/* A process with no CUDA library at all that still finds the tracer's
 * exports by name (dlsym(RTLD_DEFAULT, ...), as a program probing for CUDA
 * might): each call must fail cleanly with "not initialized", never crash.
 * Prints "NAME RESULT" per function found; nothing when none is (untraced). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

typedef int (*fn6)(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);

static const char *const names[] = {
    "cuMemAlloc_v2", "cuMemAllocPitch_v2", "cuMemAllocManaged", "cuMemAllocAsync",
    "cuMemAllocAsync_ptsz", "cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync_ptsz",
    "cuMemFree_v2", "cuMemFreeAsync", "cuMemFreeAsync_ptsz", "cuMemAllocHost_v2",
    "cuMemHostAlloc", "cuMemFreeHost", "cuMemCreate", "cuMemRelease", "cuMemMap", "cuMemUnmap",
    "cuArrayCreate_v2", "cuArray3DCreate_v2", "cuArrayDestroy", "cuMipmappedArrayCreate",
    "cuMipmappedArrayDestroy", "cuMemPoolDestroy", "cuCtxDestroy_v2",
    "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxReset_v2",
    "cuGetProcAddress", "cuGetProcAddress_v2", "cuGetProcAddress_v2_ptsz",
    "cudaMalloc", "cudaFree", "cudaMallocHost", "cudaMallocAsync", "cudaGetDriverEntryPoint",
    "cudaGetDriverEntryPoint_ptsz", "cudaGetDriverEntryPointByVersion",
    "cudaGetDriverEntryPointByVersion_ptsz", "cudaDeviceReset",
};

int main(void)
{
    uintptr_t out[8] = {0}; /* a place for any output argument */
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        fn6 f = (fn6)dlsym(RTLD_DEFAULT, names[i]);
        if (!f)
            continue;
        /* output pointers first: every such API takes one there; the
         * others get small values they reject before touching anything */
        int r = f((uintptr_t)out, (uintptr_t)16, (uintptr_t)out, 0, (uintptr_t)out, 0);
        printf("%s %d\n", names[i], r);
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */
