/* cudaGetDriverEntryPoint(ByVersion): the driver's cuGetProcAddress with
 * the runtime's flags and status. */
#include "cudart_internal.h"


static cudaError_t entry_point(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                               unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *driverStatus)
{
    if (!symbol || !funcPtr ||
        (flags & ~(unsigned long long)(cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream)))
        return rt_error(cudaErrorInvalidValue);
    cudaError_t e = rt_init();
    if (e != cudaSuccess)
        return rt_error(e);
    cuuint64_t cuflags = flags & cudaEnablePerThreadDefaultStream
                             ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
                         : flags & cudaEnableLegacyStream ? CU_GET_PROC_ADDRESS_LEGACY_STREAM
                                                          : CU_GET_PROC_ADDRESS_DEFAULT;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r = rt_drv.getProcAddress(symbol, funcPtr, (int)cudaVersion, cuflags, &st);
    if (driverStatus)
        *driverStatus = st == CU_GET_PROC_ADDRESS_SUCCESS ? cudaDriverEntryPointSuccess
                        : st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                            ? cudaDriverEntryPointVersionNotSufficent
                            : cudaDriverEntryPointSymbolNotFound;
    /* A symbol the driver lacks (or has only at a later version) is an
     * answer, not an error: cudaSuccess with NULL and the status, as the
     * 13.0 header documents. */
    if (r != CUDA_SUCCESS)
        *funcPtr = NULL;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                           unsigned long long flags,
                                           enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}

EXPORT cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                                unsigned long long flags,
                                                enum cudaDriverEntryPointQueryResult *driverStatus)
{
    if (!(flags & (cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream)))
        flags |= cudaEnablePerThreadDefaultStream;
    return entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}

EXPORT cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                                    unsigned int cudaVersion,
                                                    unsigned long long flags,
                                                    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus);
}

EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    if (!(flags & (cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream)))
        flags |= cudaEnablePerThreadDefaultStream;
    return entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus);
}
/* SPDX-License-Identifier: MIT */
