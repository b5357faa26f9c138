/* SPDX-License-Identifier: MIT */
/* Fatal signals: the dump gets its END record (reason VT_END_SIGNAL) before
 * the process dies, so the report can say how it ended. */
#ifndef VRAMTRACE_CRASH_H
#define VRAMTRACE_CRASH_H

/* Installs the handler for SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT,
 * SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGXCPU, SIGXFSZ and SIGALRM where the
 * program leaves the default action, invisibly (dispositions.h: its
 * handlers stay in charge). Called once the dump exists. */
void vt_crash_install(void);

/* vramtrace detach: each of those signals does exactly what the program had
 * it do (where ours is still there); the next dump installs them again. */
void vt_crash_give_back(void);

#endif
