#include "pystack.h"

#include "pycode_cache.h"
#include "resolve.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <time.h>

typedef void PyObject;

/* The C API we use, resolved from whatever the process loaded: a shared
 * libpython, or an interpreter linked into the executable. */
static struct {
    int (*is_initialized)(void);
    int (*gil_check)(void);
    PyObject *(*get_frame)(void);                /* borrowed */
    PyObject *(*frame_code)(PyObject *);         /* 3.9+, new reference */
    PyObject *(*frame_back)(PyObject *);         /* 3.9+, new reference */
    int (*frame_line)(PyObject *);
    int (*frame_lasti)(PyObject *);              /* 3.11+: with it, locations are cached */
    void (*incref)(PyObject *);
    PyObject *(*get_attr)(PyObject *, PyObject *);
    PyObject *(*intern)(const char *);
    const char *(*as_utf8)(PyObject *);
    long (*as_long)(PyObject *);
    void (*decref)(PyObject *);
    void (*err_fetch)(PyObject **, PyObject **, PyObject **);
    void (*err_restore)(PyObject *, PyObject *, PyObject *);
} py;

static struct {
    PyObject *qualname, *name, *filename, *code, *back, *lineno; /* interned attribute names */
    int looked_up;
    unsigned long long modules_seen;
} state;

static int count_modules(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long long *)data = info->dlpi_adds;
    return 1;
}

/* Looks the API up again only when modules were loaded since the last try.
 * One thread at a time (lookup_lock held). */
static int look_up_api(void)
{
    unsigned long long adds = 0;
    vt_dlsym_fn lookup;
    if (py.gil_check)
        return 1;
    dl_iterate_phdr(count_modules, &adds);
    if (state.looked_up && adds == state.modules_seen)
        return 0;
    state.looked_up = 1;
    state.modules_seen = adds;
    lookup = vt_real_dlsym();
    if (!lookup)
        return 0;
#define FIND(field, symbol) *(void **)&py.field = lookup(RTLD_DEFAULT, symbol)
    FIND(is_initialized, "Py_IsInitialized");
    FIND(get_frame, "PyEval_GetFrame");
    FIND(frame_code, "PyFrame_GetCode");
    FIND(frame_back, "PyFrame_GetBack");
    FIND(frame_line, "PyFrame_GetLineNumber");
    FIND(frame_lasti, "PyFrame_GetLasti");
    FIND(incref, "Py_IncRef");
    FIND(get_attr, "PyObject_GetAttr");
    FIND(intern, "PyUnicode_InternFromString");
    FIND(as_utf8, "PyUnicode_AsUTF8");
    FIND(as_long, "PyLong_AsLong");
    FIND(decref, "Py_DecRef");
    FIND(err_fetch, "PyErr_Fetch");
    FIND(err_restore, "PyErr_Restore");
    if (py.is_initialized && py.get_frame && py.get_attr && py.intern && py.as_utf8 &&
        py.as_long && py.decref && py.err_fetch && py.err_restore)
        __atomic_store_n((void **)&py.gil_check, lookup(RTLD_DEFAULT, "PyGILState_Check"),
                         __ATOMIC_RELEASE); /* set last: it means "ready" */
#undef FIND
    return py.gil_check != NULL;
}

/* Without Python in the process, looking again costs a lock and a walk of
 * the loaded modules: done at most once per tick of the coarse clock (a few
 * ms; an interpreter loaded later needs longer than that to initialize
 * before any Python code can allocate). */
static int time_to_look_again(void)
{
    static long last_tick = -1;
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC_COARSE, &now) != 0)
        return 1;
    long tick = now.tv_sec * 1000000000L + now.tv_nsec;
    if (__atomic_load_n(&last_tick, __ATOMIC_RELAXED) == tick)
        return 0;
    __atomic_store_n(&last_tick, tick, __ATOMIC_RELAXED);
    return 1;
}

/* Threads race here on their first allocations: one looks the API up, the
 * others go on without Python frames rather than wait (never block in a
 * hook: a forked child may inherit the lock held). */
static int api_present(void)
{
    static pthread_mutex_t lookup_lock = PTHREAD_MUTEX_INITIALIZER;
    int ready;
    if (__atomic_load_n((void **)&py.gil_check, __ATOMIC_ACQUIRE))
        return 1;
    if (!time_to_look_again() || pthread_mutex_trylock(&lookup_lock) != 0)
        return 0;
    ready = look_up_api();
    pthread_mutex_unlock(&lookup_lock);
    return ready;
}

/* The attribute names, made once (we hold the GIL when this runs). */
static int names_ready(void)
{
    if (state.filename)
        return 1;
    state.qualname = py.intern("co_qualname");
    state.name = py.intern("co_name");
    state.code = py.intern("f_code");
    state.back = py.intern("f_back");
    state.lineno = py.intern("f_lineno");
    state.filename = py.intern("co_filename");
    return state.filename && state.name && state.code && state.back && state.lineno;
}

static PyObject *attribute(PyObject *object, PyObject *name)
{
    return object && name ? py.get_attr(object, name) : NULL;
}

static const char *text_of(PyObject *object, PyObject **keep)
{
    *keep = object;
    return object ? py.as_utf8(object) : NULL;
}

/* Function, file and line of FRAME running CODE, from the interpreter. */
static void read_location(PyObject *frame, PyObject *code, struct vt_pyframe *out)
{
    PyObject *function, *file;
    out->line = -1;
    out->pinned = 0;
    if (py.frame_line) {
        out->line = py.frame_line(frame);
    } else {
        PyObject *line = attribute(frame, state.lineno);
        if (line) {
            out->line = (int)py.as_long(line);
            py.decref(line);
        }
    }
    PyObject *qualified = attribute(code, state.qualname);
    out->function = text_of(qualified ? qualified : attribute(code, state.name), &function);
    out->file = text_of(attribute(code, state.filename), &file);
    /* The strings stay alive with the code object, which the frame keeps. */
    if (function)
        py.decref(function);
    if (file)
        py.decref(file);
}

/* Reads one frame into OUT, through the cache when CACHED; returns the next
 * frame (a new reference). */
static PyObject *read_frame(PyObject *frame, struct vt_pyframe *out, int cached)
{
    PyObject *code = py.frame_code ? py.frame_code(frame) : attribute(frame, state.code);
    int lasti = cached ? py.frame_lasti(frame) : -1;
    if (!cached || !vt_pycode_find(code, lasti, out)) {
        read_location(frame, code, out);
        if (cached && code && out->function && out->file) {
            py.incref(code); /* the cache's reference: keeps the strings alive */
            out->pinned = vt_pycode_remember(code, lasti, out) == 0;
            if (!out->pinned)
                py.decref(code);
        }
    }
    if (code)
        py.decref(code);
    return py.frame_back ? py.frame_back(frame) : attribute(frame, state.back);
}

void vt_pystack_capture(struct vt_pystack *stack)
{
    PyObject *type, *value, *traceback, *frame, *owned = NULL;
    stack->count = 0;
    if (!api_present() || !py.is_initialized() || !py.gil_check())
        return;
    py.err_fetch(&type, &value, &traceback); /* never disturb a pending exception */
    if (names_ready()) {
        int cached = py.frame_lasti && py.frame_code && py.incref && vt_pycode_cache_take();
        for (frame = py.get_frame(); frame && stack->count < VT_PY_MAX;) {
            struct vt_pyframe *out = &stack->frames[stack->count];
            PyObject *next = read_frame(frame, out, cached);
            if (out->function && out->file)
                stack->count++;
            if (owned)
                py.decref(owned);
            owned = frame = next;
        }
        if (owned)
            py.decref(owned);
        if (cached)
            vt_pycode_cache_give();
    }
    py.err_restore(type, value, traceback);
}
