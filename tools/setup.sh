#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A newcomer's first command: installs what is needed, builds, and runs the
# bundled leaky example (examples/leaky.cu) under the tracer, showing its report.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
meson compile -C build >/dev/null

if ldconfig -p | grep -q 'libcuda\.so\.1 ' && command -v nvcc >/dev/null; then
    nvcc -g -o build/leaky-gpu examples/leaky.cu
    program=build/leaky-gpu
else
    echo "vramtrace: no CUDA driver here: running the example on the stand-in CUDA libraries" >&2
    export LD_LIBRARY_PATH="$PWD/build/tests/standin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    program=build/examples/leaky
fi
rm -f build/leaky.vtr
build/vramtrace run -o build/leaky.vtr -- "$program"
echo >&2
echo "Read it again with: build/vramtrace report build/leaky.vtr" >&2
