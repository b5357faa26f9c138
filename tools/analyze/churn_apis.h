/* SPDX-License-Identifier: MIT */
/* Which allocating APIs synchronize the device at each call, with their
 * free (churn_apis.c): where allocating and freeing again and again costs
 * a device synchronization each time, and a pool would not. */
#ifndef VT_CHURN_APIS_H
#define VT_CHURN_APIS_H

/* The free that pairs with the allocating API, when both synchronize the
 * device ("cudaFree" for cudaMalloc and cudaMallocManaged, "cuMemFreeHost"
 * for cuMemAllocHost); NULL for one that does not (stream-ordered
 * allocations, graphs' memory, VMM) or an unknown API. */
const char *vt_churn_sync_free(unsigned api);

#endif
