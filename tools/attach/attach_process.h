/* SPDX-License-Identifier: MIT */
/* vramtrace attach and detach: the checks that leave a process untouched
 * when it cannot be attached, and the calls made inside it
 * (libvramtrace.so loaded with dlopen, then its vramtrace_attach_start or
 * vramtrace_attach_stop). */
#ifndef VT_ATTACH_PROCESS_H
#define VT_ATTACH_PROCESS_H

#include <stddef.h>
#include <sys/types.h>

/* Loads LIBRARY into PID and starts tracing into DUMP (absolute paths):
 * through CPython's remote execution where PID is CPython 3.14 or later
 * (*BY_PYTHON set), else ptrace. 0, or -1 with a one-line reason in WHY
 * (nothing changed in PID). */
int vt_attach_process(pid_t pid, const char *library, const char *dump, int *by_python, char *why,
                      size_t size);

/* Stops the tracing that vt_attach_process began; 0 or -1 with WHY. */
int vt_detach_process(pid_t pid, char *why, size_t size);

#endif
