/* The module list in the dump: every loaded object (path, load address,
 * build id), so the CLI can symbolize offline. Lock held. */
#ifndef VRAMTRACE_MODULES_H
#define VRAMTRACE_MODULES_H

/* Writes a MODULE record for each object loaded since the last call. */
int vt_modules_sync(void);

/* Forget what was written (a new dump starts, e.g. in a forked child). */
void vt_modules_reset(void);

#endif
