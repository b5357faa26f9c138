/* SPDX-License-Identifier: MIT */
/* Libraries (cudaLibraryLoadData and the rest): any image loads; a kernel
 * asked for by name is a handle of its own that launches as a registered
 * kernel does (running nothing). Globals and managed variables are not
 * found: the stand-in reads no image. */
#include "cudart_internal.h"

#include <stdlib.h>

#define LIBRARY_MAGIC 0x4c494252u

struct library {
    unsigned magic;
};

static cudaError_t new_library(cudaLibrary_t *library)
{
    if (!library)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    struct library *l = calloc(1, sizeof *l);
    if (!l)
        return rt_error(cudaErrorMemoryAllocation);
    l->magic = LIBRARY_MAGIC;
    *library = (cudaLibrary_t)l;
    return cudaSuccess;
}

static struct library *library_of(cudaLibrary_t library)
{
    struct library *l = (struct library *)library;
    return l && l->magic == LIBRARY_MAGIC ? l : NULL;
}

EXPORT cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code, void *jitOptions,
                                       void **jitOptionsValues, unsigned int numJitOptions,
                                       void *libraryOptions, void **libraryOptionValues,
                                       unsigned int numLibraryOptions)
{
    (void)jitOptions, (void)jitOptionsValues, (void)numJitOptions, (void)libraryOptions;
    (void)libraryOptionValues, (void)numLibraryOptions;
    return code ? new_library(library) : rt_error(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t *library, const char *fileName,
                                           void *jitOptions, void **jitOptionsValues,
                                           unsigned int numJitOptions, void *libraryOptions,
                                           void **libraryOptionValues,
                                           unsigned int numLibraryOptions)
{
    (void)jitOptions, (void)jitOptionsValues, (void)numJitOptions, (void)libraryOptions;
    (void)libraryOptionValues, (void)numLibraryOptions;
    return fileName ? new_library(library) : rt_error(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaLibraryUnload(cudaLibrary_t library)
{
    struct library *l = library_of(library);
    if (!l)
        return rt_error(cudaErrorInvalidResourceHandle);
    l->magic = 0;
    free(l);
    return cudaSuccess;
}

/* A kernel handle per call, registered so that launches accept it. */
EXPORT cudaError_t cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library,
                                        const char *name)
{
    if (!pKernel || !name)
        return rt_error(cudaErrorInvalidValue);
    if (!library_of(library))
        return rt_error(cudaErrorInvalidResourceHandle);
    char *handle = calloc(1, 1);
    if (!handle)
        return rt_error(cudaErrorMemoryAllocation);
    rt_register_kernel(handle);
    *pKernel = (cudaKernel_t)handle;
    return cudaSuccess;
}

EXPORT cudaError_t cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t lib)
{
    if (!count)
        return rt_error(cudaErrorInvalidValue);
    if (!library_of(lib))
        return rt_error(cudaErrorInvalidResourceHandle);
    *count = 0;
    return cudaSuccess;
}

static cudaError_t not_found(cudaLibrary_t library, const char *name)
{
    if (!name)
        return rt_error(cudaErrorInvalidValue);
    return rt_error(library_of(library) ? cudaErrorSymbolNotFound : cudaErrorInvalidResourceHandle);
}

EXPORT cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library,
                                        const char *name)
{
    (void)dptr, (void)bytes;
    return not_found(library, name);
}

EXPORT cudaError_t cudaLibraryGetManaged(void **dptr, size_t *bytes, cudaLibrary_t library,
                                         const char *name)
{
    (void)dptr, (void)bytes;
    return not_found(library, name);
}

EXPORT cudaError_t cudaLibraryGetUnifiedFunction(void **fptr, cudaLibrary_t library,
                                                 const char *symbol)
{
    (void)fptr;
    return not_found(library, symbol);
}
