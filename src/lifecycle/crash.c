/* SPDX-License-Identifier: MIT */
#include "crash.h"

#include "finish.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

/* Crashes, and what schedulers, terminals and pipes end a program with
 * (time limits: TERM, XCPU; Ctrl-C: INT; a closed terminal: HUP; `| head`:
 * PIPE); each only where the program leaves it to the default action. */
static const int fatal_signals[] = {SIGSEGV, SIGBUS,  SIGILL,  SIGFPE,  SIGABRT, SIGTERM, SIGINT,
                                    SIGHUP,  SIGQUIT, SIGPIPE, SIGXCPU, SIGXFSZ, SIGALRM};

int vt_crash_default_kills(int sig)
{
    struct sigaction now;
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        if (fatal_signals[i] == sig)
            return sigaction(sig, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) &&
                   now.sa_handler == SIG_DFL;
    return 0;
}

/* Writes the footer (vt_finish_from_signal: it never waits on this thread
 * itself), then dies of the same signal with the default action, as it
 * would have without us. */
static void on_fatal_signal(int sig)
{
    int saved = errno;
    struct sigaction dfl;
    vt_finish_from_signal(sig);
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    /* Blocked while this handler runs: delivered, with its default action,
     * as soon as it returns (a faulting instruction is never re-run). */
    raise(sig);
    errno = saved;
}

void vt_crash_install(void)
{
    static int installed;
    if (installed)
        return; /* a forked child inherits the handlers */
    installed = 1;
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction old, ours;
        if (sigaction(fatal_signals[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
            old.sa_handler != SIG_DFL)
            continue; /* the program's own handler (or SIG_IGN) stays in charge */
        memset(&ours, 0, sizeof ours);
        ours.sa_handler = on_fatal_signal;
        sigemptyset(&ours.sa_mask);
        ours.sa_flags = SA_RESTART;
        sigaction(fatal_signals[i], &ours, NULL);
    }
}
