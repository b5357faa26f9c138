#include "hook_table.h"

#include "elf_symbol.h"
#include "resolve.h"
#include "tracer.h"

#include <dlfcn.h>

/* The wrappers, defined in hooks_driver.c and hooks_lookup.c. */
#define VT_DECLARE_WRAPPER(name) extern char name[];
VT_DRIVER_HOOKS(VT_DECLARE_WRAPPER)
#undef VT_DECLARE_WRAPPER

struct hook {
    const char *name;
    void *wrapper;
    void *next;  /* the definition after us in the global scope; NO_NEXT: none */
    void *seen;  /* the driver's own, as a lookup of the driver returned it */
    struct vt_caller_cache callers;  /* how each calling object reached us */
    struct vt_caller_cache chained;  /* wrappers that found us by dlsym(RTLD_NEXT) */
};
#define NO_NEXT ((void *)1)

static struct hook hooks[VT_HOOK_COUNT] = {
#define VT_HOOK_ENTRY(n) [VT_HOOK_##n] = {#n, (void *)n, NULL, NULL, {{{0, 0, NULL}}, 0}, {{{0, 0, NULL}}, 0}},
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

void vt_hook_note_chained(const char *name, const void *caller)
{
    struct hook *h = hook_named(name);
    if (h)
        vt_note_chained(h->name, caller, &h->chained);
}


void *vt_hook_substitute(void *found, const char *name)
{
    struct hook *h;
    Dl_info info;
    /* Ours already, or a wrapper ahead of us, which forwards to us itself. */
    if (!found || vt_is_own_address(found) || vt_loaded_before_us(found))
        return found;
    if (!name) {
        if (!dladdr(found, &info) || !info.dli_sname || info.dli_saddr != found)
            return found;
        name = info.dli_sname;
    }
    h = hook_named(name);
    if (!h)
        return found;
    remember_seen(h, found);
    return h->wrapper;
}
