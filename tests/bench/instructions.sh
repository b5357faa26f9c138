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

for depth in 8 24 64; do
    instructions_per_pair "C, depth $depth, 1 thread" 20000 "$build/tests/bench/bench_alloc" -- "$depth" 1
done
# The interpreter itself, not a wrapper script (pyenv's python3 is one).
python=$(python3 -c 'import sys; print(sys.executable)')
for gil in held released; do
    for depth in 10 50; do
        instructions_per_pair "Python, $depth frames, GIL $gil" 3000 "$python" tests/bench/bench_python.py -- \
            "$depth" "$gil"
    done
done
