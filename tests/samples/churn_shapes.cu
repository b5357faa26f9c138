// SPDX-License-Identifier: MIT
// Allocate/free shapes of the usual CUDA C++ programs, for the churn hint
// (argv[1] picks one; tests/test_samples.py):
//   pool     PAIRS stream-ordered scratch buffers of POOL_BYTES from the
//            device's default pool, its release threshold raised so that
//            it keeps the memory: cudaMallocAsync/cudaFreeAsync do not
//            synchronize (no hint)
//   managed  MANAGED_BUFFERS managed buffers of MANAGED_BYTES all live at
//            once, then each freed once (no hint: nothing is allocated
//            again)
//   malloc   PAIRS cudaMalloc/cudaFree of TEMP_BYTES, one live at a time
//            (the hint, worded for cudaMalloc/cudaFree)
//   hostmem  PAIRS cudaMallocHost/cudaFreeHost of TEMP_BYTES, one live at a
//            time (the hint, worded for cudaMallocHost/cudaFreeHost)
// Everything is freed: no leak.
#include <cstdint>
#include <cstring>

#include "sample.h"

#define PAIRS 40
#define POOL_BYTES (1 << 20)
#define MANAGED_BUFFERS 16
#define MANAGED_BYTES (256 << 10)
#define TEMP_BYTES (512 << 10)

static NOINLINE void *pool_scratch(cudaStream_t s)
{
    void *p = nullptr;
    CHECK(cudaMallocAsync(&p, POOL_BYTES, s)); // LEAK:pool_scratch
    return p;
}

static NOINLINE void pool(void)
{
    cudaStream_t s;
    cudaMemPool_t mempool;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaDeviceGetDefaultMemPool(&mempool, 0));
    uint64_t keep = UINT64_MAX;
    CHECK(cudaMemPoolSetAttribute(mempool, cudaMemPoolAttrReleaseThreshold, &keep));
    for (int i = 0; i < PAIRS; i++) {
        void *p = pool_scratch(s);
        CHECK(cudaMemsetAsync(p, 0, POOL_BYTES, s));
        CHECK(cudaFreeAsync(p, s));
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
}

static NOINLINE void *managed_buffer(void)
{
    void *p = nullptr;
    CHECK(cudaMallocManaged(&p, MANAGED_BYTES)); // LEAK:managed_buffer
    return p;
}

static NOINLINE void managed(void)
{
    void *buffers[MANAGED_BUFFERS];
    for (int i = 0; i < MANAGED_BUFFERS; i++) {
        buffers[i] = managed_buffer();
        memset(buffers[i], i, MANAGED_BYTES);
    }
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < MANAGED_BUFFERS; i++)
        CHECK(cudaFree(buffers[i]));
}

static NOINLINE void temp_pairs(void)
{
    for (int i = 0; i < PAIRS; i++) {
        void *temp = nullptr;
        CHECK(cudaMalloc(&temp, TEMP_BYTES)); // LEAK:temp_buffer
        CHECK(cudaFree(temp));
    }
}

static NOINLINE void host_pairs(void)
{
    for (int i = 0; i < PAIRS; i++) {
        void *staging = nullptr;
        CHECK(cudaMallocHost(&staging, TEMP_BYTES)); // LEAK:host_buffer
        CHECK(cudaFreeHost(staging));
    }
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } modes[] = {{"pool", pool}, {"managed", managed}, {"malloc", temp_pairs},
                 {"hostmem", host_pairs}};
    for (const auto &m : modes)
        if (argc > 1 && !strcmp(argv[1], m.name)) {
            m.run();
            printf("%s done\n", m.name);
            return 0;
        }
    return 2;
}
