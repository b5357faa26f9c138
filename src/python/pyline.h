/* SPDX-License-Identifier: MIT */
/* Line numbers from a code object's own line table, decoded as CPython's
 * PyCode_Addr2Line does on each version (Objects/lnotab_notes.txt,
 * Objects/locations.md), without calling it: 3.11 would build a cache in the
 * code object, later versions consult monitoring data other threads change. */
#ifndef VRAMTRACE_PYLINE_H
#define VRAMTRACE_PYLINE_H

#include "pylayout.h"

#include <stdint.h>

/* The line of the instruction at byte offset ADDR, from the line table
 * TABLE (LEN bytes) of a code object starting at FIRSTLINENO; -1 when the
 * table says it has none. A negative ADDR (the frame has not started) is
 * the first line, as in CPython. */
int vt_pyline(enum vt_py_lines format, const uint8_t *table, long len, int firstlineno, long addr);

#endif
