/* SPDX-License-Identifier: MIT */
/* How the process that wrote a dump ended, or that it has not: from the
 * footer, or, without one, from whether the writer still runs (its pid,
 * start time and boot id in the dump, checked against /proc). What
 * `report`, `check`, `run` and `watch` tell apart. */
#ifndef VT_ENDING_H
#define VT_ENDING_H

#include <stdbool.h>

#include "dump_reader.h"

enum vt_writer_state {
    VT_WRITER_ALIVE,   /* the very process runs (same boot, pid, start time, program) */
    VT_WRITER_GONE,    /* it ended, or this machine booted since */
    VT_WRITER_UNKNOWN, /* another host, or a dump without the writer's identity */
};

/* Whether the process P (a dump's PROCESS record) still runs here. */
enum vt_writer_state vt_writer_state(const struct vt_process *p);

enum vt_ending_reason {
    VT_ENDING_EXIT,            /* exit(), return from main */
    VT_ENDING_SIGNAL,          /* killed by a signal (the tracer's footer) */
    VT_ENDING_EXEC,            /* replaced by exec */
    VT_ENDING_UNDERSCORE_EXIT, /* _exit / _Exit */
    VT_ENDING_RUNNING,         /* no footer: the writer still runs */
    VT_ENDING_UNKNOWN,         /* no footer, writer gone (SIGKILL...) or not known */
    VT_ENDING_STOPPED,         /* tracing stopped early (disk full...); the process ran on */
    VT_ENDING_EMPTY,           /* no record: the process ended before its first one */
    VT_ENDING_DETACHED,        /* vramtrace detach: tracing stopped, the process ran on */
};

struct vt_ending {
    enum vt_ending_reason reason;
    int signal; /* VT_ENDING_SIGNAL */
    int status; /* VT_ENDING_UNDERSCORE_EXIT: _exit's argument; STOPPED: enum vt_stop_cause */
    unsigned reopened;           /* times the program took the dump's descriptor and the
                        * tracer went on in the file, found again by its path */
    enum vt_writer_state writer; /* without a footer: whether the writer runs */
    /* without a footer: the wait status `vramtrace run` reaped the writer
     * with (waited), which says how it ended where the dump cannot */
    bool waited;
    int wait_status;
};

/* A process `vramtrace run` reaped: its pid, start time (/proc's field 22,
 * as the dump's PROCESS record holds it) and wait status. */
struct vt_wait {
    long long pid;
    unsigned long long start_ticks;
    int status;
};

struct vt_waits {
    struct vt_wait *list;
    size_t n;
};

/* The start time of the process PID (a zombie's too), into *TICKS; false
 * when there is no such process. */
bool vt_proc_start_ticks(long long pid, unsigned long long *ticks);

struct vt_ending vt_dump_ending(const struct vt_dump *dump);
/* DUMP's ending, told by WAITS (or NULL) where the dump has no footer and
 * its writer was reaped there. */
struct vt_ending vt_dump_ending_waited(const struct vt_dump *dump, const struct vt_waits *waits);

/* "exit", "signal", "exec", "_exit", "running", "unknown", "stopped",
 * "empty" (the JSON's). */
const char *vt_ending_name(enum vt_ending_reason reason);

/* The process ended on its own (exit, _exit, exec): what it still held
 * then is leaked. Otherwise (a signal, still running, no footer) it is
 * only live at that moment. */
bool vt_ending_judges_leaks(const struct vt_ending *e);

/* One sentence for the report, without the "vramtrace: " prefix, e.g.
 * "crashed with SIGSEGV: what was still allocated is listed as live at the
 * crash, not as leaked". NULL for a plain exit. */
const char *vt_ending_sentence(const struct vt_ending *e, char *buf, size_t size);

/* Where the program took the dump's descriptor and tracing went on in the
 * file found again by its path, one sentence saying so (without the
 * "vramtrace: " prefix); NULL otherwise. */
const char *vt_ending_reopened_sentence(const struct vt_ending *e, char *buf, size_t size);

/* "disk_full", "dump_lost", "size_limit", "write_error" for a STOPPED
 * ending (the JSON's), NULL for any other. */
const char *vt_ending_stop_cause_name(const struct vt_ending *e);

/* A signal one process sends another to end it (TERM, INT, HUP, KILL...),
 * as opposed to a crash (SEGV, ABRT...). */
bool vt_signal_is_termination(int sig);

/* "SIGSEGV" or "signal 40"; BUF holds 16. */
const char *vt_signal_name(int sig, char *buf);

#endif
