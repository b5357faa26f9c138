/* SPDX-License-Identifier: MIT */
/* NVML's view of a GPU from inside the traced process: how much this
 * process uses there (its context, the libraries' workspaces and what was
 * traced) and the other processes that use it. NVML is loaded on first use
 * (never linked; VRAMTRACE_NVML=0: never); without it, or when it does not
 * list this process (another pid namespace), nothing is filled in. Guard
 * held, tracer lock free. */
#ifndef VRAMTRACE_GPU_VIEW_H
#define VRAMTRACE_GPU_VIEW_H

#include "records.h"

/* Whether the device ID is (read from the driver) is a MIG device, as NVML
 * says: then its flags, its GPU's UUID and name. */
void vt_gpu_view_identify(struct vt_device_identity *id);

/* own_plus1, others_plus1 and others of S for the GPU ID is (a MIG
 * device: that MIG device's). */
void vt_gpu_view_usage(const struct vt_device_identity *id, struct vt_usage_sample *s);

/* own_plus1 and the largest other processes (with their /proc state) of MEM. */
void vt_gpu_view_processes(const struct vt_device_identity *id, struct vt_meminfo *mem);

/* Forked child: the parent's handles are not to be used. */
void vt_gpu_view_reset(void);

#endif
