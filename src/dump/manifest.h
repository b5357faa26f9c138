/* SPDX-License-Identifier: MIT */
/* The run's manifest: `vramtrace run` names a file in VRAMTRACE_MANIFEST,
 * and every traced process of its tree appends the absolute path of each
 * dump it creates, so that run reports exactly the files written (never a
 * guessed name, never a stale file). */
#ifndef VRAMTRACE_MANIFEST_H
#define VRAMTRACE_MANIFEST_H

/* Appends PATH (made absolute, NUL-terminated) in one write: appends of
 * several processes never interleave. Without VRAMTRACE_MANIFEST, nothing. */
void vt_manifest_add(const char *path);

#endif
