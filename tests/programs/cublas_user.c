/* Leaks USER_LEAK_BYTES itself and keeps a workspace of the cuBLAS-named
 * stand-in library (tests/programs/fake_cublas.c) until exit. */
#include <cuda_runtime_api.h>
#include "check.h"

#define USER_LEAK_BYTES 1500007

void *cublas_standin_create(void);

NOINLINE void *user_leak(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, USER_LEAK_BYTES)); /* LEAK:user */
    return p;
}

int main(void)
{
    vt_sink = cublas_standin_create();
    vt_sink = user_leak();
    return 0;
}
/* SPDX-License-Identifier: MIT */
