/* SPDX-License-Identifier: MIT */
#include "crash.h"

#include "dispositions.h"
#include "finish.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Crashes (__builtin_trap: SIGILL on x86_64, SIGTRAP on aarch64), and what
 * schedulers, terminals and pipes end a program with (time limits: TERM,
 * XCPU; Ctrl-C: INT; a closed terminal: HUP; `| head`: PIPE); each only
 * where the program leaves it to the default action. */
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL,  SIGTRAP, SIGFPE,  SIGABRT, SIGTERM,
                                    SIGINT,  SIGHUP, SIGQUIT, SIGPIPE, SIGXCPU, SIGXFSZ, SIGALRM};

/* Writes the footer (vt_finish_from_signal: it never waits on this thread
 * itself), then dies of the same signal with the default action, as it
 * would have without us. */
static void on_fatal_signal(int sig)
{
    int saved = errno;
    vt_finish_from_signal(sig);
    vt_dispositions_give_back(sig);
    /* Blocked while this handler runs: delivered, with its default action,
     * as soon as it returns (a faulting instruction is never re-run). */
    syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
    errno = saved;
}

static int installed;

void vt_crash_install(void)
{
    if (installed)
        return; /* a forked child inherits the handlers */
    installed = 1;
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction found;
        /* the program's own handler (or SIG_IGN) stays in charge */
        vt_dispositions_take(fatal_signals[i], on_fatal_signal, &found);
    }
}

void vt_crash_give_back(void)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        vt_dispositions_release(fatal_signals[i], on_fatal_signal);
    installed = 0;
}
