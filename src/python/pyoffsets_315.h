/* SPDX-License-Identifier: MIT */
/* CPython 3.15's _Py_DebugOffsets (Include/internal/pycore_debug_offsets.h),
 * the first member of _PyRuntime: our own definition of its layout, the
 * same in free-threaded builds (tests/test_pylayout.py checks it against
 * 3.15's header). Against 3.14: thread_state gains base_frame,
 * last_profiled_frame, last_profiled_frame_seq, holds_gil, gil_requested,
 * current_exception and exc_state, type_object tp_basicsize and
 * tp_dictoffset, unicode_object compactunicodeobject_size, gc frame and the
 * generation statistics; err_stackitem and heap_type_object are new. Every
 * group after thread_state moves; the others are 3.14's. */
#ifndef VRAMTRACE_PYOFFSETS_315_H
#define VRAMTRACE_PYOFFSETS_315_H

#include "pyoffsets_314.h"

#include <stdint.h>

struct vt_py_debug_offsets_315 {
    VT_PY_DEBUG_OFFSETS_314_HEAD
    struct {
        uint64_t size, prev, next, interp, current_frame, base_frame, last_profiled_frame,
            last_profiled_frame_seq, thread_id, native_thread_id, datastack_chunk, status,
            holds_gil, gil_requested, current_exception, exc_state;
    } thread_state;
    struct {
        uint64_t exc_value;
    } err_stackitem;
    VT_PY_DEBUG_OFFSETS_314_FRAME_CODE
    struct {
        uint64_t size, tp_name, tp_repr, tp_flags, tp_basicsize, tp_dictoffset;
    } type_object;
    struct {
        uint64_t size, ht_cached_keys;
    } heap_type_object;
    VT_PY_DEBUG_OFFSETS_314_OBJECTS
    struct {
        uint64_t size, state, length, asciiobject_size, compactunicodeobject_size;
    } unicode_object;
    struct {
        uint64_t size, collecting, frame, generation_stats_size, generation_stats;
    } gc;
    VT_PY_DEBUG_OFFSETS_314_TAIL
};

#endif
