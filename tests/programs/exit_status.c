/* For `vramtrace run` status tests.  Modes (argv[1]):
 *   (none)  leak EXIT_LEAK_BYTES of device memory, exit status 7
 *   zero    the same leak, exit status 0
 *   kill    the same leak, then SIGKILL (status 128 + 9 through `run`)
 *   host    leak only page-locked host memory (EXIT_HOST_BYTES), exit 0 */
#include <cuda_runtime_api.h>
#include <signal.h>
#include <string.h>
#include "check.h"

#define EXIT_LEAK_BYTES 2400001
#define EXIT_HOST_BYTES 24007

NOINLINE void leak_then_exit(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, EXIT_LEAK_BYTES)); /* LEAK:exit_status */
    vt_sink = p;
}

NOINLINE void leak_host_only(void)
{
    void *p = NULL;
    CHECK(cudaMallocHost(&p, EXIT_HOST_BYTES)); /* LEAK:exit_host */
    vt_sink = p;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "host") == 0) {
        leak_host_only();
        return 0;
    }
    leak_then_exit();
    if (strcmp(mode, "kill") == 0) {
        fflush(NULL);
        raise(SIGKILL);
    }
    return strcmp(mode, "zero") == 0 ? 0 : 7;
}
/* SPDX-License-Identifier: MIT */
