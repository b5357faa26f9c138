/* SPDX-License-Identifier: MIT */
/* Call sites told apart by the frames a report shows. Two stacks that
 * differ only in frames the report hides or does not print by address (the
 * interpreter's evaluation loop at another return address once it has
 * specialized a call, two calls on one line) are one call site: leaks,
 * growth, peaks and failures are grouped by the first stack read of each. */
#ifndef VT_SHOWN_STACKS_H
#define VT_SHOWN_STACKS_H

#include <stdint.h>

#include "dump_reader.h"
#include "symbolize.h"

struct vt_shown_stacks;

/* For DUMP as it is read: stacks are looked at when first asked for. */
struct vt_shown_stacks *vt_shown_stacks_new(const struct vt_dump *dump);
void vt_shown_stacks_free(struct vt_shown_stacks *s);

/* The first stack read that shows the frames of STACK_ID (STACK_ID itself
 * when none before it did; 0 for 0). A function for
 * vt_analysis.site_stack, CTX the struct vt_shown_stacks. */
uint64_t vt_shown_stack(void *ctx, uint64_t stack_id);

/* Hands over the symbolizer it used, when it knows every module of the
 * dump (else NULL): the caller frees it. */
struct vt_symbolizer *vt_shown_stacks_take_symbolizer(struct vt_shown_stacks *s);

#endif
