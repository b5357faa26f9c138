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

/* Remembers LOC for KEY on this thread (silently not, when out of memory). */
void vt_pycode_remember(const struct vt_pycode_key *key, struct vt_pyloc *loc);

#endif
