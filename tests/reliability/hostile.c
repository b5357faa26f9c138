/* SPDX-License-Identifier: MIT */
/* What hostile but ordinary programs do with their descriptors and signals,
 * each run traced and untraced by tests/test_hostile_signals.py. Modes (argv[1]):
 *   closefrom IN OUT  closes every descriptor from 3 on, opens IN (3) and OUT
 *                     (4), allocates from a SIGUSR1 handler (the stack passes
 *                     through a signal frame: libunwind walks it), copies IN to
 *                     OUT and prints what it read
 *   files             opens /dev/null until refused; prints how many (no CUDA)
 *   chain             uses CUDA, then installs a SIGTERM handler that calls the
 *                     previous one unless it is SIG_DFL or SIG_IGN, sends itself
 *                     SIGTERM and shuts down gracefully (exit 0)
 *   queries           uses CUDA, then prints every signal's disposition as
 *                     sigaction and signal() report it
 *   head              prints one line, waits until its stdout's reader has gone,
 *                     uses CUDA and exits 0 (run as `hostile head 2>&1 | head -1`)
 *   stderr OUT        run with descriptor 2 closed: opens OUT (it takes number 2),
 *                     writes a line into it, uses CUDA and exits 0
 *   vfork             uses CUDA, ignores SIGPIPE, and a vfork child restores its
 *                     default before exec (as Python's subprocess does); prints
 *                     the parent's SIGPIPE and SIGTERM dispositions after
 *   racing            uses CUDA; one thread sets a SIGTERM handler and the
 *                     default again, over and over, while another asks
 *                     sigaction: prints how many answers were neither */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define HANDLER_LEAK_BYTES 3100021
#define MAIN_LEAK_BYTES 3200023

/* Allocates BYTES and keeps them. */
NOINLINE static void *leak(size_t bytes)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, bytes)); /* LEAK:hostile */
    return p;
}

static void on_usr1(int sig)
{
    (void)sig;
    vt_sink = leak(HANDLER_LEAK_BYTES);
}

static int closefrom_mode(char **args)
{
    const char *in = args[0], *out = args[1];
    char buf[4096];
    struct sigaction sa;
    ssize_t n, total = 0;
    for (int fd = 3; fd < 1024; fd++)
        close(fd);
    REQUIRE(open(in, O_RDONLY) == 3);
    REQUIRE(open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644) == 4);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    REQUIRE(sigaction(SIGUSR1, &sa, NULL) == 0);
    raise(SIGUSR1);
    while ((n = read(3, buf, sizeof buf)) > 0) {
        REQUIRE(write(4, buf, (size_t)n) == n);
        printf("%.*s", (int)n, buf);
        total += n;
    }
    printf("read %zd bytes\n", total);
    return 0;
}

static int files_mode(char **args)
{
    (void)args;
    int n = 0;
    while (open("/dev/null", O_RDONLY) >= 0)
        n++;
    printf("opened %d files (%s)\n", n, strerror(errno));
    return 0;
}

static struct sigaction previous_term;
static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
    stopping = 1;
    if (!(previous_term.sa_flags & SA_SIGINFO) && previous_term.sa_handler != SIG_DFL &&
        previous_term.sa_handler != SIG_IGN)
        previous_term.sa_handler(sig);
}

static int chain_mode(char **args)
{
    (void)args;
    struct sigaction sa;
    vt_sink = leak(MAIN_LEAK_BYTES);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigemptyset(&sa.sa_mask);
    REQUIRE(sigaction(SIGTERM, &sa, &previous_term) == 0);
    kill(getpid(), SIGTERM);
    while (!stopping)
        pause();
    printf("shut down gracefully\n");
    return 0;
}

static const char *kind(void (*handler)(int))
{
    return handler == SIG_DFL    ? "default"
           : handler == SIG_IGN  ? "ignore"
           : handler == SIG_HOLD ? "hold"
                                 : "handler";
}

static void ignore_it(int sig)
{
    (void)sig;
}

static int queries_mode(char **args)
{
    (void)args;
    vt_sink = leak(MAIN_LEAK_BYTES);
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction now;
        unsigned long mask = 0;
        if (sigaction(sig, NULL, &now) != 0) {
            printf("%d: refused (%s)\n", sig, strerror(errno));
            continue;
        }
        for (int s = 1; s < 64 && s < NSIG; s++)
            mask |= sigismember(&now.sa_mask, s) == 1 ? 1ul << s : 0;
        printf("%d: %s flags %#x mask %#lx\n", sig,
               now.sa_flags & SA_SIGINFO ? "handler" : kind(now.sa_handler), (unsigned)now.sa_flags,
               mask);
    }
    /* signal() gives the previous handler too; set and put back */
    static const int asked[] = {SIGINT, SIGTERM, SIGSEGV, SIGUSR2, SIGPIPE};
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
        void (*before)(int) = signal(asked[i], ignore_it);
        void (*mine)(int) = signal(asked[i], before);
        printf("signal(%d): was %s, then %s\n", asked[i], kind(before),
               mine == ignore_it ? "mine" : kind(mine));
    }
    /* the System V calls set a handler too: sigaction then says so */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* sigset: old, still called */
    static sighandler_t (*const set_by[])(int, sighandler_t) = {sysv_signal, sigset};
#pragma GCC diagnostic pop
    for (size_t i = 0; i < sizeof set_by / sizeof set_by[0]; i++) {
        struct sigaction now;
        void (*before)(int) = set_by[i](SIGHUP, ignore_it);
        REQUIRE(sigaction(SIGHUP, NULL, &now) == 0);
        printf("call %zu: was %s, now %s\n", i, kind(before),
               now.sa_handler == ignore_it ? "mine" : kind(now.sa_handler));
        signal(SIGHUP, before);
    }
    /* sigset (set_by[1])'s hold: blocks the signal, keeps its disposition */
    sighandler_t held[3];
    sigset_t mask;
    held[0] = set_by[1](SIGTERM, SIG_HOLD);
    held[1] = set_by[1](SIGTERM, SIG_HOLD);
    held[2] = set_by[1](SIGTERM, SIG_DFL);
    REQUIRE(sigprocmask(SIG_BLOCK, NULL, &mask) == 0);
    printf("hold: %s, %s, %s, blocked %d\n", kind(held[0]), kind(held[1]), kind(held[2]),
           sigismember(&mask, SIGTERM));
    return 0;
}

/* Until the reader of stdout has gone (a pipe's write end then polls POLLERR). */
static int head_mode(char **args)
{
    (void)args;
    struct pollfd out = {STDOUT_FILENO, 0, 0};
    printf("first line\n");
    fflush(stdout);
    for (int waited = 0; waited < 10000; waited += 10) {
        REQUIRE(poll(&out, 1, 10) >= 0);
        if (out.revents & POLLERR)
            break;
    }
    vt_sink = leak(MAIN_LEAK_BYTES);
    return 0;
}

static int stderr_mode(char **args)
{
    const char *out = args[0];
    static const char line[] = "the program's own line\n";
    REQUIRE(open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644) == 2);
    REQUIRE(write(2, line, sizeof line - 1) == (ssize_t)(sizeof line - 1));
    vt_sink = leak(MAIN_LEAK_BYTES);
    return 0;
}

static int vfork_mode(char **args)
{
    (void)args;
    struct sigaction ignore, dfl, now;
    int status;
    vt_sink = leak(MAIN_LEAK_BYTES);
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    REQUIRE(sigaction(SIGPIPE, &ignore, NULL) == 0);
    pid_t child = vfork();
    if (child == 0) {
        dfl = ignore;
        dfl.sa_handler = SIG_DFL;
        sigaction(SIGPIPE, &dfl, NULL);
        sigaction(SIGTERM, &ignore, NULL);
        _exit(sigaction(SIGPIPE, NULL, &now) == 0 && now.sa_handler == SIG_DFL ? 0 : 1);
    }
    REQUIRE(child > 0 && waitpid(child, &status, 0) == child);
    printf("child %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    REQUIRE(sigaction(SIGPIPE, NULL, &now) == 0);
    printf("SIGPIPE %s\n", kind(now.sa_handler));
    REQUIRE(sigaction(SIGTERM, NULL, &now) == 0);
    printf("SIGTERM %s\n", kind(now.sa_handler));
    return 0;
}

#define RACING_ROUNDS 20000

static int racing_done;

/* Sets SIGTERM's handler and the default, RACING_ROUNDS times each. */
static void *set_and_reset(void *arg)
{
    (void)arg;
    for (int i = 0; i < RACING_ROUNDS; i++) {
        signal(SIGTERM, ignore_it);
        signal(SIGTERM, SIG_DFL);
    }
    __atomic_store_n(&racing_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static int racing_mode(char **args)
{
    (void)args;
    pthread_t setter;
    long asked = 0, foreign = 0;
    vt_sink = leak(MAIN_LEAK_BYTES);
    REQUIRE(pthread_create(&setter, NULL, set_and_reset, NULL) == 0);
    while (!__atomic_load_n(&racing_done, __ATOMIC_ACQUIRE) || asked < 1000) {
        struct sigaction now;
        REQUIRE(sigaction(SIGTERM, NULL, &now) == 0);
        foreign += now.sa_handler != ignore_it && now.sa_handler != SIG_DFL;
        asked++;
    }
    pthread_join(setter, NULL);
    struct sigaction last;
    REQUIRE(sigaction(SIGTERM, NULL, &last) == 0);
    printf("foreign %ld, then %s\n", foreign, kind(last.sa_handler));
    return 0;
}

/* Each mode with the arguments it takes after its name. */
static const struct {
    const char *name;
    int args;
    int (*run)(char **args);
} modes[] = {
    {"closefrom", 2, closefrom_mode}, {"files", 0, files_mode}, {"chain", 0, chain_mode},
    {"queries", 0, queries_mode},     {"head", 0, head_mode},   {"stderr", 1, stderr_mode},
    {"vfork", 0, vfork_mode},         {"racing", 0, racing_mode},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (argc == modes[i].args + 2 && !strcmp(argv[1], modes[i].name))
            return modes[i].run(argv + 2);
    fprintf(stderr, "usage: hostile closefrom IN OUT | files | chain | queries | head | stderr OUT "
                    "| vfork\n");
    return 2;
}
