/* Proves that vramtrace's own NVML declarations (src/reach/nvml_abi.h) match the
 * real nvml.h: compiled (-fsyntax-only) by tests/test_abi.py where nvml.h is
 * installed, the same way tests/abi_check.c checks cuda_abi.h: the real
 * header first, then ours with every shared name renamed to vt_<name>, and
 * _Static_asserts on types, enum constants, struct layouts and function
 * signatures. The stand-in libnvidia-ml.so.1 asserts that its definitions
 * have our signatures, so it matches nvml.h too. Our buffer-size macros are
 * redefinitions of the real ones: a different value fails the compile. */
#include <nvml.h>
#include <stddef.h>

#define nvmlReturn_t vt_nvmlReturn_t
#define NVML_SUCCESS vt_NVML_SUCCESS
#define NVML_ERROR_UNINITIALIZED vt_NVML_ERROR_UNINITIALIZED
#define NVML_ERROR_INVALID_ARGUMENT vt_NVML_ERROR_INVALID_ARGUMENT
#define NVML_ERROR_NOT_SUPPORTED vt_NVML_ERROR_NOT_SUPPORTED
#define NVML_ERROR_NO_PERMISSION vt_NVML_ERROR_NO_PERMISSION
#define NVML_ERROR_NOT_FOUND vt_NVML_ERROR_NOT_FOUND
#define NVML_ERROR_INSUFFICIENT_SIZE vt_NVML_ERROR_INSUFFICIENT_SIZE
#define NVML_ERROR_DRIVER_NOT_LOADED vt_NVML_ERROR_DRIVER_NOT_LOADED
#define NVML_ERROR_LIBRARY_NOT_FOUND vt_NVML_ERROR_LIBRARY_NOT_FOUND
#define NVML_ERROR_FUNCTION_NOT_FOUND vt_NVML_ERROR_FUNCTION_NOT_FOUND
#define NVML_ERROR_GPU_IS_LOST vt_NVML_ERROR_GPU_IS_LOST
#define NVML_ERROR_UNKNOWN vt_NVML_ERROR_UNKNOWN
#define nvmlDevice_t vt_nvmlDevice_t
#define nvmlPciInfo_st vt_nvmlPciInfo_st
#define nvmlPciInfo_t vt_nvmlPciInfo_t
#define nvmlUtilization_st vt_nvmlUtilization_st
#define nvmlUtilization_t vt_nvmlUtilization_t
#define nvmlMemory_st vt_nvmlMemory_st
#define nvmlMemory_t vt_nvmlMemory_t
#define nvmlProcessInfo_v2_st vt_nvmlProcessInfo_v2_st
#define nvmlProcessInfo_v2_t vt_nvmlProcessInfo_v2_t
#define nvmlProcessInfo_t vt_nvmlProcessInfo_t

#ifdef VT_ABI_SELFTEST_STRUCT /* a member too few: must fail */
#define computeInstanceId computeInstanceId; unsigned int vt_selftest_extra
#endif
#include "nvml_abi.h"
#ifdef VT_ABI_SELFTEST_STRUCT
#undef computeInstanceId
#endif

#undef nvmlReturn_t
#undef NVML_SUCCESS
#undef NVML_ERROR_UNINITIALIZED
#undef NVML_ERROR_INVALID_ARGUMENT
#undef NVML_ERROR_NOT_SUPPORTED
#undef NVML_ERROR_NO_PERMISSION
#undef NVML_ERROR_NOT_FOUND
#undef NVML_ERROR_INSUFFICIENT_SIZE
#undef NVML_ERROR_DRIVER_NOT_LOADED
#undef NVML_ERROR_LIBRARY_NOT_FOUND
#undef NVML_ERROR_FUNCTION_NOT_FOUND
#undef NVML_ERROR_GPU_IS_LOST
#undef NVML_ERROR_UNKNOWN
#undef nvmlDevice_t
#undef nvmlPciInfo_st
#undef nvmlPciInfo_t
#undef nvmlUtilization_st
#undef nvmlUtilization_t
#undef nvmlMemory_st
#undef nvmlMemory_t
#undef nvmlProcessInfo_v2_st
#undef nvmlProcessInfo_v2_t
#undef nvmlProcessInfo_t

#include "abi_asserts.h"

/* ours: our typedef; real: the real function; shape written once with T(x)
 * for the named types (vt_x in ours, x in the real one) */
#define T_OURS(x) T_OURS_##x
#define T_REAL(x) x
#define T_OURS_nvmlReturn_t vt_nvmlReturn_t
#define T_OURS_nvmlDevice_t vt_nvmlDevice_t
#define T_OURS_nvmlPciInfo_t vt_nvmlPciInfo_t
#define T_OURS_nvmlMemory_t vt_nvmlMemory_t
#define T_OURS_nvmlUtilization_t vt_nvmlUtilization_t
#define T_OURS_nvmlProcessInfo_t vt_nvmlProcessInfo_t
/* the real nvmlReturn_t is an enum, ours an int: compared by size above, so
 * the return type in the shapes is each side's own */
VT_ABI_TYPE(vt_nvmlReturn_t, nvmlReturn_t);
_Static_assert(VT_SAME(vt_nvmlDevice_t, nvmlDevice_t), "VT_ABI type nvmlDevice_t");

VT_ABI_ENUM(NVML_SUCCESS);
VT_ABI_ENUM(NVML_ERROR_UNINITIALIZED);
VT_ABI_ENUM(NVML_ERROR_INVALID_ARGUMENT);
VT_ABI_ENUM(NVML_ERROR_NOT_SUPPORTED);
VT_ABI_ENUM(NVML_ERROR_NO_PERMISSION);
VT_ABI_ENUM(NVML_ERROR_NOT_FOUND);
VT_ABI_ENUM(NVML_ERROR_INSUFFICIENT_SIZE);
VT_ABI_ENUM(NVML_ERROR_DRIVER_NOT_LOADED);
VT_ABI_ENUM(NVML_ERROR_LIBRARY_NOT_FOUND);
VT_ABI_ENUM(NVML_ERROR_FUNCTION_NOT_FOUND);
VT_ABI_ENUM(NVML_ERROR_GPU_IS_LOST);
VT_ABI_ENUM(NVML_ERROR_UNKNOWN);
_Static_assert(VT_NVML_VALUE_NOT_AVAILABLE == (unsigned long long)NVML_VALUE_NOT_AVAILABLE,
               "VT_ABI NVML_VALUE_NOT_AVAILABLE");

VT_ABI_STRUCT(vt_nvmlPciInfo_t, nvmlPciInfo_t);
VT_ABI_MEMBER_TYPE(vt_nvmlPciInfo_t, nvmlPciInfo_t, busIdLegacy);
VT_ABI_MEMBER_TYPE(vt_nvmlPciInfo_t, nvmlPciInfo_t, domain);
VT_ABI_MEMBER_TYPE(vt_nvmlPciInfo_t, nvmlPciInfo_t, bus);
VT_ABI_MEMBER_TYPE(vt_nvmlPciInfo_t, nvmlPciInfo_t, device);
VT_ABI_MEMBER_TYPE(vt_nvmlPciInfo_t, nvmlPciInfo_t, pciDeviceId);
VT_ABI_MEMBER_TYPE(vt_nvmlPciInfo_t, nvmlPciInfo_t, pciSubSystemId);
VT_ABI_MEMBER_TYPE(vt_nvmlPciInfo_t, nvmlPciInfo_t, busId);
VT_ABI_STRUCT(vt_nvmlUtilization_t, nvmlUtilization_t);
VT_ABI_MEMBER_TYPE(vt_nvmlUtilization_t, nvmlUtilization_t, gpu);
VT_ABI_MEMBER_TYPE(vt_nvmlUtilization_t, nvmlUtilization_t, memory);
VT_ABI_STRUCT(vt_nvmlMemory_t, nvmlMemory_t);
VT_ABI_MEMBER_TYPE(vt_nvmlMemory_t, nvmlMemory_t, total);
VT_ABI_MEMBER_TYPE(vt_nvmlMemory_t, nvmlMemory_t, free);
VT_ABI_MEMBER_TYPE(vt_nvmlMemory_t, nvmlMemory_t, used);
VT_ABI_STRUCT(vt_nvmlProcessInfo_t, nvmlProcessInfo_t);
VT_ABI_MEMBER_TYPE(vt_nvmlProcessInfo_t, nvmlProcessInfo_t, pid);
VT_ABI_MEMBER_TYPE(vt_nvmlProcessInfo_t, nvmlProcessInfo_t, usedGpuMemory);
VT_ABI_MEMBER_TYPE(vt_nvmlProcessInfo_t, nvmlProcessInfo_t, gpuInstanceId);
VT_ABI_MEMBER_TYPE(vt_nvmlProcessInfo_t, nvmlProcessInfo_t, computeInstanceId);
_Static_assert(VT_SAME(vt_nvmlProcessInfo_v2_t, vt_nvmlProcessInfo_t) &&
                   VT_SAME(nvmlProcessInfo_v2_t, nvmlProcessInfo_t),
               "VT_ABI nvmlProcessInfo_t is the v2 struct");

#define S_void(R, T) R (*)(void)
#define S_nvmlErrorString(R, T) const char *(*)(T(nvmlReturn_t))
#define S_text(R, T) R (*)(char *, unsigned int)
#define S_count(R, T) R (*)(unsigned int *)
#define S_byIndex(R, T) R (*)(unsigned int, T(nvmlDevice_t) *)
#define S_byText(R, T) R (*)(const char *, T(nvmlDevice_t) *)
#define S_deviceText(R, T) R (*)(T(nvmlDevice_t), char *, unsigned int)
#define S_pci(R, T) R (*)(T(nvmlDevice_t), T(nvmlPciInfo_t) *)
#define S_memory(R, T) R (*)(T(nvmlDevice_t), T(nvmlMemory_t) *)
#define S_utilization(R, T) R (*)(T(nvmlDevice_t), T(nvmlUtilization_t) *)
#define S_processes(R, T) R (*)(T(nvmlDevice_t), unsigned int *, T(nvmlProcessInfo_t) *)
#define S_migMode(R, T) R (*)(T(nvmlDevice_t), unsigned int *, unsigned int *)
#define S_deviceCount(R, T) R (*)(T(nvmlDevice_t), unsigned int *)
#define S_migByIndex(R, T) R (*)(T(nvmlDevice_t), unsigned int, T(nvmlDevice_t) *)
#define S_parent(R, T) R (*)(T(nvmlDevice_t), T(nvmlDevice_t) *)
#ifdef VT_ABI_SELFTEST_FN /* a wrong parameter type: must fail */
#undef S_count
#define S_count(R, T) R (*)(int *)
#endif
#define OURS(s) s(vt_nvmlReturn_t, T_OURS)
#define REAL(s) s(nvmlReturn_t, T_REAL)
#define VT_ABI_NVML_FN(name, s)                                                      \
    _Static_assert(VT_SAME(name##_fn, OURS(s)), "VT_ABI function type " #name "_fn"); \
    _Static_assert(VT_SAME(__typeof__(&name), REAL(s)), "VT_ABI real " #name " vs shape")

VT_ABI_NVML_FN(nvmlInit_v2, S_void);
VT_ABI_NVML_FN(nvmlShutdown, S_void);
VT_ABI_NVML_FN(nvmlErrorString, S_nvmlErrorString);
VT_ABI_NVML_FN(nvmlSystemGetDriverVersion, S_text);
VT_ABI_NVML_FN(nvmlDeviceGetCount_v2, S_count);
VT_ABI_NVML_FN(nvmlDeviceGetHandleByIndex_v2, S_byIndex);
VT_ABI_NVML_FN(nvmlDeviceGetHandleByUUID, S_byText);
VT_ABI_NVML_FN(nvmlDeviceGetHandleByPciBusId_v2, S_byText);
VT_ABI_NVML_FN(nvmlDeviceGetName, S_deviceText);
VT_ABI_NVML_FN(nvmlDeviceGetUUID, S_deviceText);
VT_ABI_NVML_FN(nvmlDeviceGetPciInfo_v3, S_pci);
VT_ABI_NVML_FN(nvmlDeviceGetMemoryInfo, S_memory);
VT_ABI_NVML_FN(nvmlDeviceGetUtilizationRates, S_utilization);
VT_ABI_NVML_FN(nvmlDeviceGetComputeRunningProcesses_v3, S_processes);
VT_ABI_NVML_FN(nvmlDeviceGetMigMode, S_migMode);
VT_ABI_NVML_FN(nvmlDeviceGetMaxMigDeviceCount, S_deviceCount);
VT_ABI_NVML_FN(nvmlDeviceGetMigDeviceHandleByIndex, S_migByIndex);
VT_ABI_NVML_FN(nvmlDeviceGetDeviceHandleFromMigDeviceHandle, S_parent);

#ifdef VT_ABI_SELFTEST_ENUM
_Static_assert((long long)vt_NVML_ERROR_NOT_FOUND == (long long)NVML_ERROR_NOT_SUPPORTED,
               "VT_ABI selftest enum");
#endif
/* SPDX-License-Identifier: MIT */
