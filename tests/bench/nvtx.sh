#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The cost of NVTX ranges as phases and markers: bench_nvtx's pairs
#     tests/bench/nvtx.sh [BUILD_DIR] [PAIRS [ROUNDS]]
# (default 1,000,000 pairs, 5 rounds), run untraced (NVTX without a tool:
# its no-ops), preloaded without NVTX_INJECTION64_PATH (nothing of NVTX
# installed), preloaded as NVTX's injection (phases, what `vramtrace run`
# sets) and the same with VRAMTRACE_NVTX_MARK=step (--mark-on-nvtx step),
# alternating in one invocation. Prints per kind of pair the median ns per
# pair of each, and the injected runs' ratios to the untraced one and the ns
# each adds. "step" pairs write a marker at each pop (a tenth as many pairs).
set -euo pipefail
. "$(dirname "$0")/common.sh" "${1:-build}"
pairs=${2:-1000000} rounds=${3:-5}
bench="$build/tests/bench/bench_nvtx"
[ -x "$bench" ] || { echo "nvtx.sh: $bench is not built (no nvtx3 headers)"; exit 0; }

run() {
    case $1 in
    plain) "$bench" "$pairs" ;;
    preload) LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/v.%p.vtr" "$bench" "$pairs" ;;
    phases) LD_PRELOAD="$lib" NVTX_INJECTION64_PATH="$lib" VRAMTRACE_OUTPUT="$out/v.%p.vtr" \
        "$bench" "$pairs" ;;
    marking) LD_PRELOAD="$lib" NVTX_INJECTION64_PATH="$lib" VRAMTRACE_NVTX_MARK=step \
        VRAMTRACE_OUTPUT="$out/v.%p.vtr" "$bench" "$pairs" ;;
    esac
    rm -f "$out"/v.*.vtr
}

for ((r = 0; r < rounds; r++)); do
    for how in plain preload phases marking; do
        run "$how" | sed "s/^/$how /" >>"$out/times"
    done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-16s %9s %9s %9s %9s %7s %7s %7s %7s\n' pair untraced preloaded phases marking \
    ratio_ph added ratio_mk added
for kind in other_push_pop other_start_end step_push_pop; do
    declare -A m
    for how in plain preload phases marking; do
        m[$how]=$(awk -v h="$how" -v k="$kind" '$1 == h && $2 == k { print $3 }' "$out/times" | median)
    done
    awk -v k="$kind" -v p="${m[plain]}" -v l="${m[preload]}" -v f="${m[phases]}" \
        -v t="${m[marking]}" 'BEGIN {
        printf "%-16s %9.1f %9.1f %9.1f %9.1f %7.2f %7.1f %7.2f %7.1f\n", k, p, l, f, t,
            (p > 0 ? f / p : 0), f - p, (p > 0 ? t / p : 0), t - p }'
done
echo "(ns per pair, medians of $rounds rounds of $pairs pairs; step pairs: $((pairs / 10)), each pop a marker)"
