#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzzes the dump reader for a bounded time: tests/fuzz/run_fuzz.sh BUILD SECONDS
# BUILD is a built plain build directory: its test programs, run traced,
# make the seed corpus (real dumps). Needs clang with libFuzzer; exits 77
# (skip) without it. Prints "fuzz: N executions in S s, ..." and exits 0
# when the fuzzer found nothing.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
seconds=${2:-60}
out=$build/fuzz
fuzz_build=$build/fuzz-build   # kept between runs: only the first builds it all
rm -rf "$out" && mkdir -p "$out/corpus" "$out/seeds"

fuzz_flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return (void)d, (void)n, 0; }' \
    >"$out/probe.c"
if ! clang "${fuzz_flags[@]}" "$out/probe.c" -o "$out/probe" 2>"$out/build.log"; then
    echo "fuzz: skipped: clang with libFuzzer is not available ($(head -1 "$out/build.log"))"
    exit 77
fi
# The target and the reader it links (tools/meson.build's replay library),
# built by clang in a build of its own: -Dfuzz=true instruments them.
if ! { [ -f "$fuzz_build/build.ninja" ] ||
       CC=clang meson setup "$fuzz_build" "$root" -Dfuzz=true -Dcli=false -Dtests=false \
           -Dexamples=false -Db_sanitize=address,undefined -Db_lundef=false \
           -Dbuildtype=plain "-Dc_args=-g -O1 -fno-sanitize-recover=undefined"; } >"$out/build.log" 2>&1 ||
   ! meson compile -C "$fuzz_build" fuzz_dump_reader >>"$out/build.log" 2>&1; then
    echo "fuzz: the fuzz target does not build:"
    cat "$out/build.log"
    exit 1
fi
cp "$fuzz_build/tests/fuzz/fuzz_dump_reader" "$out/fuzz_dump_reader"

# Seed corpus: real dumps of the ground-truth programs.
seed() {
    local name=$1
    shift
    # (the crashing seeds die of their signal: the shell's notice goes too)
    { (cd "$out/seeds" && LD_LIBRARY_PATH="$build/tests/standin" LD_PRELOAD="$build/libvramtrace.so" \
        VRAMTRACE_OUTPUT="$out/corpus/$name.vtr" "$@") >/dev/null 2>&1; } 2>/dev/null
}
seed rt_apis "$build/tests/programs/rt_apis"
seed drv_apis "$build/tests/programs/drv_apis"
seed vmm "$build/tests/programs/vmm"
seed teardown "$build/tests/programs/teardown"
seed errors "$build/tests/programs/errors"
seed aggregate env VRAMTRACE_MODE=aggregate VRAMTRACE_SAMPLE_INTERVAL_MS=1 \
    "$build/tests/programs/usage" grow
seed oom_gpu_view env STANDIN_CUDA_MEMORY=64M STANDIN_CUDA_CONTEXT_BYTES=1M "$build/tests/programs/usage" oom
seed crash_segv "$build/tests/reliability/crasher" segv
seed crash_kill "$build/tests/reliability/crasher" kill
seed probe "$build/tests/reliability/config_probe"
seed bad_frees env VRAMTRACE_FREE_STACKS=1 "$build/tests/programs/tree" frees
seed bad_frees_aggregate env VRAMTRACE_MODE=aggregate "$build/tests/programs/tree" frees
seed underscore_exit "$build/tests/programs/tree" _exit
# NVTX phases and a pool's regions (where nvtx3 is installed: built then)
[ -x "$build/tests/programs/nvtx_phases" ] &&
    seed nvtx_phases env NVTX_INJECTION64_PATH="$build/libvramtrace.so" VRAMTRACE_NVTX_MARK=step \
        "$build/tests/programs/nvtx_phases"
[ -x "$build/tests/programs/nvtx_pool" ] &&
    seed nvtx_pool env NVTX_INJECTION64_PATH="$build/libvramtrace.so" "$build/tests/programs/nvtx_pool"
# Stacks with the frames of the thread an autograd thread worked for: no
# program here makes them without torch, mkdump does.
"$build/tests/cli/mkdump" behalf "$out/seeds/behalf.vtr" >/dev/null 2>&1 &&
    cp "$out/seeds/behalf.vtr" "$out/corpus/behalf.vtr"
seeds=$(find "$out/corpus" -name '*.vtr' -size +0 | wc -l)
if [ "$seeds" -lt 6 ]; then
    echo "fuzz: only $seeds seed dumps were made (is $build built?)"
    exit 1
fi

# -close_fd_mask=2: the reader's one-line errors would flood the log.
"$out/fuzz_dump_reader" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
    -rss_limit_mb=2048 -close_fd_mask=2 -print_final_stats=1 -artifact_prefix="$out/" \
    "$out/corpus" >"$out/fuzz.log" 2>&1
status=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz.log")
time=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$out/fuzz.log")
echo "fuzz: ${runs:-?} executions in ${time:-?} s from $seeds seed dumps, exit status $status"
if [ "$status" -ne 0 ]; then
    tail -40 "$out/fuzz.log"
    ls "$out"/crash-* "$out"/timeout-* "$out"/oom-* 2>/dev/null
fi
exit "$status"
