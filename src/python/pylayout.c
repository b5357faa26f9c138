/* SPDX-License-Identifier: MIT */
#include "pylayout.h"

#include "pyoffsets_313.h"
#include "pyoffsets_314.h"
#include "pyoffsets_315.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Fields common to 3.8-3.10 (PyFrameObject frames) and the string and
 * bytes layouts of 3.8-3.11. */
#define FRAME_OBJECT_LAYOUT                                                                        \
    .interp_running_main = -1, .interp_threads_head = 8, .ts_next = 8, .ts_interp = 16,            \
    .ts_thread_id = 176, .ts_frame = 24, .cframe_current = -1, .ts_root_cframe = -1, NO_DATASTACK, \
    .frame_code = 32, .frame_back = 24, .frame_owner = -1, .owner_generator = -1,                  \
    .owner_cstack = -1, .code_filename = 104, .code_name = 112, .code_qualname = -1,               \
    .code_firstlineno = 40, .code_linetable = 120, .code_bytecode = -1, .code_firsttraceable = -1, \
    .entry = VT_PY_ENTRY_EACH_FRAME, .frame_is_entry = -1, NO_THREAD_LOCAL_BYTECODE
#define NO_THREAD_LOCAL_BYTECODE .frame_tlbc_index = -1, .code_tlbc = -1
#define NO_DATASTACK \
    .ts_datastack_chunk = -1, .ts_datastack_top = -1, .chunk_previous = -1, .chunk_data = -1
#define OBJECTS_LAYOUT                                                               \
    .ob_type = 8, .var_size = 16, .str_length = 16, .str_hash = 24, .str_state = 32, \
    .str_kind_bit = 2, .bytes_size = 16, .bytes_data = 32
#define STRINGS_WITH_WSTR .str_ascii_size = 48, .str_compact_size = 72 /* up to 3.11 */

static const struct vt_pylayout builtin[] = {
    {.minor = 8,
     .instr = VT_PY_LASTI_BYTES,
     .lines = VT_PY_LNOTAB,
     .frame_instr = 104,
     FRAME_OBJECT_LAYOUT,
     OBJECTS_LAYOUT,
     STRINGS_WITH_WSTR},
    {.minor = 9,
     .instr = VT_PY_LASTI_BYTES,
     .lines = VT_PY_LNOTAB,
     .frame_instr = 104,
     FRAME_OBJECT_LAYOUT,
     OBJECTS_LAYOUT,
     STRINGS_WITH_WSTR},
    {.minor = 10,
     .instr = VT_PY_LASTI_UNITS,
     .lines = VT_PY_LINETABLE_310,
     .frame_instr = 96,
     FRAME_OBJECT_LAYOUT,
     OBJECTS_LAYOUT,
     STRINGS_WITH_WSTR},
    {.minor = 11,
     .instr = VT_PY_INSTR_POINTER,
     .lines = VT_PY_LOCATIONS,
     .interp_running_main = -1,
     .interp_threads_head = 16,
     .ts_next = 8,
     .ts_interp = 16,
     .ts_thread_id = 152,
     .ts_frame = 56,
     .cframe_current = 8,
     .ts_root_cframe = 336,
     .ts_datastack_chunk = 296,
     .ts_datastack_top = 304,
     .chunk_previous = 0,
     .chunk_data = 24,
     .frame_code = 32,
     .frame_back = 48,
     .frame_instr = 56,
     .frame_owner = 69,
     .owner_generator = 1,
     .owner_cstack = -1,
     .entry = VT_PY_ENTRY_FLAG,
     .frame_is_entry = 68,
     NO_THREAD_LOCAL_BYTECODE,
     .code_filename = 112,
     .code_name = 120,
     .code_qualname = 128,
     .code_firstlineno = 72,
     .code_linetable = 136,
     .code_bytecode = 184,
     .code_firsttraceable = 168,
     OBJECTS_LAYOUT,
     STRINGS_WITH_WSTR},
    {.minor = 12,
     .instr = VT_PY_INSTR_POINTER,
     .lines = VT_PY_LOCATIONS,
     .interp_running_main = 383248, /* threads_main */
     .interp_threads_head = 72,
     .ts_next = 8,
     .ts_interp = 16,
     .ts_thread_id = 136,
     .ts_frame = 56,
     .cframe_current = 0,
     .ts_root_cframe = 272,
     .ts_datastack_chunk = 232,
     .ts_datastack_top = 240,
     .chunk_previous = 0,
     .chunk_data = 24,
     .frame_code = 0,
     .frame_back = 8,
     .frame_instr = 56,
     .frame_owner = 70,
     .owner_generator = 1,
     .owner_cstack = 3,
     .entry = VT_PY_ENTRY_SHIM,
     .frame_is_entry = -1,
     NO_THREAD_LOCAL_BYTECODE,
     .code_filename = 112,
     .code_name = 120,
     .code_qualname = 128,
     .code_firstlineno = 68,
     .code_linetable = 136,
     .code_bytecode = 192,
     .code_firsttraceable = 176,
     OBJECTS_LAYOUT,
     .str_ascii_size = 40,
     .str_compact_size = 56},
};

const struct vt_pylayout *vt_pylayout_builtin(int minor)
{
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (builtin[i].minor == minor)
            return &builtin[i];
    return NULL;
}

/* What the frame walk reads of a _Py_DebugOffsets, whichever version's
 * definition it was read with: offsets, each with the size published for
 * its structure. */
struct published {
    uint64_t minor, free_threaded;
    uint64_t interp_size, interp_running_main, interp_threads_head;
    uint64_t ts_size, ts_next, ts_interp, ts_current_frame, ts_thread_id;
    uint64_t frame_size, frame_previous, frame_executable, frame_instr_ptr, frame_owner,
        frame_tlbc_index;
    uint64_t code_size, code_filename, code_name, code_qualname, code_linetable, code_firstlineno,
        code_adaptive, code_tlbc;
    uint64_t object_size, ob_type;
    uint64_t bytes_size, bytes_ob_size, bytes_ob_sval;
    uint64_t str_size, str_state, str_length, str_ascii_size;
    uint64_t str_compact_size; /* published from 3.15 on; 0 before */
};

#define COMMON_313_ON(d)                                                                           \
    .free_threaded = (d)->free_threaded, .interp_size = (d)->interpreter_state.size,               \
    .interp_threads_head = (d)->interpreter_state.threads_head, .ts_size = (d)->thread_state.size, \
    .ts_next = (d)->thread_state.next, .ts_interp = (d)->thread_state.interp,                      \
    .ts_current_frame = (d)->thread_state.current_frame,                                           \
    .ts_thread_id = (d)->thread_state.thread_id, .frame_size = (d)->interpreter_frame.size,        \
    .frame_previous = (d)->interpreter_frame.previous,                                             \
    .frame_executable = (d)->interpreter_frame.executable,                                         \
    .frame_instr_ptr = (d)->interpreter_frame.instr_ptr,                                           \
    .frame_owner = (d)->interpreter_frame.owner, .code_size = (d)->code_object.size,               \
    .code_filename = (d)->code_object.filename, .code_name = (d)->code_object.name,                \
    .code_qualname = (d)->code_object.qualname, .code_linetable = (d)->code_object.linetable,      \
    .code_firstlineno = (d)->code_object.firstlineno,                                              \
    .code_adaptive = (d)->code_object.co_code_adaptive, .object_size = (d)->pyobject.size,         \
    .ob_type = (d)->pyobject.ob_type, .bytes_size = (d)->bytes_object.size,                        \
    .bytes_ob_size = (d)->bytes_object.ob_size, .bytes_ob_sval = (d)->bytes_object.ob_sval,        \
    .str_size = (d)->unicode_object.size, .str_state = (d)->unicode_object.state,                  \
    .str_length = (d)->unicode_object.length,                                                      \
    .str_ascii_size = (d)->unicode_object.asciiobject_size

static struct published from_313(const struct vt_py_debug_offsets_313 *d)
{
    /* threads.main follows threads.head in 3.13 (not published until 3.14) */
    return (struct published){.minor = 13,
                              COMMON_313_ON(d),
                              .interp_running_main = d->interpreter_state.threads_head + 8};
}

/* Thread-local bytecode: its offsets are 0 in builds with the GIL. */
#define COMMON_314_ON(d)                                                          \
    COMMON_313_ON(d), .interp_running_main = (d)->interpreter_state.threads_main, \
                      .frame_tlbc_index = (d)->interpreter_frame.tlbc_index,      \
                      .code_tlbc = (d)->code_object.co_tlbc

static struct published from_314(const struct vt_py_debug_offsets_314 *d)
{
    return (struct published){.minor = 14, COMMON_314_ON(d)};
}

/* The same fields as 3.14 at other places (thread_state grew), and the
 * compact string's size published. */
static struct published from_315(const struct vt_py_debug_offsets_315 *d)
{
    return (struct published){.minor = 15,
                              COMMON_314_ON(d),
                              .str_compact_size = d->unicode_object.compactunicodeobject_size};
}

/* Whether a field of WIDTH bytes at OFFSET lies inside a structure of SIZE. */
static int inside(uint64_t offset, uint64_t width, uint64_t size)
{
    return size < (1u << 20) && offset + width <= size;
}

/* The first field that does not lie inside its published structure, or NULL. */
static const char *misplaced(const struct published *p)
{
    const int tlbc = p->code_tlbc != 0; /* free-threaded 3.14+ */
    const struct {
        int read;
        uint64_t offset, width, size;
        const char *name;
    } fields[] = {
        {1, p->interp_running_main, 8, p->interp_size, "interpreter_state.threads_main"},
        {1, p->interp_threads_head, 8, p->interp_size, "interpreter_state.threads_head"},
        {1, p->ts_next, 8, p->ts_size, "thread_state.next"},
        {1, p->ts_interp, 8, p->ts_size, "thread_state.interp"},
        {1, p->ts_current_frame, 8, p->ts_size, "thread_state.current_frame"},
        {1, p->ts_thread_id, 8, p->ts_size, "thread_state.thread_id"},
        {1, p->frame_previous, 8, p->frame_size, "interpreter_frame.previous"},
        {1, p->frame_executable, 8, p->frame_size, "interpreter_frame.executable"},
        {1, p->frame_instr_ptr, 8, p->frame_size, "interpreter_frame.instr_ptr"},
        {1, p->frame_owner, 1, p->frame_size, "interpreter_frame.owner"},
        {tlbc, p->frame_tlbc_index, 4, p->frame_size, "interpreter_frame.tlbc_index"},
        {1, p->code_filename, 8, p->code_size, "code_object.filename"},
        {1, p->code_name, 8, p->code_size, "code_object.name"},
        {1, p->code_qualname, 8, p->code_size, "code_object.qualname"},
        {1, p->code_linetable, 8, p->code_size, "code_object.linetable"},
        {1, p->code_firstlineno, 4, p->code_size, "code_object.firstlineno"},
        {1, p->code_adaptive, 0, p->code_size, "code_object.co_code_adaptive"},
        {tlbc, p->code_tlbc, 8, p->code_adaptive, "code_object.co_tlbc"},
        {1, p->ob_type, 8, p->object_size, "pyobject.ob_type"},
        {1, p->bytes_ob_size, 8, p->bytes_size, "bytes_object.ob_size"},
        {1, p->bytes_ob_sval, 1, p->bytes_size, "bytes_object.ob_sval"},
        {1, p->str_length, 16, p->str_ascii_size, "unicode_object.length"}, /* and the hash */
        {1, p->str_state, 4, p->str_ascii_size, "unicode_object.state"},
        {1, p->str_ascii_size, 16, p->str_size, "unicode_object.asciiobject_size"},
        {p->str_compact_size != 0, p->str_compact_size, 0, p->str_size,
         "unicode_object.compactunicodeobject_size"},
    };
    if (p->code_adaptive < 16 + (tlbc ? 8u : 0u))
        return "code_object._co_firsttraceable";
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (fields[i].read && !inside(fields[i].offset, fields[i].width, fields[i].size))
            return fields[i].name;
    return NULL;
}

/* Everything the frame walk needs is published, except what follows from
 * the struct layouts of 3.13-3.15 (checked against their headers by the
 * test): the string's hash right after its length, the compact object two
 * words longer than the ASCII one (published from 3.15 on),
 * _co_firsttraceable two words before the bytecode (before the
 * thread-local copies' array in 3.14t), the frame owners' values, 3.14's
 * tagged code reference (3.15's too). */
static void derive(const struct published *p, struct vt_pylayout *out)
{
    long first_after = (long)(p->code_tlbc ? p->code_tlbc : p->code_adaptive);
    *out = (struct vt_pylayout){
        .minor = (int)p->minor,
        .free_threaded = p->free_threaded != 0,
        .instr = VT_PY_INSTR_POINTER,
        .lines = VT_PY_LOCATIONS,
        .entry = VT_PY_ENTRY_SHIM,
        .interp_running_main = (long)p->interp_running_main,
        .interp_threads_head = (long)p->interp_threads_head,
        .ts_next = (long)p->ts_next,
        .ts_interp = (long)p->ts_interp,
        .ts_thread_id = (long)p->ts_thread_id,
        .ts_frame = (long)p->ts_current_frame,
        .cframe_current = -1,
        .ts_root_cframe = -1,
        NO_DATASTACK,
        .frame_code = (long)p->frame_executable,
        .frame_back = (long)p->frame_previous,
        .frame_instr = (long)p->frame_instr_ptr,
        .frame_owner = (long)p->frame_owner,
        .frame_is_entry = -1,
        .frame_tlbc_index = p->code_tlbc ? (long)p->frame_tlbc_index : -1,
        .executable_tagged = p->minor >= 14,
        .owner_generator = 1,
        .owner_cstack = 3,
        .code_filename = (long)p->code_filename,
        .code_name = (long)p->code_name,
        .code_qualname = (long)p->code_qualname,
        .code_firstlineno = (long)p->code_firstlineno,
        .code_linetable = (long)p->code_linetable,
        .code_bytecode = (long)p->code_adaptive,
        .code_firsttraceable = first_after - 16,
        .code_tlbc = p->code_tlbc ? (long)p->code_tlbc : -1,
        .ob_type = (long)p->ob_type,
        .var_size = (long)p->bytes_ob_size,
        .str_length = (long)p->str_length,
        .str_hash = (long)p->str_length + 8,
        .str_state = (long)p->str_state,
        /* 3.14t keeps interned in a byte of its own before the kind */
        .str_kind_bit = p->free_threaded && p->minor >= 14 ? 8 : 2,
        .str_ascii_size = (long)p->str_ascii_size,
        .str_compact_size =
            (long)(p->str_compact_size ? p->str_compact_size : p->str_ascii_size + 16),
        .bytes_size = (long)p->bytes_ob_size,
        .bytes_data = (long)p->bytes_ob_sval,
    };
}

int vt_pylayout_from_debug_offsets(const void *debug_offsets, struct vt_pylayout *out,
                                   const char **why)
{
    struct {
        char cookie[8];
        uint64_t version, free_threaded;
    } head;
    struct published p;
    if (!debug_offsets) {
        *why = "no _PyRuntime";
        return -1;
    }
    memcpy(&head, debug_offsets, sizeof head);
    if (memcmp(head.cookie, "xdebugpy", 8) != 0) {
        *why = "_PyRuntime has no debug offsets";
        return -1;
    }
    switch ((head.version >> 16) & 0xffff) {
    case 0x030D:
        p = from_313(debug_offsets);
        break;
    case 0x030E:
        p = from_314(debug_offsets);
        break;
    case 0x030F:
        p = from_315(debug_offsets);
        break;
    default:
        *why = "no definition of this version's debug offsets";
        return -1;
    }
    const char *field = misplaced(&p);
    if (field) {
        static __thread char text[96];
        snprintf(text, sizeof text, "its debug offsets put %s outside its structure", field);
        *why = text;
        return -1;
    }
    derive(&p, out);
    return 0;
}
