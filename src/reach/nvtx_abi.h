/* SPDX-License-Identifier: MIT */
/* The part of NVTX v3's injection interface that vramtrace uses (nvtx3's
 * nvToolsExt.h and nvtxDetail/nvtxTypes.h): our own declarations, as
 * cuda_abi.h is for CUDA, so nothing needs the toolkit; tests/nvtx_abi_check.c
 * compiles them against the real headers where they are installed. */
#ifndef VRAMTRACE_NVTX_ABI_H
#define VRAMTRACE_NVTX_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

typedef uint64_t nvtxRangeId_t;
typedef struct nvtxDomainRegistration_st nvtxDomainRegistration;
typedef nvtxDomainRegistration *nvtxDomainHandle_t;
typedef struct nvtxStringRegistration_st nvtxStringRegistration;
typedef nvtxStringRegistration *nvtxStringHandle_t;

enum {
    NVTX_MESSAGE_UNKNOWN = 0,
    NVTX_MESSAGE_TYPE_ASCII = 1,
    NVTX_MESSAGE_TYPE_UNICODE = 2,
    NVTX_MESSAGE_TYPE_REGISTERED = 3,
};

/* What a push or pop returns where no tool tracks them. */
#define NVTX_NO_PUSH_POP_TRACKING ((int)-2)

typedef union nvtxMessageValue_t {
    const char *ascii;
    const wchar_t *unicode;
    nvtxStringHandle_t registered;
} nvtxMessageValue_t;

typedef struct nvtxEventAttributes_v2 {
    uint16_t version;
    uint16_t size; /* of the struct as the caller knows it */
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    union payload_t {
        uint64_t ullValue;
        int64_t llValue;
        double dValue;
        uint32_t uiValue;
        int32_t iValue;
        float fValue;
    } payload;
    int32_t messageType; /* NVTX_MESSAGE_* */
    nvtxMessageValue_t message;
} nvtxEventAttributes_v2;
typedef struct nvtxEventAttributes_v2 nvtxEventAttributes_t;

/* nvtxDetail/nvtxTypes.h: the injection's side. */
typedef enum NvtxCallbackModule {
    NVTX_CB_MODULE_INVALID = 0,
    NVTX_CB_MODULE_CORE = 1,
    NVTX_CB_MODULE_CORE2 = 5,
} NvtxCallbackModule;

enum {
    NVTX_CBID_CORE_RangeStartEx = 4,
    NVTX_CBID_CORE_RangeStartA = 5,
    NVTX_CBID_CORE_RangeStartW = 6,
    NVTX_CBID_CORE_RangeEnd = 7,
    NVTX_CBID_CORE_RangePushEx = 8,
    NVTX_CBID_CORE_RangePushA = 9,
    NVTX_CBID_CORE_RangePushW = 10,
    NVTX_CBID_CORE_RangePop = 11,
};

enum {
    NVTX_CBID_CORE2_DomainRangeStartEx = 2,
    NVTX_CBID_CORE2_DomainRangeEnd = 3,
    NVTX_CBID_CORE2_DomainRangePushEx = 4,
    NVTX_CBID_CORE2_DomainRangePop = 5,
    NVTX_CBID_CORE2_DomainRegisterStringA = 10,
    NVTX_CBID_CORE2_DomainRegisterStringW = 11,
    NVTX_CBID_CORE2_DomainCreateA = 12,
    NVTX_CBID_CORE2_DomainCreateW = 13,
};

enum { NVTX_ETID_CALLBACKS = 1 };

typedef void (*NvtxFunctionPointer)(void); /* cast to the slot's own type */
typedef NvtxFunctionPointer **NvtxFunctionTable;

typedef struct NvtxExportTableCallbacks {
    size_t struct_size;
    int (*GetModuleFunctionTable)(NvtxCallbackModule callback_module, NvtxFunctionTable *out_table,
                                  unsigned int *out_size);
} NvtxExportTableCallbacks;

typedef const void *(*NvtxGetExportTableFunc_t)(uint32_t exportTableId);
typedef int (*NvtxInitializeInjectionNvtxFunc_t)(NvtxGetExportTableFunc_t exportTable);

/* The slots we fill, by their types in nvtxTypes.h. */
typedef nvtxRangeId_t (*nvtxRangeStartEx_impl_fntype)(const nvtxEventAttributes_t *eventAttrib);
typedef nvtxRangeId_t (*nvtxRangeStartA_impl_fntype)(const char *message);
typedef nvtxRangeId_t (*nvtxRangeStartW_impl_fntype)(const wchar_t *message);
typedef void (*nvtxRangeEnd_impl_fntype)(nvtxRangeId_t id);
typedef int (*nvtxRangePushEx_impl_fntype)(const nvtxEventAttributes_t *eventAttrib);
typedef int (*nvtxRangePushA_impl_fntype)(const char *message);
typedef int (*nvtxRangePushW_impl_fntype)(const wchar_t *message);
typedef int (*nvtxRangePop_impl_fntype)(void);
typedef nvtxRangeId_t (*nvtxDomainRangeStartEx_impl_fntype)(
    nvtxDomainHandle_t domain, const nvtxEventAttributes_t *eventAttrib);
typedef void (*nvtxDomainRangeEnd_impl_fntype)(nvtxDomainHandle_t domain, nvtxRangeId_t id);
typedef int (*nvtxDomainRangePushEx_impl_fntype)(nvtxDomainHandle_t domain,
                                                 const nvtxEventAttributes_t *eventAttrib);
typedef int (*nvtxDomainRangePop_impl_fntype)(nvtxDomainHandle_t domain);
typedef nvtxStringHandle_t (*nvtxDomainRegisterStringA_impl_fntype)(nvtxDomainHandle_t domain,
                                                                    const char *string);
typedef nvtxStringHandle_t (*nvtxDomainRegisterStringW_impl_fntype)(nvtxDomainHandle_t domain,
                                                                    const wchar_t *string);
typedef nvtxDomainHandle_t (*nvtxDomainCreateA_impl_fntype)(const char *name);
typedef nvtxDomainHandle_t (*nvtxDomainCreateW_impl_fntype)(const wchar_t *name);

/* nvToolsExtMem.h and nvtxDetail/nvtxExtTypes.h: the memory extension.
 * Its injection's side: NVTX calls InitializeInjectionNvtxExtension once
 * per extension module with the module's function slots to fill. */
typedef struct nvtxMemHeap_v1 nvtxMemHeap_t;
typedef nvtxMemHeap_t *nvtxMemHeapHandle_t;
typedef struct nvtxMemRegion_v1 nvtxMemRegion_t;
typedef nvtxMemRegion_t *nvtxMemRegionHandle_t;

typedef union nvtxMemRegionRef_t {
    void const *pointer;
    nvtxMemRegionHandle_t handle;
} nvtxMemRegionRef_t;

#define NVTX_MEM_TYPE_VIRTUAL_ADDRESS 0x1
#define NVTX_MEM_REGION_REF_TYPE_POINTER 0x1
#define NVTX_MEM_REGION_REF_TYPE_HANDLE 0x2

typedef struct nvtxMemVirtualRangeDesc_v1 {
    size_t size;
    void const *ptr;
} nvtxMemVirtualRangeDesc_v1;
typedef nvtxMemVirtualRangeDesc_v1 nvtxMemVirtualRangeDesc_t;

typedef struct nvtxMemHeapDesc_v1 {
    uint16_t extCompatID;
    uint16_t structSize;
    uint32_t reserved0;
    uint32_t usage;
    uint32_t type; /* NVTX_MEM_TYPE_*: what typeSpecificDesc points to */
    size_t typeSpecificDescSize;
    void const *typeSpecificDesc;
    uint32_t category;
    uint32_t messageType;
    nvtxMessageValue_t message;
} nvtxMemHeapDesc_v1;
typedef nvtxMemHeapDesc_v1 nvtxMemHeapDesc_t;

typedef struct nvtxMemRegionsRegisterBatch_v1 {
    uint16_t extCompatID;
    uint16_t structSize;
    uint32_t regionType; /* NVTX_MEM_TYPE_* */
    nvtxMemHeapHandle_t heap;
    size_t regionCount;
    size_t regionDescElementSize;
    void const *regionDescElements;
    nvtxMemRegionHandle_t *regionHandleElementsOut; /* may be NULL */
} nvtxMemRegionsRegisterBatch_v1;
typedef nvtxMemRegionsRegisterBatch_v1 nvtxMemRegionsRegisterBatch_t;

typedef struct nvtxMemRegionsResizeBatch_v1 {
    uint16_t extCompatID;
    uint16_t structSize;
    uint32_t regionType;
    size_t regionDescCount;
    size_t regionDescElementSize;
    void const *regionDescElements;
} nvtxMemRegionsResizeBatch_v1;
typedef nvtxMemRegionsResizeBatch_v1 nvtxMemRegionsResizeBatch_t;

typedef struct nvtxMemRegionsUnregisterBatch_v1 {
    uint16_t extCompatID;
    uint16_t structSize;
    uint32_t refType; /* NVTX_MEM_REGION_REF_TYPE_* */
    size_t refCount;
    size_t refElementSize;
    nvtxMemRegionRef_t const *refElements;
} nvtxMemRegionsUnregisterBatch_v1;
typedef nvtxMemRegionsUnregisterBatch_v1 nvtxMemRegionsUnregisterBatch_t;

#define NVTX_EXT_MODULEID_MEM 1
#define NVTX_EXT_COMPATID_MEM 0x0102
enum {
    NVTX3EXT_CBID_nvtxMemHeapRegister = 0,
    NVTX3EXT_CBID_nvtxMemHeapUnregister = 1,
    NVTX3EXT_CBID_nvtxMemHeapReset = 2,
    NVTX3EXT_CBID_nvtxMemRegionsRegister = 3,
    NVTX3EXT_CBID_nvtxMemRegionsResize = 4,
    NVTX3EXT_CBID_nvtxMemRegionsUnregister = 5,
};

typedef intptr_t (*NvtxExtGetExportFunction_t)(uint32_t exportFunctionId);
typedef struct nvtxExtModuleSegment_t {
    size_t segmentId;
    size_t slotCount;
    intptr_t *functionSlots;
} nvtxExtModuleSegment_t;
typedef struct nvtxExtModuleInfo_t {
    uint16_t nvtxVer;
    uint16_t structSize;
    uint16_t moduleId;
    uint16_t compatId;
    size_t segmentsCount;
    nvtxExtModuleSegment_t *segments;
    NvtxExtGetExportFunction_t getExportFunction;
    const void *extInfo;
} nvtxExtModuleInfo_t;
typedef int (*NvtxExtInitializeInjectionFunc_t)(nvtxExtModuleInfo_t *moduleInfo);

typedef nvtxMemHeapHandle_t (*nvtxMemHeapRegister_impl_fntype)(nvtxDomainHandle_t domain,
                                                               nvtxMemHeapDesc_t const *desc);
typedef void (*nvtxMemHeapUnregister_impl_fntype)(nvtxDomainHandle_t domain,
                                                  nvtxMemHeapHandle_t heap);
typedef void (*nvtxMemHeapReset_impl_fntype)(nvtxDomainHandle_t domain, nvtxMemHeapHandle_t heap);
typedef void (*nvtxMemRegionsRegister_impl_fntype)(nvtxDomainHandle_t domain,
                                                   nvtxMemRegionsRegisterBatch_t const *desc);
typedef void (*nvtxMemRegionsResize_impl_fntype)(nvtxDomainHandle_t domain,
                                                 nvtxMemRegionsResizeBatch_t const *desc);
typedef void (*nvtxMemRegionsUnregister_impl_fntype)(nvtxDomainHandle_t domain,
                                                     nvtxMemRegionsUnregisterBatch_t const *desc);

#endif
