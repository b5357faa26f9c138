/* SPDX-License-Identifier: MIT */
#include "tensor_sites.h"

#include "format.h"

void vt_tensor_sites_note(struct vt_live_entry *last, struct vt_usage *u,
                          const struct vt_live_entry *e)
{
    if (!vt_api_in_segment(e->api)) {
        if (vt_kind_counts_as_vram(e->kind))
            *last = *e;
        return;
    }
    bool inside = last->space == VT_LIVE_HANDLE ||
                  (e->address >= last->address && e->address - last->address < last->size);
    if (last->size && last->tid == e->tid && inside)
        vt_usage_holds_tensors(u, last->stack_id, last->api, last->kind, last->device);
}
