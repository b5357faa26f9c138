/* Ground truth for graph memory nodes made by the driver's generic node
 * API (CUDA 12.2+): cuGraphAddNode (cuda.h makes it cuGraphAddNode_v2)
 * makes an allocation node of NODE_BYTES in one graph and its free node
 * in another; both are launched in turn LAUNCHES times (no kernel). A
 * third graph's allocation node of LEAK_BYTES is made through the older
 * ABI without edge data (cuGraphAddNode as cuGetProcAddress gives it for
 * CUDA 12.2), launched once and never freed: leaked at exit. The pool is
 * trimmed before the end, so it keeps nothing then. */
#include <cuda.h>
#include <string.h>
#include "check.h"

#define MiB ((size_t)1 << 20)
#define NODE_BYTES (2 * MiB)
#define LEAK_BYTES (6 * MiB)
#define LAUNCHES 5

/* CUDA 12.2's cuGraphAddNode (cudaTypedefs.h: PFN_cuGraphAddNode_v12020). */
typedef CUresult (*add_node_v12020)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                    CUgraphNodeParams *);

static CUgraphNodeParams alloc_params(size_t bytes)
{
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    p.alloc.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.alloc.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.alloc.poolProps.location.id = 0;
    p.alloc.bytesize = bytes;
    return p;
}

static NOINLINE CUgraph build_alloc(CUdeviceptr *dptr)
{
    CUgraph g;
    CUgraphNode alloc;
    CUgraphNodeParams p = alloc_params(NODE_BYTES);
    CHECK(cuGraphCreate(&g, 0));
    CHECK(cuGraphAddNode(&alloc, g, NULL, NULL, 0, &p)); /* LEAK:node_alloc */
    REQUIRE(p.alloc.dptr != 0);
    *dptr = p.alloc.dptr;
    return g;
}

static NOINLINE CUgraph build_free(CUdeviceptr dptr)
{
    CUgraph g;
    CUgraphNode release;
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
    p.free.dptr = dptr;
    CHECK(cuGraphCreate(&g, 0));
    CHECK(cuGraphAddNode(&release, g, NULL, NULL, 0, &p));
    return g;
}

static NOINLINE CUgraph build_leak(add_node_v12020 add)
{
    CUgraph g;
    CUgraphNode alloc;
    CUgraphNodeParams p = alloc_params(LEAK_BYTES);
    CHECK(cuGraphCreate(&g, 0));
    CHECK(add(&alloc, g, NULL, 0, &p)); /* LEAK:node_leak */
    return g;
}

static add_node_v12020 older_abi(void)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult found;
    CHECK(cuGetProcAddress_v2("cuGraphAddNode", &fn, 12020, CU_GET_PROC_ADDRESS_DEFAULT, &found));
    REQUIRE(fn != NULL && found == CU_GET_PROC_ADDRESS_SUCCESS);
    return (add_node_v12020)fn;
}

/* The documented refusals: a reserved field not zero, no parameters. */
static void refusals(void)
{
    CUgraph g;
    CUgraphNode n;
    CUgraphNodeParams p = alloc_params(NODE_BYTES);
    CHECK(cuGraphCreate(&g, 0));
    p.reserved0[1] = 1;
    EXPECT(cuGraphAddNode(&n, g, NULL, NULL, 0, &p), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphAddNode(&n, g, NULL, NULL, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuGraphDestroy(g));
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUstream s;
    CUdeviceptr dptr = 0;
    CUgraphExec alloc_exec, free_exec, leak_exec;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    refusals();
    CUgraph alloc_graph = build_alloc(&dptr), free_graph = build_free(dptr);
    CUgraph leak_graph = build_leak(older_abi());
    CHECK(cuGraphInstantiateWithFlags(&alloc_exec, alloc_graph, 0));
    CHECK(cuGraphInstantiateWithFlags(&free_exec, free_graph, 0));
    CHECK(cuGraphInstantiateWithFlags(&leak_exec, leak_graph, 0));
    for (int i = 0; i < LAUNCHES; i++) {
        CHECK(cuGraphLaunch(alloc_exec, s));
        CHECK(cuGraphLaunch(free_exec, s));
    }
    CHECK(cuGraphLaunch(leak_exec, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuDeviceGraphMemTrim(0));
    CHECK(cuGraphExecDestroy(alloc_exec));
    CHECK(cuGraphExecDestroy(free_exec));
    CHECK(cuGraphExecDestroy(leak_exec));
    CHECK(cuGraphDestroy(alloc_graph));
    CHECK(cuGraphDestroy(free_graph));
    CHECK(cuGraphDestroy(leak_graph));
    CHECK(cuStreamDestroy(s));
    return 0;
}
/* SPDX-License-Identifier: MIT */
