#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `vramtrace report` of a real PyTorch run's dump: the training loop of
# bench_torch.py (STEPS steps, --pytorch-tensors: a traced allocation per
# tensor, stacks through libtorch_cpu.so's 546,000 symbols) over the
# stand-ins, with the torch venv of tests/torch_env.py:
#     tests/bench/report_torch.sh BUILD_DIR [STEPS [ROUNDS]] [OLD_VRAMTRACE]
# (default 2000 steps, 5 rounds). Prints the median wall time and the
# largest resident set of `report` with the symbol cache off, the first
# report with an empty cache (it fills it) and a second one (served from
# it), and their ratios; with OLD_VRAMTRACE (another build's CLI) its report
# of the same dump first. Skipped, with one line, without the torch wheels
# in tests/wheel_env.py's cache (nothing is downloaded here).
set -euo pipefail
build_arg=${1:-build}
steps=${2:-2000} rounds=${3:-5} old=${4:-}
. "$(dirname "$0")/common.sh" "$build_arg"
wheels=$(python3 -c 'import sys; sys.path.insert(0, "tests"); import wheel_env
print(wheel_env.cache_dir(sys.argv[1]))' "$build")/torch-wheels
if ! compgen -G "$wheels/torch-*.whl" >/dev/null; then
    echo "report_torch: skipped: no torch wheels in $wheels (tests/torch_env.py)"
    exit 0
fi
python=$(python3 tests/torch_env.py "$build")
"$build/vramtrace" run -o "$out/t.vtr" --pytorch-tensors -- \
    "$python" tests/bench/bench_torch.py "$steps" >/dev/null 2>&1
dump=$out/t.vtr
cache=$out/cache

# report CLI CACHE: "seconds max_rss_kib" of one report of the dump (CACHE: 0 = off)
report() {
    VRAMTRACE_SYMBOL_CACHE=$2 /usr/bin/time -f "%e %M" "$1" report "$dump" 2>&1 >/dev/null |
        tail -1
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# measure LABEL CLI CACHE [fresh]: median seconds and the largest RSS over the rounds
declare -A secs rss
measure() {
    local label=$1 cli=$2 dir=$3 fresh=${4:-} runs=()
    for ((i = 0; i < rounds; i++)); do
        [ -n "$fresh" ] && rm -rf "$cache"
        runs+=("$(report "$cli" "$dir")")
    done
    secs[$label]=$(printf '%s\n' "${runs[@]}" | awk '{ print $1 }' | median)
    rss[$label]=$(printf '%s\n' "${runs[@]}" | awk '$2 > m { m = $2 } END { print m }')
    printf "%-22s %6.2f s  %4d MiB\n" "$label" "${secs[$label]}" "$((rss[$label] / 1024))"
}

echo "report of a $(du -k "$dump" | cut -f1) KiB dump ($steps steps, --pytorch-tensors);" \
    "medians of $rounds rounds, largest RSS"
[ -n "$old" ] && measure "old build" "$old" 0
measure "no cache" "$build/vramtrace" 0
measure "first (fills cache)" "$build/vramtrace" "$cache" fresh
measure "second (from cache)" "$build/vramtrace" "$cache"
echo "cache: $(du -sk "$cache" | cut -f1) KiB in $(find "$cache" -name '*.vtsym' | wc -l) files"
awk -v o="${secs[old build]:-0}" -v n="${secs[no cache]}" -v s="${secs[second (from cache)]}" \
    'BEGIN { if (o > 0) printf "old / no cache %.1fx;  ", o / n
             # /usr/bin/time counts hundredths: a second report under 10 ms reads 0
             if (s > 0) printf "no cache / second %.1fx\n", n / s
             else printf "no cache / second over %.0fx (the second under 10 ms)\n", n / 0.01 }'
