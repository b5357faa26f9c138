/* SPDX-License-Identifier: MIT */
/* STANDIN_CUDA_ALIASED_ENTRY_POINTS=1: cuGetProcAddress hands out, for the
 * allocation API, entry points that the symbol table names otherwise, as a
 * driver whose functions have several names at one address may. Which
 * function a pointer is must come from the request (name, version, flags),
 * not from the name dladdr finds there. Their calls stay inside this library
 * (-Bsymbolic-functions). */
#include "driver_internal.h"

#include <stdlib.h>
#include <string.h>

EXPORT CUresult cuStandinAlloc(CUdeviceptr *dptr, size_t bytesize)
{
    return cuMemAlloc_v2(dptr, bytesize);
}

EXPORT CUresult cuStandinFree(CUdeviceptr dptr)
{
    return cuMemFree_v2(dptr);
}

EXPORT CUresult cuStandinAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream stream)
{
    return cuMemAllocAsync(dptr, bytesize, stream);
}

EXPORT CUresult cuStandinAllocAsyncPerThread(CUdeviceptr *dptr, size_t bytesize, CUstream stream)
{
    return cuMemAllocAsync_ptsz(dptr, bytesize, stream);
}

EXPORT CUresult cuStandinFreeAsync(CUdeviceptr dptr, CUstream stream)
{
    return cuMemFreeAsync(dptr, stream);
}

EXPORT CUresult cuStandinFreeAsyncPerThread(CUdeviceptr dptr, CUstream stream)
{
    return cuMemFreeAsync_ptsz(dptr, stream);
}

void *standin_aliased_entry_point(void *fn)
{
    static const struct {
        void *fn, *alias;
    } aliases[] = {
        {(void *)cuMemAlloc_v2, (void *)cuStandinAlloc},
        {(void *)cuMemFree_v2, (void *)cuStandinFree},
        {(void *)cuMemAllocAsync, (void *)cuStandinAllocAsync},
        {(void *)cuMemAllocAsync_ptsz, (void *)cuStandinAllocAsyncPerThread},
        {(void *)cuMemFreeAsync, (void *)cuStandinFreeAsync},
        {(void *)cuMemFreeAsync_ptsz, (void *)cuStandinFreeAsyncPerThread},
    };
    const char *v = getenv("STANDIN_CUDA_ALIASED_ENTRY_POINTS");
    for (size_t i = 0; v && !strcmp(v, "1") && i < sizeof aliases / sizeof aliases[0]; i++)
        if (aliases[i].fn == fn)
            return aliases[i].alias;
    return fn;
}
