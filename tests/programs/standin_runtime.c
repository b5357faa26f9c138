/* SPDX-License-Identifier: MIT */
/* The stand-in runtime's answers to what PyTorch and NVIDIA's samples call,
 * as the CUDA 13.0 headers and documentation give them: device properties
 * and attributes, every error's name, events, stream priorities, copies and
 * sets in stream order, host functions, pointer attributes and the flags
 * of page-locked memory, the links between devices, kernel registrations
 * without limit and their driver functions. Exit status 0, or 99 with the
 * first answer that differs (check.h). */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

/* nvcc's registration entry points (the stand-in runtime exports them). */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, void *tid, void *bid,
                            void *bDim, void *gDim, int *wSize);

#define KERNELS 30000 /* libtorch registers some 24,000 */

static char stubs[KERNELS];

static void properties(void)
{
    struct cudaDeviceProp p;
    int v;
    CHECK(cudaGetDeviceProperties(&p, 0));
    REQUIRE(p.major == 9 && p.minor == 0 && p.multiProcessorCount == 132 && p.warpSize == 32);
    REQUIRE(p.totalGlobalMem == (size_t)1 << 30 && p.maxThreadsPerBlock == 1024);
    REQUIRE(p.sharedMemPerBlockOptin == 232448 && p.memoryPoolsSupported == 1);
    REQUIRE(strcmp(p.name, "vramtrace stand-in GPU") == 0);
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    REQUIRE(v == 132);
    CHECK(cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)102, 0)); /* virtual memory */
    REQUIRE(v == 1);
    EXPECT(cudaGetDeviceProperties(&p, 7), cudaErrorInvalidDevice);
}

static void error_names(void)
{
    REQUIRE(strcmp(cudaGetErrorName(cudaErrorInvalidConfiguration), "cudaErrorInvalidConfiguration") == 0);
    REQUIRE(strcmp(cudaGetErrorName(cudaErrorCallRequiresNewerDriver),
                   "cudaErrorCallRequiresNewerDriver") == 0);
    REQUIRE(strcmp(cudaGetErrorName(cudaErrorInvalidDeviceFunction),
                   "cudaErrorInvalidDeviceFunction") == 0);
    REQUIRE(strcmp(cudaGetErrorString(cudaErrorNotReady), "device not ready") == 0);
    REQUIRE(strcmp(cudaGetErrorName((cudaError_t)12345), "unrecognized error code") == 0);
}

static void events_and_streams(void)
{
    cudaEvent_t a, b, untimed;
    cudaStream_t s, high;
    int least, greatest, prio;
    float ms = -1;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    REQUIRE(least == 0 && greatest == -5);
    CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -3));
    CHECK(cudaStreamGetPriority(s, &prio));
    REQUIRE(prio == -3);
    CHECK(cudaStreamCreateWithPriority(&high, cudaStreamDefault, -10)); /* clamped */
    CHECK(cudaStreamGetPriority(high, &prio));
    REQUIRE(prio == -5);
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
    EXPECT(cudaEventElapsedTime(&ms, a, b), cudaErrorNotReady); /* not recorded yet */
    CHECK(cudaEventRecord(a, s));
    CHECK(cudaStreamWaitEvent(high, a, 0));
    CHECK(cudaEventRecord(b, high));
    CHECK(cudaEventRecord(untimed, s));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventQuery(b));
    CHECK(cudaEventElapsedTime(&ms, a, b));
    REQUIRE(ms >= 0);
    EXPECT(cudaEventElapsedTime(&ms, a, untimed), cudaErrorInvalidResourceHandle);
    CHECK(cudaStreamQuery(s));
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    CHECK(cudaEventDestroy(untimed));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(high));
}

static void count_call(void *counter)
{
    ++*(int *)counter;
}

static void copies_in_stream_order(void)
{
    cudaStream_t s;
    unsigned char host[64], *dev;
    int calls = 0;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMalloc((void **)&dev, 64));
    CHECK(cudaMemsetAsync(dev, 7, 64, s));
    CHECK(cudaMemsetAsync(dev + 8, 9, 8, s));
    memset(host, 0, sizeof host);
    CHECK(cudaMemcpyAsync(host, dev, 64, cudaMemcpyDeviceToHost, s));
    CHECK(cudaLaunchHostFunc(s, count_call, &calls));
    CHECK(cudaStreamSynchronize(s));
    REQUIRE(host[0] == 7 && host[8] == 9 && host[15] == 9 && host[16] == 7 && calls == 1);
    /* 4 rows of 4 bytes from a pitch of 16 into a pitch of 4 */
    CHECK(cudaMemcpy2DAsync(host, 4, dev + 8, 16, 4, 4, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    REQUIRE(host[0] == 9 && host[4] == 7 && host[8] == 7);
    CHECK(cudaFree(dev));
    CHECK(cudaStreamDestroy(s));
}

static void pointer_attributes(void)
{
    struct cudaPointerAttributes at;
    void *dev, *managed, *pinned;
    int plain;
    CHECK(cudaMalloc(&dev, 4096));
    CHECK(cudaMallocManaged(&managed, 4096, cudaMemAttachGlobal));
    CHECK(cudaMallocHost(&pinned, 4096));
    CHECK(cudaPointerGetAttributes(&at, (char *)dev + 100));
    REQUIRE(at.type == cudaMemoryTypeDevice && at.device == 0);
    CHECK(cudaPointerGetAttributes(&at, managed));
    REQUIRE(at.type == cudaMemoryTypeManaged);
    CHECK(cudaPointerGetAttributes(&at, pinned));
    REQUIRE(at.type == cudaMemoryTypeHost);
    CHECK(cudaPointerGetAttributes(&at, &plain));
    REQUIRE(at.type == cudaMemoryTypeUnregistered);
    CHECK(cudaFree(dev));
    CHECK(cudaFree(managed));
    CHECK(cudaFreeHost(pinned));
}

/* cudaHostAlloc's flags, anywhere in the allocation; memory it did not
 * allocate has none. */
static void host_flags(void)
{
    static char registered[8192];
    unsigned flags = 99;
    char *pinned;
    void *dev;
    CHECK(cudaHostAlloc((void **)&pinned, 4096, cudaHostAllocPortable | cudaHostAllocWriteCombined));
    CHECK(cudaHostGetFlags(&flags, pinned + 100));
    REQUIRE(flags == (cudaHostAllocPortable | cudaHostAllocWriteCombined));
    CHECK(cudaHostRegister(registered, sizeof registered, cudaHostRegisterDefault));
    EXPECT(cudaHostGetFlags(&flags, registered), cudaErrorInvalidValue);
    CHECK(cudaHostUnregister(registered));
    CHECK(cudaMalloc(&dev, 64));
    EXPECT(cudaHostGetFlags(&flags, dev), cudaErrorInvalidValue);
    EXPECT(cudaHostGetFlags(&flags, &flags), cudaErrorInvalidValue);
    CHECK(cudaFree(dev));
    CHECK(cudaFreeHost(pinned));
}

/* The two stand-in GPUs' link: the best rank, peer access, native atomics
 * and arrays across it; a device and itself have no link. */
static void peer_links(void)
{
    static const int want[][2] = {{cudaDevP2PAttrPerformanceRank, 0},
                                  {cudaDevP2PAttrAccessSupported, 1},
                                  {cudaDevP2PAttrNativeAtomicSupported, 1},
                                  {cudaDevP2PAttrCudaArrayAccessSupported, 1},
                                  {cudaDevP2PAttrOnlyPartialNativeAtomicSupported, 0}};
    int v;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        v = -1;
        CHECK(cudaDeviceGetP2PAttribute(&v, (enum cudaDeviceP2PAttr)want[i][0], 1, 0));
        REQUIRE(v == want[i][1]);
    }
    EXPECT(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 0),
           cudaErrorInvalidDevice);
    EXPECT(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 7),
           cudaErrorInvalidDevice);
    EXPECT(cudaDeviceGetP2PAttribute(&v, (enum cudaDeviceP2PAttr)9, 0, 1), cudaErrorInvalidValue);
    EXPECT(cudaDeviceGetP2PAttribute(NULL, cudaDevP2PAttrAccessSupported, 0, 1),
           cudaErrorInvalidValue);
}

static void many_kernels(void)
{
    void **module = __cudaRegisterFatBinary(stubs);
    struct cudaFuncAttributes fa;
    for (int i = 0; i < KERNELS; i++)
        __cudaRegisterFunction(module, &stubs[i], NULL, "k", -1, NULL, NULL, NULL, NULL, NULL);
    CHECK(cudaFuncGetAttributes(&fa, &stubs[KERNELS - 1]));
    REQUIRE(fa.maxDynamicSharedSizeBytes == 48 << 10);
    CHECK(cudaFuncSetAttribute(&stubs[KERNELS - 1], cudaFuncAttributeMaxDynamicSharedMemorySize,
                               100 << 10));
    CHECK(cudaFuncGetAttributes(&fa, &stubs[KERNELS - 1]));
    REQUIRE(fa.maxDynamicSharedSizeBytes == 100 << 10);
    cudaLaunchConfig_t config;
    memset(&config, 0, sizeof config);
    config.gridDim.x = config.gridDim.y = config.gridDim.z = 1;
    config.blockDim.x = 256, config.blockDim.y = config.blockDim.z = 1;
    config.dynamicSmemBytes = 100 << 10;
    CHECK(cudaLaunchKernelExC(&config, &stubs[KERNELS - 1], NULL));
    config.dynamicSmemBytes = 101 << 10;
    EXPECT(cudaLaunchKernelExC(&config, &stubs[KERNELS - 1], NULL), cudaErrorInvalidConfiguration);
}

/* A registered kernel's driver function, one per device, which the
 * driver's own calls accept; a symbol no module registered has none. */
static void functions_by_symbol(void)
{
    typedef int (*get_attribute_fn)(int *, int, cudaFunction_t);
    get_attribute_fn get_attribute = NULL;
    enum cudaDriverEntryPointQueryResult found;
    cudaFunction_t f0, again, f1;
    int threads = 0;
    char unregistered;
    CHECK(cudaGetFuncBySymbol(&f0, &stubs[7]));
    CHECK(cudaGetFuncBySymbol(&again, &stubs[7]));
    REQUIRE(f0 && again == f0);
    CHECK(cudaGetDriverEntryPointByVersion("cuFuncGetAttribute", (void **)&get_attribute, 2020,
                                           0, &found));
    REQUIRE(found == cudaDriverEntryPointSuccess && get_attribute);
    CHECK(get_attribute(&threads, 0, f0)); /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
    REQUIRE(threads == 1024);
    CHECK(cudaSetDevice(1));
    CHECK(cudaGetFuncBySymbol(&f1, &stubs[7]));
    REQUIRE(f1 && f1 != f0);
    CHECK(cudaSetDevice(0));
    EXPECT(cudaGetFuncBySymbol(&f1, &unregistered), cudaErrorInvalidDeviceFunction);
    EXPECT(cudaGetFuncBySymbol(NULL, &stubs[7]), cudaErrorInvalidValue);
}

int main(void)
{
    CHECK(cudaSetDevice(0));
    properties();
    error_names();
    events_and_streams();
    copies_in_stream_order();
    pointer_attributes();
    host_flags();
    peer_links();
    many_kernels();
    functions_by_symbol();
    return 0;
}
