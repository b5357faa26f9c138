/* SPDX-License-Identifier: MIT */
/* Which segments hold traced tensors (format.h's vt_api_in_segment): a
 * framework's allocator asks CUDA for a segment to place the tensor it is
 * making, then its trace says so on the same thread. Those segments are the
 * framework's cache; the growth is their tensors'. */
#ifndef VT_TENSOR_SITES_H
#define VT_TENSOR_SITES_H

#include "live_table.h"
#include "usage_series.h"

/* E entered the live set: a segment remembered in *LAST, or a tensor
 * inside the segment just made on its thread (an expandable segment's new
 * pages: a cuMemCreate handle) marks that segment's site in U. */
void vt_tensor_sites_note(struct vt_live_entry *last, struct vt_usage *u,
                          const struct vt_live_entry *e);

#endif
