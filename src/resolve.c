#include "resolve.h"

#include "elf_symbol.h"
#include "hook_table.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

static vt_dlsym_fn real_dlsym;
static vt_dlvsym_fn real_dlvsym;

static void *libc_function(const char *name)
{
    void *p = vt_elf_lookup("libc.so.6", name);
    return p ? p : vt_elf_lookup("libdl.so.2", name); /* glibc before 2.34 */
}

vt_dlsym_fn vt_real_dlsym(void)
{
    vt_dlsym_fn f = __atomic_load_n(&real_dlsym, __ATOMIC_ACQUIRE);
    if (!f) {
        f = (vt_dlsym_fn)libc_function("dlsym");
        __atomic_store_n(&real_dlsym, f, __ATOMIC_RELEASE);
    }
    return f;
}

vt_dlvsym_fn vt_real_dlvsym(void)
{
    vt_dlvsym_fn f = __atomic_load_n(&real_dlvsym, __ATOMIC_ACQUIRE);
    if (!f) {
        f = (vt_dlvsym_fn)libc_function("dlvsym");
        __atomic_store_n(&real_dlvsym, f, __ATOMIC_RELEASE);
    }
    return f;
}

int vt_is_own_address(const void *p)
{
    Dl_info here, there;
    if (!p || !dladdr((void *)&vt_is_own_address, &here) || !dladdr(p, &there))
        return 0;
    return here.dli_fbase == there.dli_fbase;
}

/* Objects loaded with RTLD_LOCAL, read from each object's own symbol table.
 * Not dlopen(RTLD_NOLOAD): during start-up that runs the constructors of
 * objects not yet initialised, from inside our hook, out of order. */
static void *find_in_loaded_objects(const char *name)
{
    Dl_info info;
    struct link_map *m = NULL;
    if (!dladdr1((void *)&find_in_loaded_objects, &info, (void **)&m, RTLD_DL_LINKMAP) || !m)
        return NULL;
    while (m->l_prev)
        m = m->l_prev;
    for (; m; m = m->l_next) {
        void *p = vt_elf_lookup_map(m, name, NULL);
        if (p && !vt_is_own_address(p))
            return p;
    }
    return NULL;
}

void *vt_find_real(const char *name)
{
    vt_dlsym_fn lookup = vt_real_dlsym();
    void *p;
    if (!lookup)
        return NULL;
    p = lookup(RTLD_NEXT, name);
    if (p && !vt_is_own_address(p))
        return p;
    return find_in_loaded_objects(name);
}

void *vt_driver_function(const char *name)
{
    void *p = vt_find_real(name);
    cuGetProcAddress_v2_fn resolver;
    if (p)
        return p;
    /* libcuda loaded RTLD_LOCAL and its handle unknown: ask its own resolver. */
    resolver = (cuGetProcAddress_v2_fn)vt_hook_real_if_known(VT_HOOK_cuGetProcAddress_v2);
    if (resolver && resolver(name, &p, 12000, 0, NULL) == CUDA_SUCCESS)
        return p;
    return NULL;
}

/* A call site is looked up by address range, without dladdr: this runs on
 * every runtime call. */
static void *cached(struct vt_caller_cache *cache, uintptr_t caller)
{
    unsigned used = __atomic_load_n(&cache->used, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < used && i < 8; i++)
        if (caller >= cache->entries[i].start &&
            caller < __atomic_load_n(&cache->entries[i].end, __ATOMIC_ACQUIRE))
            return cache->entries[i].real;
    return NULL;
}

/* Caches REAL for the object loaded at BASE (its ELF header) with load bias
 * BIAS: its extent comes from its program headers in memory. */
static void remember(struct vt_caller_cache *cache, const void *base, uintptr_t bias, void *real)
{
    const ElfW(Ehdr) *elf = base;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)elf + elf->e_phoff);
    uintptr_t start = UINTPTR_MAX, end = 0;
    unsigned slot;
    for (unsigned i = 0; i < elf->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD) {
            uintptr_t lo = bias + ph[i].p_vaddr, hi = lo + ph[i].p_memsz;
            start = lo < start ? lo : start;
            end = hi > end ? hi : end;
        }
    slot = __atomic_load_n(&cache->used, __ATOMIC_ACQUIRE);
    if (start >= end || slot >= 8 ||
        !__atomic_compare_exchange_n(&cache->used, &slot, slot + 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return; /* full, or another thread took the slot: just don't cache */
    cache->entries[slot].start = start;
    cache->entries[slot].real = real;
    __atomic_store_n(&cache->entries[slot].end, end, __ATOMIC_RELEASE);
}

/* NAME as OBJECT and its dependencies see it. The main program's link_map
 * is a handle (the global scope, where we come first); a library loaded as
 * a dependency has no search list of its own, and dlsym on its link_map
 * crashes in the loader: dlopen gives it one. */
static void *lookup_from(struct link_map *object, const char *file, const char *name)
{
    vt_dlsym_fn lookup = vt_real_dlsym();
    void *handle, *p;
    if (!lookup)
        return NULL;
    if (!object->l_prev)
        return lookup(object, name);
    handle = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle)
        return NULL;
    p = lookup(handle, name);
    dlclose(handle);
    return p;
}

void *vt_real_for_caller(const char *name, const void *caller, struct vt_caller_cache *cache)
{
    Dl_info info;
    struct link_map *object = NULL;
    void *real = cached(cache, (uintptr_t)caller);
    if (real)
        return real;
    if (!dladdr1(caller, &info, (void **)&object, RTLD_DL_LINKMAP) || !object)
        return vt_find_real(name);
    real = lookup_from(object, info.dli_fname, name);
    if (!real || vt_is_own_address(real))
        real = vt_find_real(name);
    if (real && info.dli_fbase)
        remember(cache, info.dli_fbase, object->l_addr, real);
    return real;
}

void *vt_driver_function_cached(void **slot, const char *name)
{
    void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!p) {
        p = vt_driver_function(name);
        if (p)
            __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    }
    return p;
}
