/* SPDX-License-Identifier: MIT */
/* What torch's CUDA graphs ask beyond capture and launch: user objects
 * (a destructor run when the last reference goes), capture dependencies,
 * the graph memory's high watermark reset, the nodes. Conditional nodes
 * are not supported (nodes added one by one: cudart_graph_build.c); the
 * stand-in driver's graphs keep their nodes without their edges (a node's
 * dependencies read as none). */
#include "cudart_internal.h"

#include <stdlib.h>

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

struct cudaGraphNodeParams;
EXPORT cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t *pDependencies,
                                    const cudaGraphEdgeData *dependencyData,
                                    size_t numDependencies, struct cudaGraphNodeParams *nodeParams)
{
    (void)pGraphNode, (void)graph, (void)pDependencies, (void)dependencyData;
    (void)numDependencies, (void)nodeParams;
    return rt_error(cudaErrorNotSupported);
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
