/* libFuzzer target: the dump reader and the event replay on any bytes.
 * Built and run by tests/fuzz/run_fuzz.sh (clang -fsanitize=fuzzer). */
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "dump_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct vt_dump dump;
    struct vt_analysis analysis = {0};
    if (vt_dump_read_memory_quietly("fuzz-input", data, size, &vt_analysis_sink, &analysis, &dump) == 0)
        vt_analysis_finish(&analysis);
    vt_analysis_free(&analysis);
    vt_dump_free(&dump);
    return 0;
}
/* SPDX-License-Identifier: MIT */
