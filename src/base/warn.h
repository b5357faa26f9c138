/* SPDX-License-Identifier: MIT */
/* The tracer's one way to say something: "vramtrace: ..." on stderr, and
 * only on the stderr the process started with. */
#ifndef VRAMTRACE_WARN_H
#define VRAMTRACE_WARN_H

#include <stddef.h>

/* Prints "vramtrace: ..." on stderr without stdio (safe in any context);
 * errno is left as it was. */
void vt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* While the process starts: which file descriptor 2 is. Nothing is ever
 * written to a descriptor 2 that is not that file any more (closed, or a
 * file of the program's that took the number). */
void vt_stderr_start(void);

/* Writes TEXT there, if descriptor 2 is still that file, with SIGPIPE
 * blocked (and taken back if this write raised it). Async-signal-safe;
 * errno is left as it was. */
void vt_stderr_write(const char *text, size_t len);

#endif
