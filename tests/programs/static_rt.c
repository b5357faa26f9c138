/* Ground truth for a program with its own compiled-in runtime (the stand-in
 * runtime as a static library, like nvcc's default cudart_static): its
 * cuda* functions are not exported, yet it dlopens libcuda.so.1 and gets
 * the driver through cuGetProcAddress_v2. */
#include <cuda_runtime_api.h>
#include "check.h"

#define STATIC_MALLOC_BYTES 1200007
#define STATIC_MANAGED_BYTES 2200013
#define LOOP 10

NOINLINE void balanced(void)
{
    for (int i = 0; i < LOOP; i++) {
        void *p;
        CHECK(cudaMalloc(&p, 1200 + i));
        CHECK(cudaFree(p));
    }
}

NOINLINE void static_leak_malloc(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, STATIC_MALLOC_BYTES)); /* LEAK:static_malloc */
    vt_sink = p;
}

NOINLINE void static_leak_managed(void)
{
    void *p = NULL;
    CHECK(cudaMallocManaged(&p, STATIC_MANAGED_BYTES, cudaMemAttachGlobal)); /* LEAK:static_managed */
    vt_sink = p;
}

int main(void)
{
    balanced();
    static_leak_malloc();
    static_leak_managed();
    return 0;
}
/* SPDX-License-Identifier: MIT */
