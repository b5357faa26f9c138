/* SPDX-License-Identifier: MIT */
/* libunwind's memory checks without a descriptor (unwind_checks.c). */
#ifndef VRAMTRACE_UNWIND_CHECKS_H
#define VRAMTRACE_UNWIND_CHECKS_H

/* Before libunwind's first use: its own pipe, read, write, close and
 * syscall calls bound to ours, which open nothing and touch no descriptor
 * of the program. */
void vt_unwind_checks_quiet(void);

#endif
