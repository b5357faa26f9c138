/* SPDX-License-Identifier: MIT */
/* The NVTX injection's two entry points (hooks_nvtx.c: the core's ranges;
 * hooks_nvtx_mem.c: the memory extension) fill their slots only where this
 * says so (the library preloaded; decided once, said once). */
#ifndef VRAMTRACE_NVTX_HOOKS_H
#define VRAMTRACE_NVTX_HOOKS_H

int vt_nvtx_installing(void);

#endif
