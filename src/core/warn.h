/* SPDX-License-Identifier: MIT */
/* The tracer's one way to say something: "vramtrace: ..." on stderr. */
#ifndef VRAMTRACE_WARN_H
#define VRAMTRACE_WARN_H

/* Prints "vramtrace: ..." on stderr without stdio (safe in any context);
 * errno is left as it was. */
void vt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
