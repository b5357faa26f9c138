/* SPDX-License-Identifier: MIT */
/* Python source locations remembered per thread by (code object address,
 * instruction offset), so that a frame seen before costs a few loads instead
 * of decoding strings and a line table. No reference is held: each hit is
 * checked against the live code object (its name, file and line table
 * objects, first line, and the strings' hashes), so that a code object
 * freed and replaced by another at the same address is noticed. The cache is
 * the calling thread's own: no lock, no atomics. */
#ifndef VRAMTRACE_PYCODE_CACHE_H
#define VRAMTRACE_PYCODE_CACHE_H

#include "pyloc.h"

#include <stdint.h>

/* What identifies a code object and instruction, read from the live object. */
struct vt_pycode_key {
    uintptr_t code;
    long offset;
    uintptr_t name, file, table; /* the objects' addresses */
    int64_t name_hash, file_hash;
    long table_len;
    int firstlineno;
};

/* The location remembered for KEY on this thread, or NULL. */
struct vt_pyloc *vt_pycode_find(const struct vt_pycode_key *key);

/* The key of CODE, a code object the calling thread's own frame runs (kept
 * alive by it: its name and file are str, its line table bytes, as the
 * interpreter checks when it makes one), at OFFSET. */
void vt_pycode_live_key(const char *code, long offset, struct vt_pycode_key *key);

/* vt_pycode_find of each vt_pycode_live_key(CODE[i], OFFSET[i]) into
 * LOC[i] (N of them), reading of the live objects only what a remembered
 * entry for the same code object and offset is checked against; how many
 * were not found. */
int vt_pycode_find_live(const char *const *code, const long *offset, int n, struct vt_pyloc **loc);

/* Remembers LOC (not NULL) for KEY on this thread (silently not, when out
 * of memory). */
void vt_pycode_remember(const struct vt_pycode_key *key, struct vt_pyloc *loc);

#endif
