/* Stand-in cuda_runtime_api.h: the part of the CUDA runtime API that
 * vramtrace's tests, the stand-in libcudart.so.13 and the examples use,
 * written from the real CUDA 13 header and source-compatible with it (C and
 * C++) for every name declared here. */
#ifndef STANDIN_CUDA_RUNTIME_API_H
#define STANDIN_CUDA_RUNTIME_API_H

#include <stddef.h>
#include <stdint.h>

#include "driver_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUDART_VERSION 13000
#define CUDARTAPI

static inline struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
    struct cudaExtent e;
    e.width = w;
    e.height = h;
    e.depth = d;
    return e;
}

static inline struct cudaPos make_cudaPos(size_t x, size_t y, size_t z)
{
    struct cudaPos p;
    p.x = x;
    p.y = y;
    p.z = z;
    return p;
}

static inline struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz)
{
    struct cudaPitchedPtr s;
    s.ptr = d;
    s.pitch = p;
    s.xsize = xsz;
    s.ysize = ysz;
    return s;
}

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cudaMallocAsync cudaMallocAsync_ptsz
#define cudaFreeAsync cudaFreeAsync_ptsz
#define cudaMallocFromPoolAsync cudaMallocFromPoolAsync_ptsz
#define cudaGetDriverEntryPoint cudaGetDriverEntryPoint_ptsz
#define cudaGetDriverEntryPointByVersion cudaGetDriverEntryPointByVersion_ptsz
#endif

const char *CUDARTAPI cudaGetErrorString(cudaError_t error);
const char *CUDARTAPI cudaGetErrorName(cudaError_t error);
cudaError_t CUDARTAPI cudaGetLastError(void);
cudaError_t CUDARTAPI cudaPeekAtLastError(void);
cudaError_t CUDARTAPI cudaDriverGetVersion(int *driverVersion);
cudaError_t CUDARTAPI cudaRuntimeGetVersion(int *runtimeVersion);

cudaError_t CUDARTAPI cudaGetDeviceCount(int *count);
cudaError_t CUDARTAPI cudaSetDevice(int device);
cudaError_t CUDARTAPI cudaGetDevice(int *device);
cudaError_t CUDARTAPI cudaDeviceReset(void);
cudaError_t CUDARTAPI cudaDeviceSynchronize(void);
cudaError_t CUDARTAPI cudaMemGetInfo(size_t *free, size_t *total);

cudaError_t CUDARTAPI cudaMalloc(void **devPtr, size_t size);
cudaError_t CUDARTAPI cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
cudaError_t CUDARTAPI cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent);
cudaError_t CUDARTAPI cudaMallocManaged(void **devPtr, size_t size, unsigned int flags);
cudaError_t CUDARTAPI cudaFree(void *devPtr);
cudaError_t CUDARTAPI cudaMallocHost(void **ptr, size_t size);
cudaError_t CUDARTAPI cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
cudaError_t CUDARTAPI cudaFreeHost(void *ptr);
struct cudaChannelFormatDesc CUDARTAPI cudaCreateChannelDesc(int x, int y, int z, int w,
                                                             enum cudaChannelFormatKind f);
cudaError_t CUDARTAPI cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                      size_t width, size_t height, unsigned int flags);
cudaError_t CUDARTAPI cudaFreeArray(cudaArray_t array);
cudaError_t CUDARTAPI cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                        struct cudaExtent extent, unsigned int flags);
cudaError_t CUDARTAPI cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
                                               const struct cudaChannelFormatDesc *desc,
                                               struct cudaExtent extent, unsigned int numLevels,
                                               unsigned int flags);
cudaError_t CUDARTAPI cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray);
cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemset(void *devPtr, int value, size_t count);

cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *pStream);
cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream);
cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream);
cudaError_t CUDARTAPI cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device);
cudaError_t CUDARTAPI cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps);
cudaError_t CUDARTAPI cudaMemPoolDestroy(cudaMemPool_t memPool);
cudaError_t CUDARTAPI cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep);
cudaError_t CUDARTAPI cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream);
cudaError_t CUDARTAPI cudaFreeAsync(void *devPtr, cudaStream_t hStream);
cudaError_t CUDARTAPI cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                              cudaStream_t stream);
/* The per-thread-default-stream variants; the real header declares them
 * only through CUDA_API_PER_THREAD_DEFAULT_STREAM renaming. */
cudaError_t CUDARTAPI cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream);
cudaError_t CUDARTAPI cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream);
cudaError_t CUDARTAPI cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
                                                   cudaStream_t stream);

cudaError_t CUDARTAPI cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                              unsigned long long flags,
                                              enum cudaDriverEntryPointQueryResult *driverStatus);
cudaError_t CUDARTAPI cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                                       unsigned int cudaVersion,
                                                       unsigned long long flags,
                                                       enum cudaDriverEntryPointQueryResult *driverStatus);
cudaError_t CUDARTAPI cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                                   unsigned long long flags,
                                                   enum cudaDriverEntryPointQueryResult *driverStatus);
cudaError_t CUDARTAPI cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr,
                                                            unsigned int cudaVersion,
                                                            unsigned long long flags,
                                                            enum cudaDriverEntryPointQueryResult *driverStatus);

/* Page-locking the program's own memory (tests/standin/cudart_host_register.c). */
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
cudaError_t CUDARTAPI cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t CUDARTAPI cudaHostUnregister(void *ptr);

/* CUDA graphs and stream capture (tests/standin/cudart_graph.c). */
cudaError_t CUDARTAPI cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t CUDARTAPI cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
cudaError_t CUDARTAPI cudaStreamIsCapturing(cudaStream_t stream,
                                            enum cudaStreamCaptureStatus *pCaptureStatus);
cudaError_t CUDARTAPI cudaStreamGetCaptureInfo(cudaStream_t stream,
                                               enum cudaStreamCaptureStatus *captureStatus_out,
                                               unsigned long long *id_out, cudaGraph_t *graph_out,
                                               const cudaGraphNode_t **dependencies_out,
                                               const cudaGraphEdgeData **edgeData_out,
                                               size_t *numDependencies_out);
cudaError_t CUDARTAPI cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);
cudaError_t CUDARTAPI cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
cudaError_t CUDARTAPI cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies,
                                             const struct cudaKernelNodeParams *pNodeParams);
cudaError_t CUDARTAPI cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies,
                                               size_t numDependencies,
                                               struct cudaMemAllocNodeParams *nodeParams);
cudaError_t CUDARTAPI cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t *pDependencies,
                                              size_t numDependencies, void *dptr);
/* Nodes of any type (cudart_graph_nodes.c) and the node-by-node calls it
 * delegates to (cudart_graph_build.c). */
cudaError_t CUDARTAPI cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies,
                                       const cudaGraphEdgeData *dependencyData,
                                       size_t numDependencies,
                                       struct cudaGraphNodeParams *nodeParams);
cudaError_t CUDARTAPI cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies,
                                            size_t numDependencies);
cudaError_t CUDARTAPI cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies,
                                             const struct cudaMemcpy3DParms *pCopyParams);
cudaError_t CUDARTAPI cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies,
                                             const struct cudaMemsetParams *pMemsetParams);
cudaError_t CUDARTAPI cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies,
                                           const struct cudaHostNodeParams *pNodeParams);
cudaError_t CUDARTAPI cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                           unsigned long long flags);
cudaError_t CUDARTAPI cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                    unsigned long long flags);
cudaError_t CUDARTAPI cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t CUDARTAPI cudaGraphExecDestroy(cudaGraphExec_t graphExec);
cudaError_t CUDARTAPI cudaGraphDestroy(cudaGraph_t graph);
cudaError_t CUDARTAPI cudaDeviceGraphMemTrim(int device);
cudaError_t CUDARTAPI cudaDeviceGetGraphMemAttribute(int device,
                                                     enum cudaGraphMemAttributeType attr,
                                                     void *value);
cudaError_t CUDARTAPI cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                                  enum cudaStreamCaptureMode mode);
cudaError_t CUDARTAPI cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph);
cudaError_t CUDARTAPI cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                                 enum cudaStreamCaptureStatus *pCaptureStatus);
cudaError_t CUDARTAPI cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                                    enum cudaStreamCaptureStatus *captureStatus_out,
                                                    unsigned long long *id_out,
                                                    cudaGraph_t *graph_out,
                                                    const cudaGraphNode_t **dependencies_out,
                                                    const cudaGraphEdgeData **edgeData_out,
                                                    size_t *numDependencies_out);
cudaError_t CUDARTAPI cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);

/* Events, streams, asynchronous copies and sets, pointers, devices,
 * kernels and libraries (tests/standin/cudart_event.c, cudart_stream.c,
 * cudart_copy.c, cudart_pointer.c, cudart_properties.c, cudart_launch.c,
 * cudart_library.c, cudart_graph_nodes.c). */
cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t *event);
cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event);
cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t CUDARTAPI cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                               unsigned int flags);
cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t event);
cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event);
cudaError_t CUDARTAPI cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t CUDARTAPI cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event);
cudaError_t CUDARTAPI cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle);
cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                   int priority);
cudaError_t CUDARTAPI cudaStreamGetPriority(cudaStream_t hStream, int *priority);
cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream);
cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                          unsigned int flags);
cudaError_t CUDARTAPI cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);
cudaError_t CUDARTAPI cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                            void *userData, unsigned int flags);
cudaError_t CUDARTAPI cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                      enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                        size_t width, size_t height, enum cudaMemcpyKind kind,
                                        cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
                                          int srcDevice, size_t count, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                     size_t count);
cudaError_t CUDARTAPI cudaDeviceDisablePeerAccess(int peerDevice);
cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int flags);
cudaError_t CUDARTAPI cudaGetDeviceFlags(unsigned int *flags);
cudaError_t CUDARTAPI cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
cudaError_t CUDARTAPI cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                   size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                          const void *src, size_t spitch, size_t width,
                                          size_t height, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                            size_t wOffset, size_t hOffset, size_t width,
                                            size_t height, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                   size_t height);
cudaError_t CUDARTAPI cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                        size_t height, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value,
                                   struct cudaExtent extent);
cudaError_t CUDARTAPI cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                                        struct cudaExtent extent, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
cudaError_t CUDARTAPI cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream);
/* Deprecated, and still exported by the real runtime. */
cudaError_t CUDARTAPI cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                        const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                          size_t hOffset, size_t count, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int *pFlags, void *pHost);
cudaError_t CUDARTAPI cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                              const struct cudaResourceDesc *pResDesc,
                                              const struct cudaTextureDesc *pTexDesc,
                                              const struct cudaResourceViewDesc *pResViewDesc);
cudaError_t CUDARTAPI cudaDestroyTextureObject(cudaTextureObject_t texObject);
cudaError_t CUDARTAPI cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                               unsigned int flags);
cudaError_t CUDARTAPI cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                           struct cudaMemLocation location, unsigned int flags,
                                           cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemAdvise(const void *devPtr, size_t count,
                                    enum cudaMemoryAdvise advice, struct cudaMemLocation location);
cudaError_t CUDARTAPI cudaGetSymbolAddress(void **devPtr, const void *symbol);
cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                         size_t offset, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                              size_t offset, enum cudaMemcpyKind kind,
                                              cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                                size_t offset, enum cudaMemcpyKind kind,
                                                cudaStream_t stream);
cudaError_t CUDARTAPI cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                               const void *ptr);
cudaError_t CUDARTAPI cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr);
cudaError_t CUDARTAPI cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle,
                                           unsigned int flags);
cudaError_t CUDARTAPI cudaIpcCloseMemHandle(void *devPtr);
cudaError_t CUDARTAPI cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t CUDARTAPI cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
cudaError_t CUDARTAPI cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr,
                                                int srcDevice, int dstDevice);
cudaError_t CUDARTAPI cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
cudaError_t CUDARTAPI cudaDeviceGetPCIBusId(char *pciBusId, int len, int device);
cudaError_t CUDARTAPI cudaProfilerStart(void);
cudaError_t CUDARTAPI cudaProfilerStop(void);
cudaError_t CUDARTAPI cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
cudaError_t CUDARTAPI cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr);
cudaError_t CUDARTAPI cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr,
                                           int value);
cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                          void **args);
cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                                    const void *func,
                                                                    int blockSize,
                                                                    size_t dynamicSMemSize);
cudaError_t CUDARTAPI cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                              void *value);
cudaError_t CUDARTAPI cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                              void *value);
cudaError_t CUDARTAPI cudaMemPoolSetAccess(cudaMemPool_t memPool,
                                           const struct cudaMemAccessDesc *descList, size_t count);
cudaError_t CUDARTAPI cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr,
                                           cudaHostFn_t destroy, unsigned int initialRefcount,
                                           unsigned int flags);
cudaError_t CUDARTAPI cudaUserObjectRelease(cudaUserObject_t object, unsigned int count);
cudaError_t CUDARTAPI cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                                unsigned int count, unsigned int flags);
cudaError_t CUDARTAPI cudaDeviceSetGraphMemAttribute(int device,
                                                     enum cudaGraphMemAttributeType attr,
                                                     void *value);

#ifdef __cplusplus
}
#endif

#endif
/* SPDX-License-Identifier: MIT */
