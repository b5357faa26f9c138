/* SPDX-License-Identifier: MIT */
/* The end of a dump: its footer (END) however the process ends (exit,
 * fatal signal, _exit, exec), written once. */
#ifndef VRAMTRACE_FINISH_H
#define VRAMTRACE_FINISH_H

/* From a signal handler about to let SIG end the process: writes the END
 * record (VT_END_SIGNAL, SIG) and closes the dump, unless the lock stays
 * held (waits at most ~100 ms, never when this thread holds it). */
void vt_finish_from_signal(int sig);

/* The same for _exit(STATUS) (VT_END_UNDERSCORE_EXIT). Async-signal-safe. */
void vt_finish_underscore_exit(int status);

/* Around exec: vt_exec_begin writes END (VT_END_EXEC) and returns 1 with
 * the lock held (0: nothing to do, e.g. in a vfork child); if exec then
 * fails, vt_exec_failed erases that END and tracing goes on. */
int vt_exec_begin(void);
void vt_exec_failed(void);

/* vramtrace detach: END (VT_END_DETACHED) while the process runs on;
 * calls pass through after it. */
void vt_finish_detached(void);

/* Normal exit, once every destructor is done (VT_END_EXIT). */
void vt_finish_at_exit(void);

#endif
