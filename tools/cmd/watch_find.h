/* SPDX-License-Identifier: MIT */
/* Which dumps `vramtrace watch` can follow: a running process's own dump
 * (by pid), and the dumps of the traced processes that run now. */
#ifndef VT_WATCH_FIND_H
#define VT_WATCH_FIND_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* The dump process PID is writing now into (*PATHS)[0], *N = 1; when PID
 * writes none itself (the `vramtrace run` wrapper, a shell script), those
 * its descendants write, nearest first (ALL: every one, else the first),
 * after one line on stderr naming the first. Free each and the array.
 * Returns 0, or -1 after one line on stderr saying where it looked. */
int vt_watch_find_pid(pid_t pid, bool all, char ***paths, size_t *n);

/* Lists on OUT the dumps in the working directory and in VRAMTRACE_OUTPUT's
 * directory whose writer runs now. Returns how many (0: one line on
 * stderr saying where it looked). */
size_t vt_watch_list(FILE *out);

#endif
