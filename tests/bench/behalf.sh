#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What reading the on-behalf Python stack costs (src/python/pybehalf.c): a
# thread named like PyTorch's autograd thread (pt_autograd_0) makes
# cudaMalloc/cudaFree pairs while the Python thread that started it waits
# under DEPTH frames in a function compiled as torch's backward entry, with
# THREADS more Python threads alive; against the same run with the thread
# named otherwise (pt_other_0: nothing is read).
#     tests/bench/behalf.sh [BUILD_DIR] [PAIRS]     (default: build, 2000)
# Per pair: instructions added (callgrind, user space only), the system
# calls the reading makes (strace; each copies at most a few hundred bytes)
# and wall time (one invocation per figure, medians of 5).
set -euo pipefail
. "$(dirname "$0")/common.sh"
pairs=${2:-2000}
cc -O2 -fPIC -shared -I tests/standin/include tests/bench/bench_behalf.c \
    -L "$build/tests/standin" -lcudart -lpthread -o "$out/libbench_behalf.so"
python=$(python3 -c 'import sys; print(sys.executable)')
run=("$python" tests/bench/bench_behalf.py "$out/libbench_behalf.so")

# syscalls_per_pair NAME DEPTH THREADS: process_vm_readv calls per pair.
syscalls_per_pair() {
    local counts=()
    for n in "$pairs" $((2 * pairs)); do
        counts+=("$(LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/s.%p.vtr" strace -f -c \
            -e trace=process_vm_readv "${run[@]}" "$n" "$2" "$1" "$3" 2>&1 >/dev/null |
            awk '/process_vm_readv/ { print $4 }')")
        rm -f "$out"/s.*.vtr
    done
    echo $(((${counts[1]:-0} - ${counts[0]:-0}) / pairs))
}

# wall NAME DEPTH THREADS: median traced ns per pair of 5 runs.
wall() {
    for _ in 1 2 3 4 5; do
        LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/w.%p.vtr" "${run[@]}" "$pairs" "$2" "$1" "$3" |
            awk '/ns_per_pair/ { print $2 }'
        rm -f "$out"/w.*.vtr
    done | sort -n | sed -n 3p
}

for shape in "10 0" "10 8" "50 0"; do
    set -- $shape
    for name in pt_other_0 pt_autograd_0; do
        i1=$(instructions traced "${run[@]}" "$pairs" "$1" "$name" "$2")
        i2=$(instructions traced "${run[@]}" $((2 * pairs)) "$1" "$name" "$2")
        printf '%-14s %2d frames %d threads: traced %6.0f instructions/pair, %3d process_vm_readv/pair, %7.0f ns/pair\n' \
            "$name" "$1" "$2" "$(((i2 - i1) / pairs))" "$(syscalls_per_pair "$name" "$1" "$2")" \
            "$(wall "$name" "$1" "$2")"
    done
done
