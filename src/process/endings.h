/* SPDX-License-Identifier: MIT */
/* Footers for the endings that bypass exit(): _exit, exec, a signal sent to
 * oneself (see endings.c). */
#ifndef VRAMTRACE_ENDINGS_H
#define VRAMTRACE_ENDINGS_H

/* Finds the real exec functions; once, while the tracer starts. */
void vt_endings_init(void);

#endif
