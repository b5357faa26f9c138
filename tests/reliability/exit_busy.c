/* Threads keep making CUDA calls while main returns, so calls arrive while
 * the tracer writes its footer and after (they must pass through). A
 * thread that makes a call after vramtrace_active() turned 0 says so once
 * on stdout: "late call passed through". */
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
static int reported, pairs;

static void *hammer(void *arg)
{
    int seen_active = 0;
    (void)arg;
    for (;;) {
        int now = active();
        void *p = NULL;
        CHECK(cudaMalloc(&p, BUSY_BYTES));
        CHECK(cudaFree(p));
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
    return 0;
}
