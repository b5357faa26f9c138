/* SPDX-License-Identifier: MIT */
/* Where CPython keeps what vramtrace reads: thread state, frames, code
 * objects, strings and bytes, per minor version (x86_64 and other LP64
 * release builds with the GIL). 3.8-3.12 from built-in tables (checked
 * against each version's internal headers by tests/test_pylayout.py);
 * 3.13 and later from the interpreter's own _Py_DebugOffsets. */
#ifndef VRAMTRACE_PYLAYOUT_H
#define VRAMTRACE_PYLAYOUT_H

#include <stdint.h>

/* How a frame says where it is in its code. */
enum vt_py_instr {
    VT_PY_LASTI_BYTES,   /* int f_lasti, a byte offset (3.8, 3.9) */
    VT_PY_LASTI_UNITS,   /* int f_lasti, in 2-byte code units (3.10) */
    VT_PY_INSTR_POINTER, /* a pointer into the code object's bytecode (3.11+) */
};

/* Which line table the code object holds. */
enum vt_py_lines {
    VT_PY_LNOTAB,        /* co_lnotab (3.8, 3.9) */
    VT_PY_LINETABLE_310, /* co_linetable of 3.10 */
    VT_PY_LOCATIONS,     /* the location table of 3.11+ */
};

/* Byte offsets; -1 where the version has no such field. */
struct vt_pylayout {
    int minor;
    enum vt_py_instr instr;
    enum vt_py_lines lines;
    long ts_thread_id;   /* PyThreadState.thread_id (pthread_self of its thread) */
    long ts_frame;       /* the innermost frame (3.11, 3.12: the _PyCFrame) */
    long cframe_current; /* _PyCFrame.current_frame (3.11, 3.12) */
    long frame_code;
    long frame_back;
    long frame_instr;
    long frame_owner;     /* a char (3.11+) */
    long owner_generator; /* FRAME_OWNED_BY_GENERATOR */
    long owner_cstack;    /* owners from here on are shim/entry frames (3.12+) */
    long code_filename;
    long code_name;
    long code_qualname;
    long code_firstlineno;    /* an int */
    long code_linetable;      /* a bytes object */
    long code_bytecode;       /* co_code_adaptive: the bytecode itself (3.11+) */
    long code_firsttraceable; /* an int, in code units (3.11+) */
    long ob_type;
    long var_size; /* PyVarObject.ob_size */
    long str_length;
    long str_hash;
    long str_state;        /* a 32-bit bitfield word */
    long str_ascii_size;   /* compact ASCII data follows the PyASCIIObject */
    long str_compact_size; /* other compact data, the PyCompactUnicodeObject */
    long bytes_size;
    long bytes_data;
};

/* The built-in table for 3.MINOR, or NULL when there is none. */
const struct vt_pylayout *vt_pylayout_builtin(int minor);

/* 3.13 and later: the layout from _Py_DebugOffsets at DEBUG_OFFSETS (the
 * start of _PyRuntime) into *OUT. 0, or -1 with *WHY set when the offsets
 * are missing, of a free-threaded build, or of a version without a
 * definition here. */
int vt_pylayout_from_debug_offsets(const void *debug_offsets, struct vt_pylayout *out,
                                   const char **why);

#endif
