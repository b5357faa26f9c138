#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# PyTorch's training loop traced and untraced, in PyTorch's three allocator
# modes (the caching allocator, --pytorch-tensors, PYTORCH_NO_CUDA_MEMORY_CACHING=1),
# over the stand-in CUDA libraries with the torch venv of tests/torch_env.py:
#     tests/bench/torch.sh BUILD_DIR [STEPS [ROUNDS]]
# (default 2000 steps, 5 rounds). Prints per mode the median milliseconds per
# step untraced and traced, and their ratio. The stand-ins run no kernels:
# a step here is PyTorch's own work and the CUDA calls, so the ratio is the
# tracer's cost against the least a step can cost (a real GPU's kernels
# make it smaller).
set -euo pipefail
build_arg=${1:-build}
steps=${2:-2000} rounds=${3:-5}
. "$(dirname "$0")/common.sh" "$build_arg"
python=$(python3 tests/torch_env.py "$build")
bench="$PWD/tests/bench/bench_torch.py"

# run MODE traced|plain: ms per step
run() {
    local args=() env=()
    case $1 in
    tensors) args=(--pytorch-tensors) ;;
    no-caching) env=(PYTORCH_NO_CUDA_MEMORY_CACHING=1) ;;
    esac
    if [ "$2" = plain ]; then
        [ "$1" = tensors ] && env=(PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync)
        env "${env[@]}" "$python" "$bench" "$steps"
    else
        env "${env[@]}" "$build/vramtrace" run -o "$out/t.vtr" "${args[@]}" -- \
            "$python" "$bench" "$steps" 2>/dev/null
        rm -f "$out/t.vtr"
    fi | awk '/^ms_per_step/ { print $2 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "$steps steps, $rounds rounds (medians, ms per step)"
for mode in caching tensors no-caching; do
    plain=$(for ((i = 0; i < rounds; i++)); do run $mode plain; done | median)
    traced=$(for ((i = 0; i < rounds; i++)); do run $mode traced; done | median)
    awk -v m=$mode -v p="$plain" -v t="$traced" \
        'BEGIN { printf "%-11s untraced %.3f  traced %.3f  ratio %.2fx\n", m, p, t, t / p }'
done
