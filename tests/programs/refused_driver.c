/* A program that checks its errors, run over a driver the runtime refuses
 * (older than the runtime): it prints each answer and exits 1. NVIDIA's
 * runtime unloads the driver it refused before it answers; the tracer must
 * not call into it afterwards. Built against the stand-in runtime here and
 * against the toolkit's by tests/test_hazards.py. */
#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void)
{
    void *p = NULL;
    cudaError_t device = cudaMalloc(&p, 1 << 20);
    cudaError_t host = cudaMallocHost(&p, 4096);
    printf("cudaMalloc %d\ncudaMallocHost %d\n", (int)device, (int)host);
    return device != cudaSuccess || host != cudaSuccess;
}
/* SPDX-License-Identifier: MIT */
