/* Accounting one intercepted allocation: which API the program called, the
 * device and context it went to, the stack, then the live table. */
#ifndef VRAMTRACE_ACCOUNT_H
#define VRAMTRACE_ACCOUNT_H

#include "cuda_abi.h"
#include "track.h"

/* info.device values that ask for the device: of the current context; of
 * the context of info.stream (the current one for a default stream). */
#define VT_DEVICE_OF_CONTEXT (-2)
#define VT_DEVICE_OF_STREAM (-3)

/* The API the program called: the runtime's, when a runtime wrapper tagged
 * this thread, else DRIVER_API. Marks the tagged call as counted. */
unsigned vt_called_api(unsigned driver_api);

/* A context or a memory pool was destroyed or reset: its address may come
 * back as one of another device, so cached devices are stale. Returns RESULT. */
CUresult vt_account_owners_changed(CUresult result);

/* After a real allocation call returned RESULT: records it (or the failure),
 * then releases the guard taken by vt_enter(). errno is preserved. */
void vt_account_alloc(CUresult result, struct vt_alloc_info info);

/* The same for an allocation from POOL: the memory lives on the pool's
 * device and belongs to the pool (info.ctx NULL), not to the context. */
void vt_account_pool_alloc(CUresult result, struct vt_alloc_info info, CUmemoryPool pool);

/* The stack of a free, captured into BUFFER when free stacks are recorded
 * (VRAMTRACE_FREE_STACKS=1); NULL otherwise. */
const struct vt_stack *vt_account_free_stack(struct vt_stack *buffer);

#endif
