/* SPDX-License-Identifier: MIT */
/* Finding the real functions behind the ones we export. */
#ifndef VRAMTRACE_RESOLVE_H
#define VRAMTRACE_RESOLVE_H

#include "caller_cache.h"

#include <stdint.h>

typedef void *(*vt_dlsym_fn)(void *handle, const char *name);
typedef void *(*vt_dlvsym_fn)(void *handle, const char *name, const char *version);
typedef int (*vt_dlclose_fn)(void *handle);

/* glibc's own dlsym / dlvsym (read from libc's symbol table: calling
 * dlsym by name would reach our interposer). */
vt_dlsym_fn vt_real_dlsym(void);
vt_dlvsym_fn vt_real_dlvsym(void);
vt_dlclose_fn vt_real_dlclose(void);

/* The definition of NAME that ours hides: the next one after the tracer in
 * the global scope, else one in any loaded object (a CUDA library loaded
 * with RTLD_LOCAL, where RTLD_NEXT does not look). NULL if none. */
void *vt_find_real(const char *name);

/* Only the first part of that: the next definition after us in the global
 * scope (glibc's RTLD_NEXT from here), NULL if none. */
void *vt_next_definition(const char *name);

struct link_map;
/* libvramtrace.so's own link_map (NULL if the loader does not say). */
struct link_map *vt_own_map(void);

/* 1 when P lies inside libvramtrace.so itself. */
int vt_is_own_address(const void *p);

/* The definition of NAME that CALLER (a return address) would reach if we
 * were not there, resolved once per calling object:
 * - a caller that defines NAME itself is another wrapper of NAME, which
 *   reached us through its own lookup of "the next one": it gets the next
 *   definition after it (never itself, never one before it: no loops in
 *   chains of wrappers, ahead of or behind us);
 * - any other caller gets what its binding would have found: the global
 *   scope after us, then its own dependencies (a library loaded with
 *   RTLD_LOCAL), of the symbol version it requires, so that a process with
 *   several CUDA runtimes sends each call to its caller's. */
void *vt_real_for_caller(const char *name, const void *caller, struct vt_caller_cache *cache);
/* The same, CACHE looked in first without a call (every runtime call). */
static inline void *vt_real_for_caller_cached(const char *name, const void *caller,
                                              struct vt_caller_cache *cache)
{
    void *real;
    return vt_caller_cache_find(cache, caller, &real) ? real
                                                      : vt_real_for_caller(name, caller, cache);
}

/* For the driver hooks, which are also handed out as pointers (by lookups
 * we answer with a wrapper): the next definition for a CALLER that wraps
 * NAME itself; else VT_BY_NAME for a caller that imports NAME (bound to us
 * by name), VT_BY_POINTER for one that got our wrapper as a pointer. */
#define VT_BY_NAME ((void *)1)
#define VT_BY_POINTER ((void *)2)
void *vt_wrapped_real(const char *name, const void *caller, struct vt_caller_cache *cache);

/* CALLER asked dlsym(RTLD_NEXT, NAME) and was given ours: it chains to us, and
 * its calls go on to the next definition after it. Noted in CACHE. */
void vt_note_chained(const char *name, const void *caller, struct vt_caller_cache *cache);

/* 1 when P lies in an object loaded before us (the program, or a library
 * preloaded ahead of us). */
int vt_loaded_before_us(const void *p);

/* We were loaded into a running process (vramtrace attach): every object
 * was loaded before us, none of them ahead of us as a preloaded wrapper
 * would be, so vt_loaded_before_us is 0 from now on. */
void vt_resolve_loaded_late(void);
#endif
