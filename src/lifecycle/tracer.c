#include "tracer.h"

#include "aggregate.h"
#include "coverage.h"
#include "crash.h"
#include "devices.h"
#include "endings.h"
#include "format.h"
#include "mark_signal.h"
#include "modules.h"
#include "pyloc.h"
#include "records.h"
#include "stacks.h"
#include "thread_names.h"
#include "track.h"
#include "writer.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum state {
    STATE_UNINIT,   /* nothing done yet (a hook may run before our constructor) */
    STATE_READY,    /* tracing; the dump is created with the first event */
    STATE_OFF,      /* not tracing: setuid process, or the dump failed */
    STATE_FINISHED, /* exit: the dump is closed, calls pass through */
};

__thread struct vt_thread vt_thread_state __attribute__((tls_model("initial-exec")));

int __cxa_atexit(void (*fn)(void *), void *arg, void *dso_handle); /* glibc's, as C++ uses it */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int state = STATE_UNINIT;
static pid_t lock_owner;        /* the thread holding the lock, 0 if none */

void vt_warn(const char *fmt, ...)
{
    char line[1024] = "vramtrace: ";
    size_t prefix = strlen(line), len;
    va_list ap;
    int saved = errno;
    va_start(ap, fmt);
    vsnprintf(line + prefix, sizeof line - prefix - 1, fmt, ap);
    va_end(ap);
    len = strlen(line);
    line[len++] = '\n';
    if (write(STDERR_FILENO, line, len) < 0) {
        /* nowhere else to say it */
    }
    errno = saved;
}

pid_t vt_tid(void)
{
    if (!vt_thread_state.tid)
        vt_thread_state.tid = (pid_t)syscall(SYS_gettid);
    return vt_thread_state.tid;
}

void vt_lock(void)
{
    pthread_mutex_lock(&lock);
    __atomic_store_n(&lock_owner, vt_tid(), __ATOMIC_RELAXED);
}

void vt_unlock(void)
{
    __atomic_store_n(&lock_owner, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&lock);
}

int vt_trylock(void)
{
    int r = pthread_mutex_trylock(&lock);
    if (r == 0)
        __atomic_store_n(&lock_owner, vt_tid(), __ATOMIC_RELAXED);
    return r;
}

/* The lock, for an ending (a signal handler, _exit): held by another thread,
 * it is waited for up to ~100 ms (that thread is writing one record); held
 * by this one (interrupted inside the tracer), never. 0 when taken. */
static int lock_for_ending(void)
{
    for (int tries = 0; tries < 100; tries++) {
        if (vt_trylock() == 0)
            return 0;
        if (__atomic_load_n(&lock_owner, __ATOMIC_RELAXED) == vt_tid())
            return -1;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return -1;
}

static int get_state(void)
{
    return __atomic_load_n(&state, __ATOMIC_ACQUIRE);
}

static void set_state(int s)
{
    __atomic_store_n(&state, s, __ATOMIC_RELEASE);
}

int vt_tracing_started(void)
{
    return get_state() == STATE_READY;
}

static void before_fork(void)
{
    pthread_mutex_lock(&init_lock);
    pthread_mutex_lock(&lock);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&init_lock);
}

/* run --no-children (VRAMTRACE_ONLY_PID): only that process is traced. */
static int excluded_process(void)
{
    const char *only = getenv("VRAMTRACE_ONLY_PID");
    return only && *only && strtol(only, NULL, 10) != (long)getpid();
}

/* The child keeps its memory but not its parent's dump: it never writes into
 * that file, and starts its own on its first event. */
static void after_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
    pthread_mutex_init(&init_lock, NULL);
    vt_thread_state.tid = 0;
    vt_writer_forget();
    vt_track_reset();
    vt_agg_reset();
    vt_stacks_reset();
    vt_thread_names_reset();
    vt_modules_reset();
    vt_pyloc_after_fork();
    vt_devices_reset();
    if (get_state() == STATE_READY || get_state() == STATE_OFF)
        set_state(getauxval(AT_SECURE) || excluded_process() ? STATE_OFF : STATE_READY);
}

static void initialize(void)
{
    pthread_mutex_lock(&init_lock);
    if (get_state() == STATE_UNINIT) {
        /* setuid/setgid: a dump of a privileged process is nobody's business. */
        int secure = getauxval(AT_SECURE) != 0, off = secure || excluded_process();
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
        vt_endings_init();
        set_state(off ? STATE_OFF : STATE_READY);
        if (!off) {
            vt_agg_configure();
            vt_mark_signal_install();
        }
    }
    pthread_mutex_unlock(&init_lock);
}

int vt_tracing(void)
{
    if (get_state() == STATE_UNINIT)
        initialize();
    return get_state() == STATE_READY;
}

int vt_enter(void)
{
    if (vt_thread_state.busy || !vt_tracing())
        return 0;
    vt_thread_state.busy = 1;
    return 1;
}

void vt_leave(void)
{
    vt_thread_state.busy = 0;
}

void vt_disable_locked(const char *why)
{
    if (get_state() != STATE_READY)
        return;
    if (why)
        vt_warn("%s; tracing stops here", why);
    set_state(STATE_OFF);
    vt_writer_close();
}

int vt_output_ready(void)
{
    if (get_state() != STATE_READY)
        return -1;
    if (!vt_writer_is_open() &&
        (vt_writer_open(vt_agg_enabled() ? VT_FLAG_AGGREGATED : 0) < 0 ||
         vt_rec_process() < 0 || vt_modules_sync() < 0)) {
        vt_writer_close();
        set_state(STATE_OFF);
        return -1;
    }
    vt_crash_install();
    vt_mark_signal_flush();
    return 0;
}

/* The footer and the end of tracing (lock held). Only async-signal-safe
 * calls: it also runs in signal handlers and _exit. */
static void finish_locked(unsigned reason, int sig, int status)
{
    if (get_state() == STATE_READY && vt_writer_is_open()) {
        vt_agg_finish();
        vt_rec_end(reason, vt_track_live_count(), sig, status);
        vt_writer_close();
    }
    set_state(STATE_FINISHED);
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
}

static size_t exec_mark;
static uint64_t exec_time_mark;

int vt_exec_begin(void)
{
    if (!ending_here() || __atomic_load_n(&lock_owner, __ATOMIC_RELAXED) == vt_tid())
        return 0;
    vt_lock();
    if (get_state() != STATE_READY || !vt_writer_is_open()) {
        vt_unlock();
        return 0;
    }
    exec_mark = vt_writer_mark();
    exec_time_mark = vt_rec_last_time();
    vt_agg_finish();
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

__attribute__((constructor)) static void tracer_start(void)
{
    vt_tracing();
}

static void finish_at_exit(void *unused)
{
    int saved = errno;
    (void)unused;
    vt_lock();
    vt_mark_signal_flush();
    if (get_state() == STATE_READY && vt_writer_is_open())
        vt_modules_sync(); /* the unloads since the last stack, in order before END */
    finish_locked(VT_END_EXIT, 0, 0);
    vt_unlock();
    errno = saved;
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
