/* SPDX-License-Identifier: MIT */
/* Proves that vramtrace's own NVTX declarations (src/reach/nvtx_abi.h) match
 * the toolkit's nvtx3 headers: compiled (-fsyntax-only) by tests/test_abi.py
 * where they are installed, as tests/abi_check.c checks cuda_abi.h: the real
 * header first, then ours with every shared name renamed to vt_<name>, and
 * _Static_asserts on types, enum constants, struct layouts and the function
 * types of the injection slots the tracer fills. */
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtMem.h>
#include <stddef.h>

/* ours defines it as the real header does, in other words */
enum { real_no_push_pop_tracking = NVTX_NO_PUSH_POP_TRACKING };
#undef NVTX_NO_PUSH_POP_TRACKING
/* the memory extension's slot ids are macros there, an enum here (of the
 * same names: the macros are gone by then) */
enum {
    real_CBID_nvtxMemHeapRegister = NVTX3EXT_CBID_nvtxMemHeapRegister,
    real_CBID_nvtxMemHeapUnregister = NVTX3EXT_CBID_nvtxMemHeapUnregister,
    real_CBID_nvtxMemHeapReset = NVTX3EXT_CBID_nvtxMemHeapReset,
    real_CBID_nvtxMemRegionsRegister = NVTX3EXT_CBID_nvtxMemRegionsRegister,
    real_CBID_nvtxMemRegionsResize = NVTX3EXT_CBID_nvtxMemRegionsResize,
    real_CBID_nvtxMemRegionsUnregister = NVTX3EXT_CBID_nvtxMemRegionsUnregister,
};
#undef NVTX3EXT_CBID_nvtxMemHeapRegister
#undef NVTX3EXT_CBID_nvtxMemHeapUnregister
#undef NVTX3EXT_CBID_nvtxMemHeapReset
#undef NVTX3EXT_CBID_nvtxMemRegionsRegister
#undef NVTX3EXT_CBID_nvtxMemRegionsResize
#undef NVTX3EXT_CBID_nvtxMemRegionsUnregister

#define nvtxRangeId_t vt_nvtxRangeId_t
#define nvtxDomainRegistration_st vt_nvtxDomainRegistration_st
#define nvtxDomainRegistration vt_nvtxDomainRegistration
#define nvtxDomainHandle_t vt_nvtxDomainHandle_t
#define nvtxStringRegistration_st vt_nvtxStringRegistration_st
#define nvtxStringRegistration vt_nvtxStringRegistration
#define nvtxStringHandle_t vt_nvtxStringHandle_t
#define nvtxMessageValue_t vt_nvtxMessageValue_t
#define nvtxEventAttributes_v2 vt_nvtxEventAttributes_v2
#define nvtxEventAttributes_t vt_nvtxEventAttributes_t
#define payload_t vt_payload_t
#define NvtxCallbackModule vt_NvtxCallbackModule
#define NvtxFunctionPointer vt_NvtxFunctionPointer
#define NvtxFunctionTable vt_NvtxFunctionTable
#define NvtxExportTableCallbacks vt_NvtxExportTableCallbacks
#define NvtxGetExportTableFunc_t vt_NvtxGetExportTableFunc_t
#define NvtxInitializeInjectionNvtxFunc_t vt_NvtxInitializeInjectionNvtxFunc_t
#define NVTX_MESSAGE_UNKNOWN vt_NVTX_MESSAGE_UNKNOWN
#define NVTX_MESSAGE_TYPE_ASCII vt_NVTX_MESSAGE_TYPE_ASCII
#define NVTX_MESSAGE_TYPE_UNICODE vt_NVTX_MESSAGE_TYPE_UNICODE
#define NVTX_MESSAGE_TYPE_REGISTERED vt_NVTX_MESSAGE_TYPE_REGISTERED
#define NVTX_CB_MODULE_INVALID vt_NVTX_CB_MODULE_INVALID
#define NVTX_CB_MODULE_CORE vt_NVTX_CB_MODULE_CORE
#define NVTX_CB_MODULE_CORE2 vt_NVTX_CB_MODULE_CORE2
#define NVTX_CBID_CORE_RangeStartEx vt_NVTX_CBID_CORE_RangeStartEx
#define NVTX_CBID_CORE_RangeStartA vt_NVTX_CBID_CORE_RangeStartA
#define NVTX_CBID_CORE_RangeStartW vt_NVTX_CBID_CORE_RangeStartW
#define NVTX_CBID_CORE_RangeEnd vt_NVTX_CBID_CORE_RangeEnd
#define NVTX_CBID_CORE_RangePushEx vt_NVTX_CBID_CORE_RangePushEx
#define NVTX_CBID_CORE_RangePushA vt_NVTX_CBID_CORE_RangePushA
#define NVTX_CBID_CORE_RangePushW vt_NVTX_CBID_CORE_RangePushW
#define NVTX_CBID_CORE_RangePop vt_NVTX_CBID_CORE_RangePop
#define NVTX_CBID_CORE2_DomainRangeStartEx vt_NVTX_CBID_CORE2_DomainRangeStartEx
#define NVTX_CBID_CORE2_DomainRangeEnd vt_NVTX_CBID_CORE2_DomainRangeEnd
#define NVTX_CBID_CORE2_DomainRangePushEx vt_NVTX_CBID_CORE2_DomainRangePushEx
#define NVTX_CBID_CORE2_DomainRangePop vt_NVTX_CBID_CORE2_DomainRangePop
#define NVTX_CBID_CORE2_DomainRegisterStringA vt_NVTX_CBID_CORE2_DomainRegisterStringA
#define NVTX_CBID_CORE2_DomainRegisterStringW vt_NVTX_CBID_CORE2_DomainRegisterStringW
#define NVTX_CBID_CORE2_DomainCreateA vt_NVTX_CBID_CORE2_DomainCreateA
#define NVTX_CBID_CORE2_DomainCreateW vt_NVTX_CBID_CORE2_DomainCreateW
#define NVTX_ETID_CALLBACKS vt_NVTX_ETID_CALLBACKS
#define nvtxRangeStartEx_impl_fntype vt_nvtxRangeStartEx_impl_fntype
#define nvtxRangeStartA_impl_fntype vt_nvtxRangeStartA_impl_fntype
#define nvtxRangeStartW_impl_fntype vt_nvtxRangeStartW_impl_fntype
#define nvtxRangeEnd_impl_fntype vt_nvtxRangeEnd_impl_fntype
#define nvtxRangePushEx_impl_fntype vt_nvtxRangePushEx_impl_fntype
#define nvtxRangePushA_impl_fntype vt_nvtxRangePushA_impl_fntype
#define nvtxRangePushW_impl_fntype vt_nvtxRangePushW_impl_fntype
#define nvtxRangePop_impl_fntype vt_nvtxRangePop_impl_fntype
#define nvtxDomainRangeStartEx_impl_fntype vt_nvtxDomainRangeStartEx_impl_fntype
#define nvtxDomainRangeEnd_impl_fntype vt_nvtxDomainRangeEnd_impl_fntype
#define nvtxDomainRangePushEx_impl_fntype vt_nvtxDomainRangePushEx_impl_fntype
#define nvtxDomainRangePop_impl_fntype vt_nvtxDomainRangePop_impl_fntype
#define nvtxDomainRegisterStringA_impl_fntype vt_nvtxDomainRegisterStringA_impl_fntype
#define nvtxDomainRegisterStringW_impl_fntype vt_nvtxDomainRegisterStringW_impl_fntype
#define nvtxDomainCreateA_impl_fntype vt_nvtxDomainCreateA_impl_fntype
#define nvtxDomainCreateW_impl_fntype vt_nvtxDomainCreateW_impl_fntype
#define nvtxMemHeap_v1 vt_nvtxMemHeap_v1
#define nvtxMemHeap_t vt_nvtxMemHeap_t
#define nvtxMemHeapHandle_t vt_nvtxMemHeapHandle_t
#define nvtxMemRegion_v1 vt_nvtxMemRegion_v1
#define nvtxMemRegion_t vt_nvtxMemRegion_t
#define nvtxMemRegionHandle_t vt_nvtxMemRegionHandle_t
#define nvtxMemRegionRef_t vt_nvtxMemRegionRef_t
#define nvtxMemVirtualRangeDesc_v1 vt_nvtxMemVirtualRangeDesc_v1
#define nvtxMemVirtualRangeDesc_t vt_nvtxMemVirtualRangeDesc_t
#define nvtxMemHeapDesc_v1 vt_nvtxMemHeapDesc_v1
#define nvtxMemHeapDesc_t vt_nvtxMemHeapDesc_t
#define nvtxMemRegionsRegisterBatch_v1 vt_nvtxMemRegionsRegisterBatch_v1
#define nvtxMemRegionsRegisterBatch_t vt_nvtxMemRegionsRegisterBatch_t
#define nvtxMemRegionsResizeBatch_v1 vt_nvtxMemRegionsResizeBatch_v1
#define nvtxMemRegionsResizeBatch_t vt_nvtxMemRegionsResizeBatch_t
#define nvtxMemRegionsUnregisterBatch_v1 vt_nvtxMemRegionsUnregisterBatch_v1
#define nvtxMemRegionsUnregisterBatch_t vt_nvtxMemRegionsUnregisterBatch_t
#define NvtxExtGetExportFunction_t vt_NvtxExtGetExportFunction_t
#define nvtxExtModuleSegment_t vt_nvtxExtModuleSegment_t
#define nvtxExtModuleInfo_t vt_nvtxExtModuleInfo_t
#define NvtxExtInitializeInjectionFunc_t vt_NvtxExtInitializeInjectionFunc_t
#define nvtxMemHeapRegister_impl_fntype vt_nvtxMemHeapRegister_impl_fntype
#define nvtxMemHeapUnregister_impl_fntype vt_nvtxMemHeapUnregister_impl_fntype
#define nvtxMemHeapReset_impl_fntype vt_nvtxMemHeapReset_impl_fntype
#define nvtxMemRegionsRegister_impl_fntype vt_nvtxMemRegionsRegister_impl_fntype
#define nvtxMemRegionsResize_impl_fntype vt_nvtxMemRegionsResize_impl_fntype
#define nvtxMemRegionsUnregister_impl_fntype vt_nvtxMemRegionsUnregister_impl_fntype

#ifdef VT_ABI_SELFTEST_STRUCT /* a member too many: must fail */
#define category category; uint32_t vt_selftest_extra
#endif
#include "nvtx_abi.h"
#ifdef VT_ABI_SELFTEST_STRUCT
#undef category
#endif

#undef nvtxRangeId_t
#undef nvtxDomainRegistration_st
#undef nvtxDomainRegistration
#undef nvtxDomainHandle_t
#undef nvtxStringRegistration_st
#undef nvtxStringRegistration
#undef nvtxStringHandle_t
#undef nvtxMessageValue_t
#undef nvtxEventAttributes_v2
#undef nvtxEventAttributes_t
#undef payload_t
#undef NvtxCallbackModule
#undef NvtxFunctionPointer
#undef NvtxFunctionTable
#undef NvtxExportTableCallbacks
#undef NvtxGetExportTableFunc_t
#undef NvtxInitializeInjectionNvtxFunc_t
#undef NVTX_MESSAGE_UNKNOWN
#undef NVTX_MESSAGE_TYPE_ASCII
#undef NVTX_MESSAGE_TYPE_UNICODE
#undef NVTX_MESSAGE_TYPE_REGISTERED
#undef NVTX_CB_MODULE_INVALID
#undef NVTX_CB_MODULE_CORE
#undef NVTX_CB_MODULE_CORE2
#undef NVTX_CBID_CORE_RangeStartEx
#undef NVTX_CBID_CORE_RangeStartA
#undef NVTX_CBID_CORE_RangeStartW
#undef NVTX_CBID_CORE_RangeEnd
#undef NVTX_CBID_CORE_RangePushEx
#undef NVTX_CBID_CORE_RangePushA
#undef NVTX_CBID_CORE_RangePushW
#undef NVTX_CBID_CORE_RangePop
#undef NVTX_CBID_CORE2_DomainRangeStartEx
#undef NVTX_CBID_CORE2_DomainRangeEnd
#undef NVTX_CBID_CORE2_DomainRangePushEx
#undef NVTX_CBID_CORE2_DomainRangePop
#undef NVTX_CBID_CORE2_DomainRegisterStringA
#undef NVTX_CBID_CORE2_DomainRegisterStringW
#undef NVTX_CBID_CORE2_DomainCreateA
#undef NVTX_CBID_CORE2_DomainCreateW
#undef NVTX_ETID_CALLBACKS
#undef nvtxRangeStartEx_impl_fntype
#undef nvtxRangeStartA_impl_fntype
#undef nvtxRangeStartW_impl_fntype
#undef nvtxRangeEnd_impl_fntype
#undef nvtxRangePushEx_impl_fntype
#undef nvtxRangePushA_impl_fntype
#undef nvtxRangePushW_impl_fntype
#undef nvtxRangePop_impl_fntype
#undef nvtxDomainRangeStartEx_impl_fntype
#undef nvtxDomainRangeEnd_impl_fntype
#undef nvtxDomainRangePushEx_impl_fntype
#undef nvtxDomainRangePop_impl_fntype
#undef nvtxDomainRegisterStringA_impl_fntype
#undef nvtxDomainRegisterStringW_impl_fntype
#undef nvtxDomainCreateA_impl_fntype
#undef nvtxDomainCreateW_impl_fntype
#undef nvtxMemHeap_v1
#undef nvtxMemHeap_t
#undef nvtxMemHeapHandle_t
#undef nvtxMemRegion_v1
#undef nvtxMemRegion_t
#undef nvtxMemRegionHandle_t
#undef nvtxMemRegionRef_t
#undef nvtxMemVirtualRangeDesc_v1
#undef nvtxMemVirtualRangeDesc_t
#undef nvtxMemHeapDesc_v1
#undef nvtxMemHeapDesc_t
#undef nvtxMemRegionsRegisterBatch_v1
#undef nvtxMemRegionsRegisterBatch_t
#undef nvtxMemRegionsResizeBatch_v1
#undef nvtxMemRegionsResizeBatch_t
#undef nvtxMemRegionsUnregisterBatch_v1
#undef nvtxMemRegionsUnregisterBatch_t
#undef NvtxExtGetExportFunction_t
#undef nvtxExtModuleSegment_t
#undef nvtxExtModuleInfo_t
#undef NvtxExtInitializeInjectionFunc_t
#undef nvtxMemHeapRegister_impl_fntype
#undef nvtxMemHeapUnregister_impl_fntype
#undef nvtxMemHeapReset_impl_fntype
#undef nvtxMemRegionsRegister_impl_fntype
#undef nvtxMemRegionsResize_impl_fntype
#undef nvtxMemRegionsUnregister_impl_fntype

#include "abi_asserts.h"
#define T_OURS(x) vt_##x
#define T_REAL(x) x

_Static_assert(NVTX_NO_PUSH_POP_TRACKING == real_no_push_pop_tracking,
               "VT_ABI NVTX_NO_PUSH_POP_TRACKING");
VT_ABI_SAME_TYPE(vt_nvtxRangeId_t, nvtxRangeId_t);
VT_ABI_TYPE(vt_nvtxDomainHandle_t, nvtxDomainHandle_t);
VT_ABI_TYPE(vt_nvtxStringHandle_t, nvtxStringHandle_t);
VT_ABI_TYPE(vt_NvtxCallbackModule, NvtxCallbackModule);
VT_ABI_SAME_TYPE(vt_NvtxFunctionPointer, NvtxFunctionPointer);
VT_ABI_SAME_TYPE(vt_NvtxFunctionTable, NvtxFunctionTable);
VT_ABI_SAME_TYPE(vt_NvtxGetExportTableFunc_t, NvtxGetExportTableFunc_t);
VT_ABI_SAME_TYPE(vt_NvtxInitializeInjectionNvtxFunc_t, NvtxInitializeInjectionNvtxFunc_t);
VT_ABI_STRUCT(vt_nvtxMessageValue_t, nvtxMessageValue_t);
VT_ABI_STRUCT(vt_nvtxEventAttributes_t, nvtxEventAttributes_t);

VT_ABI_MEMBER(vt_nvtxEventAttributes_t, nvtxEventAttributes_t, version);
VT_ABI_MEMBER(vt_nvtxEventAttributes_t, nvtxEventAttributes_t, size);
VT_ABI_MEMBER(vt_nvtxEventAttributes_t, nvtxEventAttributes_t, category);
VT_ABI_MEMBER(vt_nvtxEventAttributes_t, nvtxEventAttributes_t, colorType);
VT_ABI_MEMBER(vt_nvtxEventAttributes_t, nvtxEventAttributes_t, color);
VT_ABI_MEMBER(vt_nvtxEventAttributes_t, nvtxEventAttributes_t, payloadType);
VT_ABI_MEMBER(vt_nvtxEventAttributes_t, nvtxEventAttributes_t, reserved0);
VT_ABI_MEMBER(vt_nvtxEventAttributes_t, nvtxEventAttributes_t, payload);
VT_ABI_MEMBER(vt_nvtxEventAttributes_t, nvtxEventAttributes_t, messageType);
VT_ABI_MEMBER(vt_nvtxEventAttributes_t, nvtxEventAttributes_t, message);
VT_ABI_STRUCT(vt_NvtxExportTableCallbacks, NvtxExportTableCallbacks);
VT_ABI_MEMBER(vt_NvtxExportTableCallbacks, NvtxExportTableCallbacks, struct_size);
VT_ABI_MEMBER(vt_NvtxExportTableCallbacks, NvtxExportTableCallbacks, GetModuleFunctionTable);
_Static_assert(VT_SAME(__typeof__(((vt_NvtxExportTableCallbacks *)0)->GetModuleFunctionTable),
                       int (*)(vt_NvtxCallbackModule, vt_NvtxFunctionTable *, unsigned int *)),
               "VT_ABI our GetModuleFunctionTable");

VT_ABI_ENUM(NVTX_MESSAGE_UNKNOWN);
VT_ABI_ENUM(NVTX_MESSAGE_TYPE_ASCII);
VT_ABI_ENUM(NVTX_MESSAGE_TYPE_UNICODE);
VT_ABI_ENUM(NVTX_MESSAGE_TYPE_REGISTERED);
VT_ABI_ENUM(NVTX_CB_MODULE_INVALID);
VT_ABI_ENUM(NVTX_CB_MODULE_CORE);
VT_ABI_ENUM(NVTX_CB_MODULE_CORE2);
VT_ABI_ENUM(NVTX_CBID_CORE_RangeStartEx);
VT_ABI_ENUM(NVTX_CBID_CORE_RangeStartA);
VT_ABI_ENUM(NVTX_CBID_CORE_RangeStartW);
VT_ABI_ENUM(NVTX_CBID_CORE_RangeEnd);
VT_ABI_ENUM(NVTX_CBID_CORE_RangePushEx);
VT_ABI_ENUM(NVTX_CBID_CORE_RangePushA);
VT_ABI_ENUM(NVTX_CBID_CORE_RangePushW);
VT_ABI_ENUM(NVTX_CBID_CORE_RangePop);
VT_ABI_ENUM(NVTX_CBID_CORE2_DomainRangeStartEx);
VT_ABI_ENUM(NVTX_CBID_CORE2_DomainRangeEnd);
VT_ABI_ENUM(NVTX_CBID_CORE2_DomainRangePushEx);
VT_ABI_ENUM(NVTX_CBID_CORE2_DomainRangePop);
VT_ABI_ENUM(NVTX_CBID_CORE2_DomainRegisterStringA);
VT_ABI_ENUM(NVTX_CBID_CORE2_DomainRegisterStringW);
VT_ABI_ENUM(NVTX_CBID_CORE2_DomainCreateA);
VT_ABI_ENUM(NVTX_CBID_CORE2_DomainCreateW);
VT_ABI_ENUM(NVTX_ETID_CALLBACKS);
#ifdef VT_ABI_SELFTEST_ENUM
_Static_assert((long long)vt_NVTX_CBID_CORE_RangePop == (long long)NVTX_CBID_CORE_RangePushA,
               "VT_ABI selftest enum");
#endif

#define S_nvtxRangeStartEx(T) T(nvtxRangeId_t) (*)(const T(nvtxEventAttributes_t) *)
#define S_nvtxRangeStartA(T) T(nvtxRangeId_t) (*)(const char *)
#define S_nvtxRangeStartW(T) T(nvtxRangeId_t) (*)(const wchar_t *)
#define S_nvtxRangeEnd(T) void (*)(T(nvtxRangeId_t))
#define S_nvtxRangePushEx(T) int (*)(const T(nvtxEventAttributes_t) *)
#define S_nvtxRangePushA(T) int (*)(const char *)
#define S_nvtxRangePushW(T) int (*)(const wchar_t *)
#define S_nvtxRangePop(T) int (*)(void)
#define S_nvtxDomainRangeStartEx(T) T(nvtxRangeId_t) (*)(T(nvtxDomainHandle_t), const T(nvtxEventAttributes_t) *)
#define S_nvtxDomainRangeEnd(T) void (*)(T(nvtxDomainHandle_t), T(nvtxRangeId_t))
#define S_nvtxDomainRangePushEx(T) int (*)(T(nvtxDomainHandle_t), const T(nvtxEventAttributes_t) *)
#define S_nvtxDomainRangePop(T) int (*)(T(nvtxDomainHandle_t))
#define S_nvtxDomainRegisterStringA(T) T(nvtxStringHandle_t) (*)(T(nvtxDomainHandle_t), const char *)
#define S_nvtxDomainRegisterStringW(T) T(nvtxStringHandle_t) (*)(T(nvtxDomainHandle_t), const wchar_t *)
#define S_nvtxDomainCreateA(T) T(nvtxDomainHandle_t) (*)(const char *)
#define S_nvtxDomainCreateW(T) T(nvtxDomainHandle_t) (*)(const wchar_t *)
#ifdef VT_ABI_SELFTEST_FN /* a wrong parameter type: must fail */
#undef S_nvtxRangePushA
#define S_nvtxRangePushA(T) int (*)(const wchar_t *)
#endif
#define VT_ABI_NVTX_FN(name)                                                                 \
    _Static_assert(VT_SAME(vt_##name##_impl_fntype, S_##name(T_OURS)),                       \
                   "VT_ABI function type " #name);                                           \
    _Static_assert(VT_SAME(name##_impl_fntype, S_##name(T_REAL)), "VT_ABI real " #name " vs shape")

VT_ABI_NVTX_FN(nvtxRangeStartEx);
VT_ABI_NVTX_FN(nvtxRangeStartA);
VT_ABI_NVTX_FN(nvtxRangeStartW);
VT_ABI_NVTX_FN(nvtxRangeEnd);
VT_ABI_NVTX_FN(nvtxRangePushEx);
VT_ABI_NVTX_FN(nvtxRangePushA);
VT_ABI_NVTX_FN(nvtxRangePushW);
VT_ABI_NVTX_FN(nvtxRangePop);
VT_ABI_NVTX_FN(nvtxDomainRangeStartEx);
VT_ABI_NVTX_FN(nvtxDomainRangeEnd);
VT_ABI_NVTX_FN(nvtxDomainRangePushEx);
VT_ABI_NVTX_FN(nvtxDomainRangePop);
VT_ABI_NVTX_FN(nvtxDomainRegisterStringA);
VT_ABI_NVTX_FN(nvtxDomainRegisterStringW);
VT_ABI_NVTX_FN(nvtxDomainCreateA);
VT_ABI_NVTX_FN(nvtxDomainCreateW);

/* The memory extension (nvToolsExtMem.h, nvtxExtTypes.h). */
VT_ABI_TYPE(vt_nvtxMemHeapHandle_t, nvtxMemHeapHandle_t);
VT_ABI_TYPE(vt_nvtxMemRegionHandle_t, nvtxMemRegionHandle_t);
VT_ABI_SAME_TYPE(vt_NvtxExtGetExportFunction_t, NvtxExtGetExportFunction_t);
/* each struct's members, in order: a missing, extra or moved one fails */
#define VT_ABI_MEMBER_OF(T, m) VT_ABI_MEMBER(vt_##T, T, m);
#define VT_ABI_MEMBERS(T, LIST) \
    VT_ABI_STRUCT(vt_##T, T);    \
    LIST(T, VT_ABI_MEMBER_OF)
#define L_nvtxMemRegionRef_t(T, M) M(T, pointer) M(T, handle)
#define L_nvtxMemVirtualRangeDesc_t(T, M) M(T, size) M(T, ptr)
#define L_nvtxMemHeapDesc_t(T, M) M(T, extCompatID) M(T, structSize) M(T, reserved0) M(T, usage) M(T, type) M(T, typeSpecificDescSize) M(T, typeSpecificDesc) M(T, category) M(T, messageType) M(T, message)
#define L_nvtxMemRegionsRegisterBatch_t(T, M) M(T, extCompatID) M(T, structSize) M(T, regionType) M(T, heap) M(T, regionCount) M(T, regionDescElementSize) M(T, regionDescElements) M(T, regionHandleElementsOut)
#define L_nvtxMemRegionsResizeBatch_t(T, M) M(T, extCompatID) M(T, structSize) M(T, regionType) M(T, regionDescCount) M(T, regionDescElementSize) M(T, regionDescElements)
#define L_nvtxMemRegionsUnregisterBatch_t(T, M) M(T, extCompatID) M(T, structSize) M(T, refType) M(T, refCount) M(T, refElementSize) M(T, refElements)
#define L_nvtxExtModuleSegment_t(T, M) M(T, segmentId) M(T, slotCount) M(T, functionSlots)
#define L_nvtxExtModuleInfo_t(T, M) M(T, nvtxVer) M(T, structSize) M(T, moduleId) M(T, compatId) M(T, segmentsCount) M(T, segments) M(T, getExportFunction) M(T, extInfo)
VT_ABI_MEMBERS(nvtxMemRegionRef_t, L_nvtxMemRegionRef_t)
VT_ABI_MEMBERS(nvtxMemVirtualRangeDesc_t, L_nvtxMemVirtualRangeDesc_t)
VT_ABI_MEMBERS(nvtxMemHeapDesc_t, L_nvtxMemHeapDesc_t)
VT_ABI_MEMBERS(nvtxMemRegionsRegisterBatch_t, L_nvtxMemRegionsRegisterBatch_t)
VT_ABI_MEMBERS(nvtxMemRegionsResizeBatch_t, L_nvtxMemRegionsResizeBatch_t)
VT_ABI_MEMBERS(nvtxMemRegionsUnregisterBatch_t, L_nvtxMemRegionsUnregisterBatch_t)
VT_ABI_MEMBERS(nvtxExtModuleSegment_t, L_nvtxExtModuleSegment_t)
VT_ABI_MEMBERS(nvtxExtModuleInfo_t, L_nvtxExtModuleInfo_t)
_Static_assert(VT_SAME(vt_NvtxExtInitializeInjectionFunc_t, int (*)(vt_nvtxExtModuleInfo_t *)) &&
                   VT_SAME(NvtxExtInitializeInjectionFunc_t, int (*)(nvtxExtModuleInfo_t *)),
               "VT_ABI NvtxExtInitializeInjectionFunc_t");
_Static_assert((long long)NVTX3EXT_CBID_nvtxMemHeapRegister == (long long)real_CBID_nvtxMemHeapRegister, "VT_ABI slot nvtxMemHeapRegister");
_Static_assert((long long)NVTX3EXT_CBID_nvtxMemHeapUnregister == (long long)real_CBID_nvtxMemHeapUnregister, "VT_ABI slot nvtxMemHeapUnregister");
_Static_assert((long long)NVTX3EXT_CBID_nvtxMemHeapReset == (long long)real_CBID_nvtxMemHeapReset, "VT_ABI slot nvtxMemHeapReset");
_Static_assert((long long)NVTX3EXT_CBID_nvtxMemRegionsRegister == (long long)real_CBID_nvtxMemRegionsRegister, "VT_ABI slot nvtxMemRegionsRegister");
_Static_assert((long long)NVTX3EXT_CBID_nvtxMemRegionsResize == (long long)real_CBID_nvtxMemRegionsResize, "VT_ABI slot nvtxMemRegionsResize");
_Static_assert((long long)NVTX3EXT_CBID_nvtxMemRegionsUnregister == (long long)real_CBID_nvtxMemRegionsUnregister, "VT_ABI slot nvtxMemRegionsUnregister");
#define S_nvtxMemHeapRegister(T) T(nvtxMemHeapHandle_t) (*)(T(nvtxDomainHandle_t), T(nvtxMemHeapDesc_t) const *)
#define S_nvtxMemHeapUnregister(T) void (*)(T(nvtxDomainHandle_t), T(nvtxMemHeapHandle_t))
#define S_nvtxMemHeapReset(T) void (*)(T(nvtxDomainHandle_t), T(nvtxMemHeapHandle_t))
#define S_nvtxMemRegionsRegister(T) void (*)(T(nvtxDomainHandle_t), T(nvtxMemRegionsRegisterBatch_t) const *)
#define S_nvtxMemRegionsResize(T) void (*)(T(nvtxDomainHandle_t), T(nvtxMemRegionsResizeBatch_t) const *)
#define S_nvtxMemRegionsUnregister(T) void (*)(T(nvtxDomainHandle_t), T(nvtxMemRegionsUnregisterBatch_t) const *)
VT_ABI_NVTX_FN(nvtxMemHeapRegister);
VT_ABI_NVTX_FN(nvtxMemHeapUnregister);
VT_ABI_NVTX_FN(nvtxMemHeapReset);
VT_ABI_NVTX_FN(nvtxMemRegionsRegister);
VT_ABI_NVTX_FN(nvtxMemRegionsResize);
VT_ABI_NVTX_FN(nvtxMemRegionsUnregister);
