/* SPDX-License-Identifier: MIT */
/* The names and descriptions of cuBLAS's statuses (cublas_api.h), which
 * cublasGetStatusName/String and cublasLtGetStatusName/String give; built
 * into both libraries. */
#include "cublas_internal.h"

struct status_text {
    cublasStatus_t status;
    const char *name, *text;
};

static const struct status_text texts[] = {
    {CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS", "success"},
    {CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED",
     "the library was not initialized"},
    {CUBLAS_STATUS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed"},
    {CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE",
     "an unsupported value or parameter was passed to the function"},
    {CUBLAS_STATUS_ARCH_MISMATCH, "CUBLAS_STATUS_ARCH_MISMATCH",
     "the function requires a feature absent from the device architecture"},
    {CUBLAS_STATUS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR",
     "an access to GPU memory space failed"},
    {CUBLAS_STATUS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED",
     "the GPU program failed to execute"},
    {CUBLAS_STATUS_INTERNAL_ERROR, "CUBLAS_STATUS_INTERNAL_ERROR",
     "an internal operation failed"},
    {CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED",
     "the functionality requested is not supported"},
    {CUBLAS_STATUS_LICENSE_ERROR, "CUBLAS_STATUS_LICENSE_ERROR", "the license check failed"},
};

static const struct status_text *text_of(cublasStatus_t status)
{
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i].status == status)
            return &texts[i];
    return NULL;
}

const char *cublas_status_name(cublasStatus_t status)
{
    const struct status_text *t = text_of(status);
    return t ? t->name : "CUBLAS_STATUS_UNKNOWN";
}

const char *cublas_status_string(cublasStatus_t status)
{
    const struct status_text *t = text_of(status);
    return t ? t->text : "unknown error";
}
