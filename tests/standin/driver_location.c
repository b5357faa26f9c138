/* SPDX-License-Identifier: MIT */
/* Memory locations: which memory a location names (driver_internal.h). */
#include "driver_internal.h"

#include <stdlib.h>

/* STANDIN_CUDA_DEVICE_LOCATION_TYPE, read once (0: none). */
static int newer_device_type(void)
{
    static int type = -1;
    if (__atomic_load_n(&type, __ATOMIC_RELAXED) < 0) {
        const char *v = getenv("STANDIN_CUDA_DEVICE_LOCATION_TYPE");
        int t = v ? atoi(v) : 0;
        __atomic_store_n(&type, t > CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT ? t : 0,
                         __ATOMIC_RELAXED);
    }
    return __atomic_load_n(&type, __ATOMIC_RELAXED);
}

int location_device(const CUmemLocation *location)
{
    int type = (int)location->type, id = location->id;
    switch (type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        return id >= 0 && id < g_ndev ? id : -2;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
        return -1;
    default:
        if (type != newer_device_type())
            return -2;
        id &= 0xff; /* the deviceId byte of the location's union */
        return id < g_ndev ? id : -2;
    }
}
