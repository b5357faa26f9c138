/* Threads keep making CUDA calls while main returns, so calls arrive while
 * the tracer writes its footer and after (they must pass through). A
 * thread that makes a call after vramtrace_active() turned 0 says so once
 * on stdout: "late call passed through". Once main has returned, the
 * runtime releases its primary context (as NVIDIA's does at exit): a free
 * of memory that went with it fails, and that thread stops. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "vramtrace.h"

#define BUSY_THREADS 4
#define BUSY_BYTES 7103

static int (*active)(void);
static int reported, pairs, main_returned;

/* A CUDA call failed: an error while the process runs, the end of this
 * thread once it exits. */
static void failed(const char *what, cudaError_t e)
{
    if (!__atomic_load_n(&main_returned, __ATOMIC_ACQUIRE))
        vt_fail(__FILE__, __LINE__, what, e, cudaSuccess);
    for (;;)
        pause();
}

static void *hammer(void *arg)
{
    int seen_active = 0;
    (void)arg;
    for (;;) {
        int now = active();
        void *p = NULL;
        cudaError_t e = cudaMalloc(&p, BUSY_BYTES);
        if (e != cudaSuccess)
            failed("cudaMalloc", e);
        e = cudaFree(p);
        if (e != cudaSuccess)
            failed("cudaFree", e);
        __atomic_fetch_add(&pairs, 1, __ATOMIC_RELAXED);
        seen_active |= now;
        if (seen_active && !now && !__atomic_exchange_n(&reported, 1, __ATOMIC_RELAXED)) {
            static const char msg[] = "late call passed through\n";
            if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0)
                _exit(98);
        }
    }
    return NULL;
}

int main(void)
{
    pthread_t t;
    struct timespec pause = {0, 20 * 1000 * 1000};
    active = (int (*)(void))vramtrace__lookup("vramtrace_active");
    REQUIRE(active);
    CHECK(cudaFree(0));
    for (int i = 0; i < BUSY_THREADS; i++)
        REQUIRE(pthread_create(&t, NULL, hammer, NULL) == 0);
    /* however loaded the machine, the threads are calling before main returns */
    while (__atomic_load_n(&pairs, __ATOMIC_RELAXED) < BUSY_THREADS)
        nanosleep(&pause, NULL);
    nanosleep(&pause, NULL);
    __atomic_store_n(&main_returned, 1, __ATOMIC_RELEASE);
    return 0;
}
/* SPDX-License-Identifier: MIT */
