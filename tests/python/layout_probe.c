/* Prints the CPython layout vramtrace reads, computed with offsetof from one
 * installed version's internal headers, in the form that
 * pylayout_table prints the tracer's built-in table (tests/test_pylayout.py
 * compares the two). Built per version with -DPy_BUILD_CORE. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <frameobject.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#if PY_VERSION_HEX >= 0x030B0000
#include "internal/pycore_frame.h"
#endif
#if PY_VERSION_HEX >= 0x03090000
#include "internal/pycore_interp.h"
#else
#include "internal/pycore_pystate.h"
#endif
#if PY_VERSION_HEX >= 0x030F0000
#include "internal/pycore_interpframe.h"
#include "internal/pycore_runtime.h"
#include "pyoffsets_315.h"
#define OUR_DEBUG_OFFSETS struct vt_py_debug_offsets_315
#elif PY_VERSION_HEX >= 0x030E0000
#include "internal/pycore_interpframe.h"
#include "internal/pycore_runtime.h"
#include "pyoffsets_314.h"
#define OUR_DEBUG_OFFSETS struct vt_py_debug_offsets_314
#elif PY_VERSION_HEX >= 0x030D0000
#include "internal/pycore_runtime.h"
#include "pyoffsets_313.h"
#define OUR_DEBUG_OFFSETS struct vt_py_debug_offsets_313
#endif
#ifdef Py_GIL_DISABLED
#define FREE_THREADED 1
#else
#define FREE_THREADED 0
#endif

#define FIELD(name, value) printf("%s %ld\n", name, (long)(value))
#define ABSENT(name) printf("%s -1\n", name)

static void thread_and_frame(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    FIELD("interp_running_main", offsetof(PyInterpreterState, threads.main));
#elif PY_VERSION_HEX >= 0x030C0000
    FIELD("interp_running_main", offsetof(PyInterpreterState, threads_main));
#else
    ABSENT("interp_running_main");
#endif
#if PY_VERSION_HEX >= 0x030B0000
    FIELD("interp_threads_head", offsetof(PyInterpreterState, threads.head));
#else
    FIELD("interp_threads_head", offsetof(PyInterpreterState, tstate_head));
#endif
    FIELD("ts_next", offsetof(PyThreadState, next));
    FIELD("ts_interp", offsetof(PyThreadState, interp));
    FIELD("ts_thread_id", offsetof(PyThreadState, thread_id));
    FIELD("free_threaded", FREE_THREADED);
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030D0000 /* read for the script end */
    FIELD("ts_datastack_chunk", offsetof(PyThreadState, datastack_chunk));
    FIELD("ts_datastack_top", offsetof(PyThreadState, datastack_top));
    FIELD("chunk_previous", offsetof(_PyStackChunk, previous));
    FIELD("chunk_data", offsetof(_PyStackChunk, data));
#else
    ABSENT("ts_datastack_chunk");
    ABSENT("ts_datastack_top");
    ABSENT("chunk_previous");
    ABSENT("chunk_data");
#endif
#if PY_VERSION_HEX < 0x030B0000
    FIELD("entry", 0); /* VT_PY_ENTRY_EACH_FRAME */
    ABSENT("frame_is_entry");
    FIELD("ts_frame", offsetof(PyThreadState, frame));
    ABSENT("cframe_current");
    ABSENT("ts_root_cframe");
    FIELD("frame_code", offsetof(PyFrameObject, f_code));
    FIELD("frame_back", offsetof(PyFrameObject, f_back));
    FIELD("frame_instr", offsetof(PyFrameObject, f_lasti));
    ABSENT("frame_owner");
    ABSENT("owner_generator");
    ABSENT("owner_cstack");
#else
#if PY_VERSION_HEX < 0x030C0000
    FIELD("entry", 1); /* VT_PY_ENTRY_FLAG */
    FIELD("frame_is_entry", offsetof(_PyInterpreterFrame, is_entry));
#else
    FIELD("entry", 2); /* VT_PY_ENTRY_SHIM */
    ABSENT("frame_is_entry");
#endif
#if PY_VERSION_HEX < 0x030D0000
    FIELD("ts_frame", offsetof(PyThreadState, cframe));
    FIELD("cframe_current", offsetof(_PyCFrame, current_frame));
    FIELD("ts_root_cframe", offsetof(PyThreadState, root_cframe));
    FIELD("frame_code", offsetof(_PyInterpreterFrame, f_code));
    FIELD("frame_instr", offsetof(_PyInterpreterFrame, prev_instr));
#else
    FIELD("ts_frame", offsetof(PyThreadState, current_frame));
    ABSENT("cframe_current");
    ABSENT("ts_root_cframe");
    FIELD("frame_code", offsetof(_PyInterpreterFrame, f_executable));
    FIELD("frame_instr", offsetof(_PyInterpreterFrame, instr_ptr));
#endif
    FIELD("frame_back", offsetof(_PyInterpreterFrame, previous));
    FIELD("frame_owner", offsetof(_PyInterpreterFrame, owner));
    FIELD("owner_generator", FRAME_OWNED_BY_GENERATOR);
#if PY_VERSION_HEX >= 0x030E0000 /* the first owner of C stack frames: the entry shim */
    FIELD("owner_cstack", FRAME_OWNED_BY_INTERPRETER);
#elif PY_VERSION_HEX >= 0x030C0000
    FIELD("owner_cstack", FRAME_OWNED_BY_CSTACK);
#else
    ABSENT("owner_cstack");
#endif
#endif
#if PY_VERSION_HEX >= 0x030E0000 && defined(Py_GIL_DISABLED)
    FIELD("frame_tlbc_index", offsetof(_PyInterpreterFrame, tlbc_index));
#else
    ABSENT("frame_tlbc_index");
#endif
    FIELD("executable_tagged", PY_VERSION_HEX >= 0x030E0000);
}

static void code(void)
{
    FIELD("code_filename", offsetof(PyCodeObject, co_filename));
    FIELD("code_name", offsetof(PyCodeObject, co_name));
    FIELD("code_firstlineno", offsetof(PyCodeObject, co_firstlineno));
#if PY_VERSION_HEX < 0x030A0000
    FIELD("code_linetable", offsetof(PyCodeObject, co_lnotab));
#else
    FIELD("code_linetable", offsetof(PyCodeObject, co_linetable));
#endif
#if PY_VERSION_HEX >= 0x030B0000
    FIELD("code_qualname", offsetof(PyCodeObject, co_qualname));
    FIELD("code_bytecode", offsetof(PyCodeObject, co_code_adaptive));
    FIELD("code_firsttraceable", offsetof(PyCodeObject, _co_firsttraceable));
#else
    ABSENT("code_qualname");
    ABSENT("code_bytecode");
    ABSENT("code_firsttraceable");
#endif
#if PY_VERSION_HEX >= 0x030E0000 && defined(Py_GIL_DISABLED)
    FIELD("code_tlbc", offsetof(PyCodeObject, co_tlbc));
#else
    ABSENT("code_tlbc");
#endif
}

/* Where the kind bits start in the state word. */
static int kind_bit(void)
{
    PyASCIIObject o;
    unsigned word;
    memset(&o, 0, sizeof o);
    o.state.kind = 1;
    memcpy(&word, (char *)&o + offsetof(PyASCIIObject, state), sizeof word);
    return __builtin_ctz(word);
}

static void objects(void)
{
    FIELD("ob_type", offsetof(PyObject, ob_type));
    FIELD("var_size", offsetof(PyVarObject, ob_size));
    FIELD("str_length", offsetof(PyASCIIObject, length));
    FIELD("str_hash", offsetof(PyASCIIObject, hash));
    FIELD("str_state", offsetof(PyASCIIObject, state));
    FIELD("str_kind_bit", kind_bit());
    FIELD("str_ascii_size", sizeof(PyASCIIObject));
    FIELD("str_compact_size", sizeof(PyCompactUnicodeObject));
    FIELD("bytes_size", offsetof(PyBytesObject, ob_base.ob_size));
    FIELD("bytes_data", offsetof(PyBytesObject, ob_sval));
}

#if PY_VERSION_HEX >= 0x030D0000
/* Our definition of this version's _Py_DebugOffsets against the header's. */
#define SAME(field) \
    printf("debug_offsets." #field " %ld %ld\n", (long)offsetof(_Py_DebugOffsets, field), \
           (long)offsetof(OUR_DEBUG_OFFSETS, field))
static void debug_offsets(void)
{
    printf("debug_offsets.size %ld %ld\n", (long)sizeof(_Py_DebugOffsets),
           (long)sizeof(OUR_DEBUG_OFFSETS));
    SAME(version);
    SAME(free_threaded);
    SAME(runtime_state.finalizing);
    SAME(thread_state.current_frame);
    SAME(thread_state.thread_id);
    SAME(interpreter_frame.previous);
    SAME(interpreter_frame.executable);
    SAME(interpreter_frame.instr_ptr);
    SAME(interpreter_frame.owner);
    SAME(code_object.filename);
    SAME(code_object.name);
    SAME(code_object.qualname);
    SAME(code_object.linetable);
    SAME(code_object.firstlineno);
    SAME(code_object.co_code_adaptive);
    SAME(pyobject.ob_type);
    SAME(bytes_object.ob_size);
    SAME(bytes_object.ob_sval);
    SAME(unicode_object.state);
    SAME(unicode_object.length);
    SAME(unicode_object.asciiobject_size);
#if PY_VERSION_HEX >= 0x030E0000
    SAME(interpreter_frame.tlbc_index);
    SAME(code_object.co_tlbc);
    SAME(gen_object.gi_frame_state);
    SAME(debugger_support.debugger_script_path_size);
#endif
#if PY_VERSION_HEX >= 0x030F0000
    SAME(thread_state.base_frame);
    SAME(thread_state.exc_state);
    SAME(err_stackitem.exc_value);
    SAME(heap_type_object.ht_cached_keys);
    SAME(unicode_object.compactunicodeobject_size);
    SAME(gc.generation_stats);
#endif
}
#endif

int main(void)
{
    printf("version %d.%d\n", PY_MAJOR_VERSION, PY_MINOR_VERSION);
    thread_and_frame();
    code();
    objects();
#if PY_VERSION_HEX >= 0x030D0000
    debug_offsets();
#endif
    return 0;
}
/* SPDX-License-Identifier: MIT */
