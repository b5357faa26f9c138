/* SPDX-License-Identifier: MIT */
/* The names of the threads that allocate (pthread_setname_np, as PyTorch's
 * autograd workers and data loaders name theirs): each thread's name is
 * written once per dump, before its first event. */
#ifndef VRAMTRACE_THREAD_NAMES_H
#define VRAMTRACE_THREAD_NAMES_H

/* Lock held, dump open: writes the calling thread's THREAD record if this
 * dump has none yet. 0, or -1 when the dump could not be written. */
int vt_thread_name_note(void);

/* A new dump starts (forked child): every thread's name is written again. */
void vt_thread_names_reset(void);

#endif
