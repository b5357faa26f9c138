/* cuGetProcAddress: the exported versioned entry points, by name and the
 * version asked for; STANDIN_CUDA_HIDE and STANDIN_CUDA_HIDDEN_ENTRY_POINTS. */
#include "driver_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static CUresult get_proc_address(const char *symbol, void **pfn, int cudaVersion,
                                 cuuint64_t flags, CUdriverProcAddressQueryResult *status);

EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    standin_log("cuGetProcAddress %s %d %llu", symbol ? symbol : "(null)", cudaVersion,
                (unsigned long long)flags);
    return get_proc_address(symbol, pfn, cudaVersion, flags, NULL);
}

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                    cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    standin_log("cuGetProcAddress_v2 %s %d %llu", symbol ? symbol : "(null)", cudaVersion,
                (unsigned long long)flags);
    return get_proc_address(symbol, pfn, cudaVersion, flags, symbolStatus);
}

/* What code built with --default-stream per-thread calls: the default
 * flags mean the per-thread default stream variants. */
EXPORT CUresult cuGetProcAddress_v2_ptsz(const char *symbol, void **pfn, int cudaVersion,
                                         cuuint64_t flags,
                                         CUdriverProcAddressQueryResult *symbolStatus)
{
    standin_log("cuGetProcAddress_v2_ptsz %s %d %llu", symbol ? symbol : "(null)", cudaVersion,
                (unsigned long long)flags);
    if (flags == CU_GET_PROC_ADDRESS_DEFAULT)
        flags = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    return get_proc_address(symbol, pfn, cudaVersion, flags, symbolStatus);
}

struct proc {
    const char *name;
    int version; /* the lowest cudaVersion that gets this entry */
    void *fn;
    void *fn_ptsz;
};

/* Addresses of the exported functions themselves: with -Bsymbolic-functions
 * these bind inside this library, so dladdr() names exactly these symbols
 * even when a preloaded library exports the same names. */
#define P(name, ver, fn) {name, ver, (void *)fn, NULL}
#define PZ(name, ver, fn) {name, ver, (void *)fn, (void *)fn##_ptsz}
static const struct proc procs[] = {
    P("cuInit", 2000, cuInit),
    P("cuDriverGetVersion", 2020, cuDriverGetVersion),
    P("cuDeviceGet", 2000, cuDeviceGet),
    P("cuDeviceGetCount", 2000, cuDeviceGetCount),
    P("cuDeviceGetName", 2000, cuDeviceGetName),
    P("cuDeviceGetPCIBusId", 4010, cuDeviceGetPCIBusId),
    P("cuDeviceTotalMem", 3020, cuDeviceTotalMem_v2),
    P("cuDeviceGetUuid", 9020, cuDeviceGetUuid),
    P("cuDeviceGetUuid", 11040, cuDeviceGetUuid_v2),
    P("cuGetErrorString", 6000, cuGetErrorString),
    P("cuGetErrorName", 6000, cuGetErrorName),
    P("cuCtxCreate", 3020, cuCtxCreate_v2),
    P("cuCtxCreate", 12050, cuCtxCreate_v4),
    P("cuCtxDestroy", 4000, cuCtxDestroy_v2),
    P("cuCtxGetCurrent", 4000, cuCtxGetCurrent),
    P("cuCtxSetCurrent", 4000, cuCtxSetCurrent),
    P("cuCtxPushCurrent", 4000, cuCtxPushCurrent_v2),
    P("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2),
    P("cuCtxGetDevice", 2000, cuCtxGetDevice),
    P("cuCtxGetDevice", 13000, cuCtxGetDevice_v2),
    P("cuCtxSynchronize", 2000, cuCtxSynchronize),
    P("cuCtxSynchronize", 13000, cuCtxSynchronize_v2),
    P("cuCtxGetApiVersion", 3020, cuCtxGetApiVersion),
    P("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute),
    P("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain),
    P("cuDevicePrimaryCtxRelease", 7000, cuDevicePrimaryCtxRelease),
    P("cuDevicePrimaryCtxRelease", 11000, cuDevicePrimaryCtxRelease_v2),
    P("cuDevicePrimaryCtxReset", 7000, cuDevicePrimaryCtxReset),
    P("cuDevicePrimaryCtxReset", 11000, cuDevicePrimaryCtxReset_v2),
    P("cuDevicePrimaryCtxGetState", 7000, cuDevicePrimaryCtxGetState),
    P("cuMemGetInfo", 3020, cuMemGetInfo_v2),
    P("cuMemAlloc", 2000, cuMemAlloc),
    P("cuMemAlloc", 3020, cuMemAlloc_v2),
    P("cuMemAllocPitch", 3020, cuMemAllocPitch_v2),
    P("cuMemAllocManaged", 6000, cuMemAllocManaged),
    P("cuMemFree", 2000, cuMemFree),
    P("cuMemFree", 3020, cuMemFree_v2),
    PZ("cuMemAllocAsync", 11020, cuMemAllocAsync),
    PZ("cuMemAllocFromPoolAsync", 11020, cuMemAllocFromPoolAsync),
    PZ("cuMemFreeAsync", 11020, cuMemFreeAsync),
    P("cuMemAllocHost", 3020, cuMemAllocHost_v2),
    P("cuMemHostAlloc", 2020, cuMemHostAlloc),
    P("cuMemFreeHost", 2000, cuMemFreeHost),
    P("cuMemcpy", 4000, cuMemcpy),
    P("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2),
    P("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2),
    P("cuMemsetD8", 3020, cuMemsetD8_v2),
    P("cuDeviceGetDefaultMemPool", 11020, cuDeviceGetDefaultMemPool),
    P("cuMemPoolCreate", 11020, cuMemPoolCreate),
    P("cuMemPoolDestroy", 11020, cuMemPoolDestroy),
    P("cuMemPoolTrimTo", 11020, cuMemPoolTrimTo),
    P("cuStreamGetCtx", 9020, cuStreamGetCtx),
    P("cuPointerGetAttribute", 4000, cuPointerGetAttribute),
    P("cuStreamCreate", 2000, cuStreamCreate),
    P("cuStreamDestroy", 4000, cuStreamDestroy_v2),
    P("cuStreamSynchronize", 2000, cuStreamSynchronize),
    P("cuMemAddressReserve", 10020, cuMemAddressReserve),
    P("cuMemAddressFree", 10020, cuMemAddressFree),
    P("cuMemCreate", 10020, cuMemCreate),
    P("cuMemRelease", 10020, cuMemRelease),
    P("cuMemMap", 10020, cuMemMap),
    P("cuMemUnmap", 10020, cuMemUnmap),
    P("cuMemSetAccess", 10020, cuMemSetAccess),
    P("cuMemGetAllocationGranularity", 10020, cuMemGetAllocationGranularity),
    P("cuArrayCreate", 3020, cuArrayCreate_v2),
    P("cuArray3DCreate", 3020, cuArray3DCreate_v2),
    P("cuArrayDestroy", 2000, cuArrayDestroy),
    P("cuMipmappedArrayCreate", 5000, cuMipmappedArrayCreate),
    P("cuMipmappedArrayDestroy", 5000, cuMipmappedArrayDestroy),
    P("cuGetProcAddress", 11030, cuGetProcAddress),
    P("cuGetProcAddress", 12000, cuGetProcAddress_v2),
};
#undef P
#undef PZ

/* STANDIN_CUDA_HIDE=NAME,NAME...: entry points this driver does not have
 * (an older driver). */
static int hidden(const char *symbol)
{
    const char *list = getenv("STANDIN_CUDA_HIDE");
    size_t n = strlen(symbol);
    for (const char *p = list; p && *p && n;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, symbol, n))
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

/* STANDIN_CUDA_HIDDEN_ENTRY_POINTS: an unnamed entry point for FN, made
 * once: "movabs $fn, %rax; jmp *%rax" (x86_64) in an anonymous mapping. */
static void *hidden_entry_point(void *fn)
{
    enum { STUB = 16, STUBS = 4096 / STUB };
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static unsigned char *page;
    static void *targets[STUBS];
    static int used;
    void *entry = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < used && !entry; i++)
        if (targets[i] == fn)
            entry = page + i * STUB;
    if (!entry && !page) {
        page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
        if (page == MAP_FAILED)
            page = NULL;
    }
    if (!entry && page && used < STUBS) {
        unsigned char *stub = page + used * STUB;
        stub[0] = 0x48, stub[1] = 0xb8; /* movabs imm64, %rax */
        memcpy(stub + 2, &fn, sizeof fn);
        stub[10] = 0xff, stub[11] = 0xe0; /* jmp *%rax */
        targets[used++] = fn;
        entry = stub;
    }
    pthread_mutex_unlock(&lock);
    return entry ? entry : fn;
}

static int hidden_entry_points(void)
{
    const char *v = getenv("STANDIN_CUDA_HIDDEN_ENTRY_POINTS");
    return v && !strcmp(v, "1");
}

static CUresult get_proc_address(const char *symbol, void **pfn, int cudaVersion,
                                 cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
    if (!symbol || !pfn)
        return CUDA_ERROR_INVALID_VALUE;
    if (hidden(symbol)) {
        *pfn = NULL;
        if (status)
            *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CUDA_ERROR_NOT_FOUND;
    }
    const struct proc *best = NULL;
    int named = 0;
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
        if (strcmp(procs[i].name, symbol) != 0)
            continue;
        named = 1;
        if (procs[i].version <= cudaVersion && (!best || procs[i].version > best->version))
            best = &procs[i];
    }
    if (!best) {
        *pfn = NULL;
        if (status)
            *status = named ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                            : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CUDA_ERROR_NOT_FOUND;
    }
    *pfn = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && best->fn_ptsz
               ? best->fn_ptsz
               : best->fn;
    if (hidden_entry_points())
        *pfn = hidden_entry_point(*pfn);
    if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}
/* SPDX-License-Identifier: MIT */
