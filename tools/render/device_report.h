/* SPDX-License-Identifier: MIT */
/* The report's part about the devices themselves: which GPU each one was,
 * and the driver's "used" at the end split into traced live memory, this
 * process's untraced memory and other processes' (tools/analyze/device_view.h). */
#ifndef VT_DEVICE_REPORT_H
#define VT_DEVICE_REPORT_H

#include <stdio.h>

#include "report.h"

struct vt_json;

void vt_render_text_devices(const struct vt_report *r, FILE *out);
/* An out-of-memory autopsy's NVML part: who else held the GPU, and what
 * this process held outside the traced calls. */
void vt_render_text_gpu_processes(const struct vt_failure *f, FILE *out);
void vt_render_json_gpu_processes(const struct vt_failure *f, struct vt_json *j);
/* "devices" and "device_usage", into an object J has open. */
void vt_render_json_devices(const struct vt_report *r, struct vt_json *j);

#endif
