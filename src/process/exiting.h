/* SPDX-License-Identifier: MIT */
/* Whether the process is on its way out, running exit handlers. */
#ifndef VRAMTRACE_EXITING_H
#define VRAMTRACE_EXITING_H

/* 1 when the calling thread is inside exit() (an atexit handler or a
 * destructor run by it): the CUDA runtime releases its primary contexts
 * there, which destroys what they hold, but that memory was never given
 * back by the program: it is still a leak. Walks the stack: rare calls only. */
int vt_process_exiting(void);

#endif
