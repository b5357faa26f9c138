/* SPDX-License-Identifier: MIT */
/* Footers for the endings that bypass exit(): _exit, exec, a signal sent to
 * oneself (see endings.c). */
#ifndef VRAMTRACE_ENDINGS_H
#define VRAMTRACE_ENDINGS_H

/* Finds the real exec functions; once, while the tracer starts. */
void vt_endings_init(void);

/* 1 when NAME is one of the calls exported here (_exit, _Exit, the exec
 * family): vramtrace attach binds them to ours, so that an attached process
 * that leaves through one still gets its footer. */
int vt_endings_exports(const char *name);

#endif
