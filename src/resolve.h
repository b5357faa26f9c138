/* Finding the real functions behind the ones we export. */
#ifndef VRAMTRACE_RESOLVE_H
#define VRAMTRACE_RESOLVE_H

#include <stdint.h>

typedef void *(*vt_dlsym_fn)(void *handle, const char *name);
typedef void *(*vt_dlvsym_fn)(void *handle, const char *name, const char *version);

/* glibc's own dlsym / dlvsym (read from libc's symbol table: calling
 * dlsym by name would reach our interposer). */
vt_dlsym_fn vt_real_dlsym(void);
vt_dlvsym_fn vt_real_dlvsym(void);

/* The definition of NAME that ours hides: the next one after the tracer in
 * the global scope, else one in any loaded object (a CUDA library loaded
 * with RTLD_LOCAL, where RTLD_NEXT does not look). NULL if none. */
void *vt_find_real(const char *name);

/* A driver function we do not hook but call ourselves (cuCtxGetDevice...). */
void *vt_driver_function(const char *name);

/* vt_driver_function(NAME), remembered in *SLOT once found; any thread may
 * call it at any time (the slot is read and published atomically). */
void *vt_driver_function_cached(void **slot, const char *name);

/* 1 when P lies inside libvramtrace.so itself. */
int vt_is_own_address(const void *p);



/* The definition of NAME that CALLER (a return address) would reach if we
 * were not there: the one in its own dependencies, so that a process with
 * several CUDA runtimes (a framework's bundled one, a private copy) sends
 * each call to the runtime its caller was linked with. Cached per object. */
struct vt_caller_cache {
    struct {
        uintptr_t start, end; /* the calling object's address range */
        void *real;
    } entries[8];
    unsigned used;
};
void *vt_real_for_caller(const char *name, const void *caller, struct vt_caller_cache *cache);
#endif
