/* SPDX-License-Identifier: MIT */
/* Python frames of the calling thread, whether or not it holds the GIL:
 * read straight from its own frame chain (nothing links libpython; the
 * interpreter is found in the process at run time). Never takes the GIL,
 * calls no C API function that needs it, touches no reference count,
 * allocates and locks nothing of the interpreter's. */
#ifndef VRAMTRACE_PYSTACK_H
#define VRAMTRACE_PYSTACK_H

#include "pyloc.h"

#define VT_PY_MAX 128 /* deeper Python stacks are cut here (marked truncated) */

struct vt_pystack {
    struct vt_pyloc *frames[VT_PY_MAX]; /* innermost first */
    int count;
    int truncated; /* more Python frames lay beyond the last one */
    /* The calls of the evaluation loop from C that the frames belong to,
     * innermost first: how many of the frames each holds (0: none of its
     * frames was recorded). They add up to count. */
    unsigned short entry_frames[VT_PY_MAX];
    int entries;
    /* What vt_pystack_capture saw of the chain, for the script end in the
     * same event: the thread state (NULL: none read) and the outermost
     * frame not a shim (NULL: none; outermost_read 0: the chain was not
     * walked to its end). */
    const char *tstate, *outermost;
    int outermost_read;
};

/* Fills STACK; count 0 when this thread has no Python frames (or the
 * interpreter is unknown, starting up or finalizing). */
void vt_pystack_capture(struct vt_pystack *stack);

/* Whether the script ended (its main module returned, raised or called
 * sys.exit: before threading's shutdown and the atexit handlers run), or
 * the interpreter began to finalize (or finished) after it was seen
 * running, in a program that is the interpreter (python itself; never in a
 * program embedding Python). Plain loads of the interpreter's state and of
 * the main thread's frames: see pystack.c. CAPTURED: this event's capture
 * of the calling thread's frames, or NULL: what it read (the interpreter
 * running, the chain walked) is not read again. */
int vt_python_script_ended(const struct vt_pystack *captured);

/* In a forked child: no thread of it is looking for the interpreter. */
void vt_pystack_after_fork(void);

#endif
