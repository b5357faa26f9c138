/* The _Static_assert checks that tests/abi_check.c and tests/nvml_abi_check.c
 * apply to our declarations (renamed vt_<name>) against the real headers. */
#ifndef VT_ABI_ASSERTS_H
#define VT_ABI_ASSERTS_H

#include <stddef.h>

#define VT_SAME(a, b) __builtin_types_compatible_p(a, b)
/* Same type, or an int-sized integer standing for an enum (same ABI). */
#define VT_ABI_TYPE(ours, real)                                                  \
    _Static_assert(VT_SAME(ours, real) || (sizeof(ours) == sizeof(real) &&      \
                                           _Alignof(ours) == _Alignof(real)),    \
                   "VT_ABI type " #ours " differs from " #real)
#define VT_ABI_SAME_TYPE(ours, real) \
    _Static_assert(VT_SAME(ours, real), "VT_ABI type " #ours " differs from " #real)
#define VT_ABI_ENUM(name) \
    _Static_assert((long long)vt_##name == (long long)name, "VT_ABI enum constant " #name)
#define VT_ABI_STRUCT(ours, real)                                              \
    _Static_assert(sizeof(ours) == sizeof(real) && _Alignof(ours) == _Alignof(real), \
                   "VT_ABI struct size/alignment " #ours " vs " #real)
#define VT_ABI_MEMBER(ours, real, m)                                           \
    _Static_assert(offsetof(ours, m) == offsetof(real, m) &&                   \
                       sizeof(((ours *)0)->m) == sizeof(((real *)0)->m),       \
                   "VT_ABI member " #ours "." #m " differs from " #real "." #m)
#define VT_ABI_MEMBER_TYPE(ours, real, m)                                      \
    VT_ABI_MEMBER(ours, real, m);                                              \
    _Static_assert(VT_SAME(__typeof__(((ours *)0)->m), __typeof__(((real *)0)->m)), \
                   "VT_ABI member type " #ours "." #m)

#endif
/* SPDX-License-Identifier: MIT */
