/* Dies after known allocations: CRASH_LEAKS allocations of CRASH_BYTES(i)
 * (all live at death) and CRASH_PAIRS alloc/free pairs. Modes (argv[1]):
 *   segv   write to an unmapped address        abort  abort()
 *   trap   __builtin_trap() (SIGILL; aarch64: SIGTRAP)
 *   breakpoint  raise(SIGTRAP): a breakpoint (int3, brk) left in the code
 *   kill   raise(SIGKILL)
 *   own    SIGSEGV with the program's own handler (installed before the
 *          first CUDA call), which prints "own handler" and _exit(3)s */
#include <cuda_runtime_api.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

#define CRASH_LEAKS 5
#define CRASH_BASE 5100007
#define CRASH_BYTES(i) (CRASH_BASE + (i) * 1000)
#define CRASH_PAIRS 10

NOINLINE static void leak_before_death(size_t bytes)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, bytes)); /* LEAK:crash */
    vt_sink = p;
}

static void own_handler(int sig)
{
    static const char msg[] = "own handler\n";
    (void)sig;
    if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0)
        _exit(98);
    _exit(3);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "segv";
    if (strcmp(mode, "own") == 0)
        REQUIRE(signal(SIGSEGV, own_handler) != SIG_ERR);
    for (int i = 0; i < CRASH_PAIRS; i++) {
        void *p = NULL;
        CHECK(cudaMalloc(&p, 4096));
        CHECK(cudaFree(p));
    }
    for (int i = 0; i < CRASH_LEAKS; i++)
        leak_before_death(CRASH_BYTES(i));
    if (strcmp(mode, "abort") == 0)
        abort();
    if (strcmp(mode, "trap") == 0)
        __builtin_trap();
    if (strcmp(mode, "breakpoint") == 0)
        raise(SIGTRAP);
    if (strcmp(mode, "kill") == 0)
        raise(SIGKILL);
    int *volatile nowhere = (int *)16; /* not NULL: UBSan would catch that first */
    *nowhere = 1;
    return 0;
}
/* SPDX-License-Identifier: MIT */
