#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# PyTorch's training loop traced and untraced, in PyTorch's three allocator
# modes (the caching allocator, --pytorch-tensors' backend:cudaMallocAsync,
# PYTORCH_NO_CUDA_MEMORY_CACHING=1), over the stand-in CUDA libraries with
# the torch venv of tests/torch_env.py:
#     tests/bench/torch.sh BUILD_DIR [STEPS [ROUNDS]]
# (default 2000 steps, 5 rounds; untraced and traced runs alternate). Prints
# per mode the medians of the milliseconds per step and of the whole
# process's CPU seconds (user + system: start-up, import torch, the loop,
# exit), untraced and traced, and their ratios; then what `vramtrace run`
# adds after the process (its report of the last traced dump). The traced
# runs preload the tracer as `vramtrace run` does. The stand-ins run no
# kernels: a step here is PyTorch's own work and the CUDA calls, so the
# ratio is the tracer's cost against the least a step can cost (a real
# GPU's kernels make it smaller).
# With INSTRUCTIONS=N (and valgrind), then per mode the instructions per
# step untraced and traced in a callgrind run of N steps, counting the loop
# alone (bench_torch.py calls getppid before it and getpgrp after it) on the
# main thread, which makes every CUDA call of the loop (a thread of torch's
# runs meanwhile, its count varying from run to run by more than the
# tracer's cost): the figure to compare on a loaded machine, where the wall
# times jump.
set -euo pipefail
build_arg=${1:-build}
steps=${2:-2000} rounds=${3:-5}
. "$(dirname "$0")/common.sh" "$build_arg"
python=$(python3 tests/torch_env.py "$build")
bench="$PWD/tests/bench/bench_torch.py"
TIMEFORMAT='%U %S'

# run MODE traced|plain: "ms_per_step cpu_seconds"
run() {
    local env=()
    case $1 in
    tensors) env=(PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync) ;;
    no-caching) env=(PYTORCH_NO_CUDA_MEMORY_CACHING=1) ;;
    esac
    [ "$2" = traced ] && env+=(LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/t.vtr")
    rm -f "$out/t.vtr"
    { time env "${env[@]}" "$python" "$bench" "$steps" >"$out/stdout" 2>/dev/null; } 2>"$out/time"
    echo "$(awk '/^ms_per_step/ { print $2 }' "$out/stdout") $(awk '{ print $1 + $2 }' "$out/time")"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "$steps steps, $rounds rounds (medians; untraced and traced alternating)"
for mode in caching tensors no-caching; do
    : >"$out/plain"
    : >"$out/traced"
    for ((i = 0; i < rounds; i++)); do
        run $mode plain >>"$out/plain"
        run $mode traced >>"$out/traced"
    done
    awk -v m=$mode \
        -v p="$(cut -d' ' -f1 "$out/plain" | median)" -v t="$(cut -d' ' -f1 "$out/traced" | median)" \
        -v pc="$(cut -d' ' -f2 "$out/plain" | median)" -v tc="$(cut -d' ' -f2 "$out/traced" | median)" \
        'BEGIN { printf "%-11s ms per step untraced %.3f  traced %.3f  ratio %.2fx   process CPU s untraced %.2f  traced %.2f  ratio %.2fx\n",
                        m, p, t, t / p, pc, tc, tc / pc }'
done
# loop_instructions MODE traced|plain: instructions per step of the loop
loop_instructions() {
    local env=(PYTHONHASHSEED=0) n=$INSTRUCTIONS
    case $1 in
    tensors) env+=(PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync) ;;
    no-caching) env+=(PYTORCH_NO_CUDA_MEMORY_CACHING=1) ;;
    esac
    [ "$2" = traced ] && env+=(LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/i.vtr")
    rm -f "$out"/cg.*
    env "${env[@]}" valgrind --tool=callgrind --zero-before=getppid --dump-before=getpgrp \
        --separate-threads=yes --callgrind-out-file="$out/cg.%p" "$python" "$bench" "$n" \
        >/dev/null 2>&1
    awk -v n="$n" '/^summary:/ { print $2 / n }' "$out"/cg.*.1-01
}

if [ -n "${INSTRUCTIONS:-}" ] && command -v valgrind >/dev/null; then
    echo "instructions per step of the loop (callgrind, $INSTRUCTIONS steps):"
    for mode in caching tensors no-caching; do
        awk -v m=$mode -v p="$(loop_instructions $mode plain)" -v t="$(loop_instructions $mode traced)" \
            'BEGIN { printf "%-11s untraced %8.0f  traced %8.0f  added %7.0f  ratio %.3fx\n", m, p, t, t - p, t / p }'
    done
fi
TIMEFORMAT='%R %U %S'
{ time "$build/vramtrace" report "$out/t.vtr" >/dev/null 2>&1; } 2>"$out/time"
awk '{ printf "vramtrace run adds after the process: its report, %.2f s (CPU %.2f s)\n", $1, $2 + $3 }' "$out/time"
