#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Line and branch coverage of the test suite: builds BUILD_DIR (default
# build-coverage) with meson's b_coverage, runs the plain suite there and
# prints what gcovr counts, for the tracer (src/) and the CLI (tools/).
#     tests/coverage.sh [BUILD_DIR]
# The last lines: "coverage src/: N% of lines, N% of branches" and the same
# for tools/. Exit status 1 when src/ is under VT_COVERAGE_MIN percent of its
# lines (default 90), or when a test failed.
set -u
cd "$(dirname "$0")/.."
dir=${1:-build-coverage}
min=${VT_COVERAGE_MIN:-90}
command -v gcovr >/dev/null || { echo "coverage: gcovr is missing (tools/install-deps.sh)"; exit 1; }
# Atomic counters: the tracer counts from several threads at once.
[ -f "$dir/build.ninja" ] || meson setup "$dir" -Db_coverage=true -Dbuildtype=debug \
    -Dc_args=-fprofile-update=atomic >/dev/null || exit 1
meson compile -C "$dir" >/dev/null || exit 1
find "$dir" -name '*.gcda' -delete
# A process that cannot write its counts (the setuid test's) says so on
# stderr, where the tests expect nothing of the kind. Real PyTorch and JAX
# (suite frameworks) run once, in the plain build: here they would fetch their
# wheels again; the wheel (suite wheel) is built by meson-python, uncounted.
# failed: the names of the tests that failed in the last meson test run
failed() {
    python3 -c 'import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["result"] in ("FAIL", "ERROR", "TIMEOUT", "UNEXPECTEDPASS"):
        print("coverage: failed:", t["name"], t["result"])' "$dir/meson-logs/testlog.json"
}
GCOV_ERROR_FILE=/dev/null meson test -C "$dir" --num-processes 2 --no-rebuild --no-suite frameworks \
    --no-suite wheel >/dev/null
tests_ok=$?
[ $tests_ok -eq 0 ] || failed
# PyTorch's tensors (src/hooks/torch_tensors.c) are traced only inside real
# torch: its torch_tensors cases count too, over the venv the plain build
# made (tests/wheel_env.py's cache; they skip where it has none). Those
# needing another venv (2.14, the pytest session's site) are left out.
mapfile -t tensor_cases < <(meson test -C "$dir" --list 2>/dev/null |
    sed -n 's|.* / \(torch_tensors-[a-z_0-9]*\)$|\1|p' | grep -v -e 2_14 -e pytest_since)
GCOV_ERROR_FILE=/dev/null meson test -C "$dir" --num-processes 2 --no-rebuild \
    "${tensor_cases[@]}" >/dev/null || { tests_ok=1; failed; }
status=0
# gcovr replaces its --output file rather than writing into it: given
# /dev/null, it made /dev/null a regular file for the whole machine.
# A process that exits while its other threads still count (the soak and
# stress tests) can leave counts from which gcov derives a negative branch
# ("taken -1"); gcovr then refuses the whole part, and src/ read "?"
# (--gcov-ignore-parse-errors drops that one line instead).
for part in src tools; do
    line=$(gcovr --root . --object-directory "$dir" --filter "$part/" --print-summary \
                 --gcov-ignore-parse-errors --output "$dir/coverage-$part.txt" 2>/dev/null)
    lines=$(awk '/^lines:/ {print $2}' <<<"$line")
    branches=$(awk '/^branches:/ {print $2}' <<<"$line")
    echo "coverage $part/: ${lines:-?} of lines, ${branches:-?} of branches"
    if [ "$part" = src ] && ! awk -v l="${lines%\%}" -v m="$min" 'BEGIN { exit !(l >= m) }'; then
        echo "coverage: src/ is under ${min}% of its lines"
        status=1
    fi
done
[ $tests_ok -eq 0 ] || { echo "coverage: some tests failed in $dir"; status=1; }
exit $status
