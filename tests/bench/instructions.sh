#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tracer's added cost per cudaMalloc/cudaFree pair in instructions, counted
# by valgrind's callgrind: unlike wall time, unaffected by the machine's load,
# so two builds compare exactly (cache misses and lock waits are not counted).
#     tests/bench/instructions.sh [BUILD_DIR]      (default: build)
# Each figure is (traced - untraced) over the difference of a 20,000- and a
# 40,000-pair run, which cancels start-up and exit. Needs valgrind.
set -euo pipefail
if ! command -v valgrind >/dev/null; then
    echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2
    exit 77
fi
. "$(dirname "$0")/common.sh"

# instructions traced|plain CMD...: instructions the whole run executed.
instructions() {
    local mode=$1
    shift
    local env=()
    [ "$mode" = traced ] && env=(LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/i.%p.vtr")
    env "${env[@]}" valgrind --tool=callgrind --callgrind-out-file="$out/cg.%p" "$@" \
        2>&1 >/dev/null | awk '/refs:/ { gsub(",", "", $NF); print $NF }'
    rm -f "$out"/i.*.vtr "$out"/cg.*
}

# report LABEL PAIRS CMD-BEFORE-PAIRS... -- CMD-AFTER-PAIRS...
report() {
    local label=$1 n=$2
    shift 2
    local before=() after=()
    while [ "$1" != -- ]; do before+=("$1"); shift; done
    shift
    after=("$@")
    local p1 p2 t1 t2
    p1=$(instructions plain "${before[@]}" "$n" "${after[@]}")
    p2=$(instructions plain "${before[@]}" $((2 * n)) "${after[@]}")
    t1=$(instructions traced "${before[@]}" "$n" "${after[@]}")
    t2=$(instructions traced "${before[@]}" $((2 * n)) "${after[@]}")
    awk -v l="$label" -v n="$n" -v p1="$p1" -v p2="$p2" -v t1="$t1" -v t2="$t2" 'BEGIN {
        printf "%-26s untraced %6.0f  traced %6.0f  added %6.0f instructions per pair\n",
               l, (p2 - p1) / n, (t2 - t1) / n, ((t2 - t1) - (p2 - p1)) / n }'
}

for depth in 8 24 64; do
    report "C, depth $depth, 1 thread" 20000 "$build/tests/bench/bench_alloc" -- "$depth" 1
done
# The interpreter itself, not a wrapper script (pyenv's python3 is one).
python=$(python3 -c 'import sys; print(sys.executable)')
for gil in held released; do
    for depth in 10 50; do
        report "Python, $depth frames, GIL $gil" 3000 "$python" tests/bench/bench_python.py -- \
            "$depth" "$gil"
    done
done
