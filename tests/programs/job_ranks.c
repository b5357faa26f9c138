/* A job of ranks started by a fork-based launcher (tests/test_job.py): the
 * launcher makes no CUDA call; it forks N ranks (RANK = FIRST + i,
 * LOCAL_RANK = i, device i), waits for them and exits 0 when all did.
 *   job_ranks fork N FIRST BIG   each rank holds JOB_HOLD_BYTES from the
 *                                start to the end (leaked at exit), keeps
 *                                JOB_KEEP_BYTES per step for JOB_STEPS
 *                                steps (a mark after each; freed at the
 *                                end) and uses a JOB_TEMP_BYTES temporary
 *                                per step; rank BIG holds JOB_EXTRA_BYTES
 *                                more at the same line, and keeps what it
 *                                kept per step to the end (leaked)
 *   job_ranks oom N FIRST BIG    the same steps, then rank BIG asks for
 *                                JOB_OOM_BYTES (more than a stand-in GPU of
 *                                STANDIN_CUDA_MEMORY=64M has) and goes on
 *   job_ranks lag N FIRST BIG    each rank holds JOB_HOLD_BYTES and keeps
 *                                JOB_KEEP_BYTES per step, but rank BIG,
 *                                which frees each at once
 *   job_ranks flat N FIRST -     each rank holds JOB_HOLD_BYTES and uses a
 *                                temporary per step: the ranks are alike
 *   job_ranks twice N FIRST BIG  as flat, and each rank holds JOB_HOLD_BYTES
 *                                more through the same helper from another
 *                                caller, rank BIG JOB_EXTRA_BYTES more there
 *   job_ranks helper N FIRST -   as flat, and each rank first forks a helper
 *                                (its RANK inherited) that holds
 *                                JOB_HOLD_BYTES, and waits for it */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "vramtrace.h"

#define JOB_STEPS 6
#define JOB_HOLD_BYTES (4 << 20)
#define JOB_EXTRA_BYTES (6 << 20)
#define JOB_KEEP_BYTES (1 << 20)
#define JOB_TEMP_BYTES (2 << 20)
#define JOB_OOM_BYTES (96 << 20)

NOINLINE static void *hold(size_t bytes)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, bytes)); /* LEAK:hold */
    return p;
}

NOINLINE static void *keep(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, JOB_KEEP_BYTES)); /* LEAK:keep */
    return p;
}

NOINLINE static void temporary(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, JOB_TEMP_BYTES)); /* LEAK:temp */
    CHECK(cudaFree(p));
}

NOINLINE static void ask_too_much(void)
{
    void *p = NULL;
    EXPECT(cudaMalloc(&p, JOB_OOM_BYTES), cudaErrorMemoryAllocation); /* LEAK:oom */
}

NOINLINE static void *hold_again(bool big)
{
    return hold(JOB_HOLD_BYTES + (big ? JOB_EXTRA_BYTES : 0)); /* LEAK:hold_again */
}

/* A process of the rank's own, with its rank. */
static void run_helper(int device)
{
    int status;
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        CHECK(cudaSetDevice(device));
        vt_sink = hold(JOB_HOLD_BYTES);
        exit(0);
    }
    REQUIRE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int rank_main(int device, bool big, const char *mode)
{
    void *kept[JOB_STEPS] = {NULL};
    bool more = big && (!strcmp(mode, "fork") || !strcmp(mode, "oom"));
    bool twice = !strcmp(mode, "twice");
    bool helper = !strcmp(mode, "helper");
    bool keeps = strcmp(mode, "flat") && !twice && !helper && !(big && !strcmp(mode, "lag"));
    if (helper)
        run_helper(device);
    CHECK(cudaSetDevice(device));
    vt_sink = hold(JOB_HOLD_BYTES + (more ? JOB_EXTRA_BYTES : 0)); /* LEAK:hold_first */
    if (twice)
        vt_sink = hold_again(big); /* LEAK:twice_call */
    for (int i = 0; i < JOB_STEPS; i++) {
        if (keeps)
            kept[i] = keep();
        temporary();
        vramtrace_mark("step");
    }
    if (big && !strcmp(mode, "oom"))
        ask_too_much();
    for (int i = 0; i < JOB_STEPS && keeps && !more; i++)
        CHECK(cudaFree(kept[i]));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fputs("usage: job_ranks fork|oom|lag|flat|twice|helper N FIRST BIG\n", stderr);
        return 2;
    }
    int n = atoi(argv[2]), first = atoi(argv[3]), big = atoi(argv[4]), failed = 0;
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            char rank[16], local[16];
            snprintf(rank, sizeof rank, "%d", first + i);
            snprintf(local, sizeof local, "%d", i);
            setenv("RANK", rank, 1);
            setenv("LOCAL_RANK", local, 1);
            exit(rank_main(i, first + i == big, argv[1])); /* LEAK:rank_call */
        }
    }
    for (int status; wait(&status) > 0;)
        failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    return failed ? 1 : 0;
}
/* SPDX-License-Identifier: MIT */
