/* SPDX-License-Identifier: MIT */
/* Started untraced and attached while it waits (tests/test_attach.py):
 * allocates once attached, then leaves without exit(): `_exit` ends with
 * _exit(ENDING_STATUS), `exec` becomes /bin/sh exiting ENDING_STATUS + 1.
 * What the attached dump's footer says is the test's. */
#include <cuda_runtime_api.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "wait_line.h"

#define ENDING_LEAK_BYTES 900001
#define ENDING_STATUS 5

static void *kept;

NOINLINE static void leak_attached(void)
{
    CHECK(cudaMalloc(&kept, ENDING_LEAK_BYTES)); /* LEAK:ending */
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2);
    CHECK(cudaFree(NULL));
    wait_for("ready");
    leak_attached();
    if (!strcmp(argv[1], "_exit"))
        _exit(ENDING_STATUS);
    REQUIRE(!strcmp(argv[1], "exec"));
    execl("/bin/sh", "sh", "-c", "exit 6", (char *)NULL);
    return 99;
}
