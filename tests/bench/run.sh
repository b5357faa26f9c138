#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tracer's added cost per cudaMalloc/cudaFree pair, traced against untraced
# runs of the same workload in this invocation, on the stand-in CUDA libraries.
#     tests/bench/run.sh [BUILD_DIR]      (default: build; built if missing)
# Each figure is the median of 5 runs.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# ns_per_pair traced|aggregate|free-stacks|plain CMD...: one run's ns_per_pair.
ns_per_pair() {
    local mode=$1
    shift
    if [ "$mode" != plain ]; then
        VRAMTRACE_MODE=$([ "$mode" = aggregate ] && echo aggregate || echo events) \
            VRAMTRACE_FREE_STACKS=$([ "$mode" = free-stacks ] && echo 1 || echo 0) \
            LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/bench.%p.vtr" "$@"
        rm -f "$out"/bench.*.vtr
    else
        "$@"
    fi | awk '/ns_per_pair/ {print $2}'
}

# report LABEL CMD...: untraced and traced runs alternate (so that a change
# in the machine's load hits both alike); medians of 5 each, and the minima.
# traced_mode=aggregate report ...: traced in aggregate mode.
report() {
    local label=$1
    shift
    local plain=() traced=()
    for i in 1 2 3 4 5; do
        plain+=("$(ns_per_pair plain "$@")")
        traced+=("$(ns_per_pair "${traced_mode:-traced}" "$@")")
    done
    printf '%s\n' "${plain[@]}" | sort -n >"$out/plain"
    printf '%s\n' "${traced[@]}" | sort -n >"$out/traced"
    paste "$out/plain" "$out/traced" | awk -v l="$label" '
        { p[NR] = $1; t[NR] = $2 }
        END { printf "%-30s untraced %7.1f ns  traced %7.1f ns  added %7.1f ns  ratio %.2fx  (minima: added %.1f ns)\n",
                     l, p[3], t[3], t[3] - p[3], t[3] / p[3], t[1] - p[1] }'
}

echo "$(nproc) cores, clock source $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
echo "per alloc/free pair (medians of 5 runs, untraced and traced alternating):"
for depth in 8 24 64; do
    report "C, depth $depth, 1 thread" "$build/tests/bench/bench_alloc" 200000 "$depth" 1
done
report "C, depth 24, 2 threads" "$build/tests/bench/bench_alloc" 100000 24 2
report "C, depth 24, 8 threads" "$build/tests/bench/bench_alloc" 50000 24 8
traced_mode=aggregate report "C, depth 24, 1 thread, aggr." "$build/tests/bench/bench_alloc" 200000 24 1
traced_mode=free-stacks report "C, depth 24, free stacks" "$build/tests/bench/bench_alloc" 200000 24 1
for gil in held released; do
    for depth in 10 50; do
        report "Python, $depth frames, GIL $gil" python3 tests/bench/bench_python.py 50000 "$depth" "$gil"
    done
done

# Dump size per event, and the report's time and memory on a large dump.
for pairs in 500000 5000000; do
    rm -f "$out"/*.vtr
    LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/size.vtr" "$build/tests/bench/bench_alloc" "$pairs" 24 1 >/dev/null
    events=$((2 * pairs + 2))
    bytes=$(stat -c %s "$out/size.vtr")
    awk -v e="$events" -v b="$bytes" 'BEGIN { printf "dump of %d events: %d bytes, %.2f bytes per event\n", e, b, b / e }'
done
/usr/bin/time -f "%e %M" -o "$out/time" "$build/vramtrace" report "$out/size.vtr" >/dev/null
read -r seconds kb <"$out/time"
awk -v s="$seconds" -v k="$kb" -v e="$events" \
    'BEGIN { printf "report of %d events: %.2f s (%.1f M events/s), peak memory %.1f MiB\n", e, s, e / s / 1e6, k / 1024 }'
# Aggregate mode: the dump stays about the same size however many events.
for pairs in 500000 5000000; do
    rm -f "$out"/*.vtr
    VRAMTRACE_MODE=aggregate LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/size.vtr" \
        "$build/tests/bench/bench_alloc" "$pairs" 24 1 >/dev/null
    awk -v e="$((2 * pairs + 2))" -v b="$(stat -c %s "$out/size.vtr")" \
        'BEGIN { printf "aggregate-mode dump of %d events: %d bytes\n", e, b }'
done

# What libunwind alone costs at those depths: the floor under the added cost.
for depth in 8 24 64; do
    for i in 1 2 3 4 5; do
        "$build/tests/bench/bench_alloc" --unwind 200000 "$depth" | awk '/ns_per_backtrace/ {print $2}'
    done | sort -n | sed -n 3p | awk -v d="$depth" '{ printf "unw_backtrace alone at depth %d: %.1f ns\n", d, $1 }'
done

# The tracer's memory in the traced process: malloc heap, traced minus untraced.
heap() { "$@" | awk '/heap_bytes/ {print $2}'; }
traced_heap() { LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/live.%p.vtr" heap "$@"; }
live=200000
one=$(($(traced_heap "$build/tests/bench/bench_alloc" --live $live 1) - $(heap "$build/tests/bench/bench_alloc" --live $live 1)))
many=$(($(traced_heap "$build/tests/bench/bench_alloc" --live $live 100) - $(heap "$build/tests/bench/bench_alloc" --live $live 100)))
awk -v one="$one" -v many="$many" -v n=$live 'BEGIN {
    printf "tracer heap: %.1f bytes per live allocation (%d live, 1 stack)\n", one / n, n
    printf "tracer heap: %.0f bytes per distinct stack (99 more stacks of 1-100 extra frames)\n", (many - one) / 99 }'

# Default mode: nothing in the traced process grows per event.
for pairs in 100000 1000000; do
    LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/grow.%p.vtr" "$build/tests/bench/bench_alloc" "$pairs" 24 1 |
        awk -v p="$pairs" '/heap_growth_bytes/ {h = $2} /rss_growth_kb/ {r = $2}
            END { printf "after %d traced pairs: heap grew %d bytes, resident set %d KiB\n", p, h, r }'
    rm -f "$out"/grow.*.vtr
done
