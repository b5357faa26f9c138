/* SPDX-License-Identifier: MIT */
/* Where an intercepted allocation went: the device and context it belongs
 * to, asked of the driver (with the guard held) only when it changed. */
#ifndef VRAMTRACE_OWNER_H
#define VRAMTRACE_OWNER_H

#include "cuda_abi.h"
#include "track.h"

/* info.device values that ask for the device: of the current context; of
 * the context of info.stream (the current one for a default stream). */
#define VT_DEVICE_OF_CONTEXT (-2)
#define VT_DEVICE_OF_STREAM (-3)
/* Not known, and not to be asked (a failure that holds no memory). */
#define VT_DEVICE_UNKNOWN (-1)

/* Sets INFO's context (the current one, or its stream's) and, where
 * INFO->device asks for it, the device of that context. */
void vt_owner_fill(struct vt_alloc_info *info);

/* For an allocation from POOL (RESULT: the driver's answer): the memory
 * lives on the pool's device and belongs to the pool (ctx NULL), not to
 * the context; its kind is the pool's (host or managed where the driver
 * says the pool's memory is, else as given). */
void vt_owner_of_pool(struct vt_alloc_info *info, CUmemoryPool pool, CUresult result);

/* The driver's free/total memory of DEVICE, when it is the current
 * context's device (after an out-of-memory failure). 0, or -1. */
int vt_owner_memory_info(int device, struct vt_meminfo *mem);

/* A context or a memory pool was destroyed or reset: its address may come
 * back as one of another device, so cached devices are stale. Returns RESULT. */
CUresult vt_owners_changed(CUresult result);

#endif
