/* SPDX-License-Identifier: MIT */
#include "output.h"

#include "format.h"
#include "records.h"
#include "stacks.h"
#include "tracing.h"
#include "warn.h"
#include "writer.h"

#include <stddef.h>

const struct vt_output *vt_output;
static void (*when_ready)(void);
static uint64_t (*live_count)(void);

void vt_output_choose(const struct vt_output *output)
{
    vt_output = output;
}

void vt_output_when_ready(void (*ready)(void))
{
    when_ready = ready;
}

void vt_output_count_live_with(uint64_t (*count)(void))
{
    live_count = count;
}

/* The dump ends here. Where it could not grow, its END says why tracing
 * stopped while the process ran on (never a kill that did not happen). */
static void stop_writing(void)
{
    unsigned cause = vt_writer_stop_cause();
    if (cause)
        vt_rec_end(VT_END_STOPPED, live_count ? live_count() : 0, 0, (int)cause);
    vt_writer_close();
}

void vt_disable_locked(const char *why)
{
    if (vt_tracing_get() != VT_TRACING_READY)
        return;
    if (why)
        vt_warn("%s; tracing stops here", why);
    vt_tracing_set(VT_TRACING_OFF);
    stop_writing();
}

int vt_output_ready(void)
{
    if (vt_tracing_get() != VT_TRACING_READY)
        return -1;
    if (!vt_writer_is_open() && (vt_writer_open(vt_output->header_flags) < 0 ||
                                 vt_rec_process() < 0 || vt_stacks_sync_modules() < 0)) {
        stop_writing();
        vt_tracing_set(VT_TRACING_OFF);
        return -1;
    }
    if (when_ready)
        when_ready();
    return 0;
}

void vt_output_hold_free_call(struct vt_held_field *field)
{
    size_t record_end = vt_thread_state.free_record_end;
    vt_thread_state.free_record_end = 0;
    field->at = NULL;
    if (record_end) /* aggregate mode writes no FREE record */
        vt_writer_hold(record_end - VT_WIDE_BYTES, field);
}

/* The same thread wrote the record, so no lock: its window stays mapped
 * while the field is held, and a fork by another thread meanwhile leaves
 * this thread behind. */
void vt_output_free_took(struct vt_held_field *field, int freed, uint64_t call_ns)
{
    uint8_t wide[VT_WIDE_BYTES];
    if (!field->at)
        return;
    vt_put_wide(wide, call_ns);
    vt_writer_fill(field, freed ? wide : NULL, sizeof wide);
}

int vt_output_mark(const char *label)
{
    return vt_output->before_mark() < 0 || vt_rec_mark(label) < 0 ? -1 : 0;
}

int vt_output_py_finalizing(void)
{
    return vt_output->before_mark() < 0 || vt_rec_py_finalizing() < 0 ? -1 : 0;
}
