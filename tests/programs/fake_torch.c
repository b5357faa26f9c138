/* SPDX-License-Identifier: MIT */
/* Built as libtorch_standin.so: a library named like PyTorch's (libtorch_*),
 * so reports fold its frames as PyTorch's. Three frames of its own stand
 * between its caller and cudaMalloc, as PyTorch's dispatcher and caching
 * allocator do (tests/test_folding.py). */
#include <cuda_runtime_api.h>
#include "check.h"

NOINLINE void *torch_standin_allocate(size_t bytes)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, bytes));
    return p;
}

NOINLINE void *torch_standin_dispatch(size_t bytes)
{
    return torch_standin_allocate(bytes);
}

NOINLINE void *torch_standin_empty(size_t bytes)
{
    return torch_standin_dispatch(bytes);
}

NOINLINE void *torch_standin_ones(size_t bytes)
{
    return torch_standin_dispatch(bytes);
}
