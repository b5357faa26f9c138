/* SPDX-License-Identifier: MIT */
/* The signals whose default action the tracer takes over (the fatal ones,
 * for the dump's footer; the marker signal), invisibly: for such a signal
 * the program's sigaction and signal calls see what they would see
 * untraced — its own previous disposition, the default with the flags it
 * found — and a handler it installs replaces ours at once (a crash reporter
 * that chains to the previous handler unless it is SIG_DFL finds SIG_DFL).
 * When the program sets the default action again, the tracer takes the
 * signal back. glibc's own internal changes (system(), abort()) do not pass
 * through here, nor does a raw rt_sigaction system call (nor, in an
 * attached process, a pointer to sigaction taken before attach): each call
 * asks the kernel whether ours is still there. At detach each signal goes
 * back to exactly what the program had there, and is never taken again. */
#include "dispositions.h"

#include "elf_symbol.h"
#include "resolve.h"
#include "tracing.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef void (*handler_fn)(int);
typedef handler_fn (*signal_fn)(int, handler_fn);

static struct {
    handler_fn wanted;      /* the tracer's handler, or NULL: the signal is never taken */
    int taken;              /* ours is installed now */
    struct sigaction found; /* what the program has there (the default) while taken */
    int busy;               /* a call is changing or asking it: see lock_slot */
} slots[NSIG];

/* The real ones: sigaction, then the calls that set a handler, each in its
 * own way (glibc's signal is bsd_signal; sysv_signal resets the handler
 * when it runs), passed on as they are. (sigset is made of sigaction and
 * the signal mask below: the mask is blocked while a slot is held.) */
enum { REAL_SIGNAL, REAL_BSD_SIGNAL, REAL_SYSV_SIGNAL, SIGNAL_CALLS };
static const char *const signal_call_names[SIGNAL_CALLS] = {"signal", "bsd_signal", "sysv_signal"};
static sigaction_fn real_sigaction_fn;
static signal_fn real_signal_fns[SIGNAL_CALLS];
/* The process these slots describe: a vfork child shares our memory but
 * has dispositions of its own, and passes through untouched. */
static pid_t slots_pid;

int vt_dispositions_exports(const char *name)
{
    if (vt_str_eq(name, "sigaction") || vt_str_eq(name, "sigset"))
        return 1;
    for (int i = 0; i < SIGNAL_CALLS; i++)
        if (vt_str_eq(name, signal_call_names[i]))
            return 1;
    return 0;
}

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
    /* the only thread now: a slot another thread held at the fork is free */
    for (int sig = 1; sig < NSIG; sig++)
        __atomic_store_n(&slots[sig].busy, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&slots_pid, getpid(), __ATOMIC_RELAXED);
}

/* One call at a time on a signal the tracer takes: the slot and the
 * kernel's disposition change together (else a query between a program's
 * SIG_DFL and the tracer taking the signal back answers the tracer's
 * handler). Every signal is blocked while it is held, so a handler that
 * calls sigaction never waits on its own thread; *SAVED: the mask before. */
static void lock_slot(int sig, sigset_t *saved)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, saved);
    while (__atomic_exchange_n(&slots[sig].busy, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void unlock_slot(int sig, const sigset_t *saved)
{
    __atomic_store_n(&slots[sig].busy, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, saved, NULL);
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
    if (!slots[sig].wanted || real_sigaction_fn(sig, NULL, &now) != 0 || !is_default(&now))
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

/* vt_dispositions_take with SIG's slot held. */
static int take_held(int sig, void (*handler)(int), struct sigaction *found)
{
    if (real_sigaction_fn(sig, NULL, found) != 0)
        return 0;
    if (slots[sig].wanted && slots[sig].wanted != handler)
        return 0; /* the tracer's other use of it (the marker on a fatal signal) */
    slots[sig].wanted = handler;
    return take(sig);
}

int vt_dispositions_take(int sig, void (*handler)(int), struct sigaction *found)
{
    sigset_t saved;
    memset(found, 0, sizeof *found); /* SIG_DFL where it cannot be asked */
    if (find_reals() < 0 || sig <= 0 || sig >= NSIG)
        return 0;
    lock_slot(sig, &saved);
    int taken = take_held(sig, handler, found);
    unlock_slot(sig, &saved);
    return taken;
}

/* The kernel's own struct sigaction, where its layout is known: what the
 * program had there goes back byte for byte (glibc's sigaction would add
 * SA_RESTORER to flags the program read back without it). */
#if defined(__x86_64__) || defined(__aarch64__)
struct kernel_action {
    handler_fn handler;
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

static void put_back(int sig)
{
    const struct sigaction *found = &slots[sig].found;
    struct kernel_action k = {found->sa_handler, (unsigned long)found->sa_flags, found->sa_restorer,
                              0};
    memcpy(&k.mask, &found->sa_mask, sizeof k.mask);
    syscall(SYS_rt_sigaction, sig, &k, NULL, sizeof k.mask);
}
#else
static void put_back(int sig)
{
    real_sigaction_fn(sig, &slots[sig].found, NULL);
}
#endif

/* Ours is what SIG does now: taken, and no call that passed us by (a raw
 * system call, a pointer to libc's sigaction) has set another. */
static int still_taken(int sig)
{
    struct sigaction now;
    return __atomic_load_n(&slots[sig].taken, __ATOMIC_ACQUIRE) &&
           real_sigaction_fn(sig, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) &&
           now.sa_handler == slots[sig].wanted;
}

void vt_dispositions_give_back(int sig)
{
    struct sigaction dfl;
    sigset_t saved;
    if (ours(sig)) {
        lock_slot(sig, &saved);
        if (__atomic_exchange_n(&slots[sig].taken, 0, __ATOMIC_ACQ_REL))
            put_back(sig);
        unlock_slot(sig, &saved);
        return;
    }
    /* a vfork child, where the parent's handler was copied: the default */
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    real_sigaction_fn(sig, &dfl, NULL);
}

void vt_dispositions_release(int sig, void (*handler)(int))
{
    sigset_t saved;
    if (!ours(sig) || slots[sig].wanted != handler)
        return;
    lock_slot(sig, &saved);
    if (still_taken(sig))
        put_back(sig);
    slots[sig].taken = 0;
    slots[sig].wanted = NULL; /* the program's calls pass through from now on */
    unlock_slot(sig, &saved);
}

/* sigaction on a signal the tracer takes, its slot held. */
static int sigaction_held(int sig, const struct sigaction *act, struct sigaction *old)
{
    struct sigaction before;
    int was_taken = still_taken(sig);
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

/* sigaction as the program sees it (sigset's too: the tracer calls no
 * exported name of its own). */
static int program_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    sigset_t saved;
    if (find_reals() < 0) {
        errno = ENOSYS;
        return -1;
    }
    if (!ours(sig))
        return real_sigaction_fn(sig, act, old);
    lock_slot(sig, &saved);
    int rc = sigaction_held(sig, act, old);
    int err = errno;
    unlock_slot(sig, &saved);
    errno = err;
    return rc;
}

VT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return program_sigaction(sig, act, old);
}

/* set_handler on a signal the tracer takes, its slot held. */
static handler_fn set_handler_held(int call, int sig, handler_fn handler)
{
    int was_taken = still_taken(sig);
    handler_fn before = real_signal_fns[call](sig, handler);
    if (before == SIG_ERR)
        return SIG_ERR;
    if (was_taken && before == slots[sig].wanted)
        before = slots[sig].found.sa_handler;
    slots[sig].taken = 0;
    if (handler == SIG_DFL)
        take(sig);
    return before;
}

/* A handler set through the real CALL: what was there before, as the
 * program would find it untraced. */
static handler_fn set_handler(int call, int sig, handler_fn handler)
{
    sigset_t saved;
    if (find_reals() < 0 || !real_signal_fns[call]) {
        errno = ENOSYS;
        return SIG_ERR;
    }
    if (!ours(sig))
        return real_signal_fns[call](sig, handler);
    lock_slot(sig, &saved);
    handler_fn before = set_handler_held(call, sig, handler);
    int err = errno;
    unlock_slot(sig, &saved);
    errno = err;
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

/* System V's sigset, as POSIX has it: SIG_HOLD blocks SIG and leaves its
 * disposition; anything else sets it (no flags, no mask) and unblocks SIG.
 * The previous disposition, or SIG_HOLD where SIG was blocked. */
VT_EXPORT handler_fn sigset(int sig, handler_fn handler)
{
    struct sigaction act, before;
    sigset_t one, mask_before;
    if (sig <= 0 || sig >= NSIG || handler == SIG_ERR) {
        errno = EINVAL;
        return SIG_ERR;
    }
    sigemptyset(&one);
    sigaddset(&one, sig);
    if (handler == SIG_HOLD) {
        if (sigprocmask(SIG_BLOCK, &one, &mask_before) != 0)
            return SIG_ERR;
        if (sigismember(&mask_before, sig))
            return SIG_HOLD;
        return program_sigaction(sig, NULL, &before) != 0 ? SIG_ERR : before.sa_handler;
    }
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    sigemptyset(&act.sa_mask);
    if (program_sigaction(sig, &act, &before) != 0 ||
        sigprocmask(SIG_UNBLOCK, &one, &mask_before) != 0)
        return SIG_ERR;
    return sigismember(&mask_before, sig) ? SIG_HOLD : before.sa_handler;
}
