/* SPDX-License-Identifier: MIT */
#include "pylayout.h"

#include "pyoffsets_313.h"

#include <stddef.h>
#include <string.h>

/* Fields common to 3.8-3.10 (PyFrameObject frames) and the string and
 * bytes layouts of 3.8-3.11. */
#define FRAME_OBJECT_LAYOUT                                                                        \
    .ts_thread_id = 176, .ts_frame = 24, .cframe_current = -1, .frame_code = 32, .frame_back = 24, \
    .frame_owner = -1, .owner_generator = -1, .owner_cstack = -1, .code_filename = 104,            \
    .code_name = 112, .code_qualname = -1, .code_firstlineno = 40, .code_linetable = 120,          \
    .code_bytecode = -1, .code_firsttraceable = -1
#define OBJECTS_LAYOUT                                                               \
    .ob_type = 8, .var_size = 16, .str_length = 16, .str_hash = 24, .str_state = 32, \
    .bytes_size = 16, .bytes_data = 32
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
     .ts_thread_id = 152,
     .ts_frame = 56,
     .cframe_current = 8,
     .frame_code = 32,
     .frame_back = 48,
     .frame_instr = 56,
     .frame_owner = 69,
     .owner_generator = 1,
     .owner_cstack = -1,
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
     .ts_thread_id = 136,
     .ts_frame = 56,
     .cframe_current = 0,
     .frame_code = 0,
     .frame_back = 8,
     .frame_instr = 56,
     .frame_owner = 70,
     .owner_generator = 1,
     .owner_cstack = 3,
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

/* 3.13: everything the frame walk needs is published, except what follows
 * from 3.13's own struct layouts (checked against its headers by the test):
 * the string's hash right after its length, the compact object two words
 * longer than the ASCII one, _co_firsttraceable two words before the
 * bytecode, and the frame owners' values. */
static void from_313(const struct vt_py_debug_offsets_313 *d, struct vt_pylayout *out)
{
    *out = (struct vt_pylayout){
        .minor = 13,
        .instr = VT_PY_INSTR_POINTER,
        .lines = VT_PY_LOCATIONS,
        .ts_thread_id = (long)d->thread_state.thread_id,
        .ts_frame = (long)d->thread_state.current_frame,
        .cframe_current = -1,
        .frame_code = (long)d->interpreter_frame.executable,
        .frame_back = (long)d->interpreter_frame.previous,
        .frame_instr = (long)d->interpreter_frame.instr_ptr,
        .frame_owner = (long)d->interpreter_frame.owner,
        .owner_generator = 1,
        .owner_cstack = 3,
        .code_filename = (long)d->code_object.filename,
        .code_name = (long)d->code_object.name,
        .code_qualname = (long)d->code_object.qualname,
        .code_firstlineno = (long)d->code_object.firstlineno,
        .code_linetable = (long)d->code_object.linetable,
        .code_bytecode = (long)d->code_object.co_code_adaptive,
        .code_firsttraceable = (long)d->code_object.co_code_adaptive - 16,
        .ob_type = (long)d->pyobject.ob_type,
        .var_size = (long)d->bytes_object.ob_size,
        .str_length = (long)d->unicode_object.length,
        .str_hash = (long)d->unicode_object.length + 8,
        .str_state = (long)d->unicode_object.state,
        .str_ascii_size = (long)d->unicode_object.asciiobject_size,
        .str_compact_size = (long)d->unicode_object.asciiobject_size + 16,
        .bytes_size = (long)d->bytes_object.ob_size,
        .bytes_data = (long)d->bytes_object.ob_sval,
    };
}

int vt_pylayout_from_debug_offsets(const void *debug_offsets, struct vt_pylayout *out,
                                   const char **why)
{
    struct {
        char cookie[8];
        uint64_t version, free_threaded;
    } head;
    if (!debug_offsets) {
        *why = "no _PyRuntime";
        return -1;
    }
    memcpy(&head, debug_offsets, sizeof head);
    if (memcmp(head.cookie, "xdebugpy", 8) != 0) {
        *why = "_PyRuntime has no debug offsets";
        return -1;
    }
    if (head.free_threaded) {
        *why = "free-threaded build";
        return -1;
    }
    switch ((head.version >> 16) & 0xffff) {
    case 0x030D:
        from_313(debug_offsets, out);
        return 0;
    default:
        *why = "no definition of this version's debug offsets";
        return -1;
    }
}
