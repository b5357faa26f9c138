/* SPDX-License-Identifier: MIT */
/* The lookups through which programs and CUDA libraries obtain driver
 * functions: dlsym/dlvsym on any handle, the driver's cuGetProcAddress and
 * the runtime's cudaGetDriverEntryPoint. Each calls the next lookup in the
 * chain (another interposer's, else the real one) first and swaps in our
 * wrapper only for a hooked function it returned. */
#include "cuda_abi.h"
#include "elf_symbol.h"
#include "got_patch.h"
#include "hook_table.h"
#include "resolve.h"
#include "tracing.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>

/* RTLD_NEXT is relative to the caller, which the real dlsym would take to be
 * us: search the objects after the real caller ourselves. What it finds is
 * never swapped for a wrapper of ours: a caller before us finds ours anyway
 * (we define every hooked name), and one after us asked for what comes
 * after it, which we have passed (swapping it in makes a loop). */
static void *next_after(const void *caller, const char *name, const char *version)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (!dladdr1(caller, &info, (void **)&map, RTLD_DL_LINKMAP) || !map)
        return NULL;
    /* Read each object's own symbol table: a link_map is no dlsym handle for
     * objects loaded at start-up, and dlopen is intercepted by sanitizer
     * runtimes that call dlsym before their interceptors work. */
    for (struct link_map *m = map->l_next; m; m = m->l_next) {
        void *p = vt_elf_lookup_map(m, name, version);
        if (p && vt_is_own_address(p))
            vt_hook_note_chained(name, caller);
        if (p)
            return p;
    }
    return NULL;
}

/* Any other handle: the lookup goes on to the dlsym the caller would have
 * reached without us (a sharing layer's, preloaded after us, which hands out
 * its own driver functions; else glibc's), and what it returns is wrapped. */
VT_EXPORT void *dlsym(void *handle, const char *name)
{
    static struct vt_caller_cache cache;
    const void *caller = __builtin_return_address(0);
    vt_dlsym_fn next;
    if (handle == RTLD_NEXT)
        return next_after(caller, name, NULL);
    next = (vt_dlsym_fn)vt_real_for_caller("dlsym", caller, &cache);
    vt_got_patch_new(); /* attached: a library dlopen'ed since is bound to us before its use */
    return next ? vt_hook_substitute(next(handle, name), name) : NULL;
}

VT_EXPORT void *dlvsym(void *handle, const char *name, const char *version)
{
    static struct vt_caller_cache cache;
    const void *caller = __builtin_return_address(0);
    vt_dlvsym_fn next;
    if (handle == RTLD_NEXT)
        return next_after(caller, name, version);
    next = (vt_dlvsym_fn)vt_real_for_caller("dlvsym", caller, &cache);
    vt_got_patch_new();
    return next ? vt_hook_substitute(next(handle, name, version), name) : NULL;
}

/* "cuGetProcAddress" itself resolves to our wrapper of the same ABI (4 or 5
 * arguments) through the same table, since both are hooked by name. */
VT_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cuda_version,
                                    cuuint64_t flags)
{
    cuGetProcAddress_fn real = (cuGetProcAddress_fn)vt_hook_real_for(VT_HOOK_cuGetProcAddress,
                                                                     __builtin_return_address(0));
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(symbol, pfn, cuda_version, flags);
    if (r == CUDA_SUCCESS && pfn)
        *pfn = vt_hook_substitute_requested(*pfn, symbol, cuda_version, flags);
    return r;
}

static CUresult get_proc_address_v2(cuGetProcAddress_v2_fn real, const char *symbol, void **pfn,
                                    int cuda_version, cuuint64_t flags,
                                    CUdriverProcAddressQueryResult *status)
{
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(symbol, pfn, cuda_version, flags, status);
    if (r == CUDA_SUCCESS && pfn)
        *pfn = vt_hook_substitute_requested(*pfn, symbol, cuda_version, flags);
    return r;
}

VT_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version,
                                       cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
    return get_proc_address_v2((cuGetProcAddress_v2_fn)vt_hook_real_for(
                                   VT_HOOK_cuGetProcAddress_v2, __builtin_return_address(0)),
                               symbol, pfn, cuda_version, flags, status);
}

VT_EXPORT CUresult cuGetProcAddress_v2_ptsz(const char *symbol, void **pfn, int cuda_version,
                                            cuuint64_t flags,
                                            CUdriverProcAddressQueryResult *status)
{
    return get_proc_address_v2((cuGetProcAddress_v2_fn)vt_hook_real_for(
                                   VT_HOOK_cuGetProcAddress_v2_ptsz, __builtin_return_address(0)),
                               symbol, pfn, cuda_version, flags, status);
}

#define NEWEST_ABI 0x7fffffff

/* cudaEnablePerThreadDefaultStream asks for the _ptsz variants, as the
 * driver's CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM does (same bit). */
static cudaError_t entry_point(cudaGetDriverEntryPoint_fn real, const char *symbol, void **pfn,
                               unsigned long long flags, cudaDriverEntryPointQueryResult *status)
{
    if (!real)
        return cudaErrorInitializationError;
    cudaError_t r = real(symbol, pfn, flags, status);
    /* Without a version, the runtime hands out the newest ABI it knows. */
    if (r == cudaSuccess && pfn)
        *pfn = vt_hook_substitute_requested(*pfn, symbol, NEWEST_ABI, flags);
    return r;
}

static cudaError_t entry_point_by_version(cudaGetDriverEntryPointByVersion_fn real,
                                          const char *symbol, void **pfn, unsigned version,
                                          unsigned long long flags,
                                          cudaDriverEntryPointQueryResult *status)
{
    if (!real)
        return cudaErrorInitializationError;
    cudaError_t r = real(symbol, pfn, version, flags, status);
    if (r == cudaSuccess && pfn)
        *pfn = vt_hook_substitute_requested(*pfn, symbol, (int)version, flags);
    return r;
}

#define CALLER_REAL(type, name)          \
    static struct vt_caller_cache cache; \
    type real = (type)vt_real_for_caller(#name, __builtin_return_address(0), &cache)

VT_EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **pfn,
                                              unsigned long long flags,
                                              cudaDriverEntryPointQueryResult *status)
{
    CALLER_REAL(cudaGetDriverEntryPoint_fn, cudaGetDriverEntryPoint);
    return entry_point(real, symbol, pfn, flags, status);
}

VT_EXPORT cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **pfn,
                                                   unsigned long long flags,
                                                   cudaDriverEntryPointQueryResult *status)
{
    CALLER_REAL(cudaGetDriverEntryPoint_fn, cudaGetDriverEntryPoint_ptsz);
    return entry_point(real, symbol, pfn, flags, status);
}

VT_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **pfn,
                                                       unsigned int version,
                                                       unsigned long long flags,
                                                       cudaDriverEntryPointQueryResult *status)
{
    CALLER_REAL(cudaGetDriverEntryPointByVersion_fn, cudaGetDriverEntryPointByVersion);
    return entry_point_by_version(real, symbol, pfn, version, flags, status);
}

VT_EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **pfn,
                                                            unsigned int version,
                                                            unsigned long long flags,
                                                            cudaDriverEntryPointQueryResult *status)
{
    CALLER_REAL(cudaGetDriverEntryPointByVersion_fn, cudaGetDriverEntryPointByVersion_ptsz);
    return entry_point_by_version(real, symbol, pfn, version, flags, status);
}

VT_HOOK_REGISTER(VT_RESOLVER_HOOKS)
