/* SPDX-License-Identifier: MIT */
/* The module list in the dump: every loaded object (path, load address,
 * build id), so the CLI can symbolize offline. Lock held. */
#ifndef VRAMTRACE_MODULES_H
#define VRAMTRACE_MODULES_H

#include <stdint.h>

/* Writes a MODULE record for each object loaded since the last call, and a
 * MODULE_UNLOAD record for each written one that is gone, calling FORGET
 * with its address range (cached stacks into it must not be reused: an
 * object loaded at its addresses later is another one). */
typedef void vt_forget_range_fn(uint64_t start, uint64_t end);
int vt_modules_sync(vt_forget_range_fn *forget);

/* Any thread, no lock: how many syncs found objects loaded or unloaded (a
 * new value: look for an object again). */
unsigned vt_modules_generation(void);

/* Any thread, no lock: an object may have been unloaded (dlclose returned). */
void vt_modules_note_unload(void);
/* Lock held: 1 when vt_modules_note_unload() was called since the last sync. */
int vt_modules_unload_pending(void);

/* Forget what was written (a new dump starts, e.g. in a forked child). */
void vt_modules_reset(void);

#endif
