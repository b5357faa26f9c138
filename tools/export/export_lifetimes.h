/* SPDX-License-Identifier: MIT */
/* The Chrome/Perfetto export's allocation lifetimes. */
#ifndef VT_EXPORT_LIFETIMES_H
#define VT_EXPORT_LIFETIMES_H

#include <stdint.h>

#include "chrome_trace.h"
#include "export.h"

/* Writes E's allocation lifetimes on tracks FIRST_TID, FIRST_TID + 1, ...
 * (reading its dump once more). Returns -1 when the dump cannot be read
 * again (said on stderr). */
int vt_chrome_lifetimes(struct vt_chrome_trace *t, const struct vt_export *e, uint64_t first_tid);

#endif
