#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The aarch64 lane (Grace Hopper, Grace Blackwell): the tracer, CLI,
# stand-ins and test programs cross-built with Debian's aarch64 gcc
# (tests/cross/aarch64-linux-gnu.ini, -Werror), and the ground-truth cases
# that need no x86_64 code run under qemu-user:
# the dumps are read by the aarch64 CLI, the Python cases run Debian's arm64
# python3 (tests/aarch64/arm64_root.sh). The harness wraps each aarch64
# program in qemu (VT_TEST_QEMU, tests/harness.py).
#     tests/aarch64/lane.sh [BUILD_DIR]       (default build-aarch64)
# Prints meson test's lines; its results are in BUILD_DIR/meson-logs/
# testlog.json. Exit status 0: every case passed.
set -u
cd "$(dirname "$0")/../.."
dir=${1:-build-aarch64}
root=${VT_ARM64_ROOT:-/var/cache/vramtrace/arm64-root}

# The areas of the lane: the C cases (runtime, driver, teardown, golden
# reports), fork, threads and crash endings (reliability), Python frames,
# `vramtrace run`, `vramtrace watch` following dumps, the C unit tests
# (meson's exe_wrapper runs them), the fast stack walk against libunwind
# frame by frame (tests/test_unwind.py; with return addresses that pointer
# authentication signs: qemu's "max" CPU has it, the cases check it is on),
# the aarch64 wheel (tests/test_wheel.py).
suites=(runtime driver teardown golden reliability python run api watch unit unwind wheel)
# Left out, and why: each needs what qemu-user or this lane cannot give.
#   unwind-dlclose_*: qemu maps the library opened after another's dlclose
#     elsewhere (its own mmap placement), not where the closed one was
#   *fork_exec, python-debian_python, reliability-secure_set*: a program
#     that execs another aarch64 program (no binfmt here: only what the
#     harness starts is wrapped in qemu)
#   api-pytest*, golden-pytest_leak: the arm64 root has no pytest
#   golden-cxx_signatures: builds its program with the machine's g++
#   watch-* but five: qemu fakes the start time /proc/self/stat gives the
#     tracer, so the CLI takes a live traced process for another (not running)
#   run-killed_names_signal, run-loader_error: qemu 7.2 refuses
#     prctl(PR_SET_CHILD_SUBREAPER), which `vramtrace run` then reports
#   wheel-install, wheel-recipe: the x86_64 wheel's (the plain build's)
skip='^(unwind-dlclose_.*|.*fork_exec|python-debian_python|reliability-secure_set.*|api-pytest.*|golden-pytest_leak|golden-cxx_signatures|run-killed_names_signal|run-loader_error|watch-(aggregate|damaged_dir|list|live_once|pty|run_wrapper|growing)|wheel-install|wheel-recipe)$'

start=$(date +%s)
# A lane that stops before its cases leaves no results to be counted again.
rm -f "$dir/meson-logs/testlog.json"
tests/aarch64/arm64_root.sh "$root" || { echo "aarch64 lane: no arm64 root at $root"; exit 1; }
if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" --cross-file tests/cross/aarch64-linux-gnu.ini -Dwerror=true >/dev/null ||
        { echo "aarch64 lane: meson setup failed"; exit 1; }
fi
if ! meson compile -C "$dir" >"$dir/compile.log" 2>&1; then
    echo "*** aarch64 lane: build failed"
    tail -30 "$dir/compile.log"
    exit 1
fi
mapfile -t cases < <(meson test -C "$dir" --list --no-rebuild "${suites[@]/#/--suite=}" 2>/dev/null |
    sed 's/^.* \/ //' | grep -vE "$skip" | sort -u)
export VT_TEST_QEMU="qemu-aarch64-static -L $root"
export VT_TEST_PYTHON=$root/usr/bin/python3 VT_ARM64_ROOT=$root
# The CLI at Grace's 64 KiB pages: it reads and follows dumps in windows of
# the system's pages. (The traced programs run at the host's 4 KiB: qemu
# 7.2 maps the loader's last page only as far as the host's page ends, and
# glibc's loader allocates up to the end of the guest's.)
export VT_TEST_CLI_PAGE=65536
meson test -C "$dir" --print-errorlogs --num-processes 2 --no-rebuild "${cases[@]}"
status=$?
echo "aarch64 lane: ${#cases[@]} cases, $(($(date +%s) - start)) s"
exit $status
