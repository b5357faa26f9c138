#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite: installs what is missing, builds and runs every test
# in a plain build and again under AddressSanitizer + UndefinedBehaviorSanitizer,
# the threaded tests under ThreadSanitizer (every build with -Werror), checks
# the format (.clang-format) and runs clang-tidy (.clang-tidy), builds the
# library alone (-Dcli=false -Dtests=false), fuzzes the dump reader for
# VT_FUZZ_SECONDS (default 60) when clang has libFuzzer, prints the line
# coverage of the plain suite (tests/coverage.sh; src/ must stay at 90% or more),
# and, beside all that, builds for aarch64 and runs its cases under qemu-user.
# The last line is "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
# Chromium too: the HTML report is rendered headless (tests/test_export.py).
# The aarch64 lane's cross compilers, arm64 libraries and qemu-user too.
VT_WITH_CHROMIUM=1 VT_WITH_AARCH64=1 tools/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }

# Steps outside meson test (fuzz seeds, coverage's extra runs) must not write
# the user's symbol cache; the tests that need one set their own folder.
export VRAMTRACE_SYMBOL_CACHE=0

passed=0 failed=0 skipped=0
[ -c /dev/null ] && dev_null_was_device=1 || dev_null_was_device=0

# Adds one build's results from meson's machine-readable test log
# (testlog-SETUP.json for a run with --setup SETUP).
count_results() {
    local counts log=testlog.json i
    for ((i = 0; i + 1 < ${#TEST_ARGS[@]}; i++)); do
        [ "${TEST_ARGS[i]}" = --setup ] && log=testlog-${TEST_ARGS[i + 1]}.json
    done
    counts=$(python3 - "$1/meson-logs/$log" <<'PY'
import json, sys
p = f = s = 0
try:
    for line in open(sys.argv[1]):
        r = json.loads(line)["result"]
        if r in ("OK", "EXPECTEDFAIL"): p += 1
        elif r == "SKIP": s += 1
        else: f += 1
except FileNotFoundError:
    f = 1
print(p, f, s)
PY
)
    read -r p f s <<<"$counts"
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

# Configures (or reconfigures) BUILD_DIR with warnings as errors and builds it.
# build_dir BUILD_DIR [meson setup options...]
build_dir() {
    local dir=$1
    shift
    if [ -f "$dir/build.ninja" ]; then
        meson configure "$dir" -Dwerror=true "$@" >/dev/null
    else
        meson setup "$dir" -Dwerror=true "$@" >/dev/null
    fi && meson compile -C "$dir" >/dev/null
}

# run_suite NAME BUILD_DIR [meson setup options...]; TEST_ARGS: meson test's
# (a sanitized build's --setup among them, see tests/meson.build).
run_suite() {
    local name=$1 dir=$2
    shift 2
    echo "=== $name ($dir)"
    if ! build_dir "$dir" "$@"; then
        echo "*** $name: build failed"
        meson compile -C "$dir" 2>&1 | tail -30
        failed=$((failed + 1))
        return
    fi
    meson test -C "$dir" --print-errorlogs --num-processes 2 --no-rebuild "${TEST_ARGS[@]}"
    count_results "$dir"
}

# A step that is not a meson test: passes when the command does.
run_step() {
    local name=$1
    shift
    echo "=== $name"
    if "$@"; then
        passed=$((passed + 1))
    else
        echo "*** $name: failed"
        failed=$((failed + 1))
    fi
}

# The library alone: neither the CLI's libdw nor Python is looked for.
library_only() {
    local dir=build-library-only
    build_dir "$dir" -Dcli=false -Dtests=false -Dexamples=false || return 1
    [ -f "$dir/libvramtrace.so" ] || { echo "no $dir/libvramtrace.so"; return 1; }
    if grep -E "Run-time dependency (libdw|zlib|python)|Program python" \
            "$dir/meson-logs/meson-log.txt"; then
        echo "the library-only build looked for the above"
        return 1
    fi
}

# CPython 3.14 and 3.15 are Debian unstable's, in a small unstable root
# made once outside the clone; then which interpreter each Python version's
# cases run, or why they skip.
echo "=== Python interpreters (tests/python/sid_root.sh, tests/test_pyversions.py)"
tests/python/sid_root.sh || echo "no Debian unstable root: the cases of 3.14 and 3.15 skip"
python3 tests/test_pyversions.py --interpreters

# The aarch64 lane (tests/aarch64/lane.sh: a cross build, the ground-truth
# cases under qemu-user) runs beside the steps below; its lines come last.
aarch64_log=$(mktemp)
tests/aarch64/lane.sh build-aarch64 >"$aarch64_log" 2>&1 &
aarch64_lane=$!

TEST_ARGS=()
run_suite "plain build" build-tests
# The habits: the code as .clang-format has it, clang-tidy clean (.clang-tidy).
run_step "format (tests/lint/format.sh)" tests/lint/format.sh
run_step "license lines (tests/lint/spdx.py)" tests/lint/spdx.py
run_step "static analysis (tests/lint/static_analysis.sh build-tests)" \
    tests/lint/static_analysis.sh build-tests
# The tracer's folders as a chain of layers, none used from below (the
# order: LAYERS in the lint).
run_step "src/ as layers (tests/lint/include_cycles.py --layers src)" \
    python3 tests/lint/include_cycles.py --build build-tests --layers src
# Every installed CPython and real PyTorch and JAX (suite frameworks: the
# wheels over the stand-ins, minutes) are the plain build's job; the sanitized builds run
# the rest (the Python tests of the default interpreter among them). The
# wheel (suite wheel: built by meson-python, not sanitized) is the plain build's too.
# --setup asan: the sanitizer runtime preloaded into programs that are not
# sanitized, its leak check off (tests/meson.build).
TEST_ARGS=(--no-suite pyversions --no-suite frameworks --no-suite wheel --setup asan)
run_suite "ASan+UBSan build" build-asan -Db_sanitize=address,undefined -Db_lundef=false

# The library and the programs built with TSan; only the 'threaded' suite.
TEST_ARGS=(--suite threaded --setup tsan)
run_suite "TSan build (threaded tests)" build-tsan -Db_sanitize=thread -Db_lundef=false

run_step "library-only build (build-library-only)" library_only

echo "=== fuzzing the dump reader (build-tests)"
tests/fuzz/run_fuzz.sh build-tests "${VT_FUZZ_SECONDS:-60}"
case $? in
    0) passed=$((passed + 1)) ;;
    77) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
esac

echo "=== coverage (build-coverage)"
if tests/coverage.sh build-coverage; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

# Every step runs as root here: one that replaced /dev/null (gcovr given
# --output /dev/null did) broke every later '>/dev/null' on the machine.
dev_null_intact() {
    [ -c /dev/null ] && return 0
    if [ "$dev_null_was_device" = 0 ]; then
        echo "/dev/null was not a character device before the suite ran either"
        return 0
    fi
    echo "/dev/null is no longer a character device: a step replaced it"
    return 1
}
run_step "/dev/null left as a device" dev_null_intact

echo "=== aarch64 lane (tests/aarch64/lane.sh build-aarch64, beside the steps above)"
wait "$aarch64_lane"
cat "$aarch64_log"
rm -f "$aarch64_log"
TEST_ARGS=()
count_results build-aarch64

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
