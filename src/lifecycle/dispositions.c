/* SPDX-License-Identifier: MIT */
/* The signals whose default action the tracer takes over (the fatal ones,
 * for the dump's footer; the marker signal), invisibly: for such a signal
 * the program's sigaction and signal calls see what they would see
 * untraced — its own previous disposition, the default with the flags it
 * found — and a handler it installs replaces ours at once (a crash reporter
 * that chains to the previous handler unless it is SIG_DFL finds SIG_DFL).
 * When the program sets the default action again, the tracer takes the
 * signal back. glibc's own internal changes (system(), abort()) do not pass
 * through here. */
#include "dispositions.h"

#include "resolve.h"
#include "tracing.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef void (*handler_fn)(int);
typedef handler_fn (*signal_fn)(int, handler_fn);

static struct {
    handler_fn wanted;      /* the tracer's handler, or NULL: the signal is never taken */
    int taken;              /* ours is installed now */
    struct sigaction found; /* what the program has there (the default) while taken */
} slots[NSIG];

/* The real ones: sigaction, then the calls that set a handler, each in its
 * own way (glibc's signal is bsd_signal; sysv_signal resets the handler
 * when it runs; sigset can hold a signal), passed on as they are. */
enum { REAL_SIGNAL, REAL_BSD_SIGNAL, REAL_SYSV_SIGNAL, REAL_SIGSET, SIGNAL_CALLS };
static const char *const signal_call_names[SIGNAL_CALLS] = {"signal", "bsd_signal", "sysv_signal",
                                                            "sigset"};
static sigaction_fn real_sigaction_fn;
static signal_fn real_signal_fns[SIGNAL_CALLS];
/* The process these slots describe: a vfork child shares our memory but
 * has dispositions of its own, and passes through untouched. */
static pid_t slots_pid;

/* Looked up while the tracer starts, where a lookup is safe (these calls
 * are async-signal-safe, lookups not); earlier callers look up themselves. */
static int find_reals(void)
{
    if (!real_sigaction_fn)
        real_sigaction_fn = (sigaction_fn)vt_find_real("sigaction");
    for (int i = 0; i < SIGNAL_CALLS; i++)
        if (!real_signal_fns[i])
            real_signal_fns[i] = (signal_fn)vt_find_real(signal_call_names[i]);
    return real_sigaction_fn && real_signal_fns[REAL_SIGNAL] ? 0 : -1;
}

void vt_dispositions_init(void)
{
    find_reals();
    vt_dispositions_after_fork();
}

void vt_dispositions_after_fork(void)
{
    __atomic_store_n(&slots_pid, getpid(), __ATOMIC_RELAXED);
}

static int is_default(const struct sigaction *sa)
{
    return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_DFL;
}

static int ours(int sig)
{
    return sig > 0 && sig < NSIG && slots[sig].wanted &&
           __atomic_load_n(&slots_pid, __ATOMIC_RELAXED) == getpid();
}

/* Installs the tracer's handler for SIG if its action is the default,
 * remembering what the program had there. */
static int take(int sig)
{
    struct sigaction now, handler;
    if (real_sigaction_fn(sig, NULL, &now) != 0 || !is_default(&now))
        return 0;
    slots[sig].found = now;
    memset(&handler, 0, sizeof handler);
    handler.sa_handler = slots[sig].wanted;
    sigemptyset(&handler.sa_mask);
    handler.sa_flags = SA_RESTART;
    if (real_sigaction_fn(sig, &handler, NULL) != 0)
        return 0;
    __atomic_store_n(&slots[sig].taken, 1, __ATOMIC_RELEASE);
    return 1;
}

int vt_dispositions_take(int sig, void (*handler)(int), struct sigaction *found)
{
    memset(found, 0, sizeof *found); /* SIG_DFL where it cannot be asked */
    if (find_reals() < 0 || sig <= 0 || sig >= NSIG || real_sigaction_fn(sig, NULL, found) != 0)
        return 0;
    if (slots[sig].wanted && slots[sig].wanted != handler)
        return 0; /* the tracer's other use of it (the marker on a fatal signal) */
    slots[sig].wanted = handler;
    return take(sig);
}

void vt_dispositions_give_back(int sig)
{
    struct sigaction dfl;
    if (ours(sig)) {
        if (__atomic_exchange_n(&slots[sig].taken, 0, __ATOMIC_ACQ_REL))
            real_sigaction_fn(sig, &slots[sig].found, NULL);
        return;
    }
    /* a vfork child, where the parent's handler was copied: the default */
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    real_sigaction_fn(sig, &dfl, NULL);
}

VT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    struct sigaction before;
    int was_taken;
    if (find_reals() < 0) {
        errno = ENOSYS;
        return -1;
    }
    if (!ours(sig))
        return real_sigaction_fn(sig, act, old);
    was_taken = __atomic_load_n(&slots[sig].taken, __ATOMIC_ACQUIRE);
    if (was_taken)
        before = slots[sig].found;
    if (act) {
        if (real_sigaction_fn(sig, act, was_taken ? NULL : &before) != 0)
            return -1;
        slots[sig].taken = 0;
        if (is_default(act))
            take(sig);
    } else if (!was_taken) {
        return real_sigaction_fn(sig, NULL, old);
    }
    if (old)
        *old = before;
    return 0;
}

/* A handler set through the real CALL: what was there before, as the
 * program would find it untraced. */
static handler_fn set_handler(int call, int sig, handler_fn handler)
{
    handler_fn before;
    int was_taken;
    if (find_reals() < 0 || !real_signal_fns[call]) {
        errno = ENOSYS;
        return SIG_ERR;
    }
    if (!ours(sig))
        return real_signal_fns[call](sig, handler);
    was_taken = __atomic_load_n(&slots[sig].taken, __ATOMIC_ACQUIRE);
    before = real_signal_fns[call](sig, handler);
    if (before == SIG_ERR)
        return SIG_ERR;
    if (was_taken && before == slots[sig].wanted)
        before = slots[sig].found.sa_handler;
    if (handler == SIG_HOLD) /* blocked: the disposition stays as it was */
        return before;
    slots[sig].taken = 0;
    if (handler == SIG_DFL)
        take(sig);
    return before;
}

VT_EXPORT handler_fn signal(int sig, handler_fn handler)
{
    return set_handler(REAL_SIGNAL, sig, handler);
}

VT_EXPORT handler_fn bsd_signal(int sig, handler_fn handler)
{
    return set_handler(REAL_BSD_SIGNAL, sig, handler);
}

VT_EXPORT handler_fn sysv_signal(int sig, handler_fn handler)
{
    return set_handler(REAL_SYSV_SIGNAL, sig, handler);
}

VT_EXPORT handler_fn sigset(int sig, handler_fn handler)
{
    return set_handler(REAL_SIGSET, sig, handler);
}
