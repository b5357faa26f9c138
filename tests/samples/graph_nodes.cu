// SPDX-License-Identifier: MIT
// In the shapes of NVIDIA's simpleCudaGraphs and jacobiCudaGraphs samples:
// a graph built node by node (a memset node, a 1D memcpy node, a 3D memcpy
// node, a host node, an empty node, edges added after), cloned, the clone
// instantiated and launched LAUNCHES times; a capture forked to a second
// stream (cudaEventRecord, cudaStreamWaitEvent) whose stream-ordered
// allocation is freed on that second stream and joined back; occupancy
// queries sizing a launch; a free of a graph allocation node's address
// before any launch allocated it, which the driver refuses.
// Ground truth (tests/test_samples.py): the kept buffer (KEPT_BYTES,
// cudaMalloc) leaks; the refused free is one invalid free of a graph's
// allocation (NODE_BYTES via cudaGraphAddMemAllocNode); everything else is
// freed, the graphs' memory by their free nodes, and the graph memory pool
// trimmed at the end.
#include <cstring>

#include "sample.h"

#define ELEMENTS 65536
#define BUFFER_BYTES (ELEMENTS * 4)
#define FORKED_BYTES (3 << 20)
#define NODE_BYTES (1 << 20)
#define KEPT_BYTES (7 << 20)
#define LAUNCHES 3

__global__ void scale(int *p, int n, int by)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] *= by;
}

// TIMES launches of G's instantiation on S, then all of them destroyed.
static void run_graph(cudaGraph_t g, cudaStream_t s, int times)
{
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiateWithFlags(&exec, g, 0));
    CHECK(cudaGraphDestroy(g)); // the instantiation keeps what it runs
    while (times-- > 0)
        CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGraphExecDestroy(exec));
}

static void CUDART_CB count_launch(void *data)
{
    ++*static_cast<int *>(data);
}

// Memset out, then copy host -> in (1D) and in -> out (3D), then the host
// node; the empty node joins the copies before it.
static NOINLINE cudaGraph_t build(int *in, int *out, int *host, int *launches)
{
    cudaGraph_t g;
    cudaGraphNode_t set, up, across, joined, callback;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemsetParams m;
    memset(&m, 0, sizeof m);
    m.dst = out;
    m.elementSize = 4;
    m.width = ELEMENTS;
    m.height = 1;
    CHECK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &m));
    CHECK(cudaGraphAddMemcpyNode1D(&up, g, nullptr, 0, in, host, BUFFER_BYTES,
                                   cudaMemcpyHostToDevice));
    cudaMemcpy3DParms c;
    memset(&c, 0, sizeof c);
    c.srcPtr = make_cudaPitchedPtr(in, BUFFER_BYTES, ELEMENTS, 1);
    c.dstPtr = make_cudaPitchedPtr(out, BUFFER_BYTES, ELEMENTS, 1);
    c.extent = make_cudaExtent(BUFFER_BYTES, 1, 1);
    c.kind = cudaMemcpyDeviceToDevice;
    cudaGraphNode_t before[] = {set, up};
    CHECK(cudaGraphAddMemcpyNode(&across, g, before, 2, &c));
    CHECK(cudaGraphAddEmptyNode(&joined, g, nullptr, 0));
    cudaHostNodeParams h = {count_launch, launches};
    CHECK(cudaGraphAddHostNode(&callback, g, nullptr, 0, &h));
    CHECK(cudaGraphAddDependencies(g, &across, &joined, nullptr, 1));
    CHECK(cudaGraphAddDependencies(g, &joined, &callback, nullptr, 1));
    return g;
}

static NOINLINE void built_and_cloned(void)
{
    int *in = nullptr, *out = nullptr, *host = nullptr, launches = 0;
    CHECK(cudaMalloc(&in, BUFFER_BYTES));
    CHECK(cudaMalloc(&out, BUFFER_BYTES));
    CHECK(cudaMallocHost(&host, BUFFER_BYTES));
    for (int i = 0; i < ELEMENTS; i++)
        host[i] = i;
    cudaGraph_t g = build(in, out, host, &launches), clone;
    CHECK(cudaGraphClone(&clone, g));
    CHECK(cudaGraphDestroy(g));
    run_graph(clone, 0, LAUNCHES);
    memset(host, 0, BUFFER_BYTES);
    CHECK(cudaMemcpy(host, out, BUFFER_BYTES, cudaMemcpyDeviceToHost));
    REQUIRE(launches == LAUNCHES && host[ELEMENTS - 1] == ELEMENTS - 1);
    CHECK(cudaFreeHost(host));
    CHECK(cudaFree(out));
    CHECK(cudaFree(in));
}

// Forked to SIDE: the allocation is freed there, and SIDE joins back.
static NOINLINE cudaGraph_t forked_capture(cudaStream_t s, cudaStream_t side)
{
    cudaEvent_t fork, join;
    cudaGraph_t g;
    void *p = nullptr;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync(&p, FORKED_BYTES, s)); // CALL:forked
    CHECK(cudaMemsetAsync(p, 1, FORKED_BYTES, s));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(side, fork, 0));
    CHECK(cudaFreeAsync(p, side));
    CHECK(cudaEventRecord(join, side));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaEventDestroy(join));
    CHECK(cudaEventDestroy(fork));
    return g;
}

static NOINLINE void forked(void)
{
    cudaStream_t s, side;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    run_graph(forked_capture(s, side), s, LAUNCHES);
    CHECK(cudaStreamDestroy(side));
    CHECK(cudaStreamDestroy(s));
}

// cudaFree of the node's address before a launch allocated it: refused.
static NOINLINE void free_before_launch(void)
{
    cudaGraph_t g;
    cudaGraphNode_t alloc, release;
    cudaMemAllocNodeParams p;
    memset(&p, 0, sizeof p);
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.bytesize = NODE_BYTES;
    CHECK(cudaGraphCreate(&g, 0));
    CHECK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &p)); // CALL:node
    CHECK(cudaGraphAddMemFreeNode(&release, g, &alloc, 1, p.dptr));
    REQUIRE(cudaFree(p.dptr) == cudaErrorInvalidValue); // CALL:refused
    REQUIRE(cudaGetLastError() == cudaErrorInvalidValue); // and cleared
    run_graph(g, 0, 1);
}

static NOINLINE void sized_launch(int *kept)
{
    int per_sm = 0, min_grid = 0, block = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scale, 256, 0));
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, scale, 0, 0));
    REQUIRE(per_sm > 0 && min_grid > 0 && block > 0 && block <= 1024);
    int n = KEPT_BYTES / 4;
    scale<<<(n + block - 1) / block, block>>>(kept, n, 2);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
}

static NOINLINE int *kept_buffer(void)
{
    int *p = nullptr;
    CHECK(cudaMalloc(&p, KEPT_BYTES)); // LEAK:kept
    return p;
}

int main()
{
    built_and_cloned();
    forked();
    free_before_launch();
    sized_launch(kept_buffer());
    CHECK(cudaDeviceGraphMemTrim(0)); // what the graphs' frees gave back
    printf("graph nodes done\n");
    return 0;
}
