/* SPDX-License-Identifier: MIT */
/* Events mode (the default): one ALLOC or FREE record per call. */
#ifndef VRAMTRACE_EVENTS_H
#define VRAMTRACE_EVENTS_H

#include "output.h"

extern const struct vt_output vt_output_events;

#endif
