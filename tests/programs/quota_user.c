/* SPDX-License-Identifier: MIT */
/* Allocates 1 MiB at a time until the device (or a sharing layer's quota,
 * tests/programs/quota_layer.c) refuses, and prints how many it got, the
 * refusal and what cudaMemGetInfo says. Everything allocated leaks. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#define CHUNK (1 << 20)
#define MAX_CHUNKS 64

int main(void)
{
    void *p;
    int got = 0;
    cudaError_t r = cudaSuccess;
    size_t free_bytes = 0, total = 0;
    while (got < MAX_CHUNKS && (r = cudaMalloc(&p, CHUNK)) == cudaSuccess)
        got++;
    cudaMemGetInfo(&free_bytes, &total);
    printf("allocated %d\nrefused %d\nfree %zu total %zu\n", got, (int)r, free_bytes, total);
    return 0;
}
