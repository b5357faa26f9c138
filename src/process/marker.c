/* SPDX-License-Identifier: MIT */
#include "marker.h"

#include "devices.h"
#include "format.h"
#include "output.h"
#include "tracer.h"

void vt_marker_write(const char *label)
{
    if (!vt_enter())
        return;
    vt_lock();
    if (vt_output_ready() == 0 && vt_output_mark(label ? label : "") < 0)
        vt_disable_locked(NULL); /* the writer said why */
    vt_unlock();
    vt_devices_sample(VT_USAGE_MARK);
    vt_leave();
}
