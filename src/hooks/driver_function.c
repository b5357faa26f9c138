/* SPDX-License-Identifier: MIT */
#include "driver_function.h"

#include "cuda_abi.h"
#include "hook_table.h"
#include "resolve.h"

void *vt_driver_function(const char *name)
{
    void *p = vt_find_real(name);
    cuGetProcAddress_v2_fn resolver;
    if (p)
        return p;
    /* libcuda loaded RTLD_LOCAL and its handle unknown: ask its own resolver. */
    resolver = (cuGetProcAddress_v2_fn)vt_hook_real_if_known(VT_HOOK_cuGetProcAddress_v2);
    if (resolver && resolver(name, &p, 12000, 0, NULL) == CUDA_SUCCESS)
        return p;
    return NULL;
}

void *vt_driver_function_cached(void **slot, const char *name)
{
    void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!p) {
        p = vt_driver_function(name);
        if (p)
            __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    }
    return p;
}
