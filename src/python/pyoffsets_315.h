/* SPDX-License-Identifier: MIT */
/* CPython 3.15's _Py_DebugOffsets (Include/internal/pycore_debug_offsets.h),
 * the first member of _PyRuntime: our own definition of its layout, the
 * same in free-threaded builds (tests/test_pylayout.py checks it against
 * 3.15's header). Against 3.14: thread_state gains base_frame,
 * last_profiled_frame, last_profiled_frame_seq, holds_gil, gil_requested,
 * current_exception and exc_state, type_object tp_basicsize and
 * tp_dictoffset, unicode_object compactunicodeobject_size, gc frame and the
 * generation statistics; err_stackitem and heap_type_object are new. Every
 * group after thread_state moves. */
#ifndef VRAMTRACE_PYOFFSETS_315_H
#define VRAMTRACE_PYOFFSETS_315_H

#include <stdint.h>

struct vt_py_debug_offsets_315 {
    char cookie[8];
    uint64_t version;
    uint64_t free_threaded;
    struct {
        uint64_t size, finalizing, interpreters_head;
    } runtime_state;
    struct {
        uint64_t size, id, next, threads_head, threads_main, gc, imports_modules, sysdict, builtins,
            ceval_gil, gil_runtime_state, gil_runtime_state_enabled, gil_runtime_state_locked,
            gil_runtime_state_holder, code_object_generation, tlbc_generation;
    } interpreter_state;
    struct {
        uint64_t size, prev, next, interp, current_frame, base_frame, last_profiled_frame,
            last_profiled_frame_seq, thread_id, native_thread_id, datastack_chunk, status,
            holds_gil, gil_requested, current_exception, exc_state;
    } thread_state;
    struct {
        uint64_t exc_value;
    } err_stackitem;
    struct {
        uint64_t size, previous, executable, instr_ptr, localsplus, owner, stackpointer, tlbc_index;
    } interpreter_frame;
    struct {
        uint64_t size, filename, name, qualname, linetable, firstlineno, argcount, localsplusnames,
            localspluskinds, co_code_adaptive, co_tlbc;
    } code_object;
    struct {
        uint64_t size, ob_type;
    } pyobject;
    struct {
        uint64_t size, tp_name, tp_repr, tp_flags, tp_basicsize, tp_dictoffset;
    } type_object;
    struct {
        uint64_t size, ht_cached_keys;
    } heap_type_object;
    struct {
        uint64_t size, ob_item, ob_size;
    } tuple_object;
    struct {
        uint64_t size, ob_item, ob_size;
    } list_object;
    struct {
        uint64_t size, used, table, mask;
    } set_object;
    struct {
        uint64_t size, ma_keys, ma_values;
    } dict_object;
    struct {
        uint64_t size, ob_fval;
    } float_object;
    struct {
        uint64_t size, lv_tag, ob_digit;
    } long_object;
    struct {
        uint64_t size, ob_size, ob_sval;
    } bytes_object;
    struct {
        uint64_t size, state, length, asciiobject_size, compactunicodeobject_size;
    } unicode_object;
    struct {
        uint64_t size, collecting, frame, generation_stats_size, generation_stats;
    } gc;
    struct {
        uint64_t size, gi_name, gi_iframe, gi_frame_state;
    } gen_object;
    struct {
        uint64_t next, prev;
    } llist_node;
    struct {
        uint64_t eval_breaker, remote_debugger_support, remote_debugging_enabled,
            debugger_pending_call, debugger_script_path, debugger_script_path_size;
    } debugger_support;
};

#endif
