/* SPDX-License-Identifier: MIT */
/* Signals the tracer handles where the program leaves the default action,
 * invisibly to the program (dispositions.c). */
#ifndef VRAMTRACE_DISPOSITIONS_H
#define VRAMTRACE_DISPOSITIONS_H

#include <signal.h>

/* 1 when NAME is one of the libc calls exported here (sigaction, signal,
 * bsd_signal, sysv_signal, sigset): vramtrace attach binds them to ours. */
int vt_dispositions_exports(const char *name);

/* Finds the real sigaction and signal; once, while the tracer starts. */
void vt_dispositions_init(void);

/* In a forked child (not a vfork child): its dispositions are its parent's
 * copy, ours among them. */
void vt_dispositions_after_fork(void);

/* HANDLER becomes SIG's while the program leaves it the default action,
 * now and whenever it sets the default again; *FOUND is what it has there
 * now. 1 when HANDLER is installed now. */
int vt_dispositions_take(int sig, void (*handler)(int), struct sigaction *found);

/* From the tracer's handler of SIG: the program's own default action back
 * (a signal raised now ends the process as it would untraced). */
void vt_dispositions_give_back(int sig);

/* vramtrace detach: where HANDLER is still what SIG does, SIG does exactly
 * what the program had there (handler, flags, mask); where the program set
 * its own meanwhile, that stays. Not taken again until the next
 * vt_dispositions_take. */
void vt_dispositions_release(int sig, void (*handler)(int));

#endif
