/* A timer signal interrupts a tight cudaMalloc/cudaFree loop; its handler
 * makes a CUDA alloc/free pair of SIGNAL_BYTES whenever it interrupted the
 * tracer itself (maybe holding its lock) or this program's own code, never
 * libc or the stand-in (neither is async-signal-safe, with or without the
 * tracer). Every LEAK_EVERY iterations the loop leaks LOOP_LEAK_BYTES.
 * Runs until the handler has interrupted the tracer MIN_TRACER_HITS times
 * (at least MIN_ITERATIONS iterations); gives up with status 2 after
 * MAX_SECONDS. The handler also asks the tracer for its live bytes, which
 * must not wait for the lock its own thread may hold.
 * Prints "iterations N leaks N tracer_hits N program_hits N". */
#include <cuda_runtime_api.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include "check.h"
#include "vramtrace.h"

#define LOOP_BYTES 8192
#define SIGNAL_BYTES 6101
#define LOOP_LEAK_BYTES 6200009
#define LEAK_EVERY 1000
#define MIN_TRACER_HITS 200
#define MIN_ITERATIONS 20000
#define MAX_SECONDS 60
#define TIMER_US 100

struct range {
    uintptr_t lo, hi;
};

static struct range tracer, program;
static volatile sig_atomic_t tracer_hits, program_hits, handler_failures, stopping;
static uint64_t (*live_bytes)(void);

static int find_ranges(struct dl_phdr_info *info, size_t size, void *data)
{
    struct range r = {UINTPTR_MAX, 0};
    (void)size, (void)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < r.lo)
            r.lo = a;
        if (a + ph->p_memsz > r.hi)
            r.hi = a + ph->p_memsz;
    }
    if (!info->dlpi_name[0])
        program = r;
    else if (strstr(info->dlpi_name, "libvramtrace"))
        tracer = r;
    return 0;
}

static uintptr_t interrupted_pc(void *uc)
{
    const mcontext_t *m = &((ucontext_t *)uc)->uc_mcontext;
#if defined(__x86_64__)
    return (uintptr_t)m->gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)m->pc;
#else
#error "unsupported architecture"
#endif
}

static int in(const struct range *r, uintptr_t pc)
{
    return pc >= r->lo && pc < r->hi;
}

/* One shot, re-armed when the handler is done: the loop always progresses,
 * however slow the handler (MALLOC_PERTURB_ makes malloc slow). */
static void arm_timer(void)
{
    struct itimerval once = {{0, 0}, {0, TIMER_US}};
    setitimer(ITIMER_REAL, &once, NULL);
}

static void on_timer(int sig, siginfo_t *si, void *uc)
{
    uintptr_t pc = interrupted_pc(uc);
    void *p = NULL;
    (void)sig, (void)si;
    if (in(&tracer, pc) || in(&program, pc)) {
        tracer_hits += in(&tracer, pc);
        program_hits += in(&program, pc);
        if (cudaMalloc(&p, SIGNAL_BYTES) != cudaSuccess || cudaFree(p) != cudaSuccess)
            handler_failures++;
        vt_sink = (void *)(uintptr_t)live_bytes();
    }
    if (!stopping)
        arm_timer();
}

NOINLINE static void leak_in_loop(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, LOOP_LEAK_BYTES)); /* LEAK:loop */
    vt_sink = p;
}

int main(void)
{
    struct sigaction sa;
    struct itimerval off = {{0, 0}, {0, 0}};
    time_t start = time(NULL);
    long i, leaks = 0;
    dl_iterate_phdr(find_ranges, NULL);
    live_bytes = (uint64_t (*)(void))vramtrace__lookup("vramtrace_live_bytes");
    REQUIRE(live_bytes && tracer.hi && program.hi);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_timer;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    REQUIRE(sigaction(SIGALRM, &sa, NULL) == 0);
    CHECK(cudaFree(0));
    arm_timer();
    for (i = 1; i <= MIN_ITERATIONS || tracer_hits < MIN_TRACER_HITS; i++) {
        void *p = NULL;
        CHECK(cudaMalloc(&p, LOOP_BYTES));
        CHECK(cudaFree(p));
        if (i % LEAK_EVERY == 0) {
            leak_in_loop();
            leaks++;
        }
        if (time(NULL) - start > MAX_SECONDS)
            break;
    }
    stopping = 1;
    REQUIRE(setitimer(ITIMER_REAL, &off, NULL) == 0);
    REQUIRE(handler_failures == 0);
    printf("iterations %ld leaks %ld tracer_hits %d program_hits %d\n", i - 1, leaks,
           (int)tracer_hits, (int)program_hits);
    return tracer_hits >= MIN_TRACER_HITS ? 0 : 2;
}
/* SPDX-License-Identifier: MIT */
