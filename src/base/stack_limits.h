/* SPDX-License-Identifier: MIT */
/* How deep a native stack the tracer keeps. */
#ifndef VRAMTRACE_STACK_LIMITS_H
#define VRAMTRACE_STACK_LIMITS_H

/* Native frames kept per stack: VRAMTRACE_MAX_FRAMES, VT_STACK_MIN to
 * VT_STACK_MAX, VT_STACK_DEFAULT without it. A deeper stack keeps its
 * innermost frames and its outermost few (main, the interpreter's entry),
 * and says how many it dropped in between. */
#define VT_STACK_MAX 1024
#define VT_STACK_MIN 16
#define VT_STACK_DEFAULT 512

#endif
