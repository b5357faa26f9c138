#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds and runs every test
# in a plain build and again under AddressSanitizer + UndefinedBehaviorSanitizer,
# the threaded tests under ThreadSanitizer, fuzzes the dump reader for
# VT_FUZZ_SECONDS (default 60) when clang has libFuzzer, and prints the line
# coverage of the plain suite (tests/coverage.sh; src/ must stay at 90% or more).
# The last line is "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
# Chromium too: the HTML report is rendered headless (tests/test_export.py).
VT_WITH_CHROMIUM=1 tools/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }

passed=0 failed=0 skipped=0

# Adds one build's results from meson's machine-readable test log.
count_results() {
    local counts
    counts=$(python3 - "$1/meson-logs/testlog.json" <<'PY'
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

# run_suite NAME BUILD_DIR [meson setup options...]
run_suite() {
    local name=$1 dir=$2
    shift 2
    echo "=== $name ($dir)"
    if ! { [ -f "$dir/build.ninja" ] || meson setup "$dir" "$@" >/dev/null; } ||
       ! meson compile -C "$dir" >/dev/null; then
        echo "*** $name: build failed"
        meson compile -C "$dir" 2>&1 | tail -30
        failed=$((failed + 1))
        return
    fi
    meson test -C "$dir" --print-errorlogs --num-processes 2 --no-rebuild "${TEST_ARGS[@]}"
    count_results "$dir"
}

TEST_ARGS=()
run_suite "plain build" build-tests
# Every installed CPython is the plain build's job; the sanitized builds run
# the rest (the Python tests of the default interpreter among them).
TEST_ARGS=(--no-suite pyversions)
# Sanitized library preloaded into programs that are not: ASan must be
# loaded first, and its own leak check would flag what the tests leak on purpose.
ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
VT_TEST_PRELOAD="$(gcc -print-file-name=libasan.so)" \
    run_suite "ASan+UBSan build" build-asan -Db_sanitize=address,undefined -Db_lundef=false

# The library and the programs built with TSan; only the 'threaded' suite.
TEST_ARGS=(--suite threaded)
TSAN_OPTIONS=halt_on_error=1 \
VT_TEST_PRELOAD="$(gcc -print-file-name=libtsan.so)" \
    run_suite "TSan build (threaded tests)" build-tsan -Db_sanitize=thread -Db_lundef=false

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

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
