/* SPDX-License-Identifier: MIT */
/* The CUDA work of tests/programs/soak.c, in a library of its own that
 * links the runtime: unloading it unloads the runtime too. */
#include <cuda_runtime_api.h>
#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))

/* One allocation and its free: 0, or the error. */
EXPORT int soak_pair(size_t size)
{
    void *p;
    cudaError_t r = cudaMalloc(&p, size);
    return r != cudaSuccess ? (int)r : (int)cudaFree(p);
}

/* One allocation left allocated: 0, or the error. */
EXPORT int soak_leak(size_t size)
{
    void *p;
    return (int)cudaMalloc(&p, size);
}
