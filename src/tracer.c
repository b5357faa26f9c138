#include "tracer.h"

#include "aggregate.h"
#include "crash.h"
#include "devices.h"
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
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
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
}

void vt_unlock(void)
{
    pthread_mutex_unlock(&lock);
}

int vt_trylock(void)
{
    return pthread_mutex_trylock(&lock);
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
        set_state(getauxval(AT_SECURE) ? STATE_OFF : STATE_READY);
}

static void initialize(void)
{
    pthread_mutex_lock(&init_lock);
    if (get_state() == STATE_UNINIT) {
        /* setuid/setgid: a dump of a privileged process is nobody's business. */
        int secure = getauxval(AT_SECURE) != 0;
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
        set_state(secure ? STATE_OFF : STATE_READY);
        if (!secure) {
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
 * calls: it also runs in the fatal-signal handler. */
static void finish_locked(unsigned reason, int sig)
{
    if (get_state() == STATE_READY && vt_writer_is_open()) {
        vt_agg_finish();
        vt_rec_end(reason, vt_track_live_count(), sig);
        vt_writer_close();
    }
    set_state(STATE_FINISHED);
}

void vt_finish_from_signal(int sig)
{
    if (pthread_mutex_trylock(&lock) != 0)
        return; /* held, maybe by this very thread: the dump simply ends unfooted */
    finish_locked(VT_END_SIGNAL, sig);
    pthread_mutex_unlock(&lock);
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
    finish_locked(VT_END_EXIT, 0);
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
