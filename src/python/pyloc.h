/* SPDX-License-Identifier: MIT */
/* Python source locations (function, file, line), each kept once for the
 * life of the process in memory of our own: stacks refer to them by
 * address, so nothing of the interpreter's has to stay alive for them. */
#ifndef VRAMTRACE_PYLOC_H
#define VRAMTRACE_PYLOC_H

#include <stddef.h>
#include <stdint.h>

struct vt_pyloc {
    const char *function; /* UTF-8, NUL-terminated, shared with equal names */
    const char *file;
    int line; /* -1: the line table has none for the instruction */
    /* Its PYFRAME id in the dump being written (stacks.c, tracer lock held). */
    uint32_t id;
    unsigned generation;
};

/* The one location with these contents, made the first time; NULL when out
 * of memory. Any thread, no lock of the caller's held. */
struct vt_pyloc *vt_pyloc_intern(const char *function, size_t function_len, const char *file,
                                 size_t file_len, int line);

/* In a forked child: the table's lock is free again. */
void vt_pyloc_after_fork(void);

#endif
