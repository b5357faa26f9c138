/* Built -O2 -g: alloc_inline is always inlined into inline_caller, so the
 * report must show the inlined function as the innermost frame (at the
 * marker line) and inline_caller (at the call line) as the next one. */
#include <cuda_runtime_api.h>
#include "check.h"

#define INLINE_LEAK_BYTES 2300003

static inline __attribute__((always_inline)) void *alloc_inline(size_t n)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, n); /* LEAK:inline */
    if (e != cudaSuccess)
        vt_fail(__FILE__, __LINE__, "cudaMalloc", e, cudaSuccess);
    return p;
}

NOINLINE void inline_caller(void)
{
    void *p = alloc_inline(INLINE_LEAK_BYTES); /* CALL:inline_caller */
    vt_sink = p;
}

int main(void)
{
    inline_caller();
    return 0;
}
/* SPDX-License-Identifier: MIT */
