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
    void *real;
};

static struct hook hooks[VT_HOOK_COUNT] = {
#define VT_HOOK_ENTRY(n) [VT_HOOK_##n] = {#n, (void *)n, NULL},
    VT_DRIVER_HOOKS(VT_HOOK_ENTRY)
#undef VT_HOOK_ENTRY
};

void *vt_hook_real_if_known(enum vt_hook_id id)
{
    return __atomic_load_n(&hooks[id].real, __ATOMIC_ACQUIRE);
}

static void remember_real(struct hook *h, void *real)
{
    void *expected = NULL;
    __atomic_compare_exchange_n(&h->real, &expected, real, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void *vt_hook_real(enum vt_hook_id id)
{
    void *real = vt_hook_real_if_known(id);
    if (!real) {
        real = vt_find_real(hooks[id].name);
        if (real)
            remember_real(&hooks[id], real);
        real = vt_hook_real_if_known(id);
    }
    return real;
}

static struct hook *hook_named(const char *name)
{
    if (!name || name[0] != 'c' || name[1] != 'u')
        return NULL;
    for (int i = 0; i < VT_HOOK_COUNT; i++)
        if (vt_str_eq(hooks[i].name, name))
            return &hooks[i];
    return NULL;
}

void *vt_hook_substitute(void *found, const char *name)
{
    struct hook *h;
    Dl_info info;
    if (!found || vt_is_own_address(found))
        return found;
    if (!name) {
        if (!dladdr(found, &info) || !info.dli_sname || info.dli_saddr != found)
            return found;
        name = info.dli_sname;
    }
    h = hook_named(name);
    if (!h)
        return found;
    remember_real(h, found);
    return h->wrapper;
}
