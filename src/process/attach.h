/* SPDX-License-Identifier: MIT */
/* Tracing that begins in a running process (vramtrace attach) and ends
 * while it runs on (detach): the dump's beginning and end. Which calls
 * reach the tracer is the entry points' business (hooks/hooks_attach.c). */
#ifndef VRAMTRACE_ATTACH_H
#define VRAMTRACE_ATTACH_H

/* Opens the dump PATH and writes its ATTACH record: the memory each device
 * held then, and ROUTES (NROUTES sentences) that attaching cannot reach.
 * 0; -1 when this process is not traced (setuid) or the dump could not be
 * written; -2 when it is being traced already. */
int vt_attach_begin(const char *path, const char *const *routes, unsigned nroutes);

/* Finishes the dump with END (VT_END_DETACHED); calls pass through after. */
void vt_attach_end(void);

#endif
