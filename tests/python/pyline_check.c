/* The tracer's line-table decoder, exported for tests/test_pylayout.py
 * to compare with each interpreter's PyCode_Addr2Line through ctypes. */
#include "pyline.h"

__attribute__((visibility("default"))) int vt_test_pyline(int format, const uint8_t *table,
                                                          long len, int firstlineno, long addr)
{
    return vt_pyline((enum vt_py_lines)format, table, len, firstlineno, addr);
}
/* SPDX-License-Identifier: MIT */
