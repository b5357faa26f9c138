/* Loads libleakplugin.so (next to this executable) with RTLD_NOW |
 * RTLD_LOCAL and calls into it; this program does not link the runtime. */
#include <dlfcn.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

int main(void)
{
    char path[PATH_MAX];
    path_next_to_exe(path, sizeof path, "libleakplugin.so");
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        return STANDIN_FAILURE;
    }
    void (*balanced)(void) = (void (*)(void))dlsym(h, "plugin_balanced");
    void (*leak)(void) = (void (*)(void))dlsym(h, "plugin_leak");
    REQUIRE(balanced && leak);
    balanced();
    leak();
    return 0;
}
/* SPDX-License-Identifier: MIT */
