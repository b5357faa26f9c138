/* SPDX-License-Identifier: MIT */
/* Which dumps `vramtrace watch` can follow: a running process's own dump
 * (by pid), and the dumps of the traced processes that run now. */
#ifndef VT_WATCH_FIND_H
#define VT_WATCH_FIND_H

#include <stdio.h>
#include <sys/types.h>

/* The dump process PID is writing now, into *PATH (free it). Returns 0, or
 * -1 after one line on stderr saying where it looked. */
int vt_watch_find_pid(pid_t pid, char **path);

/* Lists on OUT the dumps in the working directory and in VRAMTRACE_OUTPUT's
 * directory whose writer runs now. Returns how many (0: one line on
 * stderr saying where it looked). */
size_t vt_watch_list(FILE *out);

#endif
