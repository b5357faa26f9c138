/* SPDX-License-Identifier: MIT */
/* Building: what the believed records make. Process facts, modules,
 * stacks, Python frames, threads and devices go into the model (struct
 * vt_dump, kept for the whole read); events go to the sink, in file order,
 * and are not kept. The model's look-ups are in dump_model.h. */
#ifndef VT_DUMP_BUILDING_H
#define VT_DUMP_BUILDING_H

#include "dump_belief.h"
#include "dump_model.h"

/* Puts REC into DUMP or hands it to SINK. What it keeps it takes out of
 * REC (vt_believed_free releases the rest). */
void vt_build(struct vt_dump *dump, const struct vt_event_sink *sink, void *ctx,
              struct vt_believed *rec);

#endif
