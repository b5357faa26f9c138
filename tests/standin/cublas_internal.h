/* SPDX-License-Identifier: MIT */
/* Stand-in cuBLAS and cuBLASLt (libcublas.so.13, libcublasLt.so.13): the
 * types both share, from NVIDIA's cublas_api.h and cublasLt.h. A handle
 * serves both, as PyTorch passes its cuBLAS handle to cuBLASLt. */
#ifndef STANDIN_CUBLAS_INTERNAL_H
#define STANDIN_CUBLAS_INTERNAL_H

#include "cuda_runtime_api.h"

#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

typedef enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_ARCH_MISMATCH = 8,
    CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_INTERNAL_ERROR = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;

#define HANDLE_MAGIC 0x43424c53u

struct cublasContext {
    unsigned magic;
    cudaStream_t stream;
    void *workspace; /* the caller's (cublasSetWorkspace), or the default */
    size_t workspace_bytes;
    int default_workspace; /* workspace is cuBLAS's own, allocated with cudaMalloc */
    int math_mode;
    int pointer_mode;
    int sm_count_target;
};
typedef struct cublasContext *cublasHandle_t;

/* The handle, if it is one. */
static inline struct cublasContext *cublas_handle(void *h)
{
    struct cublasContext *c = (struct cublasContext *)h;
    return c && c->magic == HANDLE_MAGIC ? c : NULL;
}

/* A status's name and description (cublas_status.c): never NULL. */
const char *cublas_status_name(cublasStatus_t status);
const char *cublas_status_string(cublasStatus_t status);

#endif
