/* SPDX-License-Identifier: MIT */
/* Calls a function nothing defines: resolved lazily at the call, it is the
 * dynamic loader's "symbol lookup error" and exit status 127 (tree.c's
 * "loader" mode). */
void vt_symbol_nobody_defines(void);

void loader_error_call(void);

void loader_error_call(void)
{
    vt_symbol_nobody_defines();
}
