/* SPDX-License-Identifier: MIT */
/* The interpreter found in this process (pystack.c looks for it), shared by
 * the readers of its memory: pystack.c reads the calling thread's frames,
 * pybehalf.c another thread's. */
#ifndef VRAMTRACE_PYINTERP_H
#define VRAMTRACE_PYINTERP_H

#include "pylayout.h"

/* What we use of the interpreter: functions that only read a flag or a
 * thread-local (no GIL needed), the addresses of three type objects, and
 * the layout of its structures. */
struct vt_python {
    int (*is_initialized)(void);
    int (*is_finalizing)(void);
    const char *(*this_thread_state)(void);    /* PyGILState_GetThisThreadState */
    const char *(*current_thread_state)(void); /* _PyThreadState_UncheckedGet, up to 3.11 */
    const char *(*main_interpreter)(void);     /* PyInterpreterState_Main */
    const void *code_type, *unicode_type, *bytes_type;
    struct vt_pylayout layout;
    long code_function; /* the code object's function name: co_qualname (3.11+), else co_name */
    int is_main;        /* the program is the interpreter (python, not a C program embedding it) */
};

extern struct vt_python vt_py;

/* Whether an interpreter was found and its layout is known (looking for
 * it when modules were loaded since the last look). */
int vt_python_ready(void);

#define VT_PY_TEXT_CHARS 1000 /* longer names are cut */
#define VT_PY_TEXT_BYTES (4 * VT_PY_TEXT_CHARS)

/* Where a compact str keeps its characters, read from (a copy of) its
 * header: the offset of the first from the str, how many (at most
 * VT_PY_TEXT_CHARS) and their width in bytes. */
struct vt_pytext_shape {
    long offset, length;
    unsigned kind;
};

/* The shape of the str whose header is at HEADER; -1 when it is not a
 * compact str (the type is not checked here). */
int vt_pytext_shape(const char *header, struct vt_pytext_shape *shape);

/* The characters at DATA, of SHAPE, as UTF-8 into OUT (VT_PY_TEXT_BYTES);
 * the length written. */
long vt_pytext_utf8(const struct vt_pytext_shape *shape, const unsigned char *data, char *out);

#endif
