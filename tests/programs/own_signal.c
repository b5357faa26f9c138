/* SPDX-License-Identifier: MIT */
/* A program with its own SIGUSR2 handler, installed as daemons and batch
 * jobs do: only where the signal still has its default action when main
 * starts. Then it uses CUDA and raises SIGUSR2 three times; its handler must
 * have run each time. Prints "handled N" and the disposition it found. */
#include <cuda_runtime_api.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define RAISED 3

static volatile sig_atomic_t handled;

static void on_usr2(int sig)
{
    (void)sig;
    handled++;
}

int main(void)
{
    struct sigaction old, sa;
    void *p;
    REQUIRE(sigaction(SIGUSR2, NULL, &old) == 0);
    int was_default = !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL;
    if (was_default) {
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_usr2;
        sigemptyset(&sa.sa_mask);
        REQUIRE(sigaction(SIGUSR2, &sa, NULL) == 0);
    }
    CHECK(cudaMalloc(&p, 4096));
    for (int i = 0; i < RAISED; i++)
        raise(SIGUSR2);
    CHECK(cudaFree(p));
    printf("default at start %d\nhandled %d\n", was_default, (int)handled);
    return 0;
}
