/* SPDX-License-Identifier: MIT */
#include "pybehalf.h"

#include "pycode_cache.h"
#include "pyinterp.h"
#include "pyline.h"
#include "pypeek.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#define AUTOGRAD_THREAD "pt_autograd_" /* PyTorch's names of its device threads */
#define MAX_THREADS 4096               /* thread states looked at, at most */
#define MAX_STEPS (8 * VT_PY_MAX)      /* frames walked, skipped ones included */
#define COPY_BYTES 512                 /* the most of a structure copied */
#define TABLE_BYTES_MAX (1L << 20)     /* a longer line table is not read */
#define NAME_CHARS 32                  /* the longest function name looked for */

enum { THREAD_UNKNOWN, THREAD_AUTOGRAD, THREAD_OTHER };
static __thread int thread_kind __attribute__((tls_model("initial-exec")));

/* Whether this thread is one of PyTorch's autograd device threads, which
 * name themselves when they start (the name is read once per thread). */
static int autograd_thread(void)
{
    if (thread_kind == THREAD_UNKNOWN) {
        char name[17] = "";
        int named = prctl(PR_GET_NAME, name) == 0 &&
                    strncmp(name, AUTOGRAD_THREAD, sizeof AUTOGRAD_THREAD - 1) == 0;
        thread_kind = named ? THREAD_AUTOGRAD : THREAD_OTHER;
    }
    return thread_kind == THREAD_AUTOGRAD;
}

/* ---- copies of the interpreter's structures ---- */

struct copy {
    const char *at; /* where the structure lies */
    char bytes[COPY_BYTES];
};

struct field {
    long offset, width; /* offset -1: absent */
};

/* The bytes a copy needs to hold the N fields. */
static long extent(const struct field *fields, size_t n)
{
    long end = 0;
    for (size_t i = 0; i < n; i++)
        if (fields[i].offset >= 0 && fields[i].offset + fields[i].width > end)
            end = fields[i].offset + fields[i].width;
    return end;
}

static long thread_bytes(const struct vt_pylayout *L)
{
    const struct field f[] = {
        {L->ts_next, 8}, {L->ts_interp, 8}, {L->ts_thread_id, 8}, {L->ts_frame, 8}};
    return extent(f, sizeof f / sizeof f[0]);
}

static long frame_bytes(const struct vt_pylayout *L)
{
    const struct field f[] = {
        {L->frame_code, 8}, {L->frame_back, 8}, {L->frame_instr, 8}, {L->frame_owner, 1}};
    return extent(f, sizeof f / sizeof f[0]);
}

static long code_bytes(const struct vt_pylayout *L)
{
    const struct field f[] = {{L->ob_type, 8},          {L->var_size, 8},
                              {L->code_filename, 8},    {L->code_name, 8},
                              {L->code_qualname, 8},    {L->code_linetable, 8},
                              {L->code_firstlineno, 4}, {L->code_firsttraceable, 4}};
    return extent(f, sizeof f / sizeof f[0]);
}

static int take(const char *at, long size, struct copy *c)
{
    c->at = at;
    return at && size <= COPY_BYTES && vt_peek(at, c->bytes, (size_t)size) == 0 ? 0 : -1;
}

static const char *ptr_at(const struct copy *c, long offset)
{
    const char *p;
    memcpy(&p, c->bytes + offset, sizeof p);
    return p;
}

static long long_at(const struct copy *c, long offset)
{
    long v;
    memcpy(&v, c->bytes + offset, sizeof v);
    return v;
}

static int int_at(const struct copy *c, long offset)
{
    int v;
    memcpy(&v, c->bytes + offset, sizeof v);
    return v;
}

static const char *peek_ptr(const char *at)
{
    const char *p;
    return at && vt_peek(at, &p, sizeof p) == 0 ? p : NULL;
}

/* ---- frames ---- */

struct frame {
    struct copy self;
    struct copy code; /* its code object, when it runs Python code */
    const char *back;
    long offset; /* of its current instruction in the code, in bytes */
    int python;  /* a frame of running Python code */
};

/* The innermost frame of the thread state copied in TS (NULL: none). */
static const char *innermost(const struct copy *ts)
{
    const struct vt_pylayout *L = &vt_py.layout;
    const char *frame = ptr_at(ts, L->ts_frame);
    if (frame && L->cframe_current >= 0)
        frame = peek_ptr(frame + L->cframe_current);
    return frame;
}

static long instruction_offset(const struct frame *f)
{
    const struct vt_pylayout *L = &vt_py.layout;
    switch (L->instr) {
    case VT_PY_LASTI_BYTES:
        return int_at(&f->self, L->frame_instr);
    case VT_PY_LASTI_UNITS:
        return 2L * int_at(&f->self, L->frame_instr);
    case VT_PY_INSTR_POINTER:
        return ptr_at(&f->self, L->frame_instr) - (f->code.at + L->code_bytecode);
    }
    return -1;
}

/* Copies the frame at AT; -1 when it cannot be read. F->python tells a
 * frame of running Python code (not a shim of the C stack, not one whose
 * code has not started), as pystack.c's walk tells them. */
static int read_frame(const char *at, struct frame *f)
{
    const struct vt_pylayout *L = &vt_py.layout;
    f->python = 0;
    if (take(at, frame_bytes(L), &f->self) < 0)
        return -1;
    f->back = ptr_at(&f->self, L->frame_back);
    int owner = L->frame_owner >= 0 ? (unsigned char)f->self.bytes[L->frame_owner] : 0;
    if (L->owner_cstack >= 0 && owner >= L->owner_cstack)
        return 0;
    uintptr_t ref = (uintptr_t)ptr_at(&f->self, L->frame_code);
    if (L->executable_tagged) {
        if ((ref & 3) == 3) /* a tagged integer, not an object */
            return 0;
        ref &= ~(uintptr_t)3;
    }
    if (take((const char *)ref, code_bytes(L), &f->code) < 0 ||
        ptr_at(&f->code, L->ob_type) != vt_py.code_type)
        return 0;
    f->offset = instruction_offset(f);
    if (L->code_firsttraceable >= 0) {
        long units = long_at(&f->code, L->var_size);
        if (f->offset < 0 || f->offset > 2 * units)
            return 0;
        if (owner != L->owner_generator &&
            f->offset < 2L * int_at(&f->code, L->code_firsttraceable))
            return 0; /* incomplete */
    }
    f->python = 1;
    return 0;
}

/* ---- strings ---- */

/* Copies the header of the str at AT into HEAD; -1 when it is none. */
static int take_str(const char *at, struct copy *head)
{
    return take(at, vt_py.layout.str_ascii_size, head) == 0 &&
                   ptr_at(head, vt_py.layout.ob_type) == vt_py.unicode_type
               ? 0
               : -1;
}

/* CHARS characters of the str copied in HEAD, from character FIRST on, as
 * UTF-8 into OUT (VT_PY_TEXT_BYTES); the length written, or -1. */
static long peek_text(const struct copy *head, long first, long chars, char *out)
{
    struct vt_pytext_shape shape;
    unsigned char data[4 * VT_PY_TEXT_CHARS];
    if (vt_pytext_shape(head->bytes, &shape) < 0 || first < 0 || chars > VT_PY_TEXT_CHARS)
        return -1;
    shape.length = chars;
    if (vt_peek(head->at + shape.offset + first * (long)shape.kind, data,
                (size_t)chars * shape.kind) < 0)
        return -1;
    return vt_pytext_utf8(&shape, data, out);
}

/* The text of the str at AT when it is at most NAME_CHARS characters long,
 * into OUT; its length, or -1. */
static long short_text(const char *at, char *out)
{
    struct copy head;
    if (take_str(at, &head) < 0)
        return -1;
    long length = long_at(&head, vt_py.layout.str_length);
    return length <= NAME_CHARS ? peek_text(&head, 0, length, out) : -1;
}

/* Whether the str at AT ends with SUFFIX (ASCII). */
static int ends_with(const char *at, const char *suffix)
{
    struct copy head;
    char text[VT_PY_TEXT_BYTES];
    long n = (long)strlen(suffix);
    if (take_str(at, &head) < 0)
        return 0;
    long length = long_at(&head, vt_py.layout.str_length);
    return length >= n && peek_text(&head, length - n, n, text) == n &&
           memcmp(text, suffix, (size_t)n) == 0;
}

/* Whether CODE is torch's entry into the autograd engine: where the thread
 * that called backward() or grad() waits while the engine runs
 * (_engine_run_backward since torch 2.3, backward and grad before). */
static int is_backward_entry(const struct copy *code)
{
    const struct vt_pylayout *L = &vt_py.layout;
    char name[VT_PY_TEXT_BYTES];
    long n = short_text(ptr_at(code, L->code_name), name);
    const char *file = ptr_at(code, L->code_filename);
    if (n == 20 && memcmp(name, "_engine_run_backward", 20) == 0)
        return ends_with(file, "/torch/autograd/graph.py");
    if ((n == 8 && memcmp(name, "backward", 8) == 0) || (n == 4 && memcmp(name, "grad", 4) == 0))
        return ends_with(file, "/torch/autograd/__init__.py");
    return 0;
}

/* ---- the thread that called backward() ---- */

struct caller {
    const char *tstate;
    struct frame entry; /* its innermost frame, as first read */
};

/* The one thread other than this one whose innermost frame is torch's
 * backward entry; -1 when there is none, or several, or the list of thread
 * states could not be read whole. */
static int find_caller(struct caller *out)
{
    const struct vt_pylayout *L = &vt_py.layout;
    const char *interp = vt_py.main_interpreter();
    const char *ts = interp ? peek_ptr(interp + L->interp_threads_head) : NULL;
    unsigned long self = (unsigned long)pthread_self();
    int found = 0;
    struct frame f;
    for (int n = 0; ts; n++) {
        struct copy state;
        if (n == MAX_THREADS || take(ts, thread_bytes(L), &state) < 0 ||
            ptr_at(&state, L->ts_interp) != interp)
            return -1; /* freed under us, or a list longer than we read */
        const char *frame = innermost(&state);
        if ((unsigned long)long_at(&state, L->ts_thread_id) != self && frame &&
            read_frame(frame, &f) == 0 && f.python && is_backward_entry(&f.code)) {
            if (found++)
                return -1;
            out->tstate = ts;
            out->entry = f;
        }
        ts = ptr_at(&state, L->ts_next);
    }
    return found ? 0 : -1;
}

/* The location of F's instruction: remembered on this thread by the code
 * object's address and validated as pystack.c does, decoded on a miss. */
static struct vt_pyloc *location(const struct frame *f)
{
    const struct vt_pylayout *L = &vt_py.layout;
    const struct copy *code = &f->code;
    struct copy name, file, table;
    if (take_str(ptr_at(code, L->code_qualname >= 0 ? L->code_qualname : L->code_name), &name) <
            0 ||
        take_str(ptr_at(code, L->code_filename), &file) < 0 ||
        take(ptr_at(code, L->code_linetable), L->bytes_data, &table) < 0 ||
        ptr_at(&table, L->ob_type) != vt_py.bytes_type)
        return NULL;
    struct vt_pycode_key key = {
        .code = (uintptr_t)code->at,
        .offset = f->offset,
        .name = (uintptr_t)name.at,
        .file = (uintptr_t)file.at,
        .table = (uintptr_t)table.at,
        .name_hash = long_at(&name, L->str_hash),
        .file_hash = long_at(&file, L->str_hash),
        .table_len = long_at(&table, L->bytes_size),
        .firstlineno = int_at(code, L->code_firstlineno),
    };
    struct vt_pyloc *loc = vt_pycode_find(&key);
    if (loc || key.table_len < 0 || key.table_len > TABLE_BYTES_MAX)
        return loc;
    char function[VT_PY_TEXT_BYTES], path[VT_PY_TEXT_BYTES];
    long function_len = peek_text(&name, 0, long_at(&name, L->str_length), function);
    long path_len = peek_text(&file, 0, long_at(&file, L->str_length), path);
    uint8_t *lines = malloc(key.table_len ? (size_t)key.table_len : 1);
    if (function_len >= 0 && path_len >= 0 && lines &&
        vt_peek(table.at + L->bytes_data, lines, (size_t)key.table_len) == 0) {
        int line = vt_pyline(L->lines, lines, key.table_len, key.firstlineno, key.offset);
        loc = vt_pyloc_intern(function, (size_t)function_len, path, (size_t)path_len, line);
    }
    free(lines);
    if (loc)
        vt_pycode_remember(&key, loc);
    return loc;
}

/* The caller's frames, innermost first; count 0 when a frame could not be read. */
static void read_caller(const struct caller *c, struct vt_pystack *stack)
{
    const char *at = c->entry.self.at;
    struct frame f;
    for (int steps = 0; at && steps < MAX_STEPS; steps++, at = f.back) {
        if (read_frame(at, &f) < 0) {
            stack->count = 0;
            return;
        }
        if (!f.python)
            continue;
        if (stack->count == VT_PY_MAX) {
            stack->truncated = 1;
            return;
        }
        struct vt_pyloc *loc = location(&f);
        if (loc)
            stack->frames[stack->count++] = loc;
    }
}

/* Whether the caller still waits where it was found: the same innermost
 * frame, unchanged (its frames were not pushed or popped meanwhile). */
static int still_waiting(const struct caller *c)
{
    const struct vt_pylayout *L = &vt_py.layout;
    struct copy state, again;
    long size = frame_bytes(L);
    return take(c->tstate, thread_bytes(L), &state) == 0 && innermost(&state) == c->entry.self.at &&
           take(c->entry.self.at, size, &again) == 0 &&
           memcmp(again.bytes, c->entry.self.bytes, (size_t)size) == 0;
}

void vt_pybehalf_capture(struct vt_pystack *stack)
{
    stack->count = 0;
    stack->truncated = 0;
    stack->entries = 0;
    if (!autograd_thread() || !vt_python_ready())
        return;
    /* Free-threaded builds run copies of the bytecode per thread: not read. */
    if (vt_py.layout.interp_threads_head < 0 || vt_py.layout.free_threaded ||
        !vt_py.is_initialized() || vt_py.is_finalizing())
        return;
    struct caller c;
    if (find_caller(&c) < 0)
        return;
    read_caller(&c, stack);
    if (!still_waiting(&c)) {
        stack->count = 0;
        stack->truncated = 0;
    }
}
