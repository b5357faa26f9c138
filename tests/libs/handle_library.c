/* SPDX-License-Identifier: MIT */
/* A stand-in library of handles, built as libcudnn.so.9, libcusparse.so.12
 * and libcusolver.so.12 (meson.build names its calls, sizes and statuses,
 * those from NVIDIA's cudnn_graph.h, cusparse.h and cusolver_common.h):
 * CREATE makes a handle holding HANDLE_BYTES of device memory, allocated
 * through the stand-in runtime (cudaMalloc), as the libraries document
 * their creating calls to allocate resources on the device; DESTROY frees
 * it. */
#include <stdlib.h>

#include "cuda_runtime_api.h"
#include "handle_sizes.h"

#define EXPORT __attribute__((visibility("default")))
#define MAGIC 0x48444c45u

struct handle {
    unsigned magic; /* refuses a stale or foreign handle */
    void *device;
};

EXPORT int CREATE(struct handle **handle)
{
    if (!handle)
        return STATUS_INVALID_VALUE;
    struct handle *h = calloc(1, sizeof *h);
    if (!h)
        return STATUS_ALLOC_FAILED;
    if (cudaMalloc(&h->device, HANDLE_BYTES) != cudaSuccess) {
        free(h);
        return STATUS_ALLOC_FAILED;
    }
    h->magic = MAGIC;
    *handle = h;
    return 0;
}

EXPORT int DESTROY(struct handle *h)
{
    if (!h || h->magic != MAGIC)
        return STATUS_NOT_INITIALIZED;
    cudaFree(h->device);
    h->magic = 0;
    free(h);
    return 0;
}
