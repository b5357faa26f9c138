/* SPDX-License-Identifier: MIT */
/* cuBLASLt's descriptors: operations (cublasLtMatmulDesc), matrix layouts
 * and matmul preferences, host objects the library allocates, each holding
 * its attributes as cublasLt.h lists them: each attribute's size, and its
 * value as set, else its documented default. */
#include "cublasLt_internal.h"

#include <stdlib.h>
#include <string.h>

#define DESC_MAGIC 0x4c54444du
#define MAX_ATTRIBUTES 39 /* the highest attribute (EMULATION_DESCRIPTOR) + 1 */

/* An attribute of a kind of descriptor: its size in bytes (0: none such)
 * and its default. */
struct attribute {
    unsigned char size;
    uint64_t fallback;
};

#define I32 4
#define I64 8
#define PTR sizeof(void *)

static const struct attribute operation_attributes[MAX_ATTRIBUTES] = {
    [0] = {I32, 0},  [1] = {I32, 0},  [2] = {I32, 0},  /* compute, scale type; pointer mode */
    [3] = {I32, 0},  [4] = {I32, 0},  [5] = {I32, 0},  /* transa, transb, transc: N */
    [6] = {I32, 2},  [7] = {I32, 1},                   /* fill mode FULL, epilogue DEFAULT */
    [8] = {PTR, 0},  [10] = {I64, 0}, [11] = {PTR, 0}, [12] = {I64, 0}, [13] = {I64, 0},
    [14] = {I64, 0}, [15] = {I32, 0}, [17] = {PTR, 0}, [18] = {PTR, 0}, [19] = {PTR, 0},
    [20] = {PTR, 0}, [21] = {PTR, 0}, [22] = {I32, (uint32_t)-1},      /* aux data type */
    [23] = {PTR, 0}, [24] = {PTR, 0}, [25] = {1, 0},   /* fast accumulation: int8_t */
    [26] = {I32, (uint32_t)-1},                        /* bias data type */
    [31] = {I32, 0}, [32] = {I32, 0}, [33] = {I32, 0}, [34] = {I32, 0}, [35] = {I32, 0},
    [36] = {PTR, 0}, [37] = {I32, 0}, [38] = {PTR, 0},
};

static const struct attribute layout_attributes[MAX_ATTRIBUTES] = {
    [0] = {I32, 0}, [1] = {I32, 0}, /* type; order: COL */
    [2] = {I64, 0}, [3] = {I64, 0}, [4] = {I64, 0}, /* rows, cols, leading dimension */
    [5] = {I32, 1}, [6] = {I64, 0}, [7] = {I64, 0}, [8] = {I32, 0}, /* one batch, strided */
};

static const struct attribute preference_attributes[MAX_ATTRIBUTES] = {
    [0] = {I32, 0},   [1] = {I64, 0},   /* search mode BEST_FIT; no workspace */
    [3] = {I32, 0x7},                   /* every reduction scheme */
    [5] = {I32, 256}, [6] = {I32, 256}, [7] = {I32, 256}, [8] = {I32, 256}, /* alignments */
    [9] = {I32, 0},   [12] = {I64, UINT64_MAX}, /* waves (a float 0.0f); every implementation */
};

struct lt_desc {
    unsigned magic;
    char kind; /* LT_OPERATION, LT_LAYOUT, LT_PREFERENCE */
    uint64_t values[MAX_ATTRIBUTES];
};

static const struct attribute *attributes_of(char kind)
{
    return kind == LT_OPERATION ? operation_attributes
           : kind == LT_LAYOUT  ? layout_attributes
                                : preference_attributes;
}

static struct lt_desc *desc_of(const void *p, char kind)
{
    struct lt_desc *d = (struct lt_desc *)p;
    return d && d->magic == DESC_MAGIC && d->kind == kind ? d : NULL;
}

int lt_desc_ok(const void *p, char kind)
{
    return desc_of(p, kind) != NULL;
}

static cublasStatus_t new_desc(void **out, char kind)
{
    if (!out)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct lt_desc *d = calloc(1, sizeof *d);
    if (!d)
        return CUBLAS_STATUS_ALLOC_FAILED;
    d->magic = DESC_MAGIC;
    d->kind = kind;
    for (int a = 0; a < MAX_ATTRIBUTES; a++)
        d->values[a] = attributes_of(kind)[a].fallback;
    *out = d;
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t destroy_desc(void *p, char kind)
{
    struct lt_desc *d = desc_of(p, kind);
    if (!d)
        return p ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_SUCCESS;
    d->magic = 0;
    free(d);
    return CUBLAS_STATUS_SUCCESS;
}

/* The size of attribute ATTR of a KIND descriptor; 0 for none such. */
static size_t size_of(char kind, int attr)
{
    return attr >= 0 && attr < MAX_ATTRIBUTES ? attributes_of(kind)[attr].size : 0;
}

/* BUF must be exactly the attribute's size. */
static cublasStatus_t set_attribute(void *p, char kind, int attr, const void *buf, size_t size)
{
    struct lt_desc *d = desc_of(p, kind);
    size_t want = size_of(kind, attr);
    if (!d || !buf || !want || size != want)
        return CUBLAS_STATUS_INVALID_VALUE;
    d->values[attr] = 0;
    memcpy(&d->values[attr], buf, size);
    return CUBLAS_STATUS_SUCCESS;
}

/* With SIZE 0, only the size it takes (in *WRITTEN); else BUF must be
 * exactly the attribute's size. */
static cublasStatus_t get_attribute(const void *p, char kind, int attr, void *buf, size_t size,
                                    size_t *written)
{
    const struct lt_desc *d = desc_of(p, kind);
    size_t want = size_of(kind, attr);
    if (!d || !want || (size == 0 && !written) || (size && (!buf || size != want)))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (written)
        *written = want;
    if (size)
        memcpy(buf, &d->values[attr], size);
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmulDescCreate(void **matmulDesc, int computeType, int scaleType)
{
    cublasStatus_t s = new_desc(matmulDesc, LT_OPERATION);
    if (s == CUBLAS_STATUS_SUCCESS) {
        struct lt_desc *d = *matmulDesc;
        d->values[0] = (uint32_t)computeType;
        d->values[1] = (uint32_t)scaleType;
    }
    return s;
}

EXPORT cublasStatus_t cublasLtMatmulDescDestroy(void *matmulDesc)
{
    return destroy_desc(matmulDesc, LT_OPERATION);
}

EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(void *matmulDesc, int attr, const void *buf,
                                                     size_t sizeInBytes)
{
    return set_attribute(matmulDesc, LT_OPERATION, attr, buf, sizeInBytes);
}

EXPORT cublasStatus_t cublasLtMatmulDescGetAttribute(const void *matmulDesc, int attr, void *buf,
                                                     size_t sizeInBytes, size_t *sizeWritten)
{
    return get_attribute(matmulDesc, LT_OPERATION, attr, buf, sizeInBytes, sizeWritten);
}

EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(void **matLayout, int type, uint64_t rows,
                                                 uint64_t cols, int64_t ld)
{
    if (ld < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasStatus_t s = new_desc(matLayout, LT_LAYOUT);
    if (s == CUBLAS_STATUS_SUCCESS) {
        struct lt_desc *d = *matLayout;
        d->values[0] = (uint32_t)type;
        d->values[2] = rows;
        d->values[3] = cols;
        d->values[4] = (uint64_t)ld;
    }
    return s;
}

EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(void *matLayout)
{
    return destroy_desc(matLayout, LT_LAYOUT);
}

EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(void *matLayout, int attr, const void *buf,
                                                       size_t sizeInBytes)
{
    return set_attribute(matLayout, LT_LAYOUT, attr, buf, sizeInBytes);
}

EXPORT cublasStatus_t cublasLtMatrixLayoutGetAttribute(const void *matLayout, int attr, void *buf,
                                                       size_t sizeInBytes, size_t *sizeWritten)
{
    return get_attribute(matLayout, LT_LAYOUT, attr, buf, sizeInBytes, sizeWritten);
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceCreate(void **pref)
{
    return new_desc(pref, LT_PREFERENCE);
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceDestroy(void *pref)
{
    return destroy_desc(pref, LT_PREFERENCE);
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceSetAttribute(void *pref, int attr, const void *buf,
                                                           size_t sizeInBytes)
{
    return set_attribute(pref, LT_PREFERENCE, attr, buf, sizeInBytes);
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceGetAttribute(const void *pref, int attr, void *buf,
                                                           size_t sizeInBytes, size_t *sizeWritten)
{
    return get_attribute(pref, LT_PREFERENCE, attr, buf, sizeInBytes, sizeWritten);
}
