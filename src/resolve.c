#include "resolve.h"

#include "elf_symbol.h"
#include "hook_table.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

#define MAX_OBJECTS 1024

static vt_dlsym_fn real_dlsym;
static vt_dlvsym_fn real_dlvsym;

static void *libc_function(const char *name)
{
    void *p = vt_elf_lookup("libc.so.6", name);
    return p ? p : vt_elf_lookup("libdl.so.2", name); /* glibc before 2.34 */
}

vt_dlsym_fn vt_real_dlsym(void)
{
    if (!real_dlsym)
        real_dlsym = (vt_dlsym_fn)libc_function("dlsym");
    return real_dlsym;
}

vt_dlvsym_fn vt_real_dlvsym(void)
{
    if (!real_dlvsym)
        real_dlvsym = (vt_dlvsym_fn)libc_function("dlvsym");
    return real_dlvsym;
}

int vt_is_own_address(const void *p)
{
    Dl_info here, there;
    if (!p || !dladdr((void *)&vt_is_own_address, &here) || !dladdr(p, &there))
        return 0;
    return here.dli_fbase == there.dli_fbase;
}

struct object_list {
    char *paths[MAX_OBJECTS];
    int count;
};

static int collect_object(struct dl_phdr_info *info, size_t size, void *data)
{
    struct object_list *list = data;
    (void)size;
    if (info->dlpi_name && info->dlpi_name[0] == '/' && list->count < MAX_OBJECTS)
        list->paths[list->count++] = (char *)info->dlpi_name;
    return 0;
}

/* Objects loaded with RTLD_LOCAL: dlopen(RTLD_NOLOAD) gives a handle without
 * loading anything, and dlsym on it sees their symbols. */
static void *find_in_loaded_objects(const char *name)
{
    struct object_list list;
    vt_dlsym_fn lookup = vt_real_dlsym();
    void *found = NULL;
    list.count = 0;
    dl_iterate_phdr(collect_object, &list);
    for (int i = 0; i < list.count && !found; i++) {
        void *handle = dlopen(list.paths[i], RTLD_LAZY | RTLD_NOLOAD);
        if (!handle)
            continue;
        void *p = lookup(handle, name);
        if (p && !vt_is_own_address(p))
            found = p;
        dlclose(handle);
    }
    return found;
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

void *vt_real_for_caller(const char *name, const void *caller, struct vt_caller_cache *cache)
{
    Dl_info info;
    struct link_map *object = NULL;
    void *real = cached(cache, (uintptr_t)caller);
    if (real)
        return real;
    if (!dladdr1(caller, &info, (void **)&object, RTLD_DL_LINKMAP) || !object)
        return vt_find_real(name);
    /* dlsym on an object's handle searches it and its dependencies only;
     * for the main program it is the global scope, where we come first. */
    real = vt_real_dlsym() ? vt_real_dlsym()(object, name) : NULL;
    if (!real || vt_is_own_address(real))
        real = vt_find_real(name);
    if (real && info.dli_fbase)
        remember(cache, info.dli_fbase, object->l_addr, real);
    return real;
}
