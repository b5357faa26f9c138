#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI on a dump with many leaking call sites (default 100000, each its own
# stack): how long `report` (text and JSON) takes, with the default --top (10
# per list) and with --top 0 (every site: the JSON writes every frame of each),
# and how long `run` takes over the program traced alone, so the two can be
# compared.
#     tests/bench/sites.sh [BUILD_DIR] [SITES]
# Each figure is the median of 3 runs; reports go to /dev/null.
set -euo pipefail
. "$(dirname "$0")/common.sh"
sites=${2:-100000}
prog="$build/tests/bench/bench_sites"

# seconds CMD...: wall-clock seconds of one run, its output discarded.
seconds() {
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }'
}

median() {
    local runs=()
    for i in 1 2 3; do runs+=("$(seconds "$@")"); done
    printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p
}

LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/sites.vtr" "$prog" "$sites" >/dev/null
untraced=$(median "$prog" "$sites")
traced=$(median env LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/traced.%p.vtr" "$prog" "$sites")
rm -f "$out"/traced.*.vtr
report=$(median "$build/vramtrace" report "$out/sites.vtr")
json=$(median "$build/vramtrace" report --json "$out/sites.vtr")
all=$(median "$build/vramtrace" report --top 0 "$out/sites.vtr")
json_all=$(median "$build/vramtrace" report --json --top 0 "$out/sites.vtr")
run=$(median "$build/vramtrace" run -o "$out/run.vtr" -- "$prog" "$sites")
echo "$(nproc) cores; $sites leaking call sites, dump of $(stat -c %s "$out/sites.vtr") bytes"
awk -v u="$untraced" -v t="$traced" -v r="$report" -v j="$json" -v n="$run" -v a="$all" \
    -v ja="$json_all" 'BEGIN {
    printf "program untraced %.2f s, traced %.2f s\n", u, t
    printf "report (text) %.2f s, report --json %.2f s: %.2fx\n", r, j, j / r
    printf "--top 0: report (text) %.2f s, report --json %.2f s: %.2fx\n", a, ja, ja / a
    printf "run (program traced + its report) %.2f s: %.2f s over the traced program, report alone %.2f s\n",
           n, n - t, r }'
