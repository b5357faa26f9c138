/* SPDX-License-Identifier: MIT */
/* CPython 3.14 and later run a script sent to them at their next safe
 * point (sys.remote_exec, PEP 768): no thread stopped at an arbitrary
 * instruction. The script loads libvramtrace.so with ctypes and calls one
 * of its entry points. */
#ifndef VT_ATTACH_PYTHON_REMOTE_H
#define VT_ATTACH_PYTHON_REMOTE_H

#include <stddef.h>
#include <sys/types.h>

/* Calls FUNCTION(ARG) (ARG NULL: no argument) of LIBRARY inside PID, an
 * interpreter that takes remote scripts: 0 with its int result in *RESULT;
 * 1 when PID is no such interpreter or refuses remote scripts (nothing
 * done: use ptrace); -1 with WHY when the script did not run in time (it
 * never will) or failed. */
int vt_python_remote_call(pid_t pid, const char *library, const char *function, const char *arg,
                          int *result, char *why, size_t size);

#endif
