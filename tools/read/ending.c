/* SPDX-License-Identifier: MIT */
#include "ending.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format.h"

static size_t read_small(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "re");
    size_t n = 0;
    if (f) {
        n = fread(buf, 1, size - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
    return n;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
}

/* State and start time (fields 3 and 22) of /proc/PID/stat; false when
 * there is no such process. */
static bool proc_stat(unsigned long long pid, char *state, unsigned long long *ticks)
{
    char path[64], stat[1024];
    snprintf(path, sizeof path, "/proc/%llu/stat", pid);
    if (!read_small(path, stat, sizeof stat))
        return false;
    char *p = strrchr(stat, ')');
    if (!p || p[1] != ' ')
        return false;
    *state = p[2];
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    *ticks = p ? strtoull(p + 1, NULL, 10) : 0;
    return p != NULL;
}

bool vt_proc_start_ticks(long long pid, unsigned long long *ticks)
{
    char state;
    return pid > 0 && proc_stat((unsigned long long)pid, &state, ticks);
}

/* After an exec the pid runs another program: same start time, other exe.
 * True unless /proc says it is another one (or cannot say). */
static bool same_program(unsigned long long pid, const char *exe)
{
    char path[64], now[PATH_MAX];
    snprintf(path, sizeof path, "/proc/%llu/exe", pid);
    ssize_t n = readlink(path, now, sizeof now - 1);
    if (n <= 0 || !exe || !*exe)
        return true;
    now[n] = '\0';
    size_t len = (size_t)n, mark = strlen(" (deleted)"); /* rebuilt while it runs */
    if (len > mark && !strcmp(now + len - mark, " (deleted)"))
        now[len - mark] = '\0';
    return strcmp(now, exe) == 0;
}

enum vt_writer_state vt_writer_state(const struct vt_process *p)
{
    char host[256] = "", boot[64];
    if (!p->present || !p->boot_id || !p->boot_id[0] || !p->start_ticks)
        return VT_WRITER_UNKNOWN;
    gethostname(host, sizeof host - 1);
    if (!p->hostname || strcmp(host, p->hostname) != 0)
        return VT_WRITER_UNKNOWN;
    read_small("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
    trim(boot);
    if (strcmp(boot, p->boot_id) != 0)
        return VT_WRITER_GONE;
    char state;
    unsigned long long ticks;
    if (!proc_stat((unsigned long long)p->pid, &state, &ticks) || ticks != p->start_ticks ||
        state == 'Z' || state == 'X' || !same_program((unsigned long long)p->pid, p->exe))
        return VT_WRITER_GONE;
    return VT_WRITER_ALIVE;
}

struct vt_ending vt_dump_ending(const struct vt_dump *dump)
{
    struct vt_ending e = {.reason = VT_ENDING_UNKNOWN, .writer = VT_WRITER_GONE};
    if (dump->has_footer) {
        switch (dump->end_reason) {
        case VT_END_EXIT:
            e.reason = VT_ENDING_EXIT;
            break;
        case VT_END_SIGNAL:
            e.reason = VT_ENDING_SIGNAL;
            break;
        case VT_END_EXEC:
            e.reason = VT_ENDING_EXEC;
            break;
        case VT_END_UNDERSCORE_EXIT:
            e.reason = VT_ENDING_UNDERSCORE_EXIT;
            break;
        case VT_END_STOPPED:
            e.reason = VT_ENDING_STOPPED;
            break;
        case VT_END_DETACHED:
            e.reason = VT_ENDING_DETACHED;
            break;
        default:
            break; /* a reason from a newer writer */
        }
        e.signal = dump->end_signal;
        e.status = dump->end_status;
        e.reopened = dump->end_reopened;
        return e;
    }
    if (dump->no_records) {
        e.reason = VT_ENDING_EMPTY;
        return e;
    }
    e.writer = vt_writer_state(&dump->process);
    if (e.writer == VT_WRITER_ALIVE)
        e.reason = VT_ENDING_RUNNING;
    return e;
}

struct vt_ending vt_dump_ending_waited(const struct vt_dump *dump, const struct vt_waits *waits)
{
    struct vt_ending e = vt_dump_ending(dump);
    const struct vt_process *p = &dump->process;
    if (e.reason != VT_ENDING_UNKNOWN || !waits || !p->present || !p->start_ticks)
        return e;
    /* the last reaped: a pid that ran several programs ended with the last */
    for (size_t i = waits->n; i-- > 0;)
        if (waits->list[i].pid == (long long)p->pid &&
            waits->list[i].start_ticks == p->start_ticks) {
            e.waited = true;
            e.wait_status = waits->list[i].status;
            break;
        }
    return e;
}

const char *vt_ending_name(enum vt_ending_reason reason)
{
    static const char *const names[] = {
        [VT_ENDING_EXIT] = "exit",         [VT_ENDING_SIGNAL] = "signal",
        [VT_ENDING_EXEC] = "exec",         [VT_ENDING_UNDERSCORE_EXIT] = "_exit",
        [VT_ENDING_RUNNING] = "running",   [VT_ENDING_UNKNOWN] = "unknown",
        [VT_ENDING_STOPPED] = "stopped",   [VT_ENDING_EMPTY] = "empty",
        [VT_ENDING_DETACHED] = "detached",
    };
    return names[reason];
}

bool vt_ending_judges_leaks(const struct vt_ending *e)
{
    return e->reason == VT_ENDING_EXIT || e->reason == VT_ENDING_EXEC ||
           e->reason == VT_ENDING_UNDERSCORE_EXIT;
}

/* glibc's sigabbrev_np, which glibc 2.32 brought: the release wheels are
 * built on glibc 2.28 (manylinux_2_28, pyproject.toml). */
static const char *const signal_abbrevs[] = {
    [SIGHUP] = "HUP",   [SIGINT] = "INT",       [SIGQUIT] = "QUIT", [SIGILL] = "ILL",
    [SIGTRAP] = "TRAP", [SIGABRT] = "ABRT",     [SIGBUS] = "BUS",   [SIGFPE] = "FPE",
    [SIGKILL] = "KILL", [SIGUSR1] = "USR1",     [SIGSEGV] = "SEGV", [SIGUSR2] = "USR2",
    [SIGPIPE] = "PIPE", [SIGALRM] = "ALRM",     [SIGTERM] = "TERM", [SIGSTKFLT] = "STKFLT",
    [SIGCHLD] = "CHLD", [SIGCONT] = "CONT",     [SIGSTOP] = "STOP", [SIGTSTP] = "TSTP",
    [SIGTTIN] = "TTIN", [SIGTTOU] = "TTOU",     [SIGURG] = "URG",   [SIGXCPU] = "XCPU",
    [SIGXFSZ] = "XFSZ", [SIGVTALRM] = "VTALRM", [SIGPROF] = "PROF", [SIGWINCH] = "WINCH",
    [SIGPOLL] = "POLL", [SIGPWR] = "PWR",       [SIGSYS] = "SYS",
};

const char *vt_signal_name(int sig, char *buf)
{
    const char *name = sig > 0 && (size_t)sig < sizeof(signal_abbrevs) / sizeof(signal_abbrevs[0])
                           ? signal_abbrevs[sig]
                           : NULL;
    if (name)
        snprintf(buf, 16, "SIG%s", name);
    else
        snprintf(buf, 16, "signal %d", sig);
    return buf;
}

bool vt_signal_is_termination(int sig)
{
    return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT || sig == SIGPIPE ||
           sig == SIGXCPU || sig == SIGXFSZ || sig == SIGALRM || sig == SIGKILL;
}

/* Why the tracer stopped writing (enum vt_stop_cause). */
static const char *stop_cause(int cause)
{
    switch (cause) {
    case VT_STOP_DISK_FULL:
        return "the dump's filesystem was nearly full (its last part is left to the program)";
    case VT_STOP_DUMP_LOST:
        return "the program took the dump's descriptor and the file could not be found again";
    case VT_STOP_SIZE_LIMIT:
        return "the dump reached the file size limit (ulimit -f)";
    default:
        return "the dump could not grow";
    }
}

/* How a process without a footer ended, from the status it was reaped with. */
static const char *waited_sentence(int status, char *buf, size_t size)
{
    char name[16];
    if (WIFSIGNALED(status))
        snprintf(buf, size,
                 "killed by %s (no footer): what was still allocated is listed as live when it "
                 "was killed, not as leaked",
                 vt_signal_name(WTERMSIG(status), name));
    else
        snprintf(buf, size,
                 "exited with status %d before the tracer's footer was written%s: what was "
                 "still allocated is listed as live at the end of the dump, not as leaked",
                 WEXITSTATUS(status),
                 WEXITSTATUS(status) == 127
                     ? " (the dynamic loader exits so on an error such as 'symbol lookup error': "
                       "see the program's stderr)"
                     : "");
    return buf;
}

const char *vt_ending_sentence(const struct vt_ending *e, char *buf, size_t size)
{
    char name[16];
    switch (e->reason) {
    case VT_ENDING_SIGNAL:
        vt_signal_name(e->signal, name);
        if (vt_signal_is_termination(e->signal))
            snprintf(buf, size,
                     "killed by %s: what was still allocated is listed as live when "
                     "it was killed, not as leaked",
                     name);
        else
            snprintf(buf, size,
                     "crashed with %s: what was still allocated is listed as live "
                     "at the crash, not as leaked",
                     name);
        return buf;
    case VT_ENDING_EXEC:
        snprintf(buf, size,
                 "the process replaced itself with exec: what it still held then "
                 "is listed as leaked");
        return buf;
    case VT_ENDING_UNDERSCORE_EXIT:
        snprintf(buf, size,
                 "the process ended with _exit(%d) (no destructors ran): what it "
                 "still held then is listed as leaked",
                 e->status);
        return buf;
    case VT_ENDING_RUNNING:
        snprintf(buf, size,
                 "still running: what is allocated so far is listed as live, not "
                 "as leaked");
        return buf;
    case VT_ENDING_UNKNOWN:
        if (e->waited)
            return waited_sentence(e->wait_status, buf, size);
        if (e->writer == VT_WRITER_GONE)
            snprintf(buf, size,
                     "gone (no footer): the process ended without saying how (killed by "
                     "SIGKILL or the OOM killer, or exited where the tracer could not see it, "
                     "as the dynamic loader's errors do); what was still allocated is listed "
                     "as live at the end of the dump, not as leaked");
        else
            snprintf(buf, size,
                     "no footer, and this dump cannot tell whether its process still "
                     "runs (written on another host, or by an older vramtrace): what was "
                     "allocated is listed as live, not as leaked");
        return buf;
    case VT_ENDING_STOPPED:
        snprintf(buf, size,
                 "tracing stopped early, the process running on: %s; what was allocated "
                 "then is listed as live, not as leaked",
                 stop_cause(e->status));
        return buf;
    case VT_ENDING_EMPTY:
        snprintf(buf, size, "the process ended before its first record");
        return buf;
    case VT_ENDING_DETACHED:
        snprintf(buf, size,
                 "detached (vramtrace detach), the process running on: what was allocated "
                 "since attach and still held then is listed as live, not as leaked");
        return buf;
    case VT_ENDING_EXIT:
        break;
    }
    return NULL;
}

const char *vt_ending_reopened_sentence(const struct vt_ending *e, char *buf, size_t size)
{
    if (!e->reopened)
        return NULL;
    snprintf(buf, size,
             "the program took the dump's descriptor (closed it, or put a file of its own at its "
             "number) %u time%s; the tracer left that number to the program and went on in "
             "the same dump, found again by its path: nothing was lost",
             e->reopened, e->reopened == 1 ? "" : "s");
    return buf;
}

const char *vt_ending_stop_cause_name(const struct vt_ending *e)
{
    if (e->reason != VT_ENDING_STOPPED)
        return NULL;
    switch (e->status) {
    case VT_STOP_DISK_FULL:
        return "disk_full";
    case VT_STOP_DUMP_LOST:
        return "dump_lost";
    case VT_STOP_SIZE_LIMIT:
        return "size_limit";
    default:
        return "write_error";
    }
}
