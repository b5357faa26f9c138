/* SPDX-License-Identifier: MIT */
/* The frames of addresses symbolized before, kept on disk by the module's
 * build id: a second report of the same binaries reads no symbol table.
 * One file per build id in the cache directory (VRAMTRACE_SYMBOL_CACHE, else
 * $XDG_CACHE_HOME/vramtrace/symbols, else ~/.cache/vramtrace/symbols), of
 * at most VT_SYMBOL_CACHE_FILE_MAX bytes; the directory's files at most
 * VT_SYMBOL_CACHE_MAX bytes together, the least recently used removed
 * first. A file is replaced whole (written aside, then renamed), checked
 * whole when read (a checksum, the CLI's build, the module's build id and
 * debug information's source): one that fails is ignored, never an error. */
#ifndef VT_SYMBOL_CACHE_H
#define VT_SYMBOL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VT_SYMBOL_CACHE_MAX (64u << 20)
#define VT_SYMBOL_CACHE_FILE_MAX (4u << 20)

struct vt_symbol_cache;

/* What a symbolized frame (symbolize.h) holds of the module's file. */
struct vt_cached_frame {
    const char *function, *file; /* or NULL */
    unsigned line;
    bool inlined;
};

/* The cache of the module whose build id is ID (LEN bytes) and whose
 * debug information's source is DEBUG_SOURCE (debug_source.h): what an
 * earlier report left, or empty. NULL when the cache is off
 * (VRAMTRACE_SYMBOL_CACHE=0, no directory) or LEN is 0. */
struct vt_symbol_cache *vt_symbol_cache_open(const unsigned char *id, size_t len,
                                             const char *debug_source);

/* The frames cached for OFFSET (the address minus the module's bias): how
 * many (0: none), *FRAMES, owned by the cache. */
size_t vt_symbol_cache_find(struct vt_symbol_cache *c, uint64_t offset,
                            const struct vt_cached_frame **frames);

/* N frames symbolized for OFFSET, to keep: FRAMES (malloc'd) is the
 * cache's now; its strings must live until the cache is closed. */
void vt_symbol_cache_add(struct vt_symbol_cache *c, uint64_t offset, struct vt_cached_frame *frames,
                         size_t n);

/* Writes what was added, with what was read, then frees C. */
void vt_symbol_cache_close(struct vt_symbol_cache *c);

#endif
