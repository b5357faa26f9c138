/* SPDX-License-Identifier: MIT */
/* What torch's CUDA graphs ask beyond capture and launch: user objects
 * (a destructor run when the last reference goes), capture dependencies,
 * the graph memory's high watermark reset, the nodes (cudaGraphAddNode:
 * any type the node-by-node calls make). Conditional nodes are not
 * supported (nodes added one by one: cudart_graph_build.c); the
 * stand-in driver's graphs keep their nodes without their edges (a node's
 * dependencies read as none). */
#include "cudart_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct user_object {
    void *ptr;
    cudaHostFn_t destroy;
    unsigned refs;
};

EXPORT cudaError_t cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr,
                                        cudaHostFn_t destroy, unsigned int initialRefcount,
                                        unsigned int flags)
{
    if (!object_out || !destroy || !initialRefcount || flags != 1) /* NoDestructorSync */
        return rt_error(cudaErrorInvalidValue);
    struct user_object *o = calloc(1, sizeof *o);
    if (!o)
        return rt_error(cudaErrorMemoryAllocation);
    o->ptr = ptr;
    o->destroy = destroy;
    o->refs = initialRefcount;
    *object_out = (cudaUserObject_t)o;
    return cudaSuccess;
}

EXPORT cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count)
{
    struct user_object *o = (struct user_object *)object;
    if (!o || !count)
        return rt_error(cudaErrorInvalidValue);
    if (__atomic_sub_fetch(&o->refs, count, __ATOMIC_ACQ_REL) == 0) {
        o->destroy(o->ptr);
        free(o);
    }
    return cudaSuccess;
}

/* The graph holds COUNT references (moved from the caller with
 * cudaGraphUserObjectMove) for as long as the process lives. */
EXPORT cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                             unsigned int count, unsigned int flags)
{
    struct user_object *o = (struct user_object *)object;
    if (!graph || !o || !count || flags > 1)
        return rt_error(cudaErrorInvalidValue);
    if (!flags)
        __atomic_add_fetch(&o->refs, count, __ATOMIC_ACQ_REL);
    return cudaSuccess;
}

static CUresult (*graph_get_nodes)(CUgraph, CUgraphNode *, size_t *);
RT_DRIVER_FN(graph_get_nodes, "cuGraphGetNodes", 10000)

EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    CTX_OR_RETURN();
    if (!graph_get_nodes)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return rt_error(rt_map_error(graph_get_nodes((CUgraph)graph, (CUgraphNode *)nodes, numNodes)));
}

EXPORT cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *deps,
                                                cudaGraphEdgeData *edgeData, size_t *numDeps)
{
    (void)deps, (void)edgeData;
    if (!node || !numDeps)
        return rt_error(cudaErrorInvalidValue);
    *numDeps = 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
                                                       cudaGraphNode_t *dependencies,
                                                       const cudaGraphEdgeData *edgeData,
                                                       size_t numDependencies, unsigned int flags)
{
    enum cudaStreamCaptureStatus status;
    (void)dependencies, (void)edgeData, (void)numDependencies;
    if (flags > 1)
        return rt_error(cudaErrorInvalidValue);
    cudaError_t e = cudaStreamIsCapturing(stream, &status);
    if (e != cudaSuccess)
        return e;
    return status == cudaStreamCaptureStatusActive ? cudaSuccess
                                                   : rt_error(cudaErrorIllegalState);
}

EXPORT cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                 const cudaGraphNode_t *dependencies,
                                                 const cudaGraphEdgeData *dependencyData,
                                                 size_t numDependencies,
                                                 enum cudaStreamCaptureMode mode)
{
    (void)stream, (void)graph, (void)dependencies, (void)dependencyData, (void)numDependencies;
    (void)mode;
    return rt_error(cudaErrorNotSupported);
}

/* ---- cudaGraphAddNode: a node of any type (a tagged union) ---- */

static CUresult (*add_node)(CUgraphNode *, CUgraph, const CUgraphNode *, const CUgraphEdgeData *,
                            size_t, CUgraphNodeParams *);
RT_DRIVER_FN(add_node, "cuGraphAddNode", 12030)

/* The size of the member TYPE uses (empty nodes: none); -1 for a type not
 * supported here (child graphs, events, semaphores, conditionals). */
static long member_size(enum cudaGraphNodeType type)
{
    const struct cudaGraphNodeParams *p = NULL;
    switch (type) {
    case cudaGraphNodeTypeKernel:
        return sizeof p->kernel;
    case cudaGraphNodeTypeMemcpy:
        return sizeof p->memcpy;
    case cudaGraphNodeTypeMemset:
        return sizeof p->memset;
    case cudaGraphNodeTypeHost:
        return sizeof p->host;
    case cudaGraphNodeTypeMemAlloc:
        return sizeof p->alloc;
    case cudaGraphNodeTypeMemFree:
        return sizeof p->free;
    case cudaGraphNodeTypeEmpty:
        return 0;
    default:
        return -1;
    }
}

/* Reserved fields and the union's bytes past the member in use are zero. */
static int unused_bytes_zero(const struct cudaGraphNodeParams *p, size_t used)
{
    const unsigned char *u = (const unsigned char *)p->reserved1;
    for (size_t i = used; i < sizeof p->reserved1; i++)
        if (u[i])
            return 0;
    return !p->reserved0[0] && !p->reserved0[1] && !p->reserved0[2] && !p->reserved2;
}

/* Memory nodes are the driver's cuGraphAddNode's, their parameters the
 * driver's layout; an allocation node's address is written back. */
static cudaError_t add_memory_node(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps,
                                   const CUgraphEdgeData *edges, size_t n,
                                   struct cudaGraphNodeParams *p)
{
    CUgraphNodeParams d;
    const struct cudaMemAllocNodeParamsV2 *a = &p->alloc;
    memset(&d, 0, sizeof d);
    if (p->type == cudaGraphNodeTypeMemFree) {
        d.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
        d.free.dptr = (CUdeviceptr)(uintptr_t)p->free.dptr;
    } else {
        d.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
        memcpy(&d.alloc.poolProps, &a->poolProps, sizeof d.alloc.poolProps);
        d.alloc.accessDescs = (const CUmemAccessDesc *)a->accessDescs;
        d.alloc.accessDescCount = a->accessDescCount;
        d.alloc.bytesize = a->bytesize;
    }
    CUresult r = add_node(node, graph, deps, edges, n, &d);
    if (r == CUDA_SUCCESS && p->type == cudaGraphNodeTypeMemAlloc)
        p->alloc.dptr = (void *)(uintptr_t)d.alloc.dptr;
    return r == CUDA_SUCCESS ? cudaSuccess : rt_error(rt_map_error(r));
}

/* The other types are the node-by-node calls' (the runtime's own). */
static cudaError_t add_other_node(cudaGraphNode_t *node, cudaGraph_t graph,
                                  const cudaGraphNode_t *deps, size_t n,
                                  const struct cudaGraphNodeParams *p)
{
    switch (p->type) {
    case cudaGraphNodeTypeKernel:
        return cudaGraphAddKernelNode(node, graph, deps, n,
                                      (const struct cudaKernelNodeParams *)&p->kernel);
    case cudaGraphNodeTypeMemcpy:
        if (p->memcpy.flags || p->memcpy.reserved[0] || p->memcpy.reserved[1] ||
            p->memcpy.reserved[2])
            return rt_error(cudaErrorInvalidValue);
        return cudaGraphAddMemcpyNode(node, graph, deps, n, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset:
        return cudaGraphAddMemsetNode(node, graph, deps, n,
                                      (const struct cudaMemsetParams *)&p->memset);
    case cudaGraphNodeTypeHost:
        return cudaGraphAddHostNode(node, graph, deps, n,
                                    (const struct cudaHostNodeParams *)&p->host);
    default:
        return cudaGraphAddEmptyNode(node, graph, deps, n);
    }
}

EXPORT cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t *pDependencies,
                                    const cudaGraphEdgeData *dependencyData,
                                    size_t numDependencies, struct cudaGraphNodeParams *nodeParams)
{
    CTX_OR_RETURN();
    long used = nodeParams ? member_size(nodeParams->type) : 0;
    if (!nodeParams || (unsigned)nodeParams->type >= cudaGraphNodeTypeCount)
        return rt_error(cudaErrorInvalidValue);
    if (used < 0)
        return rt_error(cudaErrorNotSupported);
    if (!unused_bytes_zero(nodeParams, (size_t)used))
        return rt_error(cudaErrorInvalidValue);
    if (nodeParams->type != cudaGraphNodeTypeMemAlloc &&
        nodeParams->type != cudaGraphNodeTypeMemFree)
        return add_other_node(pGraphNode, graph, pDependencies, numDependencies, nodeParams);
    if (!add_node)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return add_memory_node((CUgraphNode *)pGraphNode, (CUgraph)graph,
                           (const CUgraphNode *)pDependencies, dependencyData, numDependencies,
                           nodeParams);
}

EXPORT cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out,
                                                    cudaGraph_t graph, unsigned int defaultLaunchValue,
                                                    unsigned int flags)
{
    (void)pHandle_out, (void)graph, (void)defaultLaunchValue, (void)flags;
    return rt_error(cudaErrorNotSupported);
}

/* Resetting the high watermarks (the only attributes that can be set). */
EXPORT cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                                  void *value)
{
    if (!value || (attr != cudaGraphMemAttrUsedMemHigh && attr != cudaGraphMemAttrReservedMemHigh))
        return rt_error(cudaErrorInvalidValue);
    if (device < 0 || device >= rt_ndev)
        return rt_error(cudaErrorInvalidDevice);
    return cudaSuccess;
}
