/* Process trees, endings and bad frees, for `vramtrace run` and the
 * verdicts (tests/test_verdicts.py). Modes (argv[1]):
 *   leaf        leak TREE_LEAF_BYTES, exit 0
 *   clean       one alloc/free pair, exit 0
 *   fork N      N children, child i leaks TREE_CHILD_BYTES + i and exits 0;
 *               the parent waits, then leaks TREE_PARENT_BYTES and exits 0
 *   orphan      a child forks a grandchild and exits at once; the grandchild
 *               (an orphan by then) execs "leaf"; the parent exits 0 without
 *               waiting for it
 *   exec        leak TREE_PARENT_BYTES, then exec this program as "leaf"
 *   _exit       leak TREE_PARENT_BYTES, _exit(5)
 *   wait        leak TREE_PARENT_BYTES, print "ready", sleep until killed
 *   signal SIG [own]
 *               leak TREE_PARENT_BYTES, print "ready", wait for signal SIG
 *               (a number); with "own", the program's own handler prints
 *               "own handler" and re-raises it with the default action
 *   frees       TREE_FREES_BYTES allocated, freed and freed again; then a
 *               free of a pointer never allocated
 *   noisy       write TREE_NOISE_LINES lines on stderr, leak TREE_LEAF_BYTES
 *   loader LIB  leak TREE_PARENT_BYTES, then call LIB's loader_error_call,
 *               whose symbol nothing defines: the dynamic loader says
 *               "symbol lookup error" and exits 127 */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#define TREE_LEAF_BYTES 3100003
#define TREE_CHILD_BYTES 3200000
#define TREE_PARENT_BYTES 3300007
#define TREE_FREES_BYTES 3400009
#define TREE_NOISE_LINES 2000

NOINLINE static void leak_leaf(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, TREE_LEAF_BYTES)); /* LEAK:leaf */
    vt_sink = p;
}

NOINLINE static void leak_child(size_t bytes)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, bytes)); /* LEAK:child */
    vt_sink = p;
}

NOINLINE static void leak_parent(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, TREE_PARENT_BYTES)); /* LEAK:parent */
    vt_sink = p;
}

NOINLINE static void *frees_alloc(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, TREE_FREES_BYTES)); /* LEAK:frees_alloc */
    return p;
}

NOINLINE static void frees_first(void *p)
{
    CHECK(cudaFree(p)); /* LEAK:frees_first */
}

NOINLINE static void frees_double(void *p)
{
    EXPECT(cudaFree(p), cudaErrorInvalidValue); /* LEAK:frees_double */
}

NOINLINE static void frees_unknown(void)
{
    static char never_allocated[64];
    EXPECT(cudaFree(never_allocated + 8), cudaErrorInvalidValue); /* LEAK:frees_unknown */
}

static void pair(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, 4096));
    CHECK(cudaFree(p));
}

static void wait_all(void)
{
    int status;
    while (wait(&status) > 0)
        REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int fork_children(int n)
{
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            leak_child(TREE_CHILD_BYTES + (size_t)i);
            exit(0);
        }
    }
    wait_all();
    leak_parent();
    return 0;
}

static int orphan(const char *self)
{
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        pid_t parent = getpid();
        if (fork() == 0) {
            while (getppid() == parent) /* an orphan once its parent is gone, however late */
                usleep(1000);
            execl(self, self, "leaf", (char *)NULL);
            _exit(97);
        }
        _exit(0);
    }
    int status;
    REQUIRE(waitpid(child, &status, 0) == child && WIFEXITED(status));
    return 0;
}

static void own_handler(int sig)
{
    static const char msg[] = "own handler\n";
    if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0)
        _exit(98);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void ready(void)
{
    fputs("ready\n", stdout);
    fflush(stdout);
}

static int wait_for_signal(int sig, int own)
{
    if (own)
        REQUIRE(signal(sig, own_handler) != SIG_ERR);
    leak_parent();
    ready();
    for (;;)
        pause();
}

static int bad_frees(void)
{
    void *p = frees_alloc();
    frees_first(p);
    frees_double(p);
    frees_unknown();
    return 0;
}

static int noisy(void)
{
    for (int i = 0; i < TREE_NOISE_LINES; i++)
        fprintf(stderr, "noise %d { \"not\": \"json\" }\n", i);
    leak_leaf();
    return 0;
}

static int loader_error(const char *lib)
{
    leak_parent();
    void *h = dlopen(lib, RTLD_LAZY);
    void (*call)(void) = h ? (void (*)(void))dlsym(h, "loader_error_call") : NULL;
    REQUIRE(call);
    call(); /* never returns */
    return 98;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "leaf";
    if (!strcmp(mode, "leaf")) {
        leak_leaf();
        return 0;
    }
    if (!strcmp(mode, "clean")) {
        pair();
        return 0;
    }
    if (!strcmp(mode, "fork"))
        return fork_children(argc > 2 ? atoi(argv[2]) : 2);
    if (!strcmp(mode, "orphan"))
        return orphan(argv[0]);
    if (!strcmp(mode, "exec")) {
        leak_parent();
        execl(argv[0], argv[0], "leaf", (char *)NULL);
        return 97;
    }
    if (!strcmp(mode, "_exit")) {
        leak_parent();
        _exit(5);
    }
    if (!strcmp(mode, "wait")) {
        leak_parent();
        ready();
        for (;;)
            pause();
    }
    if (!strcmp(mode, "signal") && argc > 2)
        return wait_for_signal(atoi(argv[2]), argc > 3 && !strcmp(argv[3], "own"));
    if (!strcmp(mode, "frees"))
        return bad_frees();
    if (!strcmp(mode, "noisy"))
        return noisy();
    if (!strcmp(mode, "loader") && argc > 2)
        return loader_error(argv[2]);
    fprintf(stderr, "tree: unknown mode %s\n", mode);
    return 2;
}
/* SPDX-License-Identifier: MIT */
