/* SPDX-License-Identifier: MIT */
/* CPython 3.13's _Py_DebugOffsets (Include/internal/pycore_runtime.h), the
 * first member of _PyRuntime: our own definition of its layout, which
 * changes between minor versions (tests/test_pylayout.py checks it against
 * 3.13's header). Only cookie, version and free_threaded stay put. */
#ifndef VRAMTRACE_PYOFFSETS_313_H
#define VRAMTRACE_PYOFFSETS_313_H

#include <stdint.h>

struct vt_py_debug_offsets_313 {
    char cookie[8];
    uint64_t version;
    uint64_t free_threaded;
    struct {
        uint64_t size, finalizing, interpreters_head;
    } runtime_state;
    struct {
        uint64_t size, id, next, threads_head, gc, imports_modules, sysdict, builtins, ceval_gil,
            gil_runtime_state, gil_runtime_state_enabled, gil_runtime_state_locked,
            gil_runtime_state_holder;
    } interpreter_state;
    struct {
        uint64_t size, prev, next, interp, current_frame, thread_id, native_thread_id,
            datastack_chunk, status;
    } thread_state;
    struct {
        uint64_t size, previous, executable, instr_ptr, localsplus, owner;
    } interpreter_frame;
    struct {
        uint64_t size, filename, name, qualname, linetable, firstlineno, argcount, localsplusnames,
            localspluskinds, co_code_adaptive;
    } code_object;
    struct {
        uint64_t size, ob_type;
    } pyobject;
    struct {
        uint64_t size, tp_name, tp_repr, tp_flags;
    } type_object;
    struct {
        uint64_t size, ob_item, ob_size;
    } tuple_object;
    struct {
        uint64_t size, ob_item, ob_size;
    } list_object;
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
        uint64_t size, state, length, asciiobject_size;
    } unicode_object;
    struct {
        uint64_t size, collecting;
    } gc;
};

#endif
