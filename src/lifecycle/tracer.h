/* SPDX-License-Identifier: MIT */
/* The tracer's start: lazily, once (a hook may run before our constructor),
 * and again in a forked child, which writes its own dump. The entry points
 * (hooks, public API) ask here; nothing below them does. */
#ifndef VRAMTRACE_TRACER_H
#define VRAMTRACE_TRACER_H

#include "tracing.h"

/* 1 while allocations are being traced in this process (starts the
 * tracer on first use). */
int vt_tracing(void);

/* Starts a traced operation on this thread: 1 (guard taken, call vt_leave)
 * when this call should be recorded, 0 when it must pass straight through. */
int vt_enter(void);

#endif
