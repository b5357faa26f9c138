/* SPDX-License-Identifier: MIT */
/* The entry points of vramtrace attach and detach, called by the CLI's
 * injector inside the running process (tools/attach/): what the dynamic
 * linker bound before we were loaded is bound to our wrappers, as
 * LD_PRELOAD would have bound it, and bound back at detach. */
#include "attach.h"
#include "data_patch.h"
#include "dispositions.h"
#include "elf_symbol.h"
#include "got_patch.h"
#include "resolve.h"
#include "torch_tensors.h"
#include "tracing.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

/* For the injector, which reads it without stopping the process:
 * VT_ATTACH_NONE in a process traced from its start (or not yet attached),
 * VT_ATTACH_ON between attach and detach, VT_ATTACH_OFF after detach. */
enum { VT_ATTACH_NONE = 0, VT_ATTACH_ON = 1, VT_ATTACH_OFF = 2 };
VT_EXPORT volatile int vramtrace_attach_state;

/* Every name that LD_PRELOAD would have bound to us: whatever the tracer
 * exports (the CUDA runtime's and driver's calls, the loader's lookups, the
 * signal calls, the ways out that pass exit() by). */
static void *choose(const char *name)
{
    return vt_own_export(name);
}

/* The signal calls alone: bound before the tracer takes any signal, so the
 * program never reads its handlers back as its own. */
static void *choose_signal_calls(const char *name)
{
    return vt_dispositions_exports(name) ? vt_own_export(name) : NULL;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

#define ROUTES 16
static char route_text[ROUTES][200];

/* The route through which object M reaches the driver unseen after attach,
 * into TEXT; 0 if none: driver functions left in its static data, or, for a
 * runtime (libcudart, or a library that embeds one and exports its API),
 * those it fetched before attach where none was found in its data. */
static int unreached_in(const struct link_map *m, char *text, size_t size)
{
    const char *name = m->l_name[0] ? base_name(m->l_name) : "the program";
    if (vt_is_own_address((void *)m->l_ld))
        return 0;
    if (vt_data_left_in(m->l_addr))
        snprintf(text, size,
                 "the driver functions %s keeps in its static data at an address the driver "
                 "hands out for two functions wrapped apart",
                 name);
    else if (!vt_data_patched_in(m->l_addr) && vt_elf_lookup_map(m, "cudaMalloc", NULL))
        snprintf(text, size,
                 "the driver functions %s fetched before attach (its runtime API is seen where "
                 "objects call it by name)",
                 name);
    else
        return 0;
    return 1;
}

/* What attaching cannot reach: each object's (unreached_in), and the
 * driver functions kept outside static data. */
static unsigned unreached(const char **routes)
{
    struct link_map *m = vt_own_map();
    unsigned n = 0;
    if (!m)
        return 0;
    while (m->l_prev)
        m = m->l_prev;
    for (; m && n + 1 < ROUTES; m = m->l_next)
        if (unreached_in(m, route_text[n], sizeof route_text[n])) {
            routes[n] = route_text[n];
            n++;
        }
    routes[n++] = "CUDA function pointers taken before attach (cuGetProcAddress, "
                  "cudaGetDriverEntryPoint, dlsym) and kept outside the static data of the "
                  "program and its libraries (on the heap or the stack: ctypes keeps those it "
                  "looked up there)";
    return n;
}

/* 0: tracing into DUMP_PATH; 1: attached already; 2: the dump could not be
 * written (or this process is not traced); 3: nothing could be bound here
 * (not x86_64). */
VT_EXPORT int vramtrace_attach_start(const char *dump_path)
{
    const char *routes[ROUTES];
    unsigned nroutes;
    int r;
    if (vramtrace_attach_state == VT_ATTACH_ON)
        return 1;
    vt_got_patch_loaded(choose_signal_calls);
    vt_data_patch_loaded();
    nroutes = unreached(routes);
    r = vt_attach_begin(dump_path, routes, nroutes);
    if (r < 0)
        vt_got_restore();
    if (r == -2)
        return 1;
    vramtrace_attach_state = VT_ATTACH_OFF; /* loaded, not tracing: attach may be tried again */
    if (r < 0)
        return 2;
    vt_resolve_loaded_late();
    if (vt_got_patch_loaded(choose) < 0) {
        vt_attach_end();
        return 3;
    }
    vramtrace_attach_state = VT_ATTACH_ON;
    vt_torch_tensors_look_now();
    return 0;
}

/* 0: the dump finished, the signals given back, every call bound back; 1:
 * not attached. The signals first: meanwhile the program's signal calls
 * still reach ours, which pass them through from then on. */
VT_EXPORT int vramtrace_attach_stop(void)
{
    if (vramtrace_attach_state != VT_ATTACH_ON)
        return 1;
    vt_attach_end();
    vt_got_restore();
    vramtrace_attach_state = VT_ATTACH_OFF;
    return 0;
}
