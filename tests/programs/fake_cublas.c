/* Built as libcublas_standin.so: a library named like cuBLAS that keeps a
 * workspace for the life of its handle, as cuBLAS does. vramtrace's built-in
 * known memory ("libcublas": cuBLAS's handles and workspaces) names it. */
#include <cuda_runtime_api.h>
#include "check.h"

#define CUBLAS_WORKSPACE_BYTES 4194311

NOINLINE void *cublas_standin_create(void)
{
    void *workspace = NULL;
    CHECK(cudaMalloc(&workspace, CUBLAS_WORKSPACE_BYTES));
    return workspace;
}
/* SPDX-License-Identifier: MIT */
