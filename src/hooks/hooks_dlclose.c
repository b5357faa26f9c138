/* SPDX-License-Identifier: MIT */
/* dlclose: after it returns, an object may be gone and another one loaded
 * at its addresses later; the next stack taken brings the module list up
 * to date first, so no stack is named after the wrong library. */
#include "elf_symbol.h"
#include "modules.h"
#include "tracing.h"

#include <stddef.h>

typedef int (*dlclose_fn)(void *handle);

VT_EXPORT int dlclose(void *handle)
{
    static dlclose_fn real;
    dlclose_fn f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    int r;
    if (!f) {
        f = (dlclose_fn)vt_elf_lookup("libc.so.6", "dlclose");
        if (!f)
            f = (dlclose_fn)vt_elf_lookup("libdl.so.2", "dlclose"); /* glibc before 2.34 */
        if (!f)
            return -1;
        __atomic_store_n(&real, f, __ATOMIC_RELEASE);
    }
    r = f(handle);
    vt_modules_note_unload();
    return r;
}
