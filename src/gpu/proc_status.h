/* SPDX-License-Identifier: MIT */
/* What /proc says about a process: state, parent, process group, how long
 * it has run. Shared by the tracer (the other processes at an out-of-memory
 * error) and `vramtrace gpus`. Each read may find the process gone. */
#ifndef VRAMTRACE_PROC_STATUS_H
#define VRAMTRACE_PROC_STATUS_H

#include <stdint.h>

struct vt_proc_status {
    int pid;
    char state; /* /proc/PID/stat: R S D T t Z X I ... */
    int ppid, pgid, sid;
    uint64_t start_ticks; /* since boot, in clock ticks */
    char comm[64];
    unsigned uid;
    int threads;
};

/* 0, or -1 when /proc shows no such process (gone, or in another pid
 * namespace). */
int vt_proc_status_read(int pid, struct vt_proc_status *out);

/* Orphaned: its parent is gone, so init (pid 1) or a subreaper adopted it:
 * its parent is pid 1, or its process group's leader is gone and its parent
 * is not of its session. A job's leftover workers look so. */
int vt_proc_orphaned(const struct vt_proc_status *s);

/* The state as a word: "running", "sleeping" (idle kernel threads and the
 * rarer states too), "uninterruptible", "stopped" (by a signal or a
 * debugger), "zombie" (dead ones too). */
const char *vt_proc_state_name(char state);

/* Seconds since the process started (-1 when unknown). */
double vt_proc_run_seconds(const struct vt_proc_status *s);

#endif
