/* The module list in the dump: every loaded object (path, load address,
 * build id), so the CLI can symbolize offline. Lock held. */
#ifndef VRAMTRACE_MODULES_H
#define VRAMTRACE_MODULES_H

/* Writes a MODULE record for each object loaded since the last call, and a
 * MODULE_UNLOAD record for each written one that is gone (its cached stacks
 * are forgotten: an object loaded at its addresses later is another one). */
int vt_modules_sync(void);

/* Any thread, no lock: an object may have been unloaded (dlclose returned). */
void vt_modules_note_unload(void);
/* Lock held: 1 when vt_modules_note_unload() was called since the last sync. */
int vt_modules_unload_pending(void);

/* Forget what was written (a new dump starts, e.g. in a forked child). */
void vt_modules_reset(void);

#endif
