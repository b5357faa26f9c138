/* SITES leaking allocations, each from a call site (stack) of its own: the
 * bits of the allocation's number choose, level by level, which of two
 * functions calls the next, so 17 levels give up to 131072 distinct stacks.
 * For tests/bench/sites.sh: the CLI's time on reports with that many sites. */
#include "cuda_runtime_api.h"

#include <stdio.h>
#include <stdlib.h>

#define LEVELS 17
#define NOINLINE __attribute__((noinline))

static void *volatile sink;
static volatile int keep_frame; /* a store after the call: no tail call */

static NOINLINE void leak(void)
{
    void *p;
    if (cudaMalloc(&p, 256) != cudaSuccess) {
        fprintf(stderr, "bench_sites: cudaMalloc failed\n");
        exit(1);
    }
    sink = p;
}

static NOINLINE void zero(unsigned bits, int level);
static NOINLINE void one(unsigned bits, int level);

static void next(unsigned bits, int level)
{
    if (level == 0)
        leak();
    else if (bits & 1)
        one(bits >> 1, level - 1);
    else
        zero(bits >> 1, level - 1);
}

static NOINLINE void zero(unsigned bits, int level)
{
    next(bits, level);
    keep_frame++;
}

static NOINLINE void one(unsigned bits, int level)
{
    next(bits, level);
    keep_frame++;
}

int main(int argc, char **argv)
{
    long sites = argc > 1 ? atol(argv[1]) : 100000;
    if (sites < 1 || sites > (1L << LEVELS)) {
        fprintf(stderr, "usage: bench_sites [SITES, 1 to %ld]\n", 1L << LEVELS);
        return 2;
    }
    for (long i = 0; i < sites; i++)
        next((unsigned)i, LEVELS);
    printf("sites %ld\n", sites);
    return 0;
}
/* SPDX-License-Identifier: MIT */
