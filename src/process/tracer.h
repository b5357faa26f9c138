/* SPDX-License-Identifier: MIT */
/* The tracer's start: lazily, once (a hook may run before our constructor),
 * and again in a forked child, which writes its own dump. The entry points
 * (hooks, public API) ask here; nothing below them does. */
#ifndef VRAMTRACE_TRACER_H
#define VRAMTRACE_TRACER_H

#include "tracing.h"

/* Starts the tracer if nothing has yet; 1 when it traces this process. */
int vt_tracer_start(void);

/* After a dump was finished while the process runs on (vramtrace detach),
 * or could not be written (an attach into a folder it may not write):
 * tracing starts again, into a new dump, with nothing of the last one's
 * tables. 1 when restarted. */
int vt_tracer_restart(void);

/* 1 while allocations are being traced in this process (starts the
 * tracer on first use). Inline, as are the guard's: every hook asks. */
static inline int vt_tracing(void)
{
    enum vt_tracing_state state = vt_tracing_get();
    if (state == VT_TRACING_UNINIT)
        return vt_tracer_start();
    return state == VT_TRACING_READY;
}

/* Starts a traced operation on this thread: 1 (guard taken, call vt_leave)
 * when this call should be recorded, 0 when it must pass straight through. */
static inline int vt_enter(void)
{
    if (vt_thread_state.busy || !vt_tracing())
        return 0;
    vt_thread_state.busy = 1;
    return 1;
}

#endif
