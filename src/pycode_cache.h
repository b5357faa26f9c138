/* Python source locations remembered by (code object, instruction offset),
 * so that a stack seen before costs no attribute lookups and no line-table
 * scan. Each entry holds a reference to its code object: the address is
 * never reused for another one and the strings stay valid. Only with the
 * GIL held and the cache taken (vt_pycode_cache_take). */
#ifndef VRAMTRACE_PYCODE_CACHE_H
#define VRAMTRACE_PYCODE_CACHE_H

#include "pystack.h"

/* 1 when this thread now holds the cache, 0 when another one does (then
 * go without it: never wait inside the program's call). */
int vt_pycode_cache_take(void);
void vt_pycode_cache_give(void);

/* In a forked child: the cache is free again (its holder did not fork). */
void vt_pycode_cache_after_fork(void);

/* 1 and OUT filled when CODE at offset LASTI was remembered. */
int vt_pycode_find(const void *code, int lasti, struct vt_pyframe *out);

/* Remembers FRAME's location; the caller gave the entry a new reference to
 * CODE. 0, or -1 when out of memory (then nothing was kept). */
int vt_pycode_remember(const void *code, int lasti, const struct vt_pyframe *frame);

#endif
