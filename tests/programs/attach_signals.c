/* SPDX-License-Identifier: MIT */
/* Signals of a process attached and detached while it runs
 * (tests/test_attach.py): it sets its own dispositions (handlers, a default
 * with flags and a mask, an ignored signal), its signal mask and an
 * alternate stack, prints them all as sigaction reads them back, says
 * "ready" and waits (attach); MODE "detach" uses CUDA and waits again
 * (detach), prints them again and faults: its own SIGSEGV handler ends it
 * (status 7). MODE "attached" prints them while attached, sets handlers of
 * its own for signals the tracer took (printing what each call says was
 * there before; one through a pointer to sigaction taken before attach),
 * sets a default with flags, raises one, waits (detach), prints and faults
 * the same way. MODE "crash" traps while attached (SIGILL on x86_64, left
 * to its default action). It changes no signal that ASan's runtime handles
 * (BUS, FPE; SEGV is its own). Its output is the same attached or not: no
 * address is printed. */
#include <cuda_runtime_api.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"
#include "wait_line.h"

#define OWN_SEGV_STATUS 7

static const struct {
    int sig;
    const char *name;
} shown[] = {
    {SIGSEGV, "SEGV"}, {SIGBUS, "BUS"},   {SIGILL, "ILL"},   {SIGTRAP, "TRAP"}, {SIGFPE, "FPE"},
    {SIGABRT, "ABRT"}, {SIGTERM, "TERM"}, {SIGHUP, "HUP"},   {SIGQUIT, "QUIT"}, {SIGPIPE, "PIPE"},
    {SIGXCPU, "XCPU"}, {SIGXFSZ, "XFSZ"}, {SIGALRM, "ALRM"}, {SIGUSR1, "USR1"}, {SIGUSR2, "USR2"},
};

static const struct {
    unsigned long bit;
    const char *name;
} flag_names[] = {
    {SA_NOCLDSTOP, "NOCLDSTOP"}, {SA_NOCLDWAIT, "NOCLDWAIT"}, {SA_SIGINFO, "SIGINFO"},
    {SA_ONSTACK, "ONSTACK"},     {SA_RESTART, "RESTART"},     {SA_NODEFER, "NODEFER"},
    {SA_RESETHAND, "RESETHAND"}, {0x04000000, "RESTORER"},
};

static char alt_stack[1 << 16];
/* each handler its own body: never folded into one address */
static volatile sig_atomic_t handled_usr1, handled_ill, handled_abrt;
/* libc's sigaction as a pointer taken before attach: calls through it pass
 * by whatever attach binds */
static int (*volatile early_sigaction)(int, const struct sigaction *, struct sigaction *);

static void say(const char *text)
{
    ssize_t n = write(1, text, strlen(text));
    (void)n;
}

static void own_segv(int sig, siginfo_t *info, void *context)
{
    (void)sig, (void)info, (void)context;
    say("own SIGSEGV handler ran\n");
    _exit(OWN_SEGV_STATUS);
}

static void own_usr1(int sig)
{
    (void)sig;
    handled_usr1++;
}

static void own_xcpu(int sig)
{
    (void)sig;
    say("own SIGXCPU handler ran\n");
}

static void own_ill(int sig)
{
    (void)sig;
    handled_ill++;
}

static void own_abrt(int sig)
{
    (void)sig;
    handled_abrt++;
}

static const struct {
    void (*handler)(int);
    const char *name;
} handler_names[] = {
    {SIG_DFL, "SIG_DFL"},   {SIG_IGN, "SIG_IGN"}, {own_usr1, "own_usr1"},
    {own_xcpu, "own_xcpu"}, {own_ill, "own_ill"}, {own_abrt, "own_abrt"},
};

static const char *handler_name(const struct sigaction *sa)
{
    if (sa->sa_flags & SA_SIGINFO)
        return sa->sa_sigaction == own_segv ? "own_segv" : "another's";
    for (size_t i = 0; i < sizeof handler_names / sizeof handler_names[0]; i++)
        if (sa->sa_handler == handler_names[i].handler)
            return handler_names[i].name;
    return "another's";
}

static const char *signal_name(int sig)
{
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
        if (shown[i].sig == sig)
            return shown[i].name;
    return NULL;
}

static void print_mask(const sigset_t *mask)
{
    const char *sep = "";
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(mask, sig) == 1) {
            const char *name = signal_name(sig);
            if (name)
                printf("%s%s", sep, name);
            else
                printf("%s%d", sep, sig);
            sep = ",";
        }
}

static void print_action(const char *sig_name, const struct sigaction *sa)
{
    unsigned long flags = (unsigned long)(unsigned)sa->sa_flags;
    const char *sep = "";
    printf("%s %s flags=", sig_name, handler_name(sa));
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
        if (flags & flag_names[i].bit) {
            printf("%s%s", sep, flag_names[i].name);
            sep = "|";
            flags &= ~flag_names[i].bit;
        }
    if (flags || !*sep)
        printf("%s%#lx", sep, flags);
    printf(" mask=");
    print_mask(&sa->sa_mask);
    printf(" restorer=%s\n", sa->sa_restorer ? "set" : "none");
}

/* Every disposition, the signal mask and the alternate stack, as the
 * program reads them back. */
static void show(const char *when)
{
    struct sigaction sa;
    sigset_t mask;
    stack_t ss;
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
        memset(&sa, 0, sizeof sa);
        REQUIRE(sigaction(shown[i].sig, NULL, &sa) == 0);
        printf("%s ", when);
        print_action(shown[i].name, &sa);
    }
    REQUIRE(pthread_sigmask(SIG_SETMASK, NULL, &mask) == 0);
    printf("%s blocked=", when);
    print_mask(&mask);
    REQUIRE(sigaltstack(NULL, &ss) == 0);
    printf("\n%s altstack %s size=%zu flags=%d\n", when, ss.ss_sp == alt_stack ? "own" : "other",
           ss.ss_size, ss.ss_flags);
    fflush(stdout);
}

static void fill_action(struct sigaction *sa, void (*handler)(int), int flags, int masked1,
                        int masked2)
{
    memset(sa, 0, sizeof *sa);
    sa->sa_handler = handler;
    sa->sa_flags = flags;
    sigemptyset(&sa->sa_mask);
    if (masked1)
        sigaddset(&sa->sa_mask, masked1);
    if (masked2)
        sigaddset(&sa->sa_mask, masked2);
}

static void set_action(int sig, void (*handler)(int), int flags, int masked1, int masked2,
                       struct sigaction *old)
{
    struct sigaction sa;
    fill_action(&sa, handler, flags, masked1, masked2);
    if (old)
        memset(old, 0, sizeof *old);
    REQUIRE(sigaction(sig, &sa, old) == 0);
}

/* What a program sets for itself before anyone attaches. */
static void set_own(void)
{
    struct sigaction sa;
    sigset_t block;
    stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack, .ss_flags = 0};
    REQUIRE(sigaltstack(&ss, NULL) == 0);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = own_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR2);
    REQUIRE(sigaction(SIGSEGV, &sa, NULL) == 0);
    REQUIRE(signal(SIGUSR1, own_usr1) != SIG_ERR);
    set_action(SIGTERM, SIG_DFL, SA_RESTART | SA_NODEFER, SIGHUP, SIGQUIT, NULL);
    REQUIRE(signal(SIGPIPE, SIG_IGN) != SIG_ERR);
    sigemptyset(&block);
    sigaddset(&block, SIGWINCH);
    REQUIRE(pthread_sigmask(SIG_BLOCK, &block, NULL) == 0);
    early_sigaction = sigaction;
}

/* While attached: the calls a program makes on signals the tracer took
 * find what the program had there. */
static void change_while_attached(void)
{
    struct sigaction old, sa;
    set_action(SIGXCPU, own_xcpu, SA_RESTART, 0, 0, &old);
    print_action("XCPU was", &old);
    printf("ILL was %s\n", signal(SIGILL, own_ill) == SIG_DFL ? "SIG_DFL" : "another's");
    set_action(SIGALRM, SIG_DFL, SA_NODEFER, SIGHUP, 0, &old);
    print_action("ALRM was", &old);
    fill_action(&sa, own_abrt, SA_RESTART, 0, 0);
    REQUIRE(early_sigaction(SIGABRT, &sa, NULL) == 0);
    REQUIRE(sigaction(SIGABRT, NULL, &old) == 0);
    print_action("ABRT set by the early pointer, now", &old);
    fflush(stdout);
    raise(SIGXCPU);
}

/* A real fault (not at address 0, which UBSan reports first). */
static void crash(void)
{
    volatile int *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(page != MAP_FAILED);
    fflush(stdout);
    *page = 1;
}

int main(int argc, char **argv)
{
    void *p;
    REQUIRE(argc == 2);
    CHECK(cudaMalloc(&p, 4096));
    set_own();
    show("before");
    wait_for("ready");
    if (!strcmp(argv[1], "crash"))
        __builtin_trap();
    if (!strcmp(argv[1], "attached")) {
        show("while");
        change_while_attached();
    }
    CHECK(cudaFree(p));
    wait_for("attached part done");
    show("detached");
    crash();
    return 0;
}
