/* Accounting one intercepted allocation: which API the program called, the
 * device and context it went to, the stack, then the live table. */
#ifndef VRAMTRACE_ACCOUNT_H
#define VRAMTRACE_ACCOUNT_H

#include "cuda_abi.h"
#include "track.h"

/* info.device value: ask the current context. */
#define VT_DEVICE_OF_CONTEXT (-2)

/* The API the program called: the runtime's, when a runtime wrapper tagged
 * this thread, else DRIVER_API. Marks the tagged call as counted. */
unsigned vt_called_api(unsigned driver_api);

/* A context was destroyed or reset: its address may come back as a context
 * of another device, so cached context devices are stale. Returns RESULT. */
CUresult vt_account_contexts_changed(CUresult result);

/* After a real allocation call returned RESULT: records it (or the failure),
 * then releases the guard taken by vt_enter(). errno is preserved. */
void vt_account_alloc(CUresult result, struct vt_alloc_info info);

/* The stack of a free, captured into BUFFER when free stacks are recorded
 * (VRAMTRACE_FREE_STACKS=1); NULL otherwise. */
const struct vt_stack *vt_account_free_stack(struct vt_stack *buffer);

#endif
