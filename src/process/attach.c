/* SPDX-License-Identifier: MIT */
#include "attach.h"

#include "announce.h"
#include "config.h"
#include "crash.h"
#include "devices.h"
#include "finish.h"
#include "mark_signal.h"
#include "output.h"
#include "records.h"
#include "tracer.h"
#include "writer.h"

#define HELD_DEVICES 16

/* The memory held before attach, read with the guard taken: the driver
 * calls made for it are the tracer's, never the program's. */
static unsigned held_before(struct vt_usage_sample *held)
{
    unsigned n;
    int was_busy = vt_thread_state.busy;
    vt_thread_state.busy = 1;
    n = vt_devices_held_now(held, HELD_DEVICES);
    vt_thread_state.busy = was_busy;
    return n;
}

int vt_attach_begin(const char *path, const char *const *routes, unsigned nroutes)
{
    struct vt_usage_sample held[HELD_DEVICES];
    unsigned nheld;
    int result = 0;
    if (!vt_tracer_start() && !vt_tracer_restart())
        return -1;
    vt_lock();
    if (vt_writer_is_open())
        result = -2;
    vt_unlock();
    if (result)
        return result;
    vt_config_set_output(path);
    vt_announce_silence();
    nheld = held_before(held);
    vt_lock();
    if (vt_output_ready() < 0 || vt_rec_attach(held, nheld, routes, nroutes) < 0) {
        vt_disable_locked(NULL);
        result = -1;
    }
    vt_unlock();
    return result;
}

void vt_attach_end(void)
{
    vt_finish_detached();
    vt_mark_signal_give_back();
    vt_crash_give_back();
}
