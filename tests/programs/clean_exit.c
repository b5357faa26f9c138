/* Allocates and frees, leaks nothing, exits 0. */
#include <cuda_runtime_api.h>
#include "check.h"

int main(void)
{
    for (int i = 0; i < 10; i++) {
        void *p, *h;
        CHECK(cudaMalloc(&p, 2450000 + i));
        CHECK(cudaMallocHost(&h, 24500 + i));
        CHECK(cudaFree(p));
        CHECK(cudaFreeHost(h));
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */
