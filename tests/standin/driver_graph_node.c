/* SPDX-License-Identifier: MIT */
/* cuGraphAddNode: a node of any type described by a tagged union, as
 * cuda.h documents it. Each type this driver has a cuGraphAdd*Node for is
 * made by that call (driver_graph.c); an allocation node writes its
 * address back into the parameters. The other types (child graphs,
 * events, external semaphores, batched memory operations, conditionals)
 * are not supported here. Reserved fields and the bytes of the union past
 * the member in use must be zero. Edge data is not kept (default edges are
 * all there are here). */
#include "driver_internal.h"

#include <stddef.h>

/* Bytes of P's union past the member of SIZE bytes, and its reserved fields. */
static int unused_bytes_zero(const CUgraphNodeParams *p, size_t size)
{
    const unsigned char *u = (const unsigned char *)p->reserved1;
    for (size_t i = size; i < sizeof p->reserved1; i++)
        if (u[i])
            return 0;
    return !p->reserved0[0] && !p->reserved0[1] && !p->reserved0[2] && !p->reserved2;
}

/* The size of the union member TYPE uses; 0 for a type not supported here. */
static size_t member_size(CUgraphNodeType type)
{
    const CUgraphNodeParams *p = NULL;
    switch (type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
        return sizeof p->kernel;
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        return sizeof p->memcpy;
    case CU_GRAPH_NODE_TYPE_MEMSET:
        return sizeof p->memset;
    case CU_GRAPH_NODE_TYPE_HOST:
        return sizeof p->host;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        return sizeof p->alloc;
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
        return sizeof p->free;
    default: /* empty nodes have no member */
        return 0;
    }
}

static CUresult add_alloc(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps, size_t n,
                          CUDA_MEM_ALLOC_NODE_PARAMS_v2 *params)
{
    CUDA_MEM_ALLOC_NODE_PARAMS p = {.poolProps = params->poolProps,
                                    .accessDescs = params->accessDescs,
                                    .accessDescCount = params->accessDescCount,
                                    .bytesize = params->bytesize};
    CUresult r = cuGraphAddMemAllocNode(node, graph, deps, n, &p);
    if (r == CUDA_SUCCESS)
        params->dptr = p.dptr;
    return r;
}

static CUresult add_memset(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps, size_t n,
                           const CUDA_MEMSET_NODE_PARAMS_v2 *m)
{
    CUDA_MEMSET_NODE_PARAMS p = {.dst = m->dst,
                                 .pitch = m->pitch,
                                 .value = m->value,
                                 .elementSize = m->elementSize,
                                 .width = m->width,
                                 .height = m->height};
    return cuGraphAddMemsetNode(node, graph, deps, n, &p, m->ctx);
}

static CUresult add_typed(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps, size_t n,
                          CUgraphNodeParams *p)
{
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
        return cuGraphAddKernelNode_v2(node, graph, deps, n,
                                       (const CUDA_KERNEL_NODE_PARAMS *)&p->kernel);
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        if (p->memcpy.flags || p->memcpy.reserved)
            return CUDA_ERROR_INVALID_VALUE;
        return cuGraphAddMemcpyNode(node, graph, deps, n, &p->memcpy.copyParams,
                                    p->memcpy.copyCtx);
    case CU_GRAPH_NODE_TYPE_MEMSET:
        return add_memset(node, graph, deps, n, &p->memset);
    case CU_GRAPH_NODE_TYPE_HOST:
        return cuGraphAddHostNode(node, graph, deps, n, (const CUDA_HOST_NODE_PARAMS *)&p->host);
    case CU_GRAPH_NODE_TYPE_EMPTY:
        return cuGraphAddEmptyNode(node, graph, deps, n);
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        return add_alloc(node, graph, deps, n, &p->alloc);
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
        return cuGraphAddMemFreeNode(node, graph, deps, n, p->free.dptr);
    default:
        return CUDA_ERROR_NOT_SUPPORTED;
    }
}

static CUresult add_any(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps, size_t n,
                        CUgraphNodeParams *p)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!p || (unsigned)p->type > CU_GRAPH_NODE_TYPE_CONDITIONAL ||
        !unused_bytes_zero(p, member_size(p->type)))
        return CUDA_ERROR_INVALID_VALUE;
    return add_typed(node, graph, deps, n, p);
}

EXPORT CUresult cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                  const CUgraphNode *dependencies,
                                  const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                  CUgraphNodeParams *nodeParams)
{
    (void)dependencyData;
    return add_any(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}

/* CUDA 12.2's ABI, without edge data. */
EXPORT CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                               const CUgraphNode *dependencies, size_t numDependencies,
                               CUgraphNodeParams *nodeParams)
{
    return add_any(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}

PROC("cuGraphAddNode", 12020, cuGraphAddNode)
PROC("cuGraphAddNode", 12030, cuGraphAddNode_v2)
