/* SPDX-License-Identifier: MIT */
#include "tracer.h"

#include "aggregate.h"
#include "config.h"
#include "crash.h"
#include "devices.h"
#include "dispositions.h"
#include "endings.h"
#include "events.h"
#include "finish.h"
#include "graphs.h"
#include "hook_table.h"
#include "mark_signal.h"
#include "modules.h"
#include "output.h"
#include "pyloc.h"
#include "phase_names.h"
#include "pystack.h"
#include "stacks.h"
#include "thread_names.h"
#include "track.h"
#include "warn.h"
#include "writer.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

int __cxa_atexit(void (*fn)(void *), void *arg, void *dso_handle); /* glibc's, as C++ uses it */

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

static void before_fork(void)
{
    pthread_mutex_lock(&init_lock);
    vt_lock();
}

static void after_fork_parent(void)
{
    vt_unlock();
    pthread_mutex_unlock(&init_lock);
}

/* run --no-children (VRAMTRACE_ONLY_PID): only that process is traced. */
static int excluded_process(void)
{
    const char *only = getenv("VRAMTRACE_ONLY_PID");
    return only && *only && strtol(only, NULL, 10) != (long)getpid();
}

/* What one dump knew (its live table, the stacks and modules it wrote),
 * forgotten for the next dump. */
static void forget_dump(void)
{
    vt_track_reset();
    vt_graphs_reset();
    vt_agg_reset();
    vt_stacks_reset();
    vt_thread_names_reset();
    vt_phase_names_reset();
    vt_modules_reset();
    vt_pyloc_after_fork();
    vt_pystack_after_fork();
    vt_devices_reset();
}

/* The child keeps its memory but not its parent's dump: it never writes into
 * that file, and starts its own on its first event. */
static void after_fork_child(void)
{
    enum vt_tracing_state state = vt_tracing_get();
    vt_lock_after_fork_child();
    pthread_mutex_init(&init_lock, NULL);
    vt_dispositions_after_fork();
    vt_writer_forget();
    forget_dump();
    if (state == VT_TRACING_READY || state == VT_TRACING_OFF)
        vt_tracing_set(getauxval(AT_SECURE) || excluded_process() ? VT_TRACING_OFF
                                                                  : VT_TRACING_READY);
}

/* Each time an event finds the dump open (lock held): the fatal-signal
 * handlers once it exists, the marker signal's if no lookup installed it
 * (both once: a forked child inherits them; again after a detach gave them
 * back), and the marks whose signal found the lock busy. */
static void dump_ready(void)
{
    vt_crash_install();
    vt_mark_signal_install();
    vt_mark_signal_flush();
}

/* A lookup handed out a wrapper: the process uses CUDA, and from now on the
 * marker signal is ours (tracer.h). */
static void cuda_used(void)
{
    if (vt_tracing_get() == VT_TRACING_READY)
        vt_mark_signal_install();
}

static void initialize(void)
{
    pthread_mutex_lock(&init_lock);
    if (vt_tracing_get() == VT_TRACING_UNINIT) {
        /* setuid/setgid: a dump of a privileged process is nobody's business. */
        int secure = getauxval(AT_SECURE) != 0, off = secure || excluded_process();
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
        vt_stderr_start();
        vt_endings_init();
        vt_dispositions_init();
        if (!off)
            vt_config_remember_start_dir();
        vt_output_choose(!off && vt_agg_configure() ? &vt_output_aggregate : &vt_output_events);
        vt_output_when_ready(dump_ready);
        vt_output_count_live_with(vt_track_live_count);
        if (!off)
            vt_stacks_init();
        vt_tracing_set(off ? VT_TRACING_OFF : VT_TRACING_READY);
        if (!off)
            vt_hook_table_when_used(cuda_used);
    }
    pthread_mutex_unlock(&init_lock);
}

int vt_tracer_start(void)
{
    if (vt_tracing_get() == VT_TRACING_UNINIT)
        initialize();
    return vt_tracing_started();
}

int vt_tracer_restart(void)
{
    enum vt_tracing_state state;
    int restarted = 0;
    vt_lock();
    state = vt_tracing_get();
    if ((state == VT_TRACING_FINISHED || state == VT_TRACING_OFF) && !getauxval(AT_SECURE) &&
        !excluded_process()) {
        forget_dump();
        vt_tracing_set(VT_TRACING_READY);
        restarted = 1;
    }
    vt_unlock();
    return restarted;
}

__attribute__((constructor)) static void tracer_start(void)
{
    vt_tracer_start();
}

static void finish_at_exit(void *unused)
{
    (void)unused;
    vt_finish_at_exit();
}

/* Runs after the program's atexit handlers but before the destructors of
 * the libraries loaded after us, which may still free CUDA memory. An exit
 * handler registered from here runs once every destructor is done (glibc
 * restarts its exit-handler list when one is added): the footer is written
 * then. Where that is refused (not inside exit), it is written now. */
__attribute__((destructor)) static void tracer_finish(void)
{
    if (__cxa_atexit(finish_at_exit, NULL, NULL) != 0)
        finish_at_exit(NULL);
}
