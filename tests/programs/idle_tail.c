/* SPDX-License-Identifier: MIT */
/* An allocation that leaks, a pair that does not, then nothing for MS
 * milliseconds (argv[1]) before a normal exit: evaluation, a checkpoint or
 * an interpreter's shutdown after the last allocation. Run under
 * tests/programs/clock_shim.c, the idle time passes at once. */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

#define LEAK_BYTES 3000017
#define PAIR_BYTES 65536

int main(int argc, char **argv)
{
    long long ms = argc > 1 ? atoll(argv[1]) : 0;
    struct timespec idle = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000};
    void *p;
    CHECK(cudaMalloc(&p, LEAK_BYTES)); /* LEAK:idle */
    vt_sink = p;
    CHECK(cudaMalloc(&p, PAIR_BYTES));
    CHECK(cudaFree(p));
    REQUIRE(clock_nanosleep(CLOCK_MONOTONIC, 0, &idle, NULL) == 0);
    return 0;
}
