/* SPDX-License-Identifier: MIT */
/* Known framework memory: what a framework allocates on purpose and keeps
 * (PyTorch's caching allocator and cuBLAS workspace, CuPy's memory pool,
 * XLA's BFC allocator, NCCL's communicators, CUDA's libraries' handles). A
 * leak one of these patterns matches is labelled with what it is and not
 * counted as leaked. The list is a vt_suppressions whose
 * patterns carry a label; a file adds "known:PATTERN [LABEL]" lines (the
 * pattern as in a suppressions file: no blanks, '*' matches any run). */
#ifndef VT_KNOWN_MEMORY_H
#define VT_KNOWN_MEMORY_H

#include <stddef.h>

#include "suppressions.h"
#include "symbolize.h"

#define VT_KNOWN_ENV "VRAMTRACE_KNOWN"

/* The built-in list, most specific first (the first match wins). */
void vt_known_add_defaults(struct vt_suppressions *k);
/* Adds every pattern of PATH. Returns 0, or -1 after one line on stderr
 * naming the file (and the line, for a line that is not "known:PATTERN"). */
/* The notes of PyTorch's cache as a dump with (TRACED) or without the
 * tensors inside it traced reads. */
void vt_known_tensors_traced(struct vt_suppressions *k, bool traced);

int vt_known_load(struct vt_suppressions *k, const char *path);
/* The known pattern FRAMES match, or NULL: none, or one that says it is the
 * program's own memory (a buffer a framework allocated at its request). */
struct vt_suppression *vt_known_match(struct vt_suppressions *k,
                                      const struct vt_frame *const *frames, size_t n);
/* The built-in entry of an NVTX memory heap's own allocation (a segment its
 * regions lie in), or NULL when K (may be NULL) has not got it. */
struct vt_suppression *vt_known_nvtx_heap(struct vt_suppressions *k);
/* What a framework was doing when FRAMES allocated ("during backward"), or NULL. */
const char *vt_known_during(const struct vt_frame *const *frames, size_t n);

#endif
