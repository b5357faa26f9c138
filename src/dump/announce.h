/* SPDX-License-Identifier: MIT */
/* Where the dump went: one line on stderr when the process ends, naming its
 * dump and the command that reads it (as heaptrack and LeakSanitizer do).
 * Not under `vramtrace run` (VRAMTRACE_MANIFEST: run names the dumps itself)
 * and not with VRAMTRACE_QUIET=1. */
#ifndef VRAMTRACE_ANNOUNCE_H
#define VRAMTRACE_ANNOUNCE_H

/* The dump PATH was created by this process: the line is made now (the
 * working directory may change before the end). */
void vt_announce_opened(const char *path);
/* Writes the line, once, in the process that created the dump, where
 * vt_stderr_write (warn.h) lets it. Only async-signal-safe calls. */
void vt_announce_ending(void);

/* vramtrace attach said where the dump goes: the process, which never asked
 * for a tracer, gets no line at its end. */
void vt_announce_silence(void);

#endif
