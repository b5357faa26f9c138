/* SPDX-License-Identifier: MIT */
/* Markers without code changes: a signal (SIGUSR2 by default) writes a MARK. */
#ifndef VRAMTRACE_MARK_SIGNAL_H
#define VRAMTRACE_MARK_SIGNAL_H

/* Installs the handler for the signal VRAMTRACE_MARK_SIGNAL names (a number
 * or a name such as USR1 / SIGUSR1; 0 or off: none; default SIGUSR2), unless
 * the signal is already handled (said once on stderr) or ignored. Called when
 * the process first uses CUDA (a lookup hands out a wrapper, or the first
 * event): a process that never does keeps every signal's default action.
 * Only the first call does anything. */
void vt_mark_signal_install(void);

/* With the tracer lock held and the dump open: writes the marks whose
 * signal arrived while the lock was busy. */
void vt_mark_signal_flush(void);

/* vramtrace detach: the signal does what the program had it do before
 * (where the handler is still ours), and a later attach installs it again. */
void vt_mark_signal_give_back(void);

#endif
