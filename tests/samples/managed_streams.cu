// SPDX-License-Identifier: MIT
// In the shape of NVIDIA's UnifiedMemoryStreams sample: TASKS tasks, each
// with managed memory attached to its own stream (cudaStreamAttachMemAsync),
// advised and prefetched to the device, worked on by a kernel, prefetched
// back and read by the host. Ground truth (tests/test_samples.py): the
// last task's data (TASK_BYTES + the task's index x STEP_BYTES, managed,
// cudaMallocManaged) is never freed; everything else is freed.
#include "sample.h"

#define TASKS 3
#define TASK_BYTES (1 << 20)
#define STEP_BYTES (256 << 10)

__global__ void add_one(int *p, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1;
}

static NOINLINE int *task_data(size_t bytes)
{
    void *p = nullptr;
    CHECK(cudaMallocManaged(&p, bytes, cudaMemAttachHost)); // LEAK:task_data
    return static_cast<int *>(p);
}

static NOINLINE int *run_task(int t, cudaStream_t s)
{
    size_t bytes = TASK_BYTES + (size_t)t * STEP_BYTES, n = bytes / sizeof(int);
    int *data = task_data(bytes);
    CHECK(cudaStreamAttachMemAsync(s, data, 0, cudaMemAttachSingle));
    CHECK(cudaStreamSynchronize(s));
    for (size_t i = 0; i < n; i++)
        data[i] = (int)i;
    cudaMemLocation device = {cudaMemLocationTypeDevice, 0};
    cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    CHECK(cudaMemAdvise(data, bytes, cudaMemAdviseSetPreferredLocation, device));
    CHECK(cudaMemPrefetchAsync(data, bytes, device, 0, s));
    add_one<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(data, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemPrefetchAsync(data, bytes, host, 0, s));
    CHECK(cudaStreamSynchronize(s));
    return data;
}

int main()
{
    cudaStream_t streams[TASKS];
    for (int t = 0; t < TASKS; t++) {
        CHECK(cudaStreamCreate(&streams[t]));
        int *data = run_task(t, streams[t]);
        REQUIRE(data[1] == 1 || data[1] == 2); // the stand-in GPU runs no kernel
        if (t != TASKS - 1)
            CHECK(cudaFree(data));
        CHECK(cudaStreamDestroy(streams[t]));
    }
    printf("tasks: %d\n", TASKS);
    return 0;
}
