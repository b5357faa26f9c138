// A small CUDA program with two leaks, for trying vramtrace.
//
// With a GPU:    nvcc -g -o leaky leaky.cu && vramtrace run -- ./leaky
// Without one:   tools/setup.sh builds it as C on the test suite's stand-in CUDA libraries.
#include <unistd.h> // usleep: `./leaky STEPS MS` takes STEPS steps of MS ms (to watch it)
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "../include/vramtrace.h" // vramtrace_mark: a no-op without the tracer

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t err_ = (call);                                               \
        if (err_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(err_)); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

#ifdef __CUDACC__
__global__ void scale(float *x, int n, float factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= factor;
}
#endif

// A per-step scratch buffer that is never freed: leaks 1 MiB every step.
static __attribute__((noinline)) float *make_scratch(int n)
{
    float *scratch;
    CHECK(cudaMalloc((void **)&scratch, n * sizeof(float)));
    return scratch;
}

static __attribute__((noinline)) void train_step(float *weights, int n)
{
    float *scratch = make_scratch(n);
#ifdef __CUDACC__
    scale<<<(n + 255) / 256, 256>>>(weights, n, 0.5f);
    CHECK(cudaDeviceSynchronize());
#endif
    (void)weights;
    (void)scratch; // forgotten: should be cudaFree(scratch)
}

// Pinned staging memory, allocated once and never released.
static __attribute__((noinline)) void *make_staging(size_t bytes)
{
    void *host;
    CHECK(cudaMallocHost(&host, bytes));
    return host;
}

int main(int argc, char **argv)
{
    const int n = 1 << 18; // 1 MiB of floats
    float *weights;
    CHECK(cudaMalloc((void **)&weights, n * sizeof(float)));
    make_staging(4096);
    for (int step = 0; step < (argc > 1 ? atoi(argv[1]) : 5); step++) {
        train_step(weights, n);
        vramtrace_mark("step"); // growth is judged per marker interval
        usleep(argc > 2 ? (useconds_t)atoi(argv[2]) * 1000 : 0);
    }
    CHECK(cudaFree(weights));
    printf("done: %d steps\n", argc > 1 ? atoi(argv[1]) : 5);
    return 0;
}
/* SPDX-License-Identifier: MIT */
