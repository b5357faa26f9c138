/* SPDX-License-Identifier: MIT */
/* CUDA graphs and stream capture: each call is the driver's, reached
 * through cuGetProcAddress as the real runtime reaches it. */
#include "cudart_internal.h"

typedef CUresult (*begin_capture_fn)(CUstream, CUstreamCaptureMode);
typedef CUresult (*end_capture_fn)(CUstream, CUgraph *);
typedef CUresult (*is_capturing_fn)(CUstream, CUstreamCaptureStatus *);
typedef CUresult (*capture_info_fn)(CUstream, CUstreamCaptureStatus *, cuuint64_t *, CUgraph *,
                                    const CUgraphNode **, const CUgraphEdgeData **, size_t *);
typedef CUresult (*exchange_mode_fn)(CUstreamCaptureMode *);
typedef CUresult (*graph_create_fn)(CUgraph *, unsigned int);
typedef CUresult (*add_kernel_fn)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                  const CUDA_KERNEL_NODE_PARAMS *);
typedef CUresult (*add_alloc_fn)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                 CUDA_MEM_ALLOC_NODE_PARAMS *);
typedef CUresult (*add_free_fn)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                CUdeviceptr);
typedef CUresult (*instantiate_fn)(CUgraphExec *, CUgraph, unsigned long long);
typedef CUresult (*launch_fn)(CUgraphExec, CUstream);
typedef CUresult (*exec_destroy_fn)(CUgraphExec);
typedef CUresult (*graph_destroy_fn)(CUgraph);
typedef CUresult (*trim_fn)(CUdevice);
typedef CUresult (*mem_attribute_fn)(CUdevice, CUgraphMem_attribute, void *);

static struct {
    begin_capture_fn begin, begin_ptsz;
    end_capture_fn end, end_ptsz;
    is_capturing_fn is_capturing, is_capturing_ptsz;
    capture_info_fn info, info_ptsz;
    exchange_mode_fn exchange_mode;
    graph_create_fn create;
    add_kernel_fn add_kernel;
    add_alloc_fn add_alloc;
    add_free_fn add_free;
    instantiate_fn instantiate;
    launch_fn launch, launch_ptsz;
    exec_destroy_fn exec_destroy;
    graph_destroy_fn destroy;
    trim_fn trim;
    mem_attribute_fn mem_attribute;
} drv;

RT_DRIVER_FN(drv.begin, "cuStreamBeginCapture", 10010)
RT_DRIVER_FN_PTSZ(drv.begin_ptsz, "cuStreamBeginCapture", 10010)
RT_DRIVER_FN(drv.end, "cuStreamEndCapture", 10000)
RT_DRIVER_FN_PTSZ(drv.end_ptsz, "cuStreamEndCapture", 10000)
RT_DRIVER_FN(drv.is_capturing, "cuStreamIsCapturing", 10000)
RT_DRIVER_FN_PTSZ(drv.is_capturing_ptsz, "cuStreamIsCapturing", 10000)
RT_DRIVER_FN(drv.info, "cuStreamGetCaptureInfo", 12030)
RT_DRIVER_FN_PTSZ(drv.info_ptsz, "cuStreamGetCaptureInfo", 12030)
RT_DRIVER_FN(drv.exchange_mode, "cuThreadExchangeStreamCaptureMode", 10010)
RT_DRIVER_FN(drv.create, "cuGraphCreate", 10000)
RT_DRIVER_FN(drv.add_kernel, "cuGraphAddKernelNode", 12000)
RT_DRIVER_FN(drv.add_alloc, "cuGraphAddMemAllocNode", 11040)
RT_DRIVER_FN(drv.add_free, "cuGraphAddMemFreeNode", 11040)
RT_DRIVER_FN(drv.instantiate, "cuGraphInstantiateWithFlags", 11040)
RT_DRIVER_FN(drv.launch, "cuGraphLaunch", 10000)
RT_DRIVER_FN_PTSZ(drv.launch_ptsz, "cuGraphLaunch", 10000)
RT_DRIVER_FN(drv.exec_destroy, "cuGraphExecDestroy", 10000)
RT_DRIVER_FN(drv.destroy, "cuGraphDestroy", 10000)
RT_DRIVER_FN(drv.trim, "cuDeviceGraphMemTrim", 11040)
RT_DRIVER_FN(drv.mem_attribute, "cuDeviceGetGraphMemAttribute", 11040)

/* The driver's answer as the runtime reports it. */
static cudaError_t answer(CUresult r)
{
    return r == CUDA_SUCCESS ? cudaSuccess : rt_error(rt_map_error(r));
}

#define NEED_DRV(fn)                                                          \
    do {                                                                      \
        if (!drv.fn)                                                          \
            return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);   \
    } while (0)

static cudaError_t begin_capture(cudaStream_t stream, enum cudaStreamCaptureMode mode, int ptsz)
{
    CTX_OR_RETURN();
    begin_capture_fn begin = ptsz ? drv.begin_ptsz : drv.begin;
    if (!begin)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return answer(begin((CUstream)stream, (CUstreamCaptureMode)mode));
}

EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    return begin_capture(stream, mode, 0);
}

EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                               enum cudaStreamCaptureMode mode)
{
    return begin_capture(stream, mode, 1);
}

static cudaError_t end_capture(cudaStream_t stream, cudaGraph_t *pGraph, int ptsz)
{
    CTX_OR_RETURN();
    end_capture_fn end = ptsz ? drv.end_ptsz : drv.end;
    if (!end)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return answer(end((CUstream)stream, (CUgraph *)pGraph));
}

EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    return end_capture(stream, pGraph, 0);
}

EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph)
{
    return end_capture(stream, pGraph, 1);
}

static cudaError_t is_capturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                int ptsz)
{
    CTX_OR_RETURN();
    is_capturing_fn query = ptsz ? drv.is_capturing_ptsz : drv.is_capturing;
    if (!query)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return answer(query((CUstream)stream, (CUstreamCaptureStatus *)status));
}

EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                         enum cudaStreamCaptureStatus *pCaptureStatus)
{
    return is_capturing(stream, pCaptureStatus, 0);
}

EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                              enum cudaStreamCaptureStatus *pCaptureStatus)
{
    return is_capturing(stream, pCaptureStatus, 1);
}

static cudaError_t capture_info(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                unsigned long long *id, cudaGraph_t *graph,
                                const cudaGraphNode_t **dependencies,
                                const cudaGraphEdgeData **edges, size_t *count, int ptsz)
{
    CTX_OR_RETURN();
    capture_info_fn info = ptsz ? drv.info_ptsz : drv.info;
    if (!info)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return answer(info((CUstream)stream, (CUstreamCaptureStatus *)status, (cuuint64_t *)id,
                       (CUgraph *)graph, (const CUgraphNode **)dependencies, edges, count));
}

EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                            enum cudaStreamCaptureStatus *captureStatus_out,
                                            unsigned long long *id_out, cudaGraph_t *graph_out,
                                            const cudaGraphNode_t **dependencies_out,
                                            const cudaGraphEdgeData **edgeData_out,
                                            size_t *numDependencies_out)
{
    return capture_info(stream, captureStatus_out, id_out, graph_out, dependencies_out,
                        edgeData_out, numDependencies_out, 0);
}

EXPORT cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                                 enum cudaStreamCaptureStatus *captureStatus_out,
                                                 unsigned long long *id_out,
                                                 cudaGraph_t *graph_out,
                                                 const cudaGraphNode_t **dependencies_out,
                                                 const cudaGraphEdgeData **edgeData_out,
                                                 size_t *numDependencies_out)
{
    return capture_info(stream, captureStatus_out, id_out, graph_out, dependencies_out,
                        edgeData_out, numDependencies_out, 1);
}

EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return rt_error(e);
    NEED_DRV(exchange_mode);
    return answer(drv.exchange_mode((CUstreamCaptureMode *)mode));
}

EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    CTX_OR_RETURN();
    NEED_DRV(create);
    return answer(drv.create((CUgraph *)pGraph, flags));
}

/* The runtime's kernel is its host function: the stand-in driver only
 * needs a function to stand for it. */
EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies,
                                          size_t numDependencies,
                                          const struct cudaKernelNodeParams *pNodeParams)
{
    CTX_OR_RETURN();
    NEED_DRV(add_kernel);
    if (!pNodeParams)
        return rt_error(cudaErrorInvalidValue);
    CUDA_KERNEL_NODE_PARAMS p = {
        .func = (CUfunction)pNodeParams->func,
        .gridDimX = pNodeParams->gridDim.x,
        .gridDimY = pNodeParams->gridDim.y,
        .gridDimZ = pNodeParams->gridDim.z,
        .blockDimX = pNodeParams->blockDim.x,
        .blockDimY = pNodeParams->blockDim.y,
        .blockDimZ = pNodeParams->blockDim.z,
        .sharedMemBytes = pNodeParams->sharedMemBytes,
        .kernelParams = pNodeParams->kernelParams,
        .extra = pNodeParams->extra,
    };
    return answer(drv.add_kernel((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                 (const CUgraphNode *)pDependencies, numDependencies, &p));
}

EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies,
                                            size_t numDependencies,
                                            struct cudaMemAllocNodeParams *nodeParams)
{
    CTX_OR_RETURN();
    NEED_DRV(add_alloc);
    if (!nodeParams)
        return rt_error(cudaErrorInvalidValue);
    CUDA_MEM_ALLOC_NODE_PARAMS p = {
        .poolProps = {.allocType = (CUmemAllocationType)nodeParams->poolProps.allocType,
                      .handleTypes =
                          (CUmemAllocationHandleType)nodeParams->poolProps.handleTypes,
                      .location = {(CUmemLocationType)nodeParams->poolProps.location.type,
                                   nodeParams->poolProps.location.id}},
        .accessDescs = (const CUmemAccessDesc *)nodeParams->accessDescs,
        .accessDescCount = nodeParams->accessDescCount,
        .bytesize = nodeParams->bytesize,
    };
    CUresult r = drv.add_alloc((CUgraphNode *)pGraphNode, (CUgraph)graph,
                               (const CUgraphNode *)pDependencies, numDependencies, &p);
    if (r == CUDA_SUCCESS)
        nodeParams->dptr = (void *)(uintptr_t)p.dptr;
    return answer(r);
}

EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies, void *dptr)
{
    CTX_OR_RETURN();
    NEED_DRV(add_free);
    return answer(drv.add_free((CUgraphNode *)pGraphNode, (CUgraph)graph,
                               (const CUgraphNode *)pDependencies, numDependencies,
                               (CUdeviceptr)(uintptr_t)dptr));
}

EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                 unsigned long long flags)
{
    CTX_OR_RETURN();
    NEED_DRV(instantiate);
    return answer(drv.instantiate((CUgraphExec *)pGraphExec, (CUgraph)graph, flags));
}

EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                        unsigned long long flags)
{
    return cudaGraphInstantiateWithFlags(pGraphExec, graph, flags);
}

static cudaError_t graph_launch(cudaGraphExec_t exec, cudaStream_t stream, int ptsz)
{
    CTX_OR_RETURN();
    launch_fn launch = ptsz ? drv.launch_ptsz : drv.launch;
    if (!launch)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return answer(launch((CUgraphExec)exec, (CUstream)stream));
}

EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    return graph_launch(graphExec, stream, 0);
}

EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    return graph_launch(graphExec, stream, 1);
}

EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    CTX_OR_RETURN();
    NEED_DRV(exec_destroy);
    return answer(drv.exec_destroy((CUgraphExec)graphExec));
}

EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    CTX_OR_RETURN();
    NEED_DRV(destroy);
    return answer(drv.destroy((CUgraph)graph));
}

EXPORT cudaError_t cudaDeviceGraphMemTrim(int device)
{
    CTX_OR_RETURN();
    NEED_DRV(trim);
    return answer(drv.trim((CUdevice)device));
}

EXPORT cudaError_t cudaDeviceGetGraphMemAttribute(int device,
                                                  enum cudaGraphMemAttributeType attr,
                                                  void *value)
{
    CTX_OR_RETURN();
    NEED_DRV(mem_attribute);
    return answer(drv.mem_attribute((CUdevice)device, (CUgraphMem_attribute)attr, value));
}
