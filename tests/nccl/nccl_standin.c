/* SPDX-License-Identifier: MIT */
/* A stand-in for NCCL's library (libnccl.so.2) for tests/test_known.py:
 * the public calls NCCL documents, allocating as NCCL does. Real NCCL does
 * not initialise over the stand-in CUDA libraries (its bundled runtime needs
 * the driver's private interfaces); tests/gpu/ checks the real one.
 *   ncclCommInitRank: a communicator, its device buffers (channels) and a
 *     page-locked host buffer (proxy), kept until ncclCommDestroy;
 *   ncclMemAlloc: device memory for the program (cuMem* in NCCL), freed
 *     by ncclMemFree. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdlib.h>

#define CHANNEL_BYTES (4u << 20)
#define CHANNELS 2
#define PROXY_BYTES (2u << 20)

struct ncclComm {
    void *channels[CHANNELS];
    void *proxy;
};
typedef struct ncclComm *ncclComm_t;
typedef struct {
    char internal[128];
} ncclUniqueId;

/* Not exported by name where NCCL's are not: found by the module. */
static __attribute__((noinline)) int setup_channels(struct ncclComm *c)
{
    for (int i = 0; i < CHANNELS; i++)
        if (cuMemAlloc((CUdeviceptr *)&c->channels[i], CHANNEL_BYTES) != CUDA_SUCCESS)
            return 1;
    return cudaHostAlloc(&c->proxy, PROXY_BYTES, cudaHostAllocDefault) != cudaSuccess;
}

int ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
    (void)nranks, (void)id, (void)rank;
    struct ncclComm *c = calloc(1, sizeof *c);
    /* the runtime makes the device's primary context current, as NCCL's
     * own cudaGetDevice/cudaSetDevice do, for its driver calls */
    if (!c || cudaFree(NULL) != cudaSuccess || setup_channels(c) != 0)
        return 1;
    *comm = c;
    return 0;
}

int ncclCommDestroy(ncclComm_t comm)
{
    for (int i = 0; i < CHANNELS; i++)
        cuMemFree((CUdeviceptr)comm->channels[i]);
    cudaFreeHost(comm->proxy);
    free(comm);
    return 0;
}

int ncclMemAlloc(void **ptr, size_t size)
{
    return cudaMalloc(ptr, size) != cudaSuccess;
}

int ncclMemFree(void *ptr)
{
    return cudaFree(ptr) != cudaSuccess;
}
