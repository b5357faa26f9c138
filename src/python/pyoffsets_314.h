/* SPDX-License-Identifier: MIT */
/* CPython 3.14's _Py_DebugOffsets (Include/internal/pycore_debug_offsets.h),
 * the first member of _PyRuntime: our own definition of its layout, the
 * same in free-threaded builds (tests/test_pylayout.py checks it against
 * 3.14's header). Against 3.13: interpreter_state gains threads_main,
 * code_object_generation and tlbc_generation, interpreter_frame
 * stackpointer and tlbc_index, code_object co_tlbc; set_object, gen_object,
 * llist_node and debugger_support are new. */
#ifndef VRAMTRACE_PYOFFSETS_314_H
#define VRAMTRACE_PYOFFSETS_314_H

#include <stdint.h>

/* Groups that 3.15 keeps as they are (pyoffsets_315.h). */
#define VT_PY_DEBUG_OFFSETS_314_HEAD                                                       \
    char cookie[8];                                                                        \
    uint64_t version;                                                                      \
    uint64_t free_threaded;                                                                \
    struct {                                                                               \
        uint64_t size, finalizing, interpreters_head;                                      \
    } runtime_state;                                                                       \
    struct {                                                                               \
        uint64_t size, id, next, threads_head, threads_main, gc, imports_modules, sysdict, \
            builtins, ceval_gil, gil_runtime_state, gil_runtime_state_enabled,             \
            gil_runtime_state_locked, gil_runtime_state_holder, code_object_generation,    \
            tlbc_generation;                                                               \
    } interpreter_state;
#define VT_PY_DEBUG_OFFSETS_314_FRAME_CODE                                               \
    struct {                                                                             \
        uint64_t size, previous, executable, instr_ptr, localsplus, owner, stackpointer, \
            tlbc_index;                                                                  \
    } interpreter_frame;                                                                 \
    struct {                                                                             \
        uint64_t size, filename, name, qualname, linetable, firstlineno, argcount,       \
            localsplusnames, localspluskinds, co_code_adaptive, co_tlbc;                 \
    } code_object;                                                                       \
    struct {                                                                             \
        uint64_t size, ob_type;                                                          \
    } pyobject;
#define VT_PY_DEBUG_OFFSETS_314_OBJECTS    \
    struct {                               \
        uint64_t size, ob_item, ob_size;   \
    } tuple_object;                        \
    struct {                               \
        uint64_t size, ob_item, ob_size;   \
    } list_object;                         \
    struct {                               \
        uint64_t size, used, table, mask;  \
    } set_object;                          \
    struct {                               \
        uint64_t size, ma_keys, ma_values; \
    } dict_object;                         \
    struct {                               \
        uint64_t size, ob_fval;            \
    } float_object;                        \
    struct {                               \
        uint64_t size, lv_tag, ob_digit;   \
    } long_object;                         \
    struct {                               \
        uint64_t size, ob_size, ob_sval;   \
    } bytes_object;
#define VT_PY_DEBUG_OFFSETS_314_TAIL                                                \
    struct {                                                                        \
        uint64_t size, gi_name, gi_iframe, gi_frame_state;                          \
    } gen_object;                                                                   \
    struct {                                                                        \
        uint64_t next, prev;                                                        \
    } llist_node;                                                                   \
    struct {                                                                        \
        uint64_t eval_breaker, remote_debugger_support, remote_debugging_enabled,   \
            debugger_pending_call, debugger_script_path, debugger_script_path_size; \
    } debugger_support;

struct vt_py_debug_offsets_314 {
    VT_PY_DEBUG_OFFSETS_314_HEAD
    struct {
        uint64_t size, prev, next, interp, current_frame, thread_id, native_thread_id,
            datastack_chunk, status;
    } thread_state;
    VT_PY_DEBUG_OFFSETS_314_FRAME_CODE
    struct {
        uint64_t size, tp_name, tp_repr, tp_flags;
    } type_object;
    VT_PY_DEBUG_OFFSETS_314_OBJECTS
    struct {
        uint64_t size, state, length, asciiobject_size;
    } unicode_object;
    struct {
        uint64_t size, collecting;
    } gc;
    VT_PY_DEBUG_OFFSETS_314_TAIL
};

#endif
