/* SPDX-License-Identifier: MIT */
/* `vramtrace gpus` as text (GPUs, processes, then one line per process that
 * holds memory while running nothing, with the command to end it), JSON, or
 * metrics for Prometheus. */
#ifndef VT_GPUS_RENDER_H
#define VT_GPUS_RENDER_H

#include <stdio.h>

#include "gpus_query.h"

void vt_gpus_render_text(const struct vt_gpus *g, FILE *out);
void vt_gpus_render_json(const struct vt_gpus *g, FILE *out);
/* The metrics exposition (gpus_metrics.c): per GPU its memory, used, and
 * the used split into traced, outside the traced calls, other processes. */
void vt_gpus_render_openmetrics(const struct vt_gpus *g, FILE *out);

#endif
