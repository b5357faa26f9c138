// SPDX-License-Identifier: MIT
// What the sample-shaped programs share: a check of every CUDA call (exit
// status 99 on an unexpected error, as tests/programs/check.h), and
// NOINLINE for the functions whose calls the tests find on the stack.
#ifndef SAMPLE_H
#define SAMPLE_H

#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define NOINLINE __attribute__((noinline))

static inline void check_call(cudaError_t e, const char *call, int line)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "line %d: %s: %s\n", line, call, cudaGetErrorName(e));
        exit(99);
    }
}

static inline void check_call(CUresult r, const char *call, int line)
{
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "line %d: %s: CUresult %d\n", line, call, (int)r);
        exit(99);
    }
}

#define CHECK(call) check_call((call), #call, __LINE__)
#define REQUIRE(cond)                                                    \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "line %d: %s does not hold\n", __LINE__, #cond); \
            exit(99);                                                    \
        }                                                                \
    } while (0)

#endif
