/* cuGetProcAddress: the exported versioned entry points, by name and the
 * version asked for; STANDIN_CUDA_HIDE, STANDIN_CUDA_HIDDEN_ENTRY_POINTS and
 * STANDIN_CUDA_ALIASED_ENTRY_POINTS (driver_aliases.c). */
#include "driver_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Every file's PROC entries, gathered by the linker. */
extern const struct proc __start_standin_procs[] __attribute__((visibility("hidden")));
extern const struct proc __stop_standin_procs[] __attribute__((visibility("hidden")));

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
    for (const struct proc *p = __start_standin_procs; p < __stop_standin_procs; p++) {
        if (strcmp(p->name, symbol) != 0)
            continue;
        named = 1;
        if (p->version <= cudaVersion && (!best || p->version > best->version))
            best = p;
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
    *pfn = standin_aliased_entry_point(*pfn);
    if (hidden_entry_points())
        *pfn = hidden_entry_point(*pfn);
    if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuGetProcAddress", 11030, cuGetProcAddress)
PROC("cuGetProcAddress", 12000, cuGetProcAddress_v2)
/* SPDX-License-Identifier: MIT */
