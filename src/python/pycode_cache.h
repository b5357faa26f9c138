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

#include "pyload.h"
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

/* One remembered location. Its table is the calling thread's own (NULL
 * until it remembers one), direct-mapped by vt_pycode_slot_of: an empty
 * slot's code is 0, never a code object's. CHECKED: the walk (a number of
 * the thread's, never 0) that last found its code object the same. */
struct vt_pycode_slot {
    struct vt_pycode_key key;
    struct vt_pyloc *loc;
    uint64_t checked;
};

#define VT_PYCODE_SLOT_BITS 10

extern __thread struct vt_pycode_slot *vt_pycode_slots __attribute__((tls_model("initial-exec")));

/* Fibonacci hashing: the product's top bits depend on every bit below. */
static inline unsigned vt_pycode_slot_of(uintptr_t code, long offset)
{
    uint64_t h = ((uint64_t)code ^ (uint64_t)offset << 40) * 0x9E3779B97F4A7C15u;
    return (unsigned)(h >> (64 - VT_PYCODE_SLOT_BITS));
}

/* Where the fields a remembered entry is checked against lie, read from
 * the layout once for all the frames of a stack. */
struct vt_pycode_fields {
    long name, file, table, firstlineno, str_hash, bytes_size;
};

/* Whether the live CODE is still the object KEY was made of: the same
 * name, file and line table objects (each checked too: one freed and
 * another made at its address), first line. Plain loads (pyload.h); the
 * objects' own fields read through KEY's addresses once found equal to
 * CODE's (fewer registers held). */
static inline int vt_pycode_still_same(const char *code, const struct vt_pycode_key *key,
                                       const struct vt_pycode_fields *at)
{
    return (uintptr_t)vt_load_ptr(code, at->name) == key->name &&
           (uintptr_t)vt_load_ptr(code, at->file) == key->file &&
           (uintptr_t)vt_load_ptr(code, at->table) == key->table &&
           vt_load_int(code, at->firstlineno) == key->firstlineno &&
           vt_load_long((const char *)key->name, at->str_hash) == key->name_hash &&
           vt_load_long((const char *)key->file, at->str_hash) == key->file_hash &&
           vt_load_long((const char *)key->table, at->bytes_size) == key->table_len;
}

/* The slot of TABLE (vt_pycode_slots, not NULL) that remembers the live
 * CODE at OFFSET, checked against it (its loc then not NULL); NULL when
 * none. Inline: the walk looks up each frame as it reads it. */
static inline const struct vt_pycode_slot *vt_pycode_hit(const struct vt_pycode_slot *table,
                                                         const char *code, long offset,
                                                         const struct vt_pycode_fields *at)
{
    const struct vt_pycode_slot *s = &table[vt_pycode_slot_of((uintptr_t)code, offset)];
    if (s->key.code != (uintptr_t)code || s->key.offset != offset ||
        !vt_pycode_still_same(code, &s->key, at))
        return NULL;
    return s;
}

/* vt_pycode_hit for the walk numbered WALK (not 0) of the calling
 * thread's own frames: a slot this walk found the same already is not
 * checked again. Its code object is that of a frame of the chain, which
 * holds it alive while the thread waits in the tracer, so the same address
 * is the same object: a recursive function, or the same call made at each
 * level of nesting (PyTorch's Module._call_impl), is checked once. */
static inline const struct vt_pycode_slot *vt_pycode_hit_in_walk(struct vt_pycode_slot *table,
                                                                 const char *code, long offset,
                                                                 const struct vt_pycode_fields *at,
                                                                 uint64_t walk)
{
    struct vt_pycode_slot *s = &table[vt_pycode_slot_of((uintptr_t)code, offset)];
    if (s->key.code != (uintptr_t)code || s->key.offset != offset)
        return NULL;
    if (s->checked != walk) {
        if (!vt_pycode_still_same(code, &s->key, at))
            return NULL;
        s->checked = walk;
    }
    return s;
}

/* The fields of the running interpreter's layout that entries are checked
 * against. */
static inline void vt_pycode_fields_of(struct vt_pycode_fields *at)
{
    const struct vt_pylayout *L = &vt_py.layout;
    at->name = vt_py.code_function;
    at->file = L->code_filename;
    at->table = L->code_linetable;
    at->firstlineno = L->code_firstlineno;
    at->str_hash = L->str_hash;
    at->bytes_size = L->bytes_size;
}

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
