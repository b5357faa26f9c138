/* SPDX-License-Identifier: MIT */
#include "driver_function.h"

#include "cuda_abi.h"
#include "elf_symbol.h"
#include "hook_table.h"
#include "resolve.h"

#include <dlfcn.h>
#include <stddef.h>

/* What the driver's cuGetProcAddress is asked for each function the tracer
 * calls: the base name and the version of that ABI, as cudaTypedefs.h names
 * them PFN_<base>_v<version> (it knows no exported names such as
 * cuMemGetInfo_v2). */
static const struct request {
    const char *symbol, *base;
    int version;
} requests[] = {
    {"cuCtxFromGreenCtx", "cuCtxFromGreenCtx", 12040},
    {"cuCtxGetCurrent", "cuCtxGetCurrent", 4000},
    {"cuCtxGetDevice", "cuCtxGetDevice", 2000},
    {"cuCtxGetDevice_v2", "cuCtxGetDevice", 13000},
    {"cuCtxPopCurrent_v2", "cuCtxPopCurrent", 4000},
    {"cuCtxPushCurrent_v2", "cuCtxPushCurrent", 4000},
    {"cuDeviceGetGraphMemAttribute", "cuDeviceGetGraphMemAttribute", 11040},
    {"cuDeviceGetName", "cuDeviceGetName", 2000},
    {"cuDeviceGetPCIBusId", "cuDeviceGetPCIBusId", 4010},
    {"cuDeviceGetUuid_v2", "cuDeviceGetUuid", 11040},
    {"cuDevicePrimaryCtxGetState", "cuDevicePrimaryCtxGetState", 7000},
    {"cuDeviceTotalMem_v2", "cuDeviceTotalMem", 3020},
    {"cuMemGetInfo_v2", "cuMemGetInfo", 3020},
    {"cuPointerGetAttribute", "cuPointerGetAttribute", 4000},
    {"cuStreamGetCaptureInfo_v2", "cuStreamGetCaptureInfo", 11030},
    {"cuStreamGetCtx", "cuStreamGetCtx", 9020},
};

static const struct request *request_for(const char *name)
{
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++)
        if (vt_str_eq(requests[i].symbol, name))
            return &requests[i];
    return NULL;
}

void *vt_driver_function(const char *name)
{
    void *p = vt_find_real(name);
    const struct request *request = request_for(name);
    cuGetProcAddress_v2_fn resolver;
    if (p || !request)
        return p;
    /* libcuda loaded RTLD_LOCAL and its handle unknown: ask its own resolver. */
    resolver = (cuGetProcAddress_v2_fn)vt_hook_real_if_known(VT_HOOK_cuGetProcAddress_v2);
    if (resolver && resolver(request->base, &p, request->version, 0, NULL) == CUDA_SUCCESS)
        return p;
    return NULL;
}

/* Every slot ever filled, for vt_driver_functions_forget_unloaded. */
#define MAX_SLOTS 64
static void **slots[MAX_SLOTS];
static unsigned slot_count;

static void list_slot(void **slot)
{
    unsigned n = __atomic_load_n(&slot_count, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n && i < MAX_SLOTS; i++)
        if (__atomic_load_n(&slots[i], __ATOMIC_ACQUIRE) == slot)
            return;
    n = __atomic_fetch_add(&slot_count, 1, __ATOMIC_ACQ_REL);
    if (n < MAX_SLOTS)
        __atomic_store_n(&slots[n], slot, __ATOMIC_RELEASE);
}

void *vt_driver_function_cached(void **slot, const char *name)
{
    void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!p) {
        p = vt_driver_function(name);
        if (p) {
            list_slot(slot);
            __atomic_store_n(slot, p, __ATOMIC_RELEASE);
        }
    }
    return p;
}

void vt_driver_functions_forget_unloaded(void)
{
    unsigned n = __atomic_load_n(&slot_count, __ATOMIC_ACQUIRE);
    Dl_info info;
    for (unsigned i = 0; i < n && i < MAX_SLOTS; i++) {
        void **slot = __atomic_load_n(&slots[i], __ATOMIC_ACQUIRE);
        void *p = slot ? __atomic_load_n(slot, __ATOMIC_ACQUIRE) : NULL;
        if (p && !dladdr(p, &info))
            __atomic_compare_exchange_n(slot, &p, NULL, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    }
}
