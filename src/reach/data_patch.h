/* SPDX-License-Identifier: MIT */
/* Driver functions that the program fetched before attach and keeps in its
 * own static data, as a CUDA runtime linked into it (nvcc's default
 * cudart_static) or loaded (libcudart) keeps the table it fetched through
 * cuGetProcAddress: repointed to our wrappers at attach, put back at detach
 * by vt_got_restore. */
#ifndef VRAMTRACE_DATA_PATCH_H
#define VRAMTRACE_DATA_PATCH_H

#include <stdint.h>

/* In every loaded object but the tracer, the driver and the dynamic linker:
 * each aligned word of its writable data (.data, .bss; not RELRO) that holds
 * exactly an address at which the driver hands out a hooked function
 * (vt_hook_each_real) gets our wrapper of it. Returns how many words. */
int vt_data_patch_loaded(void);

/* 1 when the last vt_data_patch_loaded changed a word in the object loaded
 * at BIAS and left none of the driver's functions there. */
int vt_data_patched_in(uintptr_t bias);

/* 1 when it left one there: an address at which the driver hands out two
 * functions we wrap apart (a name's legacy and per-thread stream variants),
 * or a word the program changed meanwhile. */
int vt_data_left_in(uintptr_t bias);

#endif
