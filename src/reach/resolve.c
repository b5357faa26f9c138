/* SPDX-License-Identifier: MIT */
#include "resolve.h"

#include "elf_symbol.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

static vt_dlsym_fn real_dlsym;
static vt_dlvsym_fn real_dlvsym;
static vt_dlclose_fn real_dlclose;

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

vt_dlclose_fn vt_real_dlclose(void)
{
    vt_dlclose_fn f = __atomic_load_n(&real_dlclose, __ATOMIC_ACQUIRE);
    if (!f) {
        f = (vt_dlclose_fn)libc_function("dlclose");
        __atomic_store_n(&real_dlclose, f, __ATOMIC_RELEASE);
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

struct link_map *vt_own_map(void)
{
    Dl_info info;
    struct link_map *m = NULL;
    if (!dladdr1((void *)&vt_own_map, &info, (void **)&m, RTLD_DL_LINKMAP))
        return NULL;
    return m;
}

/* NAME defined in M itself (not in its dependencies), unless M is us. */
static void *defined_in(const struct link_map *m, const struct link_map *self, const char *name)
{
    return m == self ? NULL : vt_elf_lookup_map(m, name, NULL);
}

/* Any loaded object but EXCLUDED and us, those loaded after us first: also
 * objects loaded with RTLD_LOCAL, read from each object's own symbol table.
 * Not dlopen(RTLD_NOLOAD): during start-up that runs the constructors of
 * objects not yet initialised, from inside our hook, out of order. */
static void *find_in_loaded_objects(const char *name, const struct link_map *excluded)
{
    const struct link_map *self = vt_own_map(), *m;
    void *p;
    if (!self)
        return NULL;
    for (m = self->l_next; m; m = m->l_next)
        if (m != excluded && (p = defined_in(m, self, name)))
            return p;
    for (m = self->l_prev; m; m = m->l_prev)
        if (m != excluded && (p = defined_in(m, self, name)))
            return p;
    return NULL;
}

/* The next definition after us in the global scope (glibc's RTLD_NEXT, asked
 * from here); with VERSION, only one that a reference to NAME of VERSION
 * binds to (that version, or unversioned), as the dynamic linker binds. */
static void *next_after_us(const char *name, const char *version)
{
    vt_dlsym_fn lookup = vt_real_dlsym();
    void *p = lookup ? lookup(RTLD_NEXT, name) : NULL;
    Dl_info info;
    struct link_map *m = NULL;
    if (!p || vt_is_own_address(p))
        return NULL;
    if (version && (!dladdr1(p, &info, (void **)&m, RTLD_DL_LINKMAP) || !m ||
                    vt_elf_binding_map(m, name, version) != p))
        return NULL; /* another runtime's (another version) */
    return p;
}

void *vt_next_definition(const char *name)
{
    return next_after_us(name, NULL);
}

void *vt_find_real(const char *name)
{
    void *p = next_after_us(name, NULL);
    return p ? p : find_in_loaded_objects(name, NULL);
}

/* Caches REAL, resolved at EPOCH, for the object loaded at BASE (its ELF
 * header) with load bias BIAS: its extent comes from its program headers. */
static void remember(struct vt_caller_cache *cache, const void *base, uintptr_t bias, void *real,
                     unsigned epoch)
{
    const ElfW(Ehdr) *elf = base;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)elf + elf->e_phoff);
    uintptr_t start = UINTPTR_MAX, end = 0;
    for (unsigned i = 0; i < elf->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD) {
            uintptr_t lo = bias + ph[i].p_vaddr, hi = lo + ph[i].p_memsz;
            start = lo < start ? lo : start;
            end = hi > end ? hi : end;
        }
    vt_caller_cache_put(cache, start, end, real, epoch);
}

/* NAME (of VERSION) as OBJECT's own dependencies see it: its local scope,
 * where a library loaded with RTLD_LOCAL finds its own runtime. A library
 * loaded as a dependency has no search list of its own, and dlsym on its
 * link_map crashes in the loader: dlopen gives it one. */
static void *local_scope_lookup(struct link_map *object, const char *file, const char *name,
                                const char *version)
{
    vt_dlsym_fn lookup = vt_real_dlsym();
    vt_dlvsym_fn vlookup = vt_real_dlvsym();
    vt_dlclose_fn close = vt_real_dlclose();
    void *handle, *p;
    if (!lookup || !vlookup || !close || !object->l_prev) /* the main's scope is the global one */
        return NULL;
    handle = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle)
        return NULL;
    p = version ? vlookup(handle, name, version) : lookup(handle, name);
    close(handle); /* not ours: nothing was unloaded */
    return p && !vt_is_own_address(p) ? p : NULL;
}

/* What OBJECT, which imports NAME and does not define it, would have bound
 * NAME to without us: as the dynamic linker does, the global scope first
 * (where we stand first, and other preloaded wrappers after us), then the
 * object's own dependencies; the version it requires decides between
 * several runtimes in one process (a framework's bundled one). */
static void *as_bound_by(struct link_map *object, const char *file, const char *name)
{
    const char *version;
    void *p;
    vt_elf_imports(object, name, &version);
    p = next_after_us(name, version);
    if (!p)
        p = local_scope_lookup(object, file, name, version);
    return p ? p : find_in_loaded_objects(name, NULL);
}

/* OBJECT defines NAME itself and called ours: it wraps NAME and reached us
 * through its own search for "the next one" (dlsym(RTLD_NEXT), a handle of
 * the library below, or a substitution of ours). What it would reach without
 * us is the next definition after it, not anything before it (itself
 * included: that is the loop a chain of wrappers would fall into). When
 * nothing else defines NAME, OBJECT is the implementation calling its own
 * export, and gets its own. */
static void *after_wrapper(const struct link_map *object, void *own_definition, const char *name)
{
    const struct link_map *self = vt_own_map();
    void *p;
    for (const struct link_map *m = object->l_next; m; m = m->l_next)
        if ((p = defined_in(m, self, name)))
            return p;
    p = find_in_loaded_objects(name, object);
    return p ? p : own_definition;
}

/* Resolves NAME for CALLER, once per calling object. RUNTIME: as the
 * caller's binding would; else only for a caller that wraps NAME, others get
 * VT_BY_NAME or VT_BY_POINTER (the driver hooks decide for them). */
static void *resolve_for(const char *name, const void *caller, struct vt_caller_cache *cache,
                         int runtime)
{
    Dl_info info;
    struct link_map *object = NULL;
    const char *version;
    void *real, *own;
    if (vt_caller_cache_find(cache, caller, &real))
        return real;
    /* before resolving: an unload handled meanwhile keeps it out of CACHE */
    unsigned epoch = vt_caller_caches_epoch();
    if (!dladdr1(caller, &info, (void **)&object, RTLD_DL_LINKMAP) || !object)
        return runtime ? vt_find_real(name) : VT_BY_POINTER;
    own = object == vt_own_map() ? NULL : vt_elf_lookup_map(object, name, NULL);
    if (own)
        real = after_wrapper(object, own, name);
    else if (!runtime)
        real = vt_elf_imports(object, name, &version) ? VT_BY_NAME : VT_BY_POINTER;
    else
        real = as_bound_by(object, info.dli_fname, name);
    if (real && info.dli_fbase)
        remember(cache, info.dli_fbase, object->l_addr, real, epoch);
    return real;
}

void *vt_real_for_caller(const char *name, const void *caller, struct vt_caller_cache *cache)
{
    return resolve_for(name, caller, cache, 1);
}

void *vt_wrapped_real(const char *name, const void *caller, struct vt_caller_cache *cache)
{
    return resolve_for(name, caller, cache, 0);
}

void vt_note_chained(const char *name, const void *caller, struct vt_caller_cache *cache)
{
    Dl_info info;
    struct link_map *object = NULL;
    void *real, *own;
    unsigned epoch = vt_caller_caches_epoch();
    if (vt_caller_cache_find(cache, caller, &real) ||
        !dladdr1(caller, &info, (void **)&object, RTLD_DL_LINKMAP) || !object ||
        object == vt_own_map() || !info.dli_fbase)
        return;
    own = vt_elf_lookup_map(object, name, NULL);
    real = after_wrapper(object, own, name);
    if (real)
        remember(cache, info.dli_fbase, object->l_addr, real, epoch);
}

static int loaded_late;

void vt_resolve_loaded_late(void)
{
    __atomic_store_n(&loaded_late, 1, __ATOMIC_RELEASE);
}

int vt_loaded_before_us(const void *p)
{
    Dl_info info;
    struct link_map *object = NULL, *self = vt_own_map();
    if (!self || __atomic_load_n(&loaded_late, __ATOMIC_ACQUIRE) ||
        !dladdr1(p, &info, (void **)&object, RTLD_DL_LINKMAP) || !object)
        return 0;
    for (const struct link_map *m = self->l_prev; m; m = m->l_prev)
        if (m == object)
            return 1;
    return 0;
}
