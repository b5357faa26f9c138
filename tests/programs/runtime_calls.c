/* One call of each kind that shared/real-runtime.md lists, each after a
 * line "== NAME" appended to the stand-in driver's log (STANDIN_CUDA_LOG),
 * so tests/test_standin.py can compare the driver calls the stand-in runtime
 * makes for it with those NVIDIA's runtime makes. Built against the shared
 * and the static stand-in runtime. */
#include "check.h"
#include "cuda_runtime_api.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static void step(const char *name)
{
    const char *log = getenv("STANDIN_CUDA_LOG");
    char line[128];
    int fd, n = snprintf(line, sizeof line, "== %s\n", name);
    REQUIRE(log && n > 0 && n < (int)sizeof line);
    fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0600);
    REQUIRE(fd >= 0 && write(fd, line, (size_t)n) == n);
    close(fd);
}

int main(void)
{
    void *d, *h, *m, *a;
    size_t free_bytes, total;
    step("first call");
    CHECK(cudaFree(0));
    step("cudaMalloc");
    CHECK(cudaMalloc(&d, 1000));
    step("cudaFree");
    CHECK(cudaFree(d));
    step("cudaMallocManaged");
    CHECK(cudaMallocManaged(&m, 2000, cudaMemAttachGlobal));
    step("cudaFree managed");
    CHECK(cudaFree(m));
    step("cudaMallocHost");
    CHECK(cudaMallocHost(&h, 3000));
    step("cudaFreeHost");
    CHECK(cudaFreeHost(h));
    step("cudaHostAlloc mapped");
    CHECK(cudaHostAlloc(&h, 4000, cudaHostAllocMapped));
    CHECK(cudaFreeHost(h));
    step("cudaMallocAsync");
    CHECK(cudaMallocAsync(&a, 5000, 0));
    step("cudaFreeAsync");
    CHECK(cudaFreeAsync(a, 0));
    step("cudaMemGetInfo");
    CHECK(cudaMemGetInfo(&free_bytes, &total));
    step("cudaDeviceSynchronize");
    CHECK(cudaDeviceSynchronize());
    step("cudaDeviceReset");
    CHECK(cudaDeviceReset());
    step("after reset");
    CHECK(cudaMalloc(&d, 6000));
    CHECK(cudaFree(d));
    step("exit");
    return 0;
}
/* SPDX-License-Identifier: MIT */
