/* SPDX-License-Identifier: MIT */
/* The marker signal. Its handler never blocks: it takes the tracer lock
 * only with trylock and writes the mark only into a dump already open;
 * otherwise it counts the mark as pending and the next traced event writes
 * it (with that event's time). */
#include "mark_signal.h"

#include "devices.h"
#include "dispositions.h"
#include "format.h"
#include "output.h"
#include "tracing.h"
#include "warn.h"
#include "writer.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char label[24];   /* "SIGUSR2", "signal 40" */
static int installed;    /* the signal whose handler is ours; 0: none */
static int tried;        /* the environment read, the handler tried */
static unsigned pending; /* atomic: marks not written yet */

static void write_mark(void)
{
    if (vt_output_mark(label) < 0)
        vt_disable_locked("cannot write the dump");
    vt_devices_request(VT_USAGE_MARK); /* the driver is asked at the next traced call */
}

static void on_mark_signal(int sig)
{
    int saved = errno;
    (void)sig;
    if (vt_tracing_started() && vt_trylock() == 0) {
        if (vt_writer_is_open())
            write_mark();
        else
            __atomic_add_fetch(&pending, 1, __ATOMIC_RELAXED);
        vt_unlock();
    } else {
        __atomic_add_fetch(&pending, 1, __ATOMIC_RELAXED);
    }
    errno = saved;
}

void vt_mark_signal_flush(void)
{
    /* a plain load first: every event passes here, a locked exchange costs */
    if (!__atomic_load_n(&pending, __ATOMIC_RELAXED))
        return;
    unsigned n = __atomic_exchange_n(&pending, 0, __ATOMIC_RELAXED);
    while (n-- > 0 && vt_writer_is_open())
        write_mark();
}

static const struct {
    const char *name;
    int number;
} signal_names[] = {
    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"HUP", SIGHUP},       {"WINCH", SIGWINCH},
    {"URG", SIGURG},   {"PROF", SIGPROF}, {"VTALRM", SIGVTALRM},
};

/* The signal SPEC names: >0, 0 for none, -1 when it names no signal. */
static int parse_signal(const char *spec)
{
    char *end;
    long n;
    if (!strcmp(spec, "off"))
        return 0;
    if (!strncmp(spec, "SIG", 3))
        spec += 3;
    for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
        if (!strcmp(spec, signal_names[i].name))
            return signal_names[i].number;
    errno = 0;
    n = strtol(spec, &end, 10);
    if (!*spec || *end || errno || n < 0 || n >= NSIG || n == SIGKILL || n == SIGSTOP)
        return -1;
    return (int)n;
}

static void set_label(int sig)
{
    for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
        if (signal_names[i].number == sig) {
            strcpy(label, "SIG");
            strcat(label, signal_names[i].name);
            return;
        }
    snprintf(label, sizeof label, "signal %d", sig);
}

void vt_mark_signal_install(void)
{
    const char *spec;
    struct sigaction old;
    int sig;
    /* every event passes here: a plain load first, the environment once */
    if (__atomic_load_n(&tried, __ATOMIC_RELAXED) ||
        __atomic_exchange_n(&tried, 1, __ATOMIC_ACQ_REL))
        return;
    spec = getenv("VRAMTRACE_MARK_SIGNAL");
    sig = spec && *spec ? parse_signal(spec) : SIGUSR2;
    if (sig < 0) {
        vt_warn("VRAMTRACE_MARK_SIGNAL=%s names no signal; no marker signal", spec);
        return;
    }
    if (sig == 0)
        return;
    set_label(sig);
    if (vt_dispositions_take(sig, on_mark_signal, &old)) {
        installed = sig;
        return;
    }
    /* the program's own handler stays, and so does an inherited "ignore" */
    if ((old.sa_flags & SA_SIGINFO) || (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN))
        vt_warn("%s has the program's own handler: left to it, no marker signal "
                "(VRAMTRACE_MARK_SIGNAL chooses another)",
                label);
    else if (old.sa_handler == SIG_DFL)
        vt_warn("cannot install the marker signal %d: %s", sig, strerror(errno));
}

void vt_mark_signal_give_back(void)
{
    if (installed)
        vt_dispositions_release(installed, on_mark_signal);
    installed = 0;
    __atomic_store_n(&tried, 0, __ATOMIC_RELEASE);
}
