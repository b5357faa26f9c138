#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tracer's added cost per cudaMalloc/cudaFree pair where real programs
# allocate: 57 frames of C++ templates in a shared library built -O2 without
# frame pointers and stripped of debug information (libtorch's shape:
# tests/bench/torchish.cpp), called from C and from under 10 Python frames
# through ctypes with the GIL released, on each CPython build at hand: the
# python3 on PATH (pyenv's, libpython shared; its interpreter, not the shim)
# and Debian's /usr/bin/python3 (libpython linked in statically), whose
# frames the tracer reaches by different routes.
#     tests/bench/deep.sh [BUILD_DIR] [ROUNDS]     (default: build, 5 rounds)
# Wall time: untraced and traced runs alternate, medians and minima of
# ROUNDS each. With valgrind, instructions per pair (traced - untraced over
# the difference of a PAIRS and a 2 x PAIRS run, which cancels start-up and
# exit): on a loaded machine the figure to compare builds by.
set -euo pipefail
. "$(dirname "$0")/common.sh"
rounds=${2:-5}

# The library as libtorch is built (its unwind tables kept, as they are).
c++ -O2 -fomit-frame-pointer -fPIC -shared -g0 -I tests/standin/include tests/bench/torchish.cpp \
    -L "$build/tests/standin" -lcudart -o "$out/libtorchish.so"
strip --strip-debug "$out/libtorchish.so"
cc -O2 tests/bench/bench_torchish.c -L "$out" -ltorchish -Wl,-rpath,"$out" -o "$out/bench_torchish"
native=("$out/bench_torchish")
# Each interpreter once, by its real path (pyenv's shim is a script).
pythons=()
for candidate in python3 /usr/bin/python3; do
    command -v "$candidate" >/dev/null || continue
    exe=$(realpath "$("$candidate" -c 'import sys; print(sys.executable)')")
    case " ${pythons[*]} " in *" $exe "*) continue ;; esac
    pythons+=("$exe")
done
# python_label EXE: "3.11.7, shared libpython" or "3.11.2, static" (from
# what it maps: Debian's python3 says Py_ENABLE_SHARED but links it in)
python_label() {
    "$1" -c 'import sys
shared = "libpython" in open("/proc/self/maps").read()
print(sys.version.split()[0] + (", shared libpython" if shared else ", static"))'
}

# ns_per_pair traced|plain CMD...
ns_per_pair() {
    local mode=$1
    shift
    if [ "$mode" = traced ]; then
        LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out/bench.%p.vtr" "$@"
        rm -f "$out"/bench.*.vtr
    else
        "$@"
    fi | awk '/ns_per_pair/ {print $2}'
}

# wall LABEL CMD-BEFORE-PAIRS... -- CMD-AFTER-PAIRS... (PAIRS: $pairs)
wall() {
    local label=$1 plain=() traced=() before=() after=()
    shift
    while [ "$1" != -- ]; do before+=("$1"); shift; done
    shift
    after=("$@")
    for ((i = 0; i < rounds; i++)); do
        plain+=("$(ns_per_pair plain "${before[@]}" "$pairs" "${after[@]}")")
        traced+=("$(ns_per_pair traced "${before[@]}" "$pairs" "${after[@]}")")
    done
    printf '%s\n' "${plain[@]}" | sort -n >"$out/plain"
    printf '%s\n' "${traced[@]}" | sort -n >"$out/traced"
    paste "$out/plain" "$out/traced" | awk -v l="$label" -v m=$(((rounds + 1) / 2)) '
        { p[NR] = $1; t[NR] = $2 }
        END { printf "%-50s untraced %7.1f ns  traced %7.1f ns  added %7.1f ns  ratio %.2fx  (minima: untraced %.1f, added %.1f ns)\n",
                     l, p[m], t[m], t[m] - p[m], t[m] / p[m], p[1], t[1] - p[1] }'
}

echo "$(nproc) cores; per alloc/free pair (medians of $rounds runs, untraced and traced alternating):"
pairs=100000
# shellcheck disable=SC2034 # read by instructions_per_pair (common.sh)
label_width=50
wall "C++, 57 frames, no frame pointers" "${native[@]}" --
for py in "${pythons[@]}"; do
    wall "under 10 Python frames ($(python_label "$py"))" \
        "$py" tests/bench/bench_torchish.py "$out/libtorchish.so" -- 10
done
if command -v valgrind >/dev/null; then
    instructions_per_pair "C++, 57 frames, no frame pointers" 20000 "${native[@]}" --
    for py in "${pythons[@]}"; do
        instructions_per_pair "under 10 Python frames ($(python_label "$py"))" 5000 \
            "$py" tests/bench/bench_torchish.py "$out/libtorchish.so" -- 10
    done
else
    echo "(no valgrind: no instruction counts)"
fi
