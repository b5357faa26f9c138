/* SPDX-License-Identifier: MIT */
#include "output.h"

#include "records.h"
#include "stacks.h"
#include "tracing.h"
#include "warn.h"
#include "writer.h"

#include <stddef.h>

const struct vt_output *vt_output;
static void (*when_ready)(void);

void vt_output_choose(const struct vt_output *output)
{
    vt_output = output;
}

void vt_output_when_ready(void (*ready)(void))
{
    when_ready = ready;
}

void vt_disable_locked(const char *why)
{
    if (vt_tracing_get() != VT_TRACING_READY)
        return;
    if (why)
        vt_warn("%s; tracing stops here", why);
    vt_tracing_set(VT_TRACING_OFF);
    vt_writer_close();
}

int vt_output_ready(void)
{
    if (vt_tracing_get() != VT_TRACING_READY)
        return -1;
    if (!vt_writer_is_open() && (vt_writer_open(vt_output->header_flags) < 0 ||
                                 vt_rec_process() < 0 || vt_stacks_sync_modules() < 0)) {
        vt_writer_close();
        vt_tracing_set(VT_TRACING_OFF);
        return -1;
    }
    if (when_ready)
        when_ready();
    return 0;
}

int vt_output_mark(const char *label)
{
    return vt_output->before_mark() < 0 || vt_rec_mark(label) < 0 ? -1 : 0;
}

int vt_output_py_finalizing(void)
{
    return vt_output->before_mark() < 0 || vt_rec_py_finalizing() < 0 ? -1 : 0;
}
