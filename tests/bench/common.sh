# SPDX-License-Identifier: MIT
# Sourced by the benchmark scripts: builds BUILD_DIR ($1, default build) if
# needed and sets build, lib (the tracer), out (a scratch folder removed at
# exit) and LD_LIBRARY_PATH (the stand-in CUDA libraries).
cd "$(dirname "$0")/../.."
build=${1:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null
export LD_LIBRARY_PATH="$PWD/$build/tests/standin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
lib="$PWD/$build/libvramtrace.so"
export VRAMTRACE_QUIET=1 # the traced runs' line naming their dump is not the benchmark's output
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
