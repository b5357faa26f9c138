/* SPDX-License-Identifier: MIT */
/* The driver entry points we hook, by exact exported name: the one table that
 * dlsym, dlvsym, cuGetProcAddress and cudaGetDriverEntryPoint consult to hand
 * out our wrapper instead of the real function. */
#ifndef VRAMTRACE_HOOK_TABLE_H
#define VRAMTRACE_HOOK_TABLE_H

#include "cuda_abi.h"

#include <stdint.h>

#define VT_DRIVER_HOOKS(X)          \
    X(cuMemAlloc_v2)                \
    X(cuMemAllocPitch_v2)           \
    X(cuMemAllocManaged)            \
    X(cuMemAllocAsync)              \
    X(cuMemAllocAsync_ptsz)         \
    X(cuMemAllocFromPoolAsync)      \
    X(cuMemAllocFromPoolAsync_ptsz) \
    X(cuMemFree_v2)                 \
    X(cuMemFreeAsync)               \
    X(cuMemFreeAsync_ptsz)          \
    X(cuMemAllocHost_v2)            \
    X(cuMemHostAlloc)               \
    X(cuMemFreeHost)                \
    X(cuMemCreate)                  \
    X(cuMemRelease)                 \
    X(cuMemMap)                     \
    X(cuMemUnmap)                   \
    X(cuArrayCreate_v2)             \
    X(cuArray3DCreate_v2)           \
    X(cuArrayDestroy)               \
    X(cuMipmappedArrayCreate)       \
    X(cuMipmappedArrayDestroy)      \
    X(cuMemPoolDestroy)             \
    X(cuCtxDestroy_v2)              \
    X(cuDevicePrimaryCtxRetain)     \
    X(cuDevicePrimaryCtxRelease_v2) \
    X(cuDevicePrimaryCtxReset_v2)   \
    X(cuGetProcAddress)             \
    X(cuGetProcAddress_v2)          \
    X(cuGetProcAddress_v2_ptsz)

enum vt_hook_id {
#define VT_HOOK_ID(name) VT_HOOK_##name,
    VT_DRIVER_HOOKS(VT_HOOK_ID)
#undef VT_HOOK_ID
        VT_HOOK_COUNT
};

/* The real function behind hook ID, found on first use; NULL if none. */
void *vt_hook_real(enum vt_hook_id id);

/* The real function behind hook ID for a call from CALLER (a return
 * address): for another wrapper of the same function, the one after it
 * (vt_wrapped_real), else vt_hook_real(ID). */
void *vt_hook_real_for(enum vt_hook_id id, const void *caller);

/* The real function if one was already seen or found, without searching. */
void *vt_hook_real_if_known(enum vt_hook_id id);

/* CALLER's dlsym(RTLD_NEXT, NAME) returned our wrapper of NAME (when NAME is
 * hooked): its calls go on to the definition after it. */
void vt_hook_note_chained(const char *name, const void *caller);

/* FOUND is what a real lookup returned for a symbol. If it is one of the
 * hooked functions (named NAME, or by dladdr when NAME is NULL), remember it
 * as the real one and return our wrapper; otherwise return FOUND. */
void *vt_hook_substitute(void *found, const char *name);

/* FOUND is what cuGetProcAddress (or cudaGetDriverEntryPoint) returned for
 * SYMBOL at VERSION with FLAGS: our wrapper for the hooked function that
 * dladdr names it exactly, or, where dladdr cannot name it (a driver's
 * internal entry point), for the variant that the request asks for. */
void *vt_hook_substitute_requested(void *found, const char *symbol, int version, uint64_t flags);

#endif
