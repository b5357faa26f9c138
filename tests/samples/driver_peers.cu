// SPDX-License-Identifier: MIT
// In the shapes of NVIDIA's simpleP2P and vectorAddDrv samples, through the
// driver API alone: a context on each of two devices, peer access enabled
// from each to the other (cuCtxEnablePeerAccess, twice refused, then
// disabled), a module loaded from its fatbinary file (cuModuleLoad,
// argv[1]) and again from memory with JIT options (cuModuleLoadDataEx),
// its kernel's launch sized by the occupancy queries, a copy between the
// devices' buffers (cuMemcpyPeer). Ground truth (tests/test_samples.py):
// device 1's buffer (PEER_BYTES, cuMemAlloc) leaks; device 0's is freed.
#include <vector>

#include "sample.h"

#define PEER_BYTES (4 << 20)

static NOINLINE CUdeviceptr peer_buffer(void)
{
    CUdeviceptr d = 0;
    CHECK(cuMemAlloc(&d, PEER_BYTES)); // LEAK:peer_buffer
    return d;
}

// Each context reaches the other's memory; asking again is refused.
static NOINLINE void enable_peers(CUcontext a, CUcontext b)
{
    CHECK(cuCtxSetCurrent(a));
    CHECK(cuCtxEnablePeerAccess(b, 0));
    REQUIRE(cuCtxEnablePeerAccess(b, 0) == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
    CHECK(cuCtxSetCurrent(b));
    CHECK(cuCtxEnablePeerAccess(a, 0));
}

static NOINLINE CUfunction load_twice(const char *path, CUmodule *from_file, CUmodule *from_memory)
{
    CUfunction fn;
    CHECK(cuModuleLoad(from_file, path));
    std::vector<char> image;
    FILE *f = fopen(path, "rb");
    REQUIRE(f != nullptr);
    for (int c; (c = fgetc(f)) != EOF;)
        image.push_back((char)c);
    fclose(f);
    CUjit_option options[] = {CU_JIT_MAX_REGISTERS};
    void *values[] = {reinterpret_cast<void *>(static_cast<uintptr_t>(64))};
    CHECK(cuModuleLoadDataEx(from_memory, image.data(), 1, options, values));
    CHECK(cuModuleGetFunction(&fn, *from_memory, "vector_add"));
    return fn;
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2);
    CUdevice d0, d1;
    CUcontext c0, c1;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&d0, 0));
    CHECK(cuDeviceGet(&d1, 1));
    CHECK(cuDevicePrimaryCtxRetain(&c0, d0));
    CHECK(cuDevicePrimaryCtxRetain(&c1, d1));
    enable_peers(c0, c1);
    CUdeviceptr there = peer_buffer(); // on device 1, current
    CHECK(cuCtxSetCurrent(c0));
    CUmodule from_file, from_memory;
    CUfunction fn = load_twice(argv[1], &from_file, &from_memory);
    int per_sm = 0, min_grid = 0, block = 0;
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, 256, 0));
    CHECK(cuOccupancyMaxPotentialBlockSize(&min_grid, &block, fn, nullptr, 0, 0));
    REQUIRE(per_sm > 0 && min_grid > 0 && block > 0 && block <= 1024);
    CUdeviceptr here = 0;
    CHECK(cuMemAlloc(&here, PEER_BYTES));
    int n = PEER_BYTES / 4;
    void *args[] = {&here, &here, &here, &n};
    CHECK(cuLaunchKernel(fn, (n + block - 1) / block, 1, 1, block, 1, 1, 0, nullptr, args,
                         nullptr));
    CHECK(cuMemcpyPeer(there, c1, here, c0, PEER_BYTES));
    CHECK(cuCtxSynchronize());
    CHECK(cuCtxDisablePeerAccess(c1));
    REQUIRE(cuCtxDisablePeerAccess(c1) == CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    CHECK(cuMemFree(here));
    CHECK(cuModuleUnload(from_memory));
    CHECK(cuModuleUnload(from_file));
    printf("peers and modules done\n");
    return 0;
}
