/* SPDX-License-Identifier: MIT */
/* Facts of this process from /proc/self, for the dump's PROCESS record and
 * for telling whether an existing dump's writer still runs. */
#ifndef VRAMTRACE_PROC_SELF_H
#define VRAMTRACE_PROC_SELF_H

#include <stddef.h>
#include <stdint.h>

/* Reads a small /proc file whole into OUT (at most SIZE bytes): its length. */
size_t vt_proc_read(const char *path, char *out, size_t size);

/* When this process started (field 22 of /proc/self/stat), as PROCESS records it. */
uint64_t vt_proc_start_ticks(void);

#endif
