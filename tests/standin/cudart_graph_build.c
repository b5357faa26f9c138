/* SPDX-License-Identifier: MIT */
/* Graphs built node by node, as simpleCudaGraphs builds them: memcpy (3D
 * and 1D), memset, host and empty nodes, edges, clones; each the driver's
 * call of the same name (driver_graph.c), in the current context. */
#include "cudart_internal.h"

#include <string.h>

/* The driver's calls, each fetched once (RT_DRIVER_FN). */
static CUresult (*add_empty)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t);
RT_DRIVER_FN(add_empty, "cuGraphAddEmptyNode", 10000)
static CUresult (*add_copy_node)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                 const CUDA_MEMCPY3D *, CUcontext);
RT_DRIVER_FN(add_copy_node, "cuGraphAddMemcpyNode", 10000)
static CUresult (*add_set)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                           const CUDA_MEMSET_NODE_PARAMS *, CUcontext);
RT_DRIVER_FN(add_set, "cuGraphAddMemsetNode", 10000)
static CUresult (*add_host)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                            const CUDA_HOST_NODE_PARAMS *);
RT_DRIVER_FN(add_host, "cuGraphAddHostNode", 10000)
static CUresult (*add_edges)(CUgraph, const CUgraphNode *, const CUgraphNode *,
                             const CUgraphEdgeData *, size_t);
RT_DRIVER_FN(add_edges, "cuGraphAddDependencies", 12030)
static CUresult (*clone_graph)(CUgraph *, CUgraph);
RT_DRIVER_FN(clone_graph, "cuGraphClone", 10000)
static CUresult (*ctx_current)(CUcontext *);
RT_DRIVER_FN(ctx_current, "cuCtxGetCurrent", 4000)

#define NODE_ARGS(node, graph, deps, n) \
    (CUgraphNode *)(node), (CUgraph)(graph), (const CUgraphNode *)(deps), (n)

/* The current context, for the nodes that run in one. */
static CUcontext current(void)
{
    CUcontext ctx = NULL;
    if (ctx_current)
        ctx_current(&ctx);
    return ctx;
}

EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                         const cudaGraphNode_t *pDependencies,
                                         size_t numDependencies)
{
    RT_CALL_DRIVER(add_empty, NODE_ARGS(pGraphNode, graph, pDependencies, numDependencies));
}

static cudaError_t add_copy(cudaGraphNode_t *node, cudaGraph_t graph,
                            const cudaGraphNode_t *deps, size_t n,
                            const struct cudaMemcpy3DParms *p)
{
    CUDA_MEMCPY3D c;
    cudaError_t e = rt_describe_3d(p, &c);
    if (e != cudaSuccess)
        return rt_error(e);
    RT_CALL_DRIVER(add_copy_node, NODE_ARGS(node, graph, deps, n), &c, current());
}

EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies,
                                          size_t numDependencies,
                                          const struct cudaMemcpy3DParms *pCopyParams)
{
    return add_copy(pGraphNode, graph, pDependencies, numDependencies, pCopyParams);
}

/* COUNT bytes as one row: a 3D copy of COUNT x 1 x 1. */
EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies,
                                            size_t numDependencies, void *dst, const void *src,
                                            size_t count, enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = (struct cudaPitchedPtr){(void *)src, count, count, 1};
    p.dstPtr = (struct cudaPitchedPtr){dst, count, count, 1};
    p.extent = (struct cudaExtent){count, 1, 1};
    p.kind = kind;
    return add_copy(pGraphNode, graph, pDependencies, numDependencies, &p);
}

/* cudaMemsetParams and cudaHostNodeParams are laid out as the driver's
 * CUDA_MEMSET_NODE_PARAMS and CUDA_HOST_NODE_PARAMS (a pointer for a
 * CUdeviceptr): passed on as they are. */
EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies,
                                          size_t numDependencies,
                                          const struct cudaMemsetParams *pMemsetParams)
{
    RT_CALL_DRIVER(add_set, NODE_ARGS(pGraphNode, graph, pDependencies, numDependencies),
                   (const CUDA_MEMSET_NODE_PARAMS *)pMemsetParams, current());
}

EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies,
                                        size_t numDependencies,
                                        const struct cudaHostNodeParams *pNodeParams)
{
    RT_CALL_DRIVER(add_host, NODE_ARGS(pGraphNode, graph, pDependencies, numDependencies),
                   (const CUDA_HOST_NODE_PARAMS *)pNodeParams);
}

EXPORT cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                            const cudaGraphNode_t *to,
                                            const cudaGraphEdgeData *edgeData,
                                            size_t numDependencies)
{
    RT_CALL_DRIVER(add_edges, (CUgraph)graph, (const CUgraphNode *)from,
                   (const CUgraphNode *)to, (const CUgraphEdgeData *)edgeData, numDependencies);
}

EXPORT cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
    RT_CALL_DRIVER(clone_graph, (CUgraph *)pGraphClone, (CUgraph)originalGraph);
}
