/* A plugin linked to libcudart.so.13 and loaded with RTLD_LOCAL (as Python
 * loads extension modules): the runtime it uses is invisible to RTLD_NEXT. */
#include <cuda_runtime_api.h>
#include "check.h"

#define PLUGIN_LEAK_BYTES 1300021
#define LOOP 10

NOINLINE void plugin_balanced(void)
{
    for (int i = 0; i < LOOP; i++) {
        void *p;
        CHECK(cudaMalloc(&p, 1300 + i));
        CHECK(cudaFree(p));
    }
}

NOINLINE void plugin_leak(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, PLUGIN_LEAK_BYTES)); /* LEAK:plugin */
    vt_sink = p;
}
/* SPDX-License-Identifier: MIT */
