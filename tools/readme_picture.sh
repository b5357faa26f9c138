#!/usr/bin/env bash
# Makes examples/leaky-report.png, the picture of the HTML report in the
# README: runs the bundled example (examples/leaky.cu, on the stand-in CUDA
# libraries) under the tracer, exports the HTML report and screenshots it
# in headless Chromium. Usage: tools/readme_picture.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
VT_WITH_CHROMIUM=1 tools/install-deps.sh
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# run from the source root so the report's paths are short (examples/leaky.cu)
LD_LIBRARY_PATH="$PWD/$build/tests/standin" \
    "$build/vramtrace" run -o "$work/leaky.vtr" -- "$build/examples/leaky" >/dev/null 2>&1
(cd "$work" && "$OLDPWD/$build/vramtrace" export --format html -o leaky.html leaky.vtr)
chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
    --user-data-dir="$work/profile" --window-size=1200,900 \
    --screenshot="$PWD/examples/leaky-report.png" "file://$work/leaky.html" 2>/dev/null
echo "wrote examples/leaky-report.png"
