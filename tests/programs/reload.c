/* dlopen libalpha.so, leak 1 MiB in it, dlclose it; dlopen libbravo.so
 * (usually at the same address), leak 2 MiB in it, dlclose it: both leaks
 * from one call site of this loop, each named after its own library. Prints
 * "same address" when bravo landed where alpha was (what the test needs).
 * Linked to the runtime, which so stays loaded (and keeps its context).
 * A last allocation and free in main come after bravo is gone. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

#define RELOAD_ALPHA_BYTES 1048576
#define RELOAD_BRAVO_BYTES 2097152

static void *open_plugin(const char *name)
{
    char path[PATH_MAX];
    path_next_to_exe(path, sizeof path, name);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        exit(STANDIN_FAILURE);
    }
    return h;
}

int main(void)
{
    static const char *const plugins[] = {"libalpha.so", "libbravo.so"};
    static const size_t bytes[] = {RELOAD_ALPHA_BYTES, RELOAD_BRAVO_BYTES};
    void *entries[2];
    CHECK(cudaFree(0));
    for (int i = 0; i < 2; i++) {
        void *h = open_plugin(plugins[i]);
        void (*entry)(size_t) = (void (*)(size_t))dlsym(h, "plugin_entry");
        REQUIRE(entry);
        entries[i] = (void *)entry;
        entry(bytes[i]); /* CALL:reload_loop */
        REQUIRE(dlclose(h) == 0);
    }
    if (entries[0] == entries[1])
        printf("same address\n");
    void *p;
    CHECK(cudaMalloc(&p, 4096));
    CHECK(cudaFree(p));
    return 0;
}
/* SPDX-License-Identifier: MIT */
