/* fork() under the tracer. The parent leaks PARENT_BEFORE_BYTES, forks, waits
 * for the child, then makes PARENT_PAIRS alloc/free pairs and leaks
 * PARENT_AFTER_BYTES; it prints "child <pid>" and exits 0. The child
 * (argv[1]):
 *   exit    leaks CHILD_BYTES, registers an atexit handler that makes one
 *           alloc/free pair, exit(0)
 *   _exit   leaks CHILD_BYTES, _exit(0): no destructors, no footer
 *   exec    execs this program as "leaf", which leaks LEAF_BYTES
 *   nocuda  no CUDA call at all, exit(0) */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#define PARENT_BEFORE_BYTES 4100003
#define PARENT_AFTER_BYTES 4200007
#define PARENT_PAIRS 100
#define PAIR_BYTES 4096
#define CHILD_BYTES 4300009
#define LEAF_BYTES 4400011

NOINLINE static void leak(size_t bytes)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, bytes));
    vt_sink = p;
}

NOINLINE static void pair(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, PAIR_BYTES));
    CHECK(cudaFree(p));
}

static void run_child(const char *mode, const char *self)
{
    if (strcmp(mode, "exec") == 0) {
        execl(self, self, "leaf", (char *)NULL);
        _exit(97);
    }
    if (strcmp(mode, "nocuda") == 0)
        exit(0);
    leak(CHILD_BYTES);
    if (strcmp(mode, "_exit") == 0)
        _exit(0);
    REQUIRE(atexit(pair) == 0);
    exit(0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "exit";
    int status;
    if (strcmp(mode, "leaf") == 0) {
        leak(LEAF_BYTES);
        return 0;
    }
    leak(PARENT_BEFORE_BYTES);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0)
        run_child(mode, argv[0]);
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int i = 0; i < PARENT_PAIRS; i++)
        pair();
    leak(PARENT_AFTER_BYTES);
    printf("child %d\n", (int)child);
    return 0;
}
/* SPDX-License-Identifier: MIT */
