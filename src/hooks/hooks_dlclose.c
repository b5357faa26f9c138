/* SPDX-License-Identifier: MIT */
/* dlclose: after it returns, an object may be gone and another one loaded
 * at its addresses later. The next stack taken brings the module list up
 * to date first, so no stack is named after the wrong library; every
 * function the tracer kept from a library now gone is forgotten (NVIDIA's
 * runtime unloads a driver it refuses), found again if it comes back. */
#include "caller_cache.h"
#include "driver_function.h"
#include "hook_table.h"
#include "modules.h"
#include "resolve.h"
#include "tracing.h"
#include "unwind_fast.h"

#include <link.h>
#include <stddef.h>

static int read_subs(struct dl_phdr_info *info, size_t size, void *subs)
{
    if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        return -1;
    *(unsigned long long *)subs = info->dlpi_subs;
    return 1; /* the first object says it for all */
}

/* How many objects the dynamic linker has unloaded so far (-1 unknown). */
static unsigned long long unloads_so_far(void)
{
    unsigned long long subs = (unsigned long long)-1;
    dl_iterate_phdr(read_subs, &subs);
    return subs;
}

VT_EXPORT int dlclose(void *handle)
{
    vt_dlclose_fn real = vt_real_dlclose();
    unsigned long long before = unloads_so_far();
    int r;
    if (!real)
        return -1;
    r = real(handle);
    if (r == 0 && (before == (unsigned long long)-1 || unloads_so_far() != before)) {
        vt_caller_caches_forget();
        vt_hook_table_forget_unloaded();
        vt_driver_functions_forget_unloaded();
        vt_unwind_forget();
    }
    vt_modules_note_unload();
    return r;
}
