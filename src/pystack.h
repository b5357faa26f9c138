/* Python frames of the calling thread, when it holds the GIL: function,
 * file and line of each, read through the CPython C API found in the process
 * at run time (nothing links libpython; processes without Python pay one
 * failed lookup per change of the loaded modules). */
#ifndef VRAMTRACE_PYSTACK_H
#define VRAMTRACE_PYSTACK_H

#define VT_PY_MAX 128

struct vt_pyframe {
    const char *function; /* UTF-8 owned by the interpreter: valid while we hold the GIL */
    const char *file;
    int line;
    int pinned;           /* the strings live as long as the process: their addresses
                           * identify them (pycode_cache.h) */
};

struct vt_pystack {
    struct vt_pyframe frames[VT_PY_MAX];
    int count;
};

/* Fills STACK innermost first; count 0 when this thread is not running
 * Python. Never takes the GIL, never runs Python code, never raises. */
void vt_pystack_capture(struct vt_pystack *stack);

#endif
