#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Before/after: the added cost per cudaMalloc/cudaFree pair of several builds
# of the tracer on one workload, BUILD_DIR's bench_alloc over its stand-in
# CUDA libraries, each library preloaded in turn.
#     tests/bench/compare.sh BUILD_DIR LIBVRAMTRACE.so... [-- ROUNDS DEPTH THREADS]
# (defaults: 21 rounds, depth 24, 1 thread). A round runs the workload
# untraced, then once under each library; the medians and minima of each
# library's added ns per pair are printed with the ratio to untraced. With
# valgrind, also the added instructions per pair (traced - untraced over the
# difference of a 20,000- and a 40,000-pair run), which do not depend on the
# machine's load; two builds of the same code may still differ in wall time
# by where the linker put their hot functions.
set -euo pipefail
build_arg=${1:?usage: compare.sh BUILD_DIR LIB... [-- ROUNDS DEPTH THREADS]}
shift
libs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    libs+=("$(realpath "$1")")
    shift
done
[ "${1:-}" = -- ] && shift
rounds=${1:-21} depth=${2:-24} threads=${3:-1}
[ ${#libs[@]} -gt 0 ] || { echo "compare.sh: no library given" >&2; exit 2; }
. "$(dirname "$0")/common.sh" "$build_arg"
bench="$build/tests/bench/bench_alloc"
pairs=$((200000 / threads))

# ns_per_pair LIB|plain
ns_per_pair() {
    if [ "$1" = plain ]; then
        "$bench" "$pairs" "$depth" "$threads"
    else
        LD_PRELOAD="$1" VRAMTRACE_OUTPUT="$out/c.%p.vtr" "$bench" "$pairs" "$depth" "$threads"
        rm -f "$out"/c.*.vtr
    fi | awk '/ns_per_pair/ {print $2}'
}

for ((i = 0; i < rounds; i++)); do
    echo "plain $(ns_per_pair plain)"
    for l in "${libs[@]}"; do echo "$l $(ns_per_pair "$l")"; done
done >"$out/runs"

# median and minimum of KEY's figures
stats() {
    awk -v k="$1" '$1 == k {print $2}' "$out/runs" | sort -n |
        awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1] }'
}

# pair_instructions plain|LIBRARY PAIRS: the benchmark's instructions (common.sh)
pair_instructions() { instructions "$1" "$bench" "$2" "$depth" 1; }

read -r plain_median plain_min <<<"$(stats plain)"
echo "$(nproc) cores; depth $depth, $threads thread(s), $rounds rounds; untraced $plain_median ns per pair (median)"
if command -v valgrind >/dev/null; then
    p=$(($(pair_instructions plain 40000) - $(pair_instructions plain 20000)))
fi
for l in "${libs[@]}"; do
    read -r median min <<<"$(stats "$l")"
    line=$(awk -v l="$l" -v m="$median" -v n="$min" -v pm="$plain_median" -v pn="$plain_min" 'BEGIN {
        printf "%s\n    added %.1f ns (median), %.1f ns (minima), ratio %.2fx", l, m - pm, n - pn, m / pm }')
    if [ -n "${p:-}" ]; then
        t=$(($(pair_instructions "$l" 40000) - $(pair_instructions "$l" 20000)))
        line="$line, $(((t - p) / 20000)) instructions"
    fi
    echo "$line"
done
