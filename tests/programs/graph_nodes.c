/* Ground truth for graph memory nodes made by the generic node API, through
 * the runtime (CUDA 12.2+): cudaGraphAddNode makes an allocation node of
 * NODE_BYTES (with an empty node after it) in one graph, and the driver's
 * cuGraphAddNode (cuGraphAddNode_v2) its free node in another; both are
 * launched in turn LAUNCHES times (no kernel anywhere). A third graph's
 * allocation node of LEAK_BYTES, made by cudaGraphAddNode too, is launched
 * once and never freed: leaked at exit. The pool is trimmed before the
 * end, so it keeps nothing then. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <string.h>
#include "check.h"

#define MiB ((size_t)1 << 20)
#define NODE_BYTES (3 * MiB)
#define LEAK_BYTES (5 * MiB)
#define LAUNCHES 4

static struct cudaGraphNodeParams alloc_params(size_t bytes)
{
    struct cudaGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeMemAlloc;
    p.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    p.alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    p.alloc.poolProps.location.id = 0;
    p.alloc.bytesize = bytes;
    return p;
}

/* The allocation node, then an empty node (passed through untouched). */
static NOINLINE cudaGraph_t build_alloc(void **dptr)
{
    cudaGraph_t g;
    cudaGraphNode_t alloc, after;
    struct cudaGraphNodeParams p = alloc_params(NODE_BYTES), empty;
    memset(&empty, 0, sizeof empty);
    empty.type = cudaGraphNodeTypeEmpty;
    CHECK(cudaGraphCreate(&g, 0));
    CHECK(cudaGraphAddNode(&alloc, g, NULL, NULL, 0, &p)); /* LEAK:node_alloc */
    CHECK(cudaGraphAddNode(&after, g, &alloc, NULL, 1, &empty));
    REQUIRE(p.alloc.dptr != NULL);
    *dptr = p.alloc.dptr;
    return g;
}

/* The free node, in a graph of its own, through the driver. */
static NOINLINE cudaGraph_t build_free(void *dptr)
{
    CUgraph g;
    CUgraphNode release;
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
    p.free.dptr = (CUdeviceptr)(uintptr_t)dptr;
    CHECK(cuGraphCreate(&g, 0));
    CHECK(cuGraphAddNode_v2(&release, g, NULL, NULL, 0, &p));
    return (cudaGraph_t)g;
}

static NOINLINE cudaGraph_t build_leak(void)
{
    cudaGraph_t g;
    cudaGraphNode_t alloc;
    struct cudaGraphNodeParams p = alloc_params(LEAK_BYTES);
    CHECK(cudaGraphCreate(&g, 0));
    CHECK(cudaGraphAddNode(&alloc, g, NULL, NULL, 0, &p)); /* LEAK:node_leak */
    return g;
}

/* The documented refusals: unused bytes that are not zero, a type this
 * runtime does not make, no parameters. */
static void refusals(void)
{
    cudaGraph_t g;
    cudaGraphNode_t n;
    struct cudaGraphNodeParams p = alloc_params(NODE_BYTES);
    CHECK(cudaGraphCreate(&g, 0));
    p.reserved2 = 1;
    EXPECT(cudaGraphAddNode(&n, g, NULL, NULL, 0, &p), cudaErrorInvalidValue);
    p = alloc_params(NODE_BYTES);
    p.type = cudaGraphNodeTypeConditional;
    EXPECT(cudaGraphAddNode(&n, g, NULL, NULL, 0, &p), cudaErrorNotSupported);
    EXPECT(cudaGraphAddNode(&n, g, NULL, NULL, 0, NULL), cudaErrorInvalidValue);
    CHECK(cudaGraphDestroy(g));
}

int main(void)
{
    cudaStream_t s;
    void *dptr = NULL;
    cudaGraphExec_t alloc_exec, free_exec, leak_exec;
    CHECK(cudaStreamCreate(&s));
    refusals();
    cudaGraph_t alloc_graph = build_alloc(&dptr), free_graph = build_free(dptr);
    cudaGraph_t leak_graph = build_leak();
    CHECK(cudaGraphInstantiate(&alloc_exec, alloc_graph, 0));
    CHECK(cudaGraphInstantiate(&free_exec, free_graph, 0));
    CHECK(cudaGraphInstantiate(&leak_exec, leak_graph, 0));
    for (int i = 0; i < LAUNCHES; i++) {
        CHECK(cudaGraphLaunch(alloc_exec, s));
        EXPECT(cudaGraphLaunch(alloc_exec, s), cudaErrorInvalidValue); /* still allocated */
        CHECK(cudaGraphLaunch(free_exec, s));
    }
    CHECK(cudaGraphLaunch(leak_exec, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceGraphMemTrim(0));
    CHECK(cudaGraphExecDestroy(alloc_exec));
    CHECK(cudaGraphExecDestroy(free_exec));
    CHECK(cudaGraphExecDestroy(leak_exec));
    CHECK(cudaGraphDestroy(alloc_graph));
    CHECK(cudaGraphDestroy(free_graph));
    CHECK(cudaGraphDestroy(leak_graph));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
/* SPDX-License-Identifier: MIT */
