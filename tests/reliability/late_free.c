/* Linked into exit_order: allocates in its constructor and frees in its
 * destructor, which runs after main returns. */
#include <cuda_runtime_api.h>
#include "check.h"

#define LATE_FREE_BYTES 3100007

static void *held;

__attribute__((constructor)) static void late_free_init(void)
{
    CHECK(cudaMalloc(&held, LATE_FREE_BYTES));
}

__attribute__((destructor)) static void late_free_fini(void)
{
    CHECK(cudaFree(held));
}

void late_free_touch(void)
{
    vt_sink = held;
}
/* SPDX-License-Identifier: MIT */
