/* SPDX-License-Identifier: MIT */
/* Where CPython keeps what vramtrace reads: thread state, frames, code
 * objects, strings and bytes, per minor version (x86_64 and other LP64
 * release builds). 3.8-3.12 from built-in tables (checked against each
 * version's internal headers by tests/test_pylayout.py); 3.13 and later,
 * free-threaded builds too, from the interpreter's own _Py_DebugOffsets. */
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

/* How a thread's frame chain tells where the evaluation loop was entered
 * from C (each entry is one _PyEval_EvalFrameDefault call on the native
 * stack). */
enum vt_py_entry {
    VT_PY_ENTRY_EACH_FRAME, /* every frame object is a call of its own (3.8-3.10) */
    VT_PY_ENTRY_FLAG,       /* the frame the loop was entered with: is_entry (3.11) */
    VT_PY_ENTRY_SHIM,       /* a shim frame of the C stack after it, owner_cstack (3.12+) */
};

/* Byte offsets; -1 where the version has no such field. */
struct vt_pylayout {
    int minor;
    int free_threaded; /* objects have the free-threaded header (3.13t+) */
    enum vt_py_instr instr;
    enum vt_py_lines lines;
    enum vt_py_entry entry;
    long interp_running_main; /* the thread state running __main__ in PyInterpreterState (3.12+) */
    long interp_threads_head; /* the first of its thread states in PyInterpreterState */
    long ts_next;             /* PyThreadState.next: the next state of its interpreter */
    long ts_interp;           /* PyThreadState.interp */
    long ts_thread_id;        /* PyThreadState.thread_id (pthread_self of its thread) */
    long ts_frame;            /* the innermost frame (3.11, 3.12: the _PyCFrame) */
    long cframe_current;      /* _PyCFrame.current_frame (3.11, 3.12) */
    long ts_root_cframe; /* the _PyCFrame in PyThreadState: no evaluation loop runs (3.11, 3.12) */
    long ts_datastack_chunk; /* the _PyStackChunk frames are pushed on now (3.11, 3.12) */
    long ts_datastack_top;   /* where the next frame goes in it */
    long chunk_previous;     /* _PyStackChunk.previous: NULL in the thread's first, never freed */
    long chunk_data;         /* _PyStackChunk.data: the first chunk's first frame at data[1] */
    long frame_code;
    long frame_back;
    long frame_instr;
    long frame_owner;      /* a char (3.11+) */
    long frame_is_entry;   /* a bool (3.11) */
    long frame_tlbc_index; /* an int32: the thread's copy of the bytecode it runs (3.14t) */
    int executable_tagged; /* the code is a tagged _PyStackRef (3.14+): low bits cleared */
    long owner_generator;  /* FRAME_OWNED_BY_GENERATOR */
    long owner_cstack;     /* owners from here on are shim/entry frames (3.12+) */
    long code_filename;
    long code_name;
    long code_qualname;
    long code_firstlineno;    /* an int */
    long code_linetable;      /* a bytes object */
    long code_bytecode;       /* co_code_adaptive: the bytecode itself (3.11+) */
    long code_firsttraceable; /* an int, in code units (3.11+) */
    long code_tlbc;           /* _PyCodeArray *: the threads' copies of the bytecode (3.14t) */
    long ob_type;
    long var_size; /* PyVarObject.ob_size */
    long str_length;
    long str_hash;
    long str_state;        /* a 32-bit bitfield word */
    int str_kind_bit;      /* where in it kind (3 bits), compact and ascii start */
    long str_ascii_size;   /* compact ASCII data follows the PyASCIIObject */
    long str_compact_size; /* other compact data, the PyCompactUnicodeObject */
    long bytes_size;
    long bytes_data;
};

/* The built-in table for 3.MINOR, or NULL when there is none. */
const struct vt_pylayout *vt_pylayout_builtin(int minor);

/* 3.13 and later: the layout from _Py_DebugOffsets at DEBUG_OFFSETS (the
 * start of _PyRuntime) into *OUT, chosen by the version it publishes; each
 * offset read must lie inside the size published for its structure. 0, or
 * -1 with *WHY set when the offsets are missing, of a version without a
 * definition here, or not what that definition expects. */
int vt_pylayout_from_debug_offsets(const void *debug_offsets, struct vt_pylayout *out,
                                   const char **why);

#endif
