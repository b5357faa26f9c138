/* SPDX-License-Identifier: MIT */
#include "hook_table.h"

#include "elf_symbol.h"
#include "resolve.h"

#include <dlfcn.h>
#include <link.h>

/* The wrappers' registrations (VT_HOOK_REGISTER), bounds set by the linker. */
extern const struct vt_hook_wrapper __start_vt_hook_wrappers[]
    __attribute__((visibility("hidden")));
extern const struct vt_hook_wrapper __stop_vt_hook_wrappers[] __attribute__((visibility("hidden")));

struct hook {
    const char *name;
    void *next;                     /* the definition after us in the global scope; NO_NEXT: none */
    void *seen;                     /* the driver's own, as a lookup of the driver returned it */
    struct vt_caller_cache callers; /* how each calling object reached us */
    struct vt_caller_cache chained; /* wrappers that found us by dlsym(RTLD_NEXT) */
};
#define NO_NEXT ((void *)1)

static struct hook hooks[VT_HOOK_COUNT] = {
#define VT_HOOK_ENTRY(n) [VT_HOOK_##n] = {.name = #n},
    VT_DRIVER_HOOKS(VT_HOOK_ENTRY)
#undef VT_HOOK_ENTRY
};

static struct hook *hook_named(const char *name)
{
    if (!name || name[0] != 'c' || name[1] != 'u')
        return NULL;
    for (int i = 0; i < VT_HOOK_COUNT; i++)
        if (vt_str_eq(hooks[i].name, name))
            return &hooks[i];
    return NULL;
}

void *vt_hook_real_if_known(enum vt_hook_id id)
{
    void *next = __atomic_load_n(&hooks[id].next, __ATOMIC_ACQUIRE);
    return next && next != NO_NEXT ? next : __atomic_load_n(&hooks[id].seen, __ATOMIC_ACQUIRE);
}

static void remember_seen(struct hook *h, void *real)
{
    void *expected = NULL;
    __atomic_compare_exchange_n(&h->seen, &expected, real, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* Another wrapper of the same function behind us (preloaded after us) comes
 * first: a call that reached us by name goes on to it, as it would have
 * without us. Without one, the driver's own function, as a lookup saw it or
 * found in the loaded objects (libcuda loaded with RTLD_LOCAL). */
void *vt_hook_real(enum vt_hook_id id)
{
    struct hook *h = &hooks[id];
    void *next = __atomic_load_n(&h->next, __ATOMIC_ACQUIRE), *real;
    if (!next) {
        next = vt_next_definition(h->name);
        __atomic_store_n(&h->next, next ? next : NO_NEXT, __ATOMIC_RELEASE);
    }
    if (next && next != NO_NEXT)
        return next;
    real = __atomic_load_n(&h->seen, __ATOMIC_ACQUIRE);
    if (!real) {
        real = vt_find_real(h->name);
        if (real)
            remember_seen(h, real);
        real = __atomic_load_n(&h->seen, __ATOMIC_ACQUIRE);
    }
    return real;
}

/* Each caller goes where it would have gone without us: a wrapper that
 * chained to us by dlsym(RTLD_NEXT) to the definition after it; a caller
 * bound to us by name to the next definition (vt_hook_real); one that got
 * our wrapper from a lookup (a wrapper included) to the function that lookup
 * found, not to a wrapper behind us that it never asked for. */
void *vt_hook_real_for(enum vt_hook_id id, const void *caller)
{
    struct hook *h = &hooks[id];
    void *real, *seen;
    if (vt_caller_cache_find(&h->chained, caller, &real))
        return real;
    if (!vt_caller_cache_find(&h->callers, caller, &real))
        real = vt_wrapped_real(h->name, caller, &h->callers);
    if (real == VT_BY_NAME)
        return vt_hook_real(id);
    seen = __atomic_load_n(&h->seen, __ATOMIC_ACQUIRE);
    if (seen)
        return seen;
    return real == VT_BY_POINTER ? vt_hook_real(id) : real;
}

/* The library behind P was unloaded (dladdr finds no object there). */
static int unloaded(const void *p)
{
    Dl_info info;
    return p && p != NO_NEXT && !dladdr(p, &info);
}

void vt_hook_table_forget_unloaded(void)
{
    for (int i = 0; i < VT_HOOK_COUNT; i++) {
        void *seen = __atomic_load_n(&hooks[i].seen, __ATOMIC_ACQUIRE);
        __atomic_store_n(&hooks[i].next, NULL, __ATOMIC_RELEASE); /* the chain may have changed */
        if (unloaded(seen))
            __atomic_compare_exchange_n(&hooks[i].seen, &seen, NULL, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE);
    }
}

void vt_hook_note_chained(const char *name, const void *caller)
{
    struct hook *h = hook_named(name);
    if (h)
        vt_note_chained(h->name, caller, &h->chained);
}

static void *wrapper_of(const struct hook *h)
{
    for (const struct vt_hook_wrapper *w = __start_vt_hook_wrappers; w < __stop_vt_hook_wrappers;
         w++)
        if (w->id == (enum vt_hook_id)(h - hooks))
            return w->wrapper;
    return NULL;
}

static void (*when_used)(void);

void vt_hook_table_when_used(void (*fn)(void))
{
    __atomic_store_n(&when_used, fn, __ATOMIC_RELEASE);
}

/* A hook always has its wrapper (VT_HOOK_REGISTER fails to compile
 * otherwise); were one missing, the lookup keeps what it found rather than
 * hand a caller NULL. */
static void *wrap(struct hook *h, void *found)
{
    void *wrapper = h ? wrapper_of(h) : NULL;
    void (*first_use)(void) = __atomic_load_n(&when_used, __ATOMIC_ACQUIRE);
    if (!wrapper)
        return found;
    remember_seen(h, found);
    if (first_use)
        first_use();
    return wrapper;
}

void *vt_hook_substitute(void *found, const char *name)
{
    Dl_info info;
    /* Ours already, or a wrapper ahead of us, which forwards to us itself. */
    if (!found || vt_is_own_address(found) || vt_loaded_before_us(found))
        return found;
    if (!name) {
        if (!dladdr(found, &info) || !info.dli_sname || info.dli_saddr != found)
            return found;
        name = info.dli_sname;
    }
    return wrap(hook_named(name), found);
}

/* Which exported variant (and so which ABI) a driver entry point request
 * gets, as cudaTypedefs.h names them PFN_<name>_v<version>[_ptsz]: the
 * newest row of the name whose version the request reaches. Requests below
 * the first row get an ABI we do not hook (the 32-bit v1 functions). */
static const struct request {
    const char *name;
    int version;
    const char *variant, *variant_ptsz;
} requests[] = {
    {"cuMemAlloc", 3020, "cuMemAlloc_v2", NULL},
    {"cuMemAllocPitch", 3020, "cuMemAllocPitch_v2", NULL},
    {"cuMemAllocManaged", 6000, "cuMemAllocManaged", NULL},
    {"cuMemAllocAsync", 11020, "cuMemAllocAsync", "cuMemAllocAsync_ptsz"},
    {"cuMemAllocFromPoolAsync", 11020, "cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync_ptsz"},
    {"cuMemFree", 3020, "cuMemFree_v2", NULL},
    {"cuMemFreeAsync", 11020, "cuMemFreeAsync", "cuMemFreeAsync_ptsz"},
    {"cuMemAllocHost", 3020, "cuMemAllocHost_v2", NULL},
    {"cuMemHostAlloc", 2020, "cuMemHostAlloc", NULL},
    {"cuMemFreeHost", 2000, "cuMemFreeHost", NULL},
    {"cuMemCreate", 10020, "cuMemCreate", NULL},
    {"cuMemRelease", 10020, "cuMemRelease", NULL},
    {"cuMemMap", 10020, "cuMemMap", NULL},
    {"cuMemUnmap", 10020, "cuMemUnmap", NULL},
    {"cuArrayCreate", 3020, "cuArrayCreate_v2", NULL},
    {"cuArray3DCreate", 3020, "cuArray3DCreate_v2", NULL},
    {"cuArrayDestroy", 2000, "cuArrayDestroy", NULL},
    {"cuMipmappedArrayCreate", 5000, "cuMipmappedArrayCreate", NULL},
    {"cuMipmappedArrayDestroy", 5000, "cuMipmappedArrayDestroy", NULL},
    {"cuMemPoolDestroy", 11020, "cuMemPoolDestroy", NULL},
    {"cuCtxDestroy", 4000, "cuCtxDestroy_v2", NULL},
    {"cuDevicePrimaryCtxRetain", 7000, "cuDevicePrimaryCtxRetain", NULL},
    {"cuDevicePrimaryCtxRelease", 11000, "cuDevicePrimaryCtxRelease_v2", NULL},
    {"cuDevicePrimaryCtxReset", 11000, "cuDevicePrimaryCtxReset_v2", NULL},
    {"cuMemHostRegister", 6050, "cuMemHostRegister_v2", NULL},
    {"cuMemHostUnregister", 4000, "cuMemHostUnregister", NULL},
    {"cuGreenCtxDestroy", 12040, "cuGreenCtxDestroy", NULL},
    {"cuStreamBeginCapture", 10010, "cuStreamBeginCapture_v2", "cuStreamBeginCapture_v2_ptsz"},
    {"cuGraphAddMemAllocNode", 11040, "cuGraphAddMemAllocNode", NULL},
    {"cuGraphAddMemFreeNode", 11040, "cuGraphAddMemFreeNode", NULL},
    {"cuGraphAddNode", 12020, "cuGraphAddNode", NULL},
    {"cuGraphAddNode", 12030, "cuGraphAddNode_v2", NULL},
    {"cuGraphInstantiate", 12000, "cuGraphInstantiateWithFlags", NULL},
    {"cuGraphInstantiateWithFlags", 11040, "cuGraphInstantiateWithFlags", NULL},
    {"cuGraphLaunch", 10000, "cuGraphLaunch", "cuGraphLaunch_ptsz"},
    {"cuGraphExecDestroy", 10000, "cuGraphExecDestroy", NULL},
    {"cuGraphDestroy", 10000, "cuGraphDestroy", NULL},
    {"cuDeviceGraphMemTrim", 11040, "cuDeviceGraphMemTrim", NULL},
    {"cuGetProcAddress", 11030, "cuGetProcAddress", NULL},
    {"cuGetProcAddress", 12000, "cuGetProcAddress_v2", "cuGetProcAddress_v2_ptsz"},
};

static struct hook *hook_requested(const char *symbol, int version, uint64_t flags)
{
    const struct request *best = NULL;
    if (!symbol)
        return NULL;
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++)
        if (vt_str_eq(requests[i].name, symbol) && requests[i].version <= version &&
            (!best || requests[i].version > best->version))
            best = &requests[i];
    if (!best)
        return NULL;
    return hook_named((flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && best->variant_ptsz
                          ? best->variant_ptsz
                          : best->variant);
}

/* The request decides, not what dladdr names the pointer: aliases at one
 * address would name an unhooked function, or the other stream variant. */
void *vt_hook_substitute_requested(void *found, const char *symbol, int version, uint64_t flags)
{
    /* Ours already, or a wrapper ahead of us, which forwards to us itself. */
    if (!found || vt_is_own_address(found) || vt_loaded_before_us(found))
        return found;
    return wrap(hook_requested(symbol, version, flags), found);
}

/* What the driver's own cuGetProcAddress (the one our wrapper calls) hands
 * out for each request a row answers, legacy and per-thread stream. */
static void each_requested(cuGetProcAddress_v2_fn real, vt_hook_real_fn fn, void *arg)
{
    static const uint64_t flags[2] = {CU_GET_PROC_ADDRESS_DEFAULT,
                                      CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM};
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++)
        for (int k = 0; k < (requests[i].variant_ptsz ? 2 : 1); k++) {
            const struct request *r = &requests[i];
            CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
            void *found = NULL;
            struct hook *h = hook_requested(r->name, r->version, flags[k]);
            if (h && real(r->name, &found, r->version, flags[k], &status) == CUDA_SUCCESS &&
                status == CU_GET_PROC_ADDRESS_SUCCESS && found)
                fn(found, wrapper_of(h), 0, arg);
        }
}

void vt_hook_each_real(vt_hook_real_fn fn, void *arg)
{
    cuGetProcAddress_v2_fn real = (cuGetProcAddress_v2_fn)vt_hook_real(VT_HOOK_cuGetProcAddress_v2);
    struct link_map *driver = NULL;
    Dl_info info;
    if (!real || vt_is_own_address((void *)real) ||
        !dladdr1((void *)real, &info, (void **)&driver, RTLD_DL_LINKMAP) || !driver)
        return;
    for (int i = 0; i < VT_HOOK_COUNT; i++) {
        void *exported = vt_elf_lookup_map(driver, hooks[i].name, NULL);
        if (exported)
            fn(exported, wrapper_of(&hooks[i]), 1, arg);
    }
    each_requested(real, fn, arg);
}
