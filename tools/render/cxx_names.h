/* SPDX-License-Identifier: MIT */
/* C++ names as text shows them (cxx_names.c): default template arguments
 * left out ("std::vector<int>", not "std::vector<int, std::allocator<int> >")
 * and, in one-line labels, parameter lists as "(...)". JSON keeps the name
 * whole. */
#ifndef VT_CXX_NAMES_H
#define VT_CXX_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Room for a shortened name; a longer name is shown whole. */
#define VT_SHORT_NAME_MAX 4096

/* NAME shortened into BUF (PARAMS: parameter lists too), or NAME itself
 * when it does not fit. */
const char *vt_short_name(const char *name, bool params, char *buf, size_t len);

#endif
