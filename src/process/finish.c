/* SPDX-License-Identifier: MIT */
#include "finish.h"

#include "announce.h"
#include "coverage.h"
#include "format.h"
#include "mark_signal.h"
#include "output.h"
#include "records.h"
#include "stacks.h"
#include "tracing.h"
#include "track.h"
#include "writer.h"

#include <errno.h>
#include <time.h>

/* The lock, for an ending (a signal handler, _exit): held by another thread,
 * it is waited for up to ~100 ms (that thread is writing one record); held
 * by this one (interrupted inside the tracer), never. 0 when taken. */
static int lock_for_ending(void)
{
    for (int tries = 0; tries < 100; tries++) {
        if (vt_trylock() == 0)
            return 0;
        if (vt_lock_held_here())
            return -1;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return -1;
}

/* The footer and the end of tracing (lock held). Only async-signal-safe
 * calls: it also runs in signal handlers and _exit. */
static void finish_locked(unsigned reason, int sig, int status)
{
    if (vt_tracing_get() == VT_TRACING_READY && vt_writer_is_open()) {
        vt_output->finish();
        vt_rec_end(reason, vt_track_live_count(), sig, status);
        vt_writer_close();
    }
    vt_tracing_set(VT_TRACING_FINISHED);
    vt_coverage_write(); /* the process may end without the coverage runtime's own */
}

/* An ending in this process (not a vfork child sharing its memory) that
 * has a dump to finish. */
static int ending_here(void)
{
    return vt_tracing_started() && vt_writer_owned_here();
}

void vt_finish_from_signal(int sig)
{
    if (!ending_here() || lock_for_ending() != 0)
        return; /* the dump simply ends unfooted */
    finish_locked(VT_END_SIGNAL, sig, 0);
    vt_unlock();
}

void vt_finish_underscore_exit(int status)
{
    if (!ending_here() || lock_for_ending() != 0)
        return;
    finish_locked(VT_END_UNDERSCORE_EXIT, 0, status);
    vt_unlock();
    vt_announce_ending();
}

static size_t exec_mark;
static uint64_t exec_time_mark;

int vt_exec_begin(void)
{
    if (!ending_here() || vt_lock_held_here())
        return 0;
    vt_lock();
    if (vt_tracing_get() != VT_TRACING_READY || !vt_writer_is_open()) {
        vt_unlock();
        return 0;
    }
    exec_mark = vt_writer_mark();
    exec_time_mark = vt_rec_last_time();
    vt_output->finish();
    vt_rec_end(VT_END_EXEC, vt_track_live_count(), 0, 0);
    vt_coverage_write();
    return 1;
}

void vt_exec_failed(void)
{
    vt_writer_rewind(exec_mark);
    vt_rec_rewind_time(exec_time_mark);
    vt_unlock();
}

void vt_finish_detached(void)
{
    vt_lock();
    vt_mark_signal_flush();
    if (vt_tracing_get() == VT_TRACING_READY && vt_writer_is_open())
        vt_stacks_sync_modules();
    finish_locked(VT_END_DETACHED, 0, 0);
    vt_unlock();
}

void vt_finish_at_exit(void)
{
    int saved = errno;
    vt_lock();
    vt_mark_signal_flush();
    if (vt_tracing_get() == VT_TRACING_READY && vt_writer_is_open())
        vt_stacks_sync_modules(); /* the unloads since the last stack, in order before END */
    finish_locked(VT_END_EXIT, 0, 0);
    vt_unlock();
    vt_announce_ending();
    errno = saved;
}
