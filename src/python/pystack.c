/* SPDX-License-Identifier: MIT */
#include "pystack.h"

#include "pycode_cache.h"
#include "pyinterp.h"
#include "pyload.h"
#include "pyline.h"
#include "resolve.h"
#include "tracing.h"
#include "warn.h"
#include "elf_symbol.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { PY_ABSENT, PY_READY, PY_UNUSABLE };

static int py_state = PY_ABSENT;
static unsigned long long modules_seen;

static void script_end_after_fork(void);

/* The shapes of frames the walk knows (pylayout.c's tables make each
 * version one of them): frame objects, each a call of the evaluation loop,
 * whose instruction is an int (3.8-3.10), or frames of 3.11+ with an
 * owner, a pointer to their instruction and code that starts at its first
 * traceable one, their entries from C told by a flag (3.11) or by shim
 * frames (3.12+). */
enum walk_shape {
    WALK_LASTI_BYTES,  /* 3.8, 3.9 */
    WALK_LASTI_UNITS,  /* 3.10 */
    WALK_ENTRY_FLAG,   /* 3.11 */
    WALK_SHIMS,        /* 3.12, 3.13 */
    WALK_SHIMS_TAGGED, /* 3.14: the code a tagged reference */
    WALK_SHIMS_TLBC,   /* 3.14t: and the bytecode a copy of the thread's */
};
static enum walk_shape walk_shape;

/* Each shape, for the switches that pick the walk inlined for it (a
 * shape left out of one is a -Wswitch warning there). */
#define EACH_WALK_SHAPE(X) \
    X(WALK_LASTI_BYTES)    \
    X(WALK_LASTI_UNITS)    \
    X(WALK_ENTRY_FLAG)     \
    X(WALK_SHIMS)          \
    X(WALK_SHIMS_TAGGED)   \
    X(WALK_SHIMS_TLBC)

/* Objects with the standard header (every build but the free-threaded
 * ones): where their type, size, a str's hash and a bytes' size lie, as
 * constants for the walk where walk_plain says the layout has them there
 * (fewer offsets to keep in registers). */
enum { PLAIN_OB_TYPE = 8, PLAIN_VAR_SIZE = 16, PLAIN_STR_HASH = 24, PLAIN_BYTES_SIZE = 16 };
static int walk_plain;

static int plain_header(const struct vt_pylayout *L)
{
    return L->ob_type == PLAIN_OB_TYPE && L->var_size == PLAIN_VAR_SIZE &&
           L->str_hash == PLAIN_STR_HASH && L->bytes_size == PLAIN_BYTES_SIZE;
}

/* 3.11's frames and code objects (pylayout.c's built-in layout): the
 * fields the walk of remembered locations reads, as constants for the walk
 * where walk_311 says the layout has them there. Each offset an immediate,
 * none kept in a register or loaded again: some 15 instructions fewer a
 * frame, where the pairs of a deep stack under 10 frames spend some 1,100
 * on the Python frames. */
static const struct vt_pylayout layout_311 = {
    .frame_code = 32,
    .frame_back = 48,
    .frame_instr = 56,
    .frame_owner = 69,
    .owner_generator = 1,
    .owner_cstack = -1,
    .frame_is_entry = 68,
    .code_filename = 112,
    .code_qualname = 128,
    .code_firstlineno = 72,
    .code_linetable = 136,
    .code_bytecode = 184,
    .code_firsttraceable = 168,
    .ob_type = PLAIN_OB_TYPE,
    .var_size = PLAIN_VAR_SIZE,
    .str_hash = PLAIN_STR_HASH,
    .bytes_size = PLAIN_BYTES_SIZE,
};
static int walk_311;

/* Whether the walk may read L's fields at layout_311's offsets (its
 * function name the qualname, as look_up picks it). */
static int fixed_311(const struct vt_pylayout *L, enum walk_shape shape, long code_function)
{
    const struct vt_pylayout *F = &layout_311;
    return shape == WALK_ENTRY_FLAG && plain_header(L) && L->frame_code == F->frame_code &&
           L->frame_back == F->frame_back && L->frame_instr == F->frame_instr &&
           L->frame_owner == F->frame_owner && L->owner_generator == F->owner_generator &&
           L->owner_cstack == F->owner_cstack && L->frame_is_entry == F->frame_is_entry &&
           L->code_filename == F->code_filename && code_function == F->code_qualname &&
           L->code_firstlineno == F->code_firstlineno && L->code_linetable == F->code_linetable &&
           L->code_bytecode == F->code_bytecode && L->code_firsttraceable == F->code_firsttraceable;
}

static enum walk_shape shape_of(const struct vt_pylayout *L)
{
    if (L->instr == VT_PY_LASTI_BYTES)
        return WALK_LASTI_BYTES;
    if (L->instr == VT_PY_LASTI_UNITS)
        return WALK_LASTI_UNITS;
    if (L->entry == VT_PY_ENTRY_FLAG)
        return WALK_ENTRY_FLAG;
    if (L->code_tlbc >= 0)
        return WALK_SHIMS_TLBC;
    return L->executable_tagged ? WALK_SHIMS_TAGGED : WALK_SHIMS;
}

/* How long a thread waits for another one looking for the interpreter. */
#define LOOKER_WAIT_NS 50000000L

static int count_modules(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long long *)data = info->dlpi_adds;
    return 1;
}

/* The running interpreter's 3.MINOR, or -1 when it is not 3.x. */
static int minor_version(vt_dlsym_fn lookup)
{
    const unsigned long *hex = lookup(RTLD_DEFAULT, "Py_Version"); /* 3.11+ */
    const char *(*text)(void) = (const char *(*)(void))lookup(RTLD_DEFAULT, "Py_GetVersion");
    int major = 0, minor = -1;
    if (hex)
        return *hex >> 24 == 3 ? (int)((*hex >> 16) & 0xff) : -1;
    if (text && sscanf(text(), "%d.%d", &major, &minor) == 2 && major == 3)
        return minor;
    return -1;
}

/* Fills vt_py.layout for 3.MINOR; NULL, or why it cannot be read. */
static const char *choose_layout(vt_dlsym_fn lookup, int minor)
{
    const char *why = NULL;
    /* Py_REF_DEBUG and Py_TRACE_REFS builds move every object's fields. */
    if (lookup(RTLD_DEFAULT, "_Py_NegativeRefcount") || lookup(RTLD_DEFAULT, "_Py_PrintReferences"))
        return "a debug build";
    if (minor >= 13) {
        if (vt_pylayout_from_debug_offsets(lookup(RTLD_DEFAULT, "_PyRuntime"), &vt_py.layout,
                                           &why) < 0)
            return why;
        return vt_py.layout.minor == minor ? NULL : "debug offsets of another version";
    }
    const struct vt_pylayout *builtin = vt_pylayout_builtin(minor);
    if (!builtin)
        return "no layout known for it";
    vt_py.layout = *builtin;
    return NULL;
}

/* Whether the executable is the interpreter's: it defines or imports
 * Py_BytesMain (python3 linked with libpython or statically). A program
 * that embeds Python calls Py_Initialize instead. */
static int program_is_python(void)
{
    const struct link_map *program = _r_debug.r_map;
    const char *version;
    return program && (vt_elf_imports(program, "Py_BytesMain", &version) ||
                       vt_elf_lookup_map(program, "Py_BytesMain", NULL));
}

/* Looks for an interpreter when modules were loaded since the last try.
 * One thread at a time (the looker). */
static int look_up(void)
{
    unsigned long long adds = 0;
    vt_dlsym_fn lookup = vt_real_dlsym();
    dl_iterate_phdr(count_modules, &adds);
    if (adds == modules_seen || !lookup)
        return PY_ABSENT;
    modules_seen = adds;
#define FIND(field, symbol) *(void **)&vt_py.field = lookup(RTLD_DEFAULT, symbol)
    FIND(is_initialized, "Py_IsInitialized");
    FIND(this_thread_state, "PyGILState_GetThisThreadState");
    FIND(current_thread_state, "_PyThreadState_UncheckedGet");
    FIND(main_interpreter, "PyInterpreterState_Main");
    FIND(is_finalizing, "Py_IsFinalizing"); /* 3.13+ */
    if (!vt_py.is_finalizing)
        FIND(is_finalizing, "_Py_IsFinalizing");
    FIND(code_type, "PyCode_Type");
    FIND(unicode_type, "PyUnicode_Type");
    FIND(bytes_type, "PyBytes_Type");
#undef FIND
    if (!vt_py.is_initialized || !vt_py.this_thread_state || !vt_py.is_finalizing ||
        !vt_py.code_type || !vt_py.unicode_type || !vt_py.bytes_type || !vt_py.main_interpreter)
        return PY_ABSENT;
    vt_py.is_main = program_is_python();
    int minor = minor_version(lookup);
    const char *why = minor < 0 ? "not Python 3" : choose_layout(lookup, minor);
    if (why) {
        vt_warn("Python 3.%d in this process (%s): stacks show native frames only", minor, why);
        return PY_UNUSABLE;
    }
    if (vt_py.layout.minor > 11)
        vt_py.current_thread_state = NULL; /* the gilstate follows the thread's current state */
    walk_shape = shape_of(&vt_py.layout);
    walk_plain = plain_header(&vt_py.layout);
    vt_py.code_function =
        vt_py.layout.code_qualname >= 0 ? vt_py.layout.code_qualname : vt_py.layout.code_name;
    walk_311 = fixed_311(&vt_py.layout, walk_shape, vt_py.code_function);
    return PY_READY;
}

/* Without Python in the process, looking again costs a walk of the loaded
 * modules: done at most once per tick of about 4 ms (an interpreter loaded
 * later needs longer than that to initialize before any Python code can
 * allocate), told by when the event began (vt_event_begin's clock read:
 * none of our own); an event that began in a tick already looked at, or
 * before it, does not look. */
static long last_look_tick = -1;

static long event_tick(void)
{
    return (long)(vt_thread_state.call_start_ns >> 22);
}

/* The thread looking for the interpreter now (0: none). */
static uintptr_t looker;

/* Another thread is looking: its answer comes within microseconds, so wait
 * for it (bounded) rather than record this allocation without its Python
 * frames (threads that start allocating together all come here at once). */
static int wait_for_looker(void)
{
    struct timespec start = {0, 0}, now;
    while (__atomic_load_n(&looker, __ATOMIC_ACQUIRE) != 0) {
        if (start.tv_sec == 0 && start.tv_nsec == 0)
            clock_gettime(CLOCK_MONOTONIC, &start);
        sched_yield();
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) >
            LOOKER_WAIT_NS)
            break;
    }
    return __atomic_load_n(&py_state, __ATOMIC_ACQUIRE) == PY_READY;
}

/* One thread looks at a time, without a lock (a lock held by a looker
 * would stay held in a forked child; vt_pystack_after_fork clears the
 * flag). The looker claims the flag before it stamps the tick, so a thread
 * that sees this tick's stamp also sees the looker or its answer. */
int vt_python_ready(void)
{
    int state = __atomic_load_n(&py_state, __ATOMIC_ACQUIRE);
    if (state != PY_ABSENT)
        return state == PY_READY;
    long tick = event_tick();
    if (tick <= __atomic_load_n(&last_look_tick, __ATOMIC_ACQUIRE) &&
        __atomic_load_n(&looker, __ATOMIC_ACQUIRE) == 0) /* looked at: its answer */
        return __atomic_load_n(&py_state, __ATOMIC_ACQUIRE) == PY_READY;
    uintptr_t self = (uintptr_t)pthread_self(), other = __atomic_load_n(&looker, __ATOMIC_ACQUIRE);
    if (other == self)
        return 0; /* a hook inside the look itself */
    if (other != 0 || tick <= __atomic_load_n(&last_look_tick, __ATOMIC_ACQUIRE))
        return wait_for_looker();
    if (!__atomic_compare_exchange_n(&looker, &other, self, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return wait_for_looker();
    __atomic_store_n(&last_look_tick, tick, __ATOMIC_RELEASE);
    if (__atomic_load_n(&py_state, __ATOMIC_ACQUIRE) == PY_ABSENT) {
        state = look_up();
        if (state != PY_ABSENT)
            __atomic_store_n(&py_state, state, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&looker, 0, __ATOMIC_RELEASE);
    return __atomic_load_n(&py_state, __ATOMIC_ACQUIRE) == PY_READY;
}

void vt_pystack_after_fork(void)
{
    __atomic_store_n(&looker, 0, __ATOMIC_RELAXED);
    script_end_after_fork();
}

/* ---- reading the interpreter's memory (plain loads, no calls) ---- */

static inline int is_a(const char *object, const void *type)
{
    return vt_py_is_a(object, type);
}

static inline int load_owner_at(const struct vt_pylayout *L, const char *frame)
{
    return *(const unsigned char *)(frame + L->frame_owner);
}

static inline int load_owner(const char *frame)
{
    return load_owner_at(&vt_py.layout, frame);
}

/* This thread's Python thread state. Up to 3.11 the gilstate stays with the
 * thread's first state, so a thread holding the GIL in a subinterpreter is
 * told by the current one (whose thread id is ours). */
static inline const char *this_thread(void)
{
    if (vt_py.current_thread_state) {
        const char *current = vt_py.current_thread_state();
        if (current && (unsigned long)vt_load_long(current, vt_py.layout.ts_thread_id) ==
                           (unsigned long)pthread_self())
            return current;
    }
    return vt_py.this_thread_state();
}

static const char *innermost_frame(const char *tstate)
{
    const char *frame = vt_load_ptr(tstate, vt_py.layout.ts_frame);
    if (frame && vt_py.layout.cframe_current >= 0)
        frame = vt_load_ptr(frame, vt_py.layout.cframe_current);
    return frame;
}

/* The bytecode FRAME runs in a free-threaded 3.14+: the copy of its
 * thread (entry 0 of the copies is CODE's own). */
static const char *bytecode_of(const char *frame, const char *code)
{
    const struct vt_pylayout *L = &vt_py.layout;
    int index = vt_load_int(frame, L->frame_tlbc_index);
    const char *copies = vt_load_ptr(code, L->code_tlbc);
    if (index > 0 && copies && index < vt_load_long(copies, 0))
        return vt_load_ptr(copies, 8 + 8L * index);
    return code + L->code_bytecode;
}

/* The code FRAME runs, or NULL; 3.14+ keeps it as a tagged reference. */
static inline const char *executable_of(const char *frame)
{
    uintptr_t ref = (uintptr_t)vt_load_ptr(frame, vt_py.layout.frame_code);
    if (vt_py.layout.executable_tagged) {
        if ((ref & 3) == 3) /* a tagged integer, not an object */
            return NULL;
        ref &= ~(uintptr_t)3;
    }
    return (const char *)ref;
}

/* A shim frame that the evaluation loop put below the frame it was called
 * with (3.12+): owned by the C stack, it ends an interpreter entry. */
static inline int is_shim(const char *frame)
{
    return vt_py.layout.owner_cstack >= 0 && load_owner(frame) >= vt_py.layout.owner_cstack;
}

/* The code object that OUTER, the outermost frame not a shim (NULL: none),
 * runs; NULL when none (the outermost frame of an entry from C is a
 * complete one). */
static inline const char *outermost_code_of(const char *outer)
{
    const char *code = outer ? executable_of(outer) : NULL;
    return is_a(code, vt_py.code_type) ? code : NULL;
}

/* ---- the walk, one per shape of frame (the shape's checks folded) ----
 *
 * The frames are read first, their locations looked up after: the loop
 * over the chain calls nothing, so what it reads of the layout stays in
 * registers. */

#define MAX_STEPS (8 * VT_PY_MAX)

/* What a walk found: the Python frames' code objects and instructions,
 * innermost first, and after how many of them each entry from C ended. */
struct found {
    const char *code[VT_PY_MAX];
    long offset[VT_PY_MAX];
    int count, truncated;
    unsigned short entry_ends[VT_PY_MAX]; /* the frames of any more go to the last one */
    int entries;
    const char *outermost; /* the outermost frame not a shim, read when whole */
    int whole;             /* the chain was walked to its end */
};

/* Byte offset of FRAME's current instruction in CODE (L: the layout, or
 * layout_311). */
static inline __attribute__((always_inline)) long instruction_offset(const struct vt_pylayout *L,
                                                                     const char *frame,
                                                                     const char *code,
                                                                     enum walk_shape shape)
{
    switch (shape) {
    case WALK_LASTI_BYTES:
        return vt_load_int(frame, L->frame_instr);
    case WALK_LASTI_UNITS:
        return 2L * vt_load_int(frame, L->frame_instr);
    case WALK_SHIMS_TLBC:
        return vt_load_ptr(frame, L->frame_instr) - bytecode_of(frame, code);
    case WALK_ENTRY_FLAG:
    case WALK_SHIMS:
    case WALK_SHIMS_TAGGED:
        break;
    }
    return vt_load_ptr(frame, L->frame_instr) - (code + L->code_bytecode);
}

static inline __attribute__((always_inline)) int shims(enum walk_shape shape)
{
    return shape == WALK_SHIMS || shape == WALK_SHIMS_TAGGED || shape == WALK_SHIMS_TLBC;
}

/* A frame of running Python code (not a shim or entry frame owned by the C
 * stack, not one whose code has not started yet): its code object, and its
 * instruction's offset into *OFFSET. L: the layout, or layout_311; PLAIN:
 * walk_plain. BOUNDED: an offset past the code's end is no frame's; the
 * walk of remembered locations leaves that out: only offsets inside their
 * code are remembered, so such a frame is not found there, and a code
 * object found the same as a remembered one has its size. */
static inline __attribute__((always_inline)) const char *
code_of_python_frame(const struct vt_pylayout *L, const char *frame, long *offset,
                     enum walk_shape shape, int plain, int bounded)
{
    const char *code = shape == WALK_SHIMS_TAGGED || shape == WALK_SHIMS_TLBC
                           ? executable_of(frame)
                           : vt_load_ptr(frame, L->frame_code);
    if (!code || vt_load_ptr(code, plain ? PLAIN_OB_TYPE : L->ob_type) != vt_py.code_type)
        return NULL;
    *offset = instruction_offset(L, frame, code, shape);
    if (shape == WALK_LASTI_BYTES || shape == WALK_LASTI_UNITS)
        return code;
    if (bounded && *offset > 2 * vt_load_long(code, plain ? PLAIN_VAR_SIZE : L->var_size))
        return NULL;
    if (*offset < 2L * vt_load_int(code, L->code_firsttraceable) &&
        load_owner_at(L, frame) != L->owner_generator)
        return NULL; /* incomplete */
    return code;
}

static inline __attribute__((always_inline)) void walk_as(const char *frame, struct found *f,
                                                          enum walk_shape shape)
{
    const struct vt_pylayout *L = &vt_py.layout;
    int steps = 0;
    for (; frame && steps < MAX_STEPS; frame = vt_load_ptr(frame, L->frame_back), steps++) {
        int shim = shims(shape) && load_owner(frame) >= L->owner_cstack;
        long offset;
        const char *code = shim ? NULL : code_of_python_frame(L, frame, &offset, shape, 0, 1);
        if (code && f->count == VT_PY_MAX) {
            f->truncated = 1;
            return;
        }
        if (code) {
            f->code[f->count] = code;
            f->offset[f->count++] = offset;
        }
        if (!shim)
            f->outermost = frame;
        int ends = shape == WALK_ENTRY_FLAG
                       ? *(const unsigned char *)(frame + L->frame_is_entry) != 0
                       : shim || !shims(shape); /* 3.8-3.10: every frame object is an entry */
        if (ends && f->entries < VT_PY_MAX)
            f->entry_ends[f->entries++] = (unsigned short)f->count;
    }
    f->whole = frame == NULL;
}

/* Bounded also through skipped frames: a chain is never walked forever. */
static void walk(const char *innermost, struct found *f)
{
    f->count = f->truncated = f->entries = f->whole = 0;
    f->outermost = NULL;
    switch (walk_shape) {
#define WALK_AS(shape)                \
    case shape:                       \
        walk_as(innermost, f, shape); \
        break;
        EACH_WALK_SHAPE(WALK_AS)
#undef WALK_AS
    }
}

/* ---- the walk where every frame's location is remembered ----
 *
 * The usual case: each Python frame's location is looked up in the
 * thread's table (and checked against the live code object) as the frame
 * is read, straight into the stack, with no second pass. The first frame
 * not found there gives up: the walk above and record() then do it all
 * again, decoding what is missing. */

/* What the walk keeps besides the frames: the entries so far, and how many
 * frames those before the current one hold. */
struct filling {
    int count, entries, first;
};

/* Closes the current entry (an entry from C ended after frame COUNT):
 * record()'s entries, which stop at VT_PY_MAX (later frames go to the
 * last one). */
static inline __attribute__((always_inline)) void end_entry(struct vt_pystack *stack,
                                                            struct filling *at)
{
    if (at->entries < VT_PY_MAX) {
        stack->entry_frames[at->entries++] = (unsigned short)(at->count - at->first);
        at->first = at->count;
    }
}

/* The frames after the last entry's end, as record() counts them: an entry
 * of their own when there are any, added to the last when all are used. */
static inline __attribute__((always_inline)) void end_walk(struct vt_pystack *stack,
                                                           struct filling *at)
{
    int rest = at->count - at->first;
    if (rest == 0)
        return;
    if (at->entries < VT_PY_MAX)
        stack->entry_frames[at->entries++] = (unsigned short)rest;
    else
        stack->entry_frames[VT_PY_MAX - 1] += (unsigned short)rest;
}

/* walk_as and record() in one pass, for a stack whose every location TABLE
 * remembers: 1 when STACK is filled (count, entries, truncated, outermost
 * and outermost_read), 0 at the first frame it does not (STACK then holds
 * nothing of use). L: the layout, or layout_311 (PLAIN then too); PLAIN:
 * walk_plain. */
static inline __attribute__((always_inline)) int
walk_remembered_as(const struct vt_pylayout *L, const char *frame, struct vt_pystack *stack,
                   struct vt_pycode_slot *table, uint64_t walk, enum walk_shape shape, int plain)
{
    struct vt_pycode_fields fields;
    struct filling at = {0, 0, 0};
    const char *outermost = NULL;
    int steps = 0, truncated = 0;
    vt_pycode_fields_of(&fields);
    if (L == &layout_311) {
        fields.name = layout_311.code_qualname;
        fields.file = layout_311.code_filename;
        fields.table = layout_311.code_linetable;
        fields.firstlineno = layout_311.code_firstlineno;
    }
    if (plain) {
        fields.str_hash = PLAIN_STR_HASH;
        fields.bytes_size = PLAIN_BYTES_SIZE;
    }
    for (; frame && steps < MAX_STEPS; frame = vt_load_ptr(frame, L->frame_back), steps++) {
        int shim = shims(shape) && load_owner_at(L, frame) >= L->owner_cstack;
        long offset;
        const char *code = shim ? NULL : code_of_python_frame(L, frame, &offset, shape, plain, 0);
        if (code) {
            if (at.count == VT_PY_MAX) {
                truncated = 1;
                break;
            }
            const struct vt_pycode_slot *hit =
                vt_pycode_hit_in_walk(table, code, offset, &fields, walk);
            if (!hit)
                return 0;
            stack->frames[at.count++] = hit->loc;
        }
        if (!shim)
            outermost = frame;
        int ends = shape == WALK_ENTRY_FLAG
                       ? *(const unsigned char *)(frame + L->frame_is_entry) != 0
                       : shim || !shims(shape); /* 3.8-3.10: every frame object is an entry */
        if (ends)
            end_entry(stack, &at);
    }
    end_walk(stack, &at);
    stack->count = at.count;
    stack->entries = at.entries;
    stack->truncated = truncated;
    stack->outermost = outermost;
    stack->outermost_read = frame == NULL;
    return 1;
}

/* walk_remembered_as for the interpreter's shape of frame. */
static inline __attribute__((always_inline)) int
walk_remembered_shaped(const char *innermost, struct vt_pystack *stack,
                       struct vt_pycode_slot *table, uint64_t walk, int plain)
{
    switch (walk_shape) {
#define REMEMBERED_AS(shape) \
    case shape:              \
        return walk_remembered_as(&vt_py.layout, innermost, stack, table, walk, shape, plain);
        EACH_WALK_SHAPE(REMEMBERED_AS)
#undef REMEMBERED_AS
    }
    return 0;
}

/* The walks of remembered locations this thread made (64 bits: never back
 * to a number a slot still holds). */
static __thread uint64_t walks __attribute__((tls_model("initial-exec")));

/* walk_remembered_as for the interpreter's shape of frame and header; 0
 * also when this thread remembers no location yet. */
static inline __attribute__((always_inline)) int walk_remembered(const char *innermost,
                                                                 struct vt_pystack *stack)
{
    struct vt_pycode_slot *table = vt_pycode_slots;
    if (!table)
        return 0;
    uint64_t walk = ++walks;
    if (walk_311)
        return walk_remembered_as(&layout_311, innermost, stack, table, walk, WALK_ENTRY_FLAG, 1);
    return walk_plain ? walk_remembered_shaped(innermost, stack, table, walk, 1)
                      : walk_remembered_shaped(innermost, stack, table, walk, 0);
}

/* ---- a location, decoded on a cache miss ---- */

static size_t put_utf8(char *out, uint32_t c)
{
    if (c >= 0xD800 && c <= 0xDFFF)
        c = '?'; /* a lone surrogate has no UTF-8 */
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | c >> 6);
        out[1] = (char)(0x80 | (c & 63));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | c >> 12);
        out[1] = (char)(0x80 | ((c >> 6) & 63));
        out[2] = (char)(0x80 | (c & 63));
        return 3;
    }
    out[0] = (char)(0xF0 | c >> 18);
    out[1] = (char)(0x80 | ((c >> 12) & 63));
    out[2] = (char)(0x80 | ((c >> 6) & 63));
    out[3] = (char)(0x80 | (c & 63));
    return 4;
}

int vt_pytext_shape(const char *header, struct vt_pytext_shape *shape)
{
    const struct vt_pylayout *L = &vt_py.layout;
    unsigned state = (unsigned)vt_load_int(header, L->str_state) >> L->str_kind_bit;
    unsigned kind = state & 7, compact = (state >> 3) & 1, ascii = (state >> 4) & 1;
    long length = vt_load_long(header, L->str_length);
    if (!compact || (kind != 1 && kind != 2 && kind != 4) || length < 0)
        return -1;
    shape->offset = ascii ? L->str_ascii_size : L->str_compact_size;
    shape->length = length > VT_PY_TEXT_CHARS ? VT_PY_TEXT_CHARS : length;
    shape->kind = kind;
    return 0;
}

long vt_pytext_utf8(const struct vt_pytext_shape *shape, const unsigned char *data, char *out)
{
    long n = 0;
    for (long i = 0; i < shape->length; i++) {
        uint32_t c = shape->kind == 1   ? data[i]
                     : shape->kind == 2 ? ((const uint16_t *)data)[i]
                                        : ((const uint32_t *)data)[i];
        n += (long)put_utf8(out + n, c);
    }
    return n;
}

/* A compact str's text as UTF-8 into OUT (VT_PY_TEXT_BYTES); its length,
 * or -1. Its cached UTF-8 copy is not read: another thread may be filling
 * it. */
static long read_text(const char *str, char *out)
{
    struct vt_pytext_shape shape;
    if (!is_a(str, vt_py.unicode_type) || vt_pytext_shape(str, &shape) < 0)
        return -1;
    return vt_pytext_utf8(&shape, (const unsigned char *)str + shape.offset, out);
}

static struct vt_pyloc *decode(const struct vt_pycode_key *key)
{
    char function[VT_PY_TEXT_BYTES], file[VT_PY_TEXT_BYTES];
    long function_len = read_text((const char *)key->name, function);
    long file_len = read_text((const char *)key->file, file);
    if (function_len < 0 || file_len < 0 || !is_a((const char *)key->table, vt_py.bytes_type) ||
        key->table_len < 0)
        return NULL;
    const uint8_t *table = (const uint8_t *)key->table + vt_py.layout.bytes_data;
    int line = vt_pyline(vt_py.layout.lines, table, key->table_len, key->firstlineno, key->offset);
    return vt_pyloc_intern(function, (size_t)function_len, file, (size_t)file_len, line);
}

/* The location of CODE at OFFSET, not remembered on this thread: decoded
 * and remembered (NULL when it cannot be read). */
static struct vt_pyloc *new_location(const char *code, long offset)
{
    if (vt_py.is_finalizing()) /* the slow path reads more: look again */
        return NULL;
    struct vt_pycode_key key;
    vt_pycode_live_key(code, offset, &key);
    struct vt_pyloc *loc = decode(&key);
    if (loc)
        vt_pycode_remember(&key, loc);
    return loc;
}

/* STACK's frames: the locations of those F found (one whose location
 * cannot be read is left out), in F's entries (the last one takes any
 * beyond VT_PY_MAX entries). */
static void record(const struct found *f, struct vt_pystack *stack)
{
    struct vt_pyloc **loc = stack->frames;
    int missed = vt_pycode_find_live(f->code, f->offset, f->count, loc);
    int i = 0, n = 0, first = 0;
    for (int e = 0; e <= f->entries; e++, first = n) {
        int end = e < f->entries ? f->entry_ends[e] : f->count;
        if (!missed)
            n = end;
        for (; missed && i < end; i++) { /* compacted in place */
            if (!loc[i])
                loc[i] = new_location(f->code[i], f->offset[i]);
            if (loc[i])
                loc[n++] = loc[i];
        }
        if (e == f->entries && n == first)
            break; /* no frames after the last end: no entry of them */
        if (stack->entries < VT_PY_MAX)
            stack->entry_frames[stack->entries++] = (unsigned short)(n - first);
        else
            stack->entry_frames[VT_PY_MAX - 1] += (unsigned short)(n - first);
    }
    stack->count = n;
}

/* INNERMOST's chain into STACK where some location is not remembered:
 * walked again, the missing ones decoded. Out of line: its buffers. */
static __attribute__((noinline)) void capture_decoding(const char *innermost,
                                                       struct vt_pystack *stack)
{
    struct found f;
    walk(innermost, &f);
    stack->entries = 0;
    record(&f, stack);
    stack->truncated = f.truncated;
    stack->outermost_read = f.whole;
    stack->outermost = f.outermost;
}

/* The calling thread's frames into STACK (emptied already), when the
 * interpreter runs (neither starting nor finalizing). Not inlined: a
 * program without Python does not pay for what the walk keeps. */
static __attribute__((noinline)) void capture_frames(struct vt_pystack *stack)
{
    if (!vt_py.is_initialized() || vt_py.is_finalizing())
        return;
    const char *tstate = this_thread();
    if (!tstate)
        return;
    const char *innermost = innermost_frame(tstate);
    if (!walk_remembered(innermost, stack))
        capture_decoding(innermost, stack);
    stack->tstate = tstate;
}

void vt_pystack_capture(struct vt_pystack *stack)
{
    stack->count = 0;
    stack->truncated = 0;
    stack->entries = 0;
    stack->tstate = NULL;
    if (__atomic_load_n(&py_state, __ATOMIC_ACQUIRE) == PY_READY || vt_python_ready())
        capture_frames(stack);
}

/* ---- the end of the script ----
 *
 * Py_FinalizeEx runs threading._shutdown (joining the non-daemon threads)
 * and the atexit handlers before it sets the finalizing flag, and what they
 * free (JAX's clean_up frees every live array) the script still held when
 * it ended. So the end is read from the main thread instead:
 * - 3.12+: the interpreter's running-main thread state (threads.main), set
 *   by Py_RunMain just before it runs __main__ (after site) and cleared
 *   right after it returns, before Py_FinalizeEx; 3.13+ clear it in Py_Exit
 *   (sys.exit) too, 3.12 does not. 3.12's offset is built in: a value there
 *   other than the main thread's state turns this reading off.
 * - up to 3.12: the main thread's outermost Python frame, once it was seen
 *   running the main module (<module> of a script or -c, runpy's
 *   _run_module_as_main for -m): on the main thread itself any other
 *   outermost frame (an atexit handler, threading._shutdown) or none ends
 *   the script; another thread sees only whether the main thread has any
 *   Python frame left (another thread's frames are never read).
 * Plain loads of the interpreter's memory; no lock, no GIL, no call into
 * Python. Not in a forked child of another thread than the main one (its
 * main thread never ran the script). */

static const char *main_tstate;   /* the main thread's state, once known */
static const char *main_code;     /* its outermost code while the main module ran */
static const char *not_main_code; /* the last outermost code found not the main module's */
static int running_main_seen;     /* threads.main was seen set */
static int running_main_wrong;    /* 3.12: it held another state than the main thread's */
static int script_end_off;        /* a child forked by another thread */
static pid_t process_id;

static const char *load_atomic_ptr(const char *base, long offset)
{
    return __atomic_load_n((const char *const *)(base + offset), __ATOMIC_RELAXED);
}

/* 3.12+: whether threads.main was seen set and is clear now. */
static int running_main_ended(void)
{
    if (vt_py.layout.interp_running_main < 0 ||
        __atomic_load_n(&running_main_wrong, __ATOMIC_RELAXED))
        return 0;
    const char *interp = vt_py.main_interpreter();
    if (!interp)
        return 0;
    const char *running = load_atomic_ptr(interp, vt_py.layout.interp_running_main);
    if (running) {
        const char *main = __atomic_load_n(&main_tstate, __ATOMIC_RELAXED);
        if (main && running != main) /* not the main thread's: not the field we meant */
            __atomic_store_n(&running_main_wrong, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&running_main_seen, 1, __ATOMIC_RELAXED);
        return 0;
    }
    return __atomic_load_n(&running_main_seen, __ATOMIC_RELAXED);
}

static inline int on_main_thread(void)
{
    pid_t pid = __atomic_load_n(&process_id, __ATOMIC_RELAXED);
    if (!pid) {
        pid = getpid();
        __atomic_store_n(&process_id, pid, __ATOMIC_RELAXED);
    }
    return vt_tid() == pid;
}

/* The main thread's state, learned on the main thread itself: its state in
 * the main interpreter (3.12 moves the gilstate to a subinterpreter's
 * state while the thread runs one, and frees that state after). */
static const char *main_thread_state(void)
{
    const char *known = __atomic_load_n(&main_tstate, __ATOMIC_RELAXED);
    if (known)
        return known;
    if (!on_main_thread())
        return NULL;
    known = vt_py.this_thread_state();
    if (!known || vt_load_ptr(known, vt_py.layout.ts_interp) != vt_py.main_interpreter())
        return NULL;
    __atomic_store_n(&main_tstate, known, __ATOMIC_RELAXED);
    return known;
}

#define OUTERMOST_STEPS (1 << 16)

/* TSTATE's outermost frame not a shim (NULL: none); -1 when the chain is
 * longer than we walk. TSTATE is the calling thread's own. Only the links
 * are followed. */
static int outermost_frame(const char *tstate, const char **outer)
{
    int steps = 0;
    *outer = NULL;
    for (const char *frame = innermost_frame(tstate); frame;
         frame = vt_load_ptr(frame, vt_py.layout.frame_back)) {
        if (++steps > OUTERMOST_STEPS)
            return -1;
        if (!is_shim(frame))
            *outer = frame;
    }
    return 0;
}

/* Whether CODE, outermost on the main thread, is its main module's: a
 * script's or -c's <module> (not a frozen bootstrap module's, not the
 * interactive prompt's), or runpy's _run_module_as_main. */
static int is_main_module(const char *code)
{
    char name[VT_PY_TEXT_BYTES], file[VT_PY_TEXT_BYTES];
    const struct vt_pylayout *L = &vt_py.layout;
    long name_len = read_text(vt_load_ptr(code, L->code_name), name);
    long file_len = read_text(vt_load_ptr(code, L->code_filename), file);
    if (name_len < 0 || file_len < 0)
        return 0;
    if (name_len == 19 && memcmp(name, "_run_module_as_main", 19) == 0)
        return 1;
    return name_len == 8 && memcmp(name, "<module>", 8) == 0 &&
           !(file_len >= 7 && memcmp(file, "<frozen", 7) == 0) &&
           !(file_len == 7 && memcmp(file, "<stdin>", 7) == 0);
}

/* 3.11, 3.12: where the main module's frame lies, learned on the main
 * thread: the first frame of its first chunk of frames (a chunk the
 * interpreter never frees while the thread lives). */
static const char *main_frame, *main_chunk;

/* 3.11, 3.12, of the main thread's state MAIN, on the main thread: whether
 * the main module's frame is still its outermost frame (one look instead of
 * a walk of the chain; 0: cannot tell). The frame at the bottom of its
 * first chunk, while that chunk is the one frames are pushed on and holds
 * it, runs SCRIPT's code and was called from C with no frame before it:
 * what the walk would find outermost. Frames deeper than the first chunk
 * holds are walked. */
static int main_module_outermost(const char *main, const char *script)
{
    const struct vt_pylayout *L = &vt_py.layout;
    const char *frame = __atomic_load_n(&main_frame, __ATOMIC_RELAXED);
    const char *chunk = __atomic_load_n(&main_chunk, __ATOMIC_RELAXED);
    if (!frame || vt_load_ptr(main, L->ts_datastack_chunk) != chunk ||
        vt_load_ptr(main, L->ts_datastack_top) <= frame ||
        vt_load_ptr(frame, L->frame_code) != script)
        return 0;
    const char *caller = vt_load_ptr(frame, L->frame_back);
    if (caller && is_shim(caller)) /* 3.12: the shim of the entry from C */
        caller = vt_load_ptr(caller, L->frame_back);
    return caller == NULL;
}

/* main_module_outermost where the calling thread is the main one (whose
 * state may be another interpreter's: MAIN's chain stands still then). */
static inline int main_module_outermost_here(const char *main, const char *script)
{
    return __atomic_load_n(&main_frame, __ATOMIC_RELAXED) && on_main_thread() &&
           main_module_outermost(main, script);
}

/* On the main thread (MINE its state), OUTER its outermost frame, running
 * the main module: where it lies, when it is the first frame of the first
 * chunk of frames and that chunk the one frames are pushed on. */
static void learn_main_frame(const char *mine, const char *outer)
{
    const struct vt_pylayout *L = &vt_py.layout;
    if (L->ts_datastack_chunk < 0 || __atomic_load_n(&main_frame, __ATOMIC_RELAXED))
        return;
    const char *chunk = vt_load_ptr(mine, L->ts_datastack_chunk);
    if (chunk && !vt_load_ptr(chunk, L->chunk_previous) &&
        outer == chunk + L->chunk_data + sizeof(void *)) {
        __atomic_store_n(&main_chunk, chunk, __ATOMIC_RELAXED);
        __atomic_store_n(&main_frame, outer, __ATOMIC_RELAXED);
    }
}

/* Before the main module's code is known: whether OUTER, the code
 * outermost on the main thread (NULL: none), is it. Out of line: its
 * buffers. */
static __attribute__((noinline)) void learn_main_code(const char *outer)
{
    if (outer && outer != __atomic_load_n(&not_main_code, __ATOMIC_RELAXED)) {
        if (is_main_module(outer))
            __atomic_store_n(&main_code, outer, __ATOMIC_RELAXED);
        else
            __atomic_store_n(&not_main_code, outer, __ATOMIC_RELAXED);
    }
}

/* On the main thread (MINE its state): whether its outermost frame left
 * the main module it was seen running; learns that module's code first.
 * CAPTURED: what this event's capture saw of the chain, or NULL. Inlined:
 * every event of the main thread comes here. */
static inline __attribute__((always_inline)) int
main_thread_left_script(const char *mine, const struct vt_pystack *captured)
{
    const char *outer_frame, *script = __atomic_load_n(&main_code, __ATOMIC_RELAXED);
    if (captured && captured->outermost_read)
        outer_frame = captured->outermost;
    else if (outermost_frame(mine, &outer_frame) < 0)
        return 0;
    const char *outer = outermost_code_of(outer_frame);
    if (outer && outer == script && !__atomic_load_n(&main_frame, __ATOMIC_RELAXED))
        learn_main_frame(mine, outer_frame);
    if (script)
        return outer != script;
    learn_main_code(outer);
    return 0;
}

/* Whether another thread (TSTATE) has a Python frame: one load, never
 * following its frames, and no value seen halfway (3.11 and 3.12 point the
 * thread state at a new _PyCFrame before they fill it in: only their
 * root _PyCFrame says that no evaluation loop runs). */
static int runs_python(const char *tstate)
{
    const char *frame = load_atomic_ptr(tstate, vt_py.layout.ts_frame);
    if (vt_py.layout.ts_root_cframe >= 0)
        return frame != tstate + vt_py.layout.ts_root_cframe;
    return frame != NULL;
}

/* Up to 3.12: the main thread's frames say the script ended. */
static int main_frames_ended(const struct vt_pystack *captured)
{
    if (vt_py.layout.minor > 12)
        return 0;
    const char *main = main_thread_state();
    if (!main)
        return 0;
    if (captured && !captured->tstate)
        captured = NULL;                      /* nothing read: read here */
    if (captured && captured->tstate == main) /* the capture's walk first: no look below */
        return main_thread_left_script(main, captured) &&
               !main_module_outermost_here(main, __atomic_load_n(&main_code, __ATOMIC_RELAXED));
    const char *script = __atomic_load_n(&main_code, __ATOMIC_RELAXED);
    if (script && main_module_outermost_here(main, script))
        return 0;
    if ((captured ? captured->tstate : this_thread()) == main)
        return main_thread_left_script(main, captured);
    return __atomic_load_n(&main_code, __ATOMIC_RELAXED) && !runs_python(main);
}

static int seen_running; /* the interpreter was seen running (a program that is python) */

/* main_code once main_module_runs_here can answer (NULL: not yet, or
 * never: 3.12+, a child forked by another thread). What it stands for is
 * only ever set, until a fork resets it. */
static const char *fast_script;

/* Whether main_module_runs_here can answer: up to 3.11 (no running-main
 * record to read), the main thread's state, the main module's code and
 * frame known, the interpreter seen running. */
static void learn_fast_script(void)
{
    const char *script = __atomic_load_n(&main_code, __ATOMIC_RELAXED);
    if (vt_py.layout.interp_running_main < 0 && script &&
        __atomic_load_n(&main_tstate, __ATOMIC_RELAXED) &&
        __atomic_load_n(&main_frame, __ATOMIC_RELAXED) &&
        __atomic_load_n(&seen_running, __ATOMIC_RELAXED) &&
        !__atomic_load_n(&script_end_off, __ATOMIC_RELAXED))
        __atomic_store_n(&fast_script, script, __ATOMIC_RELAXED);
}

/* main_module_runs_here without a capture: the interpreter asked whether
 * it runs, then the main module's frame looked at in place. */
static __attribute__((noinline)) int main_module_runs_uncaptured(const char *script)
{
    return vt_py.is_initialized() && !vt_py.is_finalizing() && on_main_thread() &&
           main_module_outermost(__atomic_load_n(&main_tstate, __ATOMIC_RELAXED), script);
}

/* The usual answer where fast_script is known (SCRIPT), on the main
 * thread: 1 when the full reading would say the script runs on, told by
 * this event's capture (the main module outermost), or without one by the
 * main module's frame in place. 0: read it all. Inlined, and with a
 * capture no call: every allocation comes here. */
static inline __attribute__((always_inline)) int
main_module_runs_here(const struct vt_pystack *captured, const char *script)
{
    if (!captured || !captured->tstate)
        return main_module_runs_uncaptured(script);
    return captured->tstate == __atomic_load_n(&main_tstate, __ATOMIC_RELAXED) &&
           captured->outermost_read && outermost_code_of(captured->outermost) == script;
}

/* vt_python_script_ended's full reading. */
static __attribute__((noinline)) int script_ended(const struct vt_pystack *captured)
{
    if (!captured || !captured->tstate) { /* what the capture checked first, else here */
        if (!vt_py.is_initialized())      /* finalized, or an embedded one not started yet */
            return __atomic_load_n(&seen_running, __ATOMIC_RELAXED);
        if (vt_py.is_finalizing())
            return 1;
    }
    if (!__atomic_load_n(&seen_running, __ATOMIC_RELAXED))
        __atomic_store_n(&seen_running, 1, __ATOMIC_RELAXED);
    if (__atomic_load_n(&script_end_off, __ATOMIC_RELAXED))
        return 0;
    if (running_main_ended() || main_frames_ended(captured))
        return 1;
    if (!__atomic_load_n(&fast_script, __ATOMIC_RELAXED))
        learn_fast_script();
    return 0;
}

int vt_python_script_ended(const struct vt_pystack *captured)
{
    const char *script = __atomic_load_n(&fast_script, __ATOMIC_RELAXED);
    if (script && main_module_runs_here(captured, script))
        return 0;
    if (__atomic_load_n(&py_state, __ATOMIC_ACQUIRE) != PY_READY || !vt_py.is_main)
        return 0;
    return script_ended(captured);
}

/* The forking thread's state is the child's only one: if it is not the
 * main thread's, the child never ran the script. */
static void script_end_after_fork(void)
{
    const char *main = __atomic_load_n(&main_tstate, __ATOMIC_RELAXED);
    __atomic_store_n(&process_id, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&fast_script, NULL, __ATOMIC_RELAXED);
    __atomic_store_n(&running_main_seen, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&not_main_code, NULL, __ATOMIC_RELAXED);
    if (main && (__atomic_load_n(&py_state, __ATOMIC_ACQUIRE) != PY_READY ||
                 vt_py.this_thread_state() != main)) {
        __atomic_store_n(&main_tstate, NULL, __ATOMIC_RELAXED);
        __atomic_store_n(&main_code, NULL, __ATOMIC_RELAXED);
        __atomic_store_n(&main_frame, NULL, __ATOMIC_RELAXED);
        __atomic_store_n(&script_end_off, 1, __ATOMIC_RELAXED);
    }
}
