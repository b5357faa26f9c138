/* SPDX-License-Identifier: MIT */
/* Plain loads of the interpreter's memory on the calling thread's own
 * frames and the objects they keep alive (no call, no fault handling:
 * pypeek.c reads what may be gone). */
#ifndef VRAMTRACE_PYLOAD_H
#define VRAMTRACE_PYLOAD_H

#include "pyinterp.h"

#include <string.h>

static inline const char *vt_load_ptr(const char *base, long offset)
{
    const char *p;
    memcpy(&p, base + offset, sizeof p);
    return p;
}

static inline long vt_load_long(const char *base, long offset)
{
    long v;
    memcpy(&v, base + offset, sizeof v);
    return v;
}

static inline int vt_load_int(const char *base, long offset)
{
    int v;
    memcpy(&v, base + offset, sizeof v);
    return v;
}

/* Whether OBJECT (NULL: no) is of TYPE (exactly, no subclass). */
static inline int vt_py_is_a(const char *object, const void *type)
{
    return object && vt_load_ptr(object, vt_py.layout.ob_type) == type;
}

#endif
