/* SPDX-License-Identifier: MIT */
#include "tensor_sites.h"

#include "format.h"

void vt_tensor_sites_note(struct vt_analysis *a, const struct vt_live_entry *e)
{
    const struct vt_live_entry *s = &a->last_segment;
    if (!vt_api_in_segment(e->api)) {
        if (vt_kind_counts_as_vram(e->kind))
            a->last_segment = *e;
        return;
    }
    bool inside = s->space == VT_LIVE_HANDLE ||
                  (e->address >= s->address && e->address - s->address < s->size);
    if (s->size && s->tid == e->tid && inside)
        vt_usage_holds_tensors(&a->usage, s->stack_id, s->api, s->kind, s->device);
}
