/* SPDX-License-Identifier: MIT */
/* Calling a function inside another process (x86_64): one of its threads
 * is stopped (PTRACE_SEIZE, PTRACE_INTERRUPT) where it waits in a system
 * call, made to call the function on its own stack with its general
 * registers only (no extended state is read or written), and put back. The
 * other threads run on. */
#ifndef VT_ATTACH_INJECT_H
#define VT_ATTACH_INJECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct vt_injection;

/* Stops a thread of PID that can safely run a call (blocked in a system
 * call, outside the dynamic linker and the memory allocator's own
 * syscalls); NULL with a one-line reason in WHY otherwise. */
struct vt_injection *vt_inject_open(pid_t pid, char *why, size_t size);

/* FUNCTION(TEXT, ARG) in the stopped thread (TEXT copied onto its stack;
 * NULL: 0 passed); its return value in *RESULT. 0, or -1 with WHY. */
int vt_inject_call(struct vt_injection *in, uint64_t function, const char *text, uint64_t arg,
                   uint64_t *result, char *why, size_t size);

/* The thread's registers put back, the thread let go (it goes on waiting
 * where it was, its system call restarted as after any signal). */
void vt_inject_close(struct vt_injection *in);

#endif
