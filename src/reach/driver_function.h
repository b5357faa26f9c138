/* SPDX-License-Identifier: MIT */
/* Driver functions the tracer calls itself (cuCtxGetDevice, cuMemGetInfo...),
 * found where the program's driver is. */
#ifndef VRAMTRACE_DRIVER_FUNCTION_H
#define VRAMTRACE_DRIVER_FUNCTION_H

/* A driver function we do not hook but call ourselves: the next definition,
 * else one in any loaded object, else the driver's own cuGetProcAddress. */
void *vt_driver_function(const char *name);

/* vt_driver_function(NAME), remembered in *SLOT once found; any thread may
 * call it at any time (the slot is read and published atomically). */
void *vt_driver_function_cached(void **slot, const char *name);

/* After a dlclose: the remembered functions whose library is gone are
 * forgotten (found again on next use, if it comes back). */
void vt_driver_functions_forget_unloaded(void);

#endif
