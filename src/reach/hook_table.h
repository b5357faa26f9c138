/* SPDX-License-Identifier: MIT */
/* The driver entry points we hook, by exact exported name: the one table that
 * dlsym, dlvsym, cuGetProcAddress and cudaGetDriverEntryPoint consult to hand
 * out our wrapper instead of the real function, and that the wrappers ask
 * for the real one. The table names no wrapper: each file of wrappers
 * registers its own (VT_HOOK_REGISTER), so the wrappers depend on the table
 * and never the other way round. */
#ifndef VRAMTRACE_HOOK_TABLE_H
#define VRAMTRACE_HOOK_TABLE_H

#include "cuda_abi.h"

#include <stdint.h>

/* The allocation API's wrappers, in hooks_driver.c. */
#define VT_ALLOC_HOOKS(X)           \
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
    X(cuMemHostRegister_v2)         \
    X(cuMemHostUnregister)          \
    X(cuGreenCtxDestroy)

/* CUDA graphs' and stream capture's wrappers, in hooks_graph.c. */
#define VT_GRAPH_HOOKS(X)           \
    X(cuStreamBeginCapture_v2)      \
    X(cuStreamBeginCapture_v2_ptsz) \
    X(cuGraphAddMemAllocNode)       \
    X(cuGraphAddMemFreeNode)        \
    X(cuGraphAddNode)               \
    X(cuGraphAddNode_v2)            \
    X(cuGraphInstantiateWithFlags)  \
    X(cuGraphLaunch)                \
    X(cuGraphLaunch_ptsz)           \
    X(cuGraphExecDestroy)           \
    X(cuGraphDestroy)               \
    X(cuDeviceGraphMemTrim)

/* The driver's resolvers' wrappers, in hooks_lookup.c. */
#define VT_RESOLVER_HOOKS(X) \
    X(cuGetProcAddress)      \
    X(cuGetProcAddress_v2)   \
    X(cuGetProcAddress_v2_ptsz)

#define VT_DRIVER_HOOKS(X) VT_ALLOC_HOOKS(X) VT_GRAPH_HOOKS(X) VT_RESOLVER_HOOKS(X)

enum vt_hook_id {
#define VT_HOOK_ID(name) VT_HOOK_##name,
    VT_DRIVER_HOOKS(VT_HOOK_ID)
#undef VT_HOOK_ID
        VT_HOOK_COUNT
};

/* A wrapper's registration: the linker gathers them into the section
 * vt_hook_wrappers, which hook_table.c reads. */
struct vt_hook_wrapper {
    enum vt_hook_id id;
    void *wrapper;
};
#define VT_HOOK_WRAPPER_ENTRY(name)                                                     \
    static const struct vt_hook_wrapper vt_hook_wrapper_##name                          \
        __attribute__((used, section("vt_hook_wrappers"), aligned(sizeof(void *)))) = { \
            VT_HOOK_##name, (void *)name};

/* In the file that defines the wrappers of LIST (VT_ALLOC_HOOKS,
 * VT_GRAPH_HOOKS or VT_RESOLVER_HOOKS), after them: registers every one (a hook of the list
 * without its wrapper does not compile). */
#define VT_HOOK_REGISTER(LIST) LIST(VT_HOOK_WRAPPER_ENTRY)

/* The real function behind hook ID, found on first use; NULL if none. */
void *vt_hook_real(enum vt_hook_id id);

/* The real function behind hook ID for a call from CALLER (a return
 * address): for another wrapper of the same function, the one after it
 * (vt_wrapped_real), else vt_hook_real(ID). */
void *vt_hook_real_for(enum vt_hook_id id, const void *caller);

/* The real function if one was already seen or found, without searching. */
void *vt_hook_real_if_known(enum vt_hook_id id);

/* FN is called each time a lookup hands out one of our wrappers: the
 * process uses CUDA (FN does its work once). */
void vt_hook_table_when_used(void (*fn)(void));

/* After a dlclose: the real functions that lay in an unloaded library are
 * forgotten (found again on next use, if it comes back), and the next
 * definitions looked up again. The callers' caches are vt_caller_caches_forget's. */
void vt_hook_table_forget_unloaded(void);

/* CALLER's dlsym(RTLD_NEXT, NAME) returned our wrapper of NAME (when NAME is
 * hooked): its calls go on to the definition after it. */
void vt_hook_note_chained(const char *name, const void *caller);

/* FOUND is what a real lookup returned for a symbol. If it is one of the
 * hooked functions (named NAME, or by dladdr when NAME is NULL), remember it
 * as the real one and return our wrapper; otherwise return FOUND. */
void *vt_hook_substitute(void *found, const char *name);

/* FOUND is what cuGetProcAddress (or cudaGetDriverEntryPoint) returned for
 * SYMBOL at VERSION with FLAGS: our wrapper for the variant (ABI version,
 * per-thread or legacy stream) that the request asks for, FOUND kept as that
 * variant's real function. */
void *vt_hook_substitute_requested(void *found, const char *symbol, int version, uint64_t flags);

/* Every address at which the program may hold a hooked driver function,
 * with our wrapper for it: the driver's export of the hook's name (what
 * dlsym on libcuda returns; EXPORTED 1), and what the driver's
 * cuGetProcAddress hands out for each request that a lookup answers with a
 * wrapper (the requests of vt_hook_substitute_requested; EXPORTED 0).
 * FN(real, wrapper, exported, ARG) for each; an address may come more than
 * once. Nothing when no driver is loaded. */
typedef void (*vt_hook_real_fn)(void *real, void *wrapper, int exported, void *arg);
void vt_hook_each_real(vt_hook_real_fn fn, void *arg);

#endif
