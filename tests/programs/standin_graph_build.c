/* SPDX-License-Identifier: MIT */
/* The stand-in driver's answers to graphs built node by node, captures
 * forked to a second stream, occupancy, peer access between contexts and
 * modules loaded from files, as cuda.h documents them. Exit status 0, or
 * 99 with the first answer that differs (check.h). */
#include <cuda.h>
#include <string.h>

#include "check.h"

#define BYTES ((size_t)1 << 20)

static const char ptx_image[] = ".version 9.0\n.target sm_90\n.address_size 64\n";

/* WAITER waits on what RECORDER queued so far (EVENT recorded there). */
static void wait_on(CUstream waiter, CUstream recorder, CUevent event)
{
    CHECK(cuEventRecord(event, recorder));
    CHECK(cuStreamWaitEvent(waiter, event, 0));
}

static void count_call(void *data)
{
    ++*(int *)data;
}

/* A stream joined by an event must be joined back before the origin ends
 * the capture, and cannot end it itself; joined back, its free is a free
 * node of the graph. */
static void forked_capture(void)
{
    CUstream s, side;
    CUevent fork, join;
    CUgraph g;
    CUgraphExec exec;
    CUdeviceptr p;
    cuuint64_t used = 1;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&side, CU_STREAM_NON_BLOCKING));
    CHECK(cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING));
    CHECK(cuEventCreate(&join, CU_EVENT_DISABLE_TIMING));
    CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    wait_on(side, s, fork);
    EXPECT(cuStreamEndCapture(side, &g), CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
    EXPECT(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
    REQUIRE(g == NULL);
    CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CHECK(cuMemAllocAsync(&p, BYTES, s));
    wait_on(side, s, fork);
    CHECK(cuMemFreeAsync(p, side));
    wait_on(s, side, join);
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuGraphInstantiateWithFlags(&exec, g, 0));
    CHECK(cuGraphLaunch(exec, s));
    CHECK(cuGraphLaunch(exec, s)); /* freed by the free node: launched again */
    CHECK(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used));
    REQUIRE(used == 0);
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(g));
    CHECK(cuDeviceGraphMemTrim(0));
    CHECK(cuEventDestroy_v2(join));
    CHECK(cuEventDestroy_v2(fork));
    CHECK(cuStreamDestroy(side));
    CHECK(cuStreamDestroy(s));
}

/* Memset and host nodes run at each launch of a clone; a graph with a
 * memory node is not cloned. */
static void nodes_and_clones(void)
{
    CUgraph g, clone;
    CUgraphNode set, host, alloc, none[2];
    CUgraphExec exec;
    CUdeviceptr d;
    int calls = 0;
    unsigned char bytes[4];
    CHECK(cuMemAlloc_v2(&d, 64));
    CHECK(cuGraphCreate(&g, 0));
    CUDA_MEMSET_NODE_PARAMS m = {.dst = d, .value = 0x5a, .elementSize = 1, .width = 64,
                                 .height = 1};
    CHECK(cuGraphAddMemsetNode(&set, g, NULL, 0, &m, NULL));
    m.elementSize = 3;
    EXPECT(cuGraphAddMemsetNode(&none[0], g, NULL, 0, &m, NULL), CUDA_ERROR_INVALID_VALUE);
    CUDA_HOST_NODE_PARAMS h = {count_call, &calls};
    CHECK(cuGraphAddHostNode(&host, g, &set, 1, &h));
    CHECK(cuGraphAddEmptyNode(&none[1], g, NULL, 0));
    CHECK(cuGraphAddDependencies_v2(g, &host, &none[1], NULL, 1));
    CHECK(cuGraphClone(&clone, g));
    CHECK(cuGraphInstantiateWithFlags(&exec, clone, 0));
    CHECK(cuGraphLaunch(exec, NULL));
    CHECK(cuGraphLaunch(exec, NULL));
    CHECK(cuMemcpyDtoH_v2(bytes, d + 60, sizeof bytes));
    REQUIRE(calls == 2 && bytes[0] == 0x5a && bytes[3] == 0x5a);
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(clone));
    CUDA_MEM_ALLOC_NODE_PARAMS a;
    memset(&a, 0, sizeof a);
    a.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    a.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a.bytesize = BYTES;
    CHECK(cuGraphAddMemAllocNode(&alloc, g, NULL, 0, &a));
    EXPECT(cuGraphClone(&clone, g), CUDA_ERROR_NOT_SUPPORTED);
    CHECK(cuGraphDestroy(g));
    CHECK(cuMemFree_v2(d));
}

/* Device ORDINAL's primary context, retained for the process. */
static CUcontext primary(int ordinal)
{
    CUdevice d;
    CUcontext c;
    CHECK(cuDeviceGet(&d, ordinal));
    CHECK(cuDevicePrimaryCtxRetain(&c, d));
    return c;
}

static void peers(CUcontext c0, CUcontext c1)
{
    EXPECT(cuCtxEnablePeerAccess(c0, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
    EXPECT(cuCtxDisablePeerAccess(c1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    EXPECT(cuCtxEnablePeerAccess(c1, 1), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuCtxEnablePeerAccess(c1, 0));
    EXPECT(cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
    CHECK(cuCtxDisablePeerAccess(c1));
}

/* 2048 threads, 32 blocks, 228 KiB of shared memory per multiprocessor
 * (1 KiB reserved per block), 132 multiprocessors. */
static void occupancy_and_modules(void)
{
    CUjit_option option = CU_JIT_MAX_REGISTERS;
    int blocks, grid, block;
    CUfunction f;
    CUmodule m;
    EXPECT(cuModuleLoad(&m, "/nonexistent/module.cubin"), CUDA_ERROR_FILE_NOT_FOUND);
    EXPECT(cuModuleLoadDataEx(&m, ptx_image, 1, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuModuleLoadDataEx(&m, ptx_image, 0, &option, NULL));
    CHECK(cuModuleGetFunction(&f, m, "kernel"));
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 256, 0));
    REQUIRE(blocks == 8);
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 256, 64 << 10));
    REQUIRE(blocks == 3);
    CHECK(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL, 0, 0));
    REQUIRE(block == 1024 && grid == 2 * 132);
    CHECK(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL, 0, 100));
    REQUIRE(block == 64 && grid == 32 * 132); /* 96 keeps 2016 threads */
    CHECK(cuModuleUnload(m));
}

int main(void)
{
    CHECK(cuInit(0));
    CUcontext c0 = primary(0);
    CHECK(cuCtxSetCurrent(c0));
    forked_capture();
    nodes_and_clones();
    peers(c0, primary(1));
    occupancy_and_modules();
    return 0;
}
