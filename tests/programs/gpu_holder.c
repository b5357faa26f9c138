/* Holds stand-in GPU memory the ways `vramtrace gpus` must recognise.
 * argv: MODE BYTES; each mode prints "ready PID" (the pid that holds the
 * memory) on stdout once it holds it, then waits until stdin is closed.
 *   hold      this process allocates BYTES on device 0 (cudaSetDevice
 *             $HOLDER_DEVICE, default 0) and waits
 *   orphan    a child allocates and waits; the parent exits once it is
 *             ready (the child is orphaned and keeps its memory)
 *   zombie    a child allocates, then exits; the parent never reaps it
 *   zombie_threads  allocates, then a second thread waits on stdin while
 *             the main thread exits: a zombie whose thread holds the memory
 *   count     prints "devices N" (cudaGetDeviceCount) and exits */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static void *buffer;

static void allocate(size_t bytes)
{
    const char *device = getenv("HOLDER_DEVICE");
    CHECK(cudaSetDevice(device ? atoi(device) : 0));
    CHECK(cudaMalloc(&buffer, bytes));
}

static void ready(pid_t holder)
{
    printf("ready %d\n", (int)holder);
    fflush(stdout);
}

static void wait_for_eof(void)
{
    char c;
    while (read(0, &c, 1) > 0)
        ;
}

static void *waiter(void *unused)
{
    (void)unused;
    wait_for_eof();
    exit(0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "hold";
    size_t bytes = argc > 2 ? strtoull(argv[2], NULL, 0) : (1u << 20);
    int pipe_fds[2];
    pthread_t thread;
    if (!strcmp(mode, "count")) {
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        REQUIRE(e == cudaSuccess || (e == cudaErrorNoDevice && n == 0));
        printf("devices %d\n", n);
        return 0;
    }
    if (!strcmp(mode, "hold")) {
        allocate(bytes);
        ready(getpid());
        wait_for_eof();
        return 0;
    }
    if (!strcmp(mode, "zombie_threads")) {
        allocate(bytes);
        ready(getpid());
        REQUIRE(pthread_create(&thread, NULL, waiter, NULL) == 0);
        pthread_exit(NULL);
    }
    REQUIRE(pipe(pipe_fds) == 0);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        close(pipe_fds[0]);
        allocate(bytes);
        REQUIRE(write(pipe_fds[1], "x", 1) == 1);
        if (!strcmp(mode, "zombie"))
            _exit(0);
        wait_for_eof();
        _exit(0);
    }
    close(pipe_fds[1]);
    char c;
    REQUIRE(read(pipe_fds[0], &c, 1) == 1); /* the child holds the memory */
    if (!strcmp(mode, "orphan")) {
        ready(child);
        return 0; /* the child stays, orphaned */
    }
    REQUIRE(!strcmp(mode, "zombie"));
    ready(child); /* it exits now; it is never waited for */
    wait_for_eof();
    return 0;
}
/* SPDX-License-Identifier: MIT */
