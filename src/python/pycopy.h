/* SPDX-License-Identifier: MIT */
/* Copies of the interpreter's structures of another thread (thread states,
 * frames, code objects, strings), each read through vt_peek: the thread may
 * free them meanwhile, and a copy then fails or holds stale bytes, never a
 * fault. What the copies say is checked (object types, bounds) before it is
 * used. For pybehalf.c. */
#ifndef VRAMTRACE_PYCOPY_H
#define VRAMTRACE_PYCOPY_H

#include "pylayout.h"
#include "pyloc.h"

#include <string.h>

#define VT_PYCOPY_BYTES 256 /* the most of a structure copied */

struct vt_pycopy {
    const char *at; /* where the structure lies */
    char bytes[VT_PYCOPY_BYTES];
};

static inline const char *vt_pycopy_ptr(const struct vt_pycopy *c, long offset)
{
    const char *p;
    memcpy(&p, c->bytes + offset, sizeof p);
    return p;
}

static inline long vt_pycopy_long(const struct vt_pycopy *c, long offset)
{
    long v;
    memcpy(&v, c->bytes + offset, sizeof v);
    return v;
}

static inline int vt_pycopy_int(const struct vt_pycopy *c, long offset)
{
    int v;
    memcpy(&v, c->bytes + offset, sizeof v);
    return v;
}

/* The bytes copied of a thread state, a frame, a code object: up to the
 * end of the last field read of it. */
long vt_pycopy_thread_bytes(const struct vt_pylayout *L);
long vt_pycopy_frame_bytes(const struct vt_pylayout *L);
long vt_pycopy_code_bytes(const struct vt_pylayout *L);

/* SIZE bytes at AT into C; -1 when they cannot be read (or do not fit). */
int vt_pycopy_take(const char *at, long size, struct vt_pycopy *c);
/* The pointer stored at AT, or NULL. */
const char *vt_pycopy_peek_ptr(const char *at);

struct vt_pyframe_copy {
    struct vt_pycopy self;
    struct vt_pycopy code; /* its code object, when it runs Python code */
    const char *back;
    long offset; /* of its current instruction in the code, in bytes */
    int python;  /* a frame of running Python code */
};

/* The code object F's copied frame runs, or NULL (a shim frame of the C
 * stack, a tagged integer); F->back set. */
const char *vt_pyframe_code_address(struct vt_pyframe_copy *f);
/* With F's code object copied: whether F runs Python code, and where. */
void vt_pyframe_judge(struct vt_pyframe_copy *f);
/* Copies the frame at AT and its code object; -1 when the frame cannot be read. */
int vt_pyframe_read(const char *at, struct vt_pyframe_copy *f);
/* The location of F's instruction (F runs Python code), or NULL. */
struct vt_pyloc *vt_pyframe_location(const struct vt_pyframe_copy *f);

#define VT_PYCOPY_NAME_CHARS 32 /* the longest text vt_pycopy_short_text reads */

/* The text of the str at AT when it is at most VT_PYCOPY_NAME_CHARS
 * characters long, as UTF-8 into OUT (VT_PY_TEXT_BYTES); its length, or -1. */
long vt_pycopy_short_text(const char *at, char *out);
/* Whether the str at AT ends with SUFFIX (ASCII). */
int vt_pycopy_ends_with(const char *at, const char *suffix);

#endif
