/* SPDX-License-Identifier: MIT */
/* The devices this process uses: which physical GPU each one is (UUID, PCI
 * bus id, name, total memory: read from the driver once, at the first
 * allocation on it), and the driver's and NVML's view of its memory over
 * time (DEVICE_USAGE records: at that first allocation, after each marker
 * and aggregate-mode sample, before a context is reset or destroyed, at
 * exit). Every driver and NVML call here runs with the thread's guard held
 * and the tracer lock free; the per-allocation cost is one load when
 * nothing is due. */
#ifndef VRAMTRACE_DEVICES_H
#define VRAMTRACE_DEVICES_H

#include "records.h"

/* After a traced allocation on DEVICE in context CTX (guard held, lock free):
 * the first one on a device records it; a sample asked for meanwhile (a
 * marker signal, an aggregate sample) is taken. */
void vt_devices_seen(int device, void *ctx);

/* DEVICE's primary context, as cuDevicePrimaryCtxRetain gave it (NULL:
 * none seen): what its teardown frees, and a context to ask through. */
void vt_devices_set_primary_context(int device, void *ctx);
void *vt_devices_primary_context(int device);

/* A sample of every device in use now (guard held, lock free). */
void vt_devices_sample(unsigned reason);

/* From places that cannot call the driver (a signal handler, under the
 * lock): a sample of REASON at the next traced call. Async-signal-safe. */
void vt_devices_request(unsigned reason);

/* The next traced call's part of vt_devices_request (guard held, lock free). */
extern unsigned vt_devices_pending;
void vt_devices_take_pending(void);
static inline void vt_devices_flush(void)
{
    if (__atomic_load_n(&vt_devices_pending, __ATOMIC_RELAXED))
        vt_devices_take_pending();
}

/* Before context teardown (guard held): a sample of the device of CTX, or
 * with CTX NULL of DEVICE's primary context; afterwards CTX is no longer
 * one to query through. */
void vt_devices_before_teardown(void *ctx, int device);
void vt_devices_context_gone(void *ctx);

/* Around a release of DEVICE's primary context, which destroys it only
 * when it drops the last reference (guard held, lock free): the sample
 * read before into *S (-1: none), written after if it did. */
int vt_devices_before_release(int device, struct vt_usage_sample *s);
void vt_devices_released(struct vt_usage_sample *s);

/* At an out-of-memory error on DEVICE in context CTX (guard held, lock
 * free): NVML's view of the GPU added to MEM (this process's use, the
 * others'). */
void vt_devices_oom_view(int device, void *ctx, struct vt_meminfo *mem);

/* Forked child: no device is known yet (it writes its own dump). */
/* At attach: each device whose primary context is active, its memory as
 * the driver (and NVML) see it now, into OUT (at most MAX); how many. */
unsigned vt_devices_held_now(struct vt_usage_sample *out, unsigned max);

void vt_devices_reset(void);

#endif
