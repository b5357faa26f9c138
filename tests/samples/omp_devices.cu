// SPDX-License-Identifier: MIT
// In the shape of NVIDIA's cudaOpenMP sample: one OpenMP thread per device
// (two), each setting its device, copying its part of the data in, running
// a kernel on it and copying it back. Ground truth (tests/test_samples.py):
// each thread also keeps a buffer of (device + 1) x KEEP_BYTES on its own
// device, never freed (cudaMalloc, device 0 and device 1, one line);
// everything else is freed.
#include "sample.h"

#include <omp.h>

#define DEVICES 2
#define PART_BYTES (2 << 20)
#define KEEP_BYTES (384 << 10)

__global__ void negate(int *p, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = -p[i];
}

static NOINLINE void *keep_on(int device)
{
    void *p = nullptr;
    CHECK(cudaMalloc(&p, (size_t)(device + 1) * KEEP_BYTES)); // LEAK:kept_per_device
    return p;
}

static NOINLINE void work_on(int device, int *host)
{
    size_t n = PART_BYTES / sizeof(int);
    int *d = nullptr;
    CHECK(cudaSetDevice(device));
    CHECK(cudaMalloc(&d, PART_BYTES));
    CHECK(cudaMemcpy(d, host, PART_BYTES, cudaMemcpyHostToDevice));
    negate<<<(unsigned)((n + 255) / 256), 256>>>(d, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host, d, PART_BYTES, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    keep_on(device); // CALL:keep
}

int main()
{
    static int data[DEVICES][PART_BYTES / sizeof(int)];
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    REQUIRE(count >= DEVICES);
    omp_set_num_threads(DEVICES);
    int threads = 0;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp atomic
        threads++;
        work_on(t, data[t]);
    }
    REQUIRE(threads == DEVICES);
    printf("devices: %d\n", DEVICES);
    return 0;
}
