/* Two plugins built from this one file (tests/programs/meson.build):
 * libalpha.so (PLUGIN_NAME alpha) and libbravo.so (PLUGIN_NAME bravo), the
 * same code at the same offsets, so that one loaded where the other was
 * unloaded puts its functions at the other's addresses. */
#include <cuda_runtime_api.h>
#include "check.h"

#define RELOAD_ALPHA_BYTES 1048576   /* 1 MiB */
#define RELOAD_BRAVO_BYTES 2097152   /* 2 MiB */

#define JOIN(a, b) a##b
#define NAMED(name, suffix) JOIN(name, suffix)

/* alpha_alloc / bravo_alloc: the leak */
NOINLINE void NAMED(PLUGIN_NAME, _alloc)(size_t bytes)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, bytes)); /* LEAK:plugin_alloc */
    vt_sink = p;
}

/* The entry the program looks up in either plugin. */
NOINLINE void plugin_entry(size_t bytes)
{
    NAMED(PLUGIN_NAME, _alloc)(bytes);
}
/* SPDX-License-Identifier: MIT */
