/* Exit ordering: liblate_free frees in its destructor after main returns;
 * main itself leaks EXIT_MAIN_BYTES. */
#include <cuda_runtime_api.h>
#include "check.h"

#define EXIT_MAIN_BYTES 3400013

void late_free_touch(void);

NOINLINE static void leak_in_main(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, EXIT_MAIN_BYTES)); /* LEAK:exit_main */
    vt_sink = p;
}

int main(void)
{
    late_free_touch();
    leak_in_main();
    return 0;
}
/* SPDX-License-Identifier: MIT */
