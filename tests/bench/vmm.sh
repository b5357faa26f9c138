#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tracer's added cost on virtual memory management as PyTorch's
# expandable segments use it: PAGES pages (default 10,000) of one reserved
# range created and mapped, then unmapped and released, one by one
# (bench_vmm), untraced and under each library in turn, round after round.
#     tests/bench/vmm.sh BUILD_DIR [LIBVRAMTRACE.so...] [-- PAGES ROUNDS]
# (default library: BUILD_DIR's; default 3 rounds). Prints per library the
# median ns per unmap+release and per create+map, and what it added to the
# untraced run's: a tracer whose unmap looks at every mapping adds time
# that grows with the pages mapped (quadratic in all), an indexed one a
# constant. The stand-in driver scans its own mappings too: its untraced
# figure grows with PAGES as well, and wall times on a busy machine are
# noisy. With valgrind, also the instructions per unmap spent in the
# tracer's bookkeeping of it (vt_track_vmm_unmap, inclusive): independent of
# the machine's load and of the stand-in.
set -euo pipefail
build_arg=${1:-build}
[ $# -gt 0 ] && shift
libs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    libs+=("$(realpath "$1")")
    shift
done
[ "${1:-}" = -- ] && shift
pages=${1:-10000} rounds=${2:-3}
. "$(dirname "$0")/common.sh" "$build_arg"
[ ${#libs[@]} -gt 0 ] || libs=("$lib")
bench="$build/tests/bench/bench_vmm"
export STANDIN_CUDA_MEMORY=$(((pages + 1) * 2))m

run() {
    if [ "$1" = plain ]; then
        "$bench" "$pages"
    else
        LD_PRELOAD="$1" VRAMTRACE_OUTPUT="$out/v.%p.vtr" "$bench" "$pages"
        rm -f "$out"/v.*.vtr
    fi
}

for ((i = 0; i < rounds; i++)); do
    run plain | sed 's/^/plain /'
    for l in "${libs[@]}"; do run "$l" | sed "s|^|$l |"; done
done >"$out/runs"

# median KEY FIGURE
median() {
    awk -v k="$1" -v f="$2" '$1 == k && $2 == f {print $3}' "$out/runs" | sort -n |
        awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "$pages pages, $rounds rounds (medians)"
pu=$(median plain ns_per_unmap) pm=$(median plain ns_per_map)
printf 'untraced: %.0f ns per unmap+release, %.0f ns per create+map\n' "$pu" "$pm"
# instructions (common.sh) counts only those spent in vt_track_vmm_unmap
callgrind_args=(--toggle-collect=vt_track_vmm_unmap)

for l in "${libs[@]}"; do
    awk -v l="$l" -v u="$(median "$l" ns_per_unmap)" -v m="$(median "$l" ns_per_map)" \
        -v pu="$pu" -v pm="$pm" 'BEGIN {
        printf "%s\n    unmap+release %.0f ns (added %.0f ns, ratio %.2fx); create+map %.0f ns (added %.0f ns)\n",
               l, u, u - pu, u / pu, m, m - pm }'
    if command -v valgrind >/dev/null; then
        echo "    $(($(instructions "$l" "$bench" "$pages") / pages)) instructions per unmap in vt_track_vmm_unmap"
    fi
done
