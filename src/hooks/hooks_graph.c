/* SPDX-License-Identifier: MIT */
/* Wrappers of CUDA graphs' memory and of stream capture (graphs.h): memory
 * nodes made explicitly (cuGraphAddMem*Node, or cuGraphAddNode's memory
 * node types), instantiation, launches, trims; a capture's begin
 * (stream-ordered allocations ask whether their stream captures only after
 * one, hooks_driver.c). Nothing here changes what the calls do. */
#include "cuda_abi.h"
#include "event.h"
#include "format.h"
#include "hook_table.h"
#include "entry.h"
#include "tracer.h"

/* In the exported function itself: its caller decides (another wrapper of
 * the same function gets the one after it). */
#define REAL(type, name) ((type)vt_hook_real_for(VT_HOOK_##name, __builtin_return_address(0)))

static CUresult begin_capture(cuStreamBeginCapture_v2_fn real, CUstream stream,
                              CUstreamCaptureMode mode)
{
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(stream, mode);
    CUresult r = real(stream, mode);
    vt_on_capture_begin(r);
    return r;
}

VT_EXPORT CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode mode)
{
    return begin_capture(REAL(cuStreamBeginCapture_v2_fn, cuStreamBeginCapture_v2), stream, mode);
}

VT_EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream stream, CUstreamCaptureMode mode)
{
    return begin_capture(REAL(cuStreamBeginCapture_v2_fn, cuStreamBeginCapture_v2_ptsz), stream,
                         mode);
}

/* An allocation node made through API: its memory is the pool's device's
 * (graph memory is device memory); no address when the call failed. */
static void alloc_node_made(CUresult r, CUgraph graph, const CUmemPoolProps *pool, size_t bytes,
                            CUdeviceptr dptr, unsigned api)
{
    struct vt_alloc_info info = {.key = r ? 0 : dptr,
                                 .size = bytes,
                                 .api = api,
                                 .kind = VT_KIND_DEVICE,
                                 .space = VT_SPACE_POINTER,
                                 .device = pool->location.id,
                                 .graph = 1};
    vt_on_graph_alloc_node(r, graph, info);
}

VT_EXPORT CUresult cuGraphAddMemAllocNode(CUgraphNode *node, CUgraph graph,
                                          const CUgraphNode *dependencies, size_t count,
                                          CUDA_MEM_ALLOC_NODE_PARAMS *params)
{
    cuGraphAddMemAllocNode_fn real = REAL(cuGraphAddMemAllocNode_fn, cuGraphAddMemAllocNode);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!params || !vt_event_begin())
        return real(node, graph, dependencies, count, params);
    CUresult r = real(node, graph, dependencies, count, params);
    alloc_node_made(r, graph, &params->poolProps, params->bytesize, params->dptr,
                    VT_API_cuGraphAddMemAllocNode);
    return r;
}

VT_EXPORT CUresult cuGraphAddMemFreeNode(CUgraphNode *node, CUgraph graph,
                                         const CUgraphNode *dependencies, size_t count,
                                         CUdeviceptr dptr)
{
    cuGraphAddMemFreeNode_fn real = REAL(cuGraphAddMemFreeNode_fn, cuGraphAddMemFreeNode);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(node, graph, dependencies, count, dptr);
    CUresult r = real(node, graph, dependencies, count, dptr);
    vt_on_graph_free_node(r, graph, dptr, VT_API_cuGraphAddMemFreeNode);
    return r;
}

/* cuGraphAddNode: only its memory nodes are graph memory; any other type
 * goes straight through, at the cost of this test. */
static int memory_node(const CUgraphNodeParams *params)
{
    return params && (params->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ||
                      params->type == CU_GRAPH_NODE_TYPE_MEM_FREE);
}

/* The same events as cuGraphAddMemAllocNode's and cuGraphAddMemFreeNode's. */
static void memory_node_made(CUresult r, CUgraph graph, const CUgraphNodeParams *params)
{
    if (params->type == CU_GRAPH_NODE_TYPE_MEM_FREE) {
        vt_on_graph_free_node(r, graph, params->free.dptr, VT_API_cuGraphAddNode);
        return;
    }
    alloc_node_made(r, graph, &params->alloc.poolProps, params->alloc.bytesize, params->alloc.dptr,
                    VT_API_cuGraphAddNode);
}

VT_EXPORT CUresult cuGraphAddNode_v2(CUgraphNode *node, CUgraph graph,
                                     const CUgraphNode *dependencies, const CUgraphEdgeData *edges,
                                     size_t count, CUgraphNodeParams *params)
{
    cuGraphAddNode_v2_fn real = REAL(cuGraphAddNode_v2_fn, cuGraphAddNode_v2);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!memory_node(params) || !vt_event_begin())
        return real(node, graph, dependencies, edges, count, params);
    CUresult r = real(node, graph, dependencies, edges, count, params);
    memory_node_made(r, graph, params);
    return r;
}

/* CUDA 12.2's ABI, without edge data (cuGetProcAddress at 12020). */
VT_EXPORT CUresult cuGraphAddNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                                  size_t count, CUgraphNodeParams *params)
{
    cuGraphAddNode_fn real = REAL(cuGraphAddNode_fn, cuGraphAddNode);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!memory_node(params) || !vt_event_begin())
        return real(node, graph, dependencies, count, params);
    CUresult r = real(node, graph, dependencies, count, params);
    memory_node_made(r, graph, params);
    return r;
}

VT_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph,
                                               unsigned long long flags)
{
    cuGraphInstantiateWithFlags_fn real =
        REAL(cuGraphInstantiateWithFlags_fn, cuGraphInstantiateWithFlags);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!exec || !vt_event_begin())
        return real(exec, graph, flags);
    CUresult r = real(exec, graph, flags);
    vt_on_graph_instantiate(r, r ? NULL : *exec, graph);
    return r;
}

static CUresult launch(cuGraphLaunch_fn real, CUgraphExec exec, CUstream stream)
{
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(exec, stream);
    CUresult r = real(exec, stream);
    vt_on_graph_launch(r, exec, VT_API_cuGraphLaunch);
    return r;
}

VT_EXPORT CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream)
{
    return launch(REAL(cuGraphLaunch_fn, cuGraphLaunch), exec, stream);
}

VT_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec exec, CUstream stream)
{
    return launch(REAL(cuGraphLaunch_fn, cuGraphLaunch_ptsz), exec, stream);
}

VT_EXPORT CUresult cuGraphExecDestroy(CUgraphExec exec)
{
    cuGraphExecDestroy_fn real = REAL(cuGraphExecDestroy_fn, cuGraphExecDestroy);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(exec);
    CUresult r = real(exec);
    vt_on_graph_exec_destroy(r, exec);
    return r;
}

VT_EXPORT CUresult cuGraphDestroy(CUgraph graph)
{
    cuGraphDestroy_fn real = REAL(cuGraphDestroy_fn, cuGraphDestroy);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(graph);
    CUresult r = real(graph);
    vt_on_graph_destroy(r, graph);
    return r;
}

VT_EXPORT CUresult cuDeviceGraphMemTrim(CUdevice device)
{
    cuDeviceGraphMemTrim_fn real = REAL(cuDeviceGraphMemTrim_fn, cuDeviceGraphMemTrim);
    if (!real)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!vt_event_begin())
        return real(device);
    CUresult r = real(device);
    vt_on_graph_mem_trim(r, device, VT_API_cuDeviceGraphMemTrim);
    return r;
}

VT_HOOK_REGISTER(VT_GRAPH_HOOKS)
