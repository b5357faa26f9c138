#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Makes the README's pictures of the bundled example (examples/leaky.cu, on
# the stand-in CUDA libraries): examples/leaky-report.png, its HTML report,
# and examples/watch-terminal.png (+ .txt), `vramtrace watch` on it while it
# runs (40 steps of 250 ms), captured in a tmux pane; both screenshotted in
# headless Chromium. Usage: tools/readme_picture.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
VT_WITH_CHROMIUM=1 tools/install-deps.sh
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# No path of this machine in the picture: the export runs from the source root
# (the sources read examples/leaky.cu), and the program and its dump lie in
# the temporary directory, whose name is taken out (leaky, leaky.vtr), as is
# the source root's from the stacks' full paths.
cp "$build/examples/leaky" "$work/leaky"
LD_LIBRARY_PATH="$PWD/$build/tests/standin" \
    "$build/vramtrace" run -o "$work/leaky.vtr" -- "$work/leaky" >/dev/null 2>&1
"$build/vramtrace" export --format html -o "$work/leaky.html" "$work/leaky.vtr"
sed -i -e "s|$work/||g" -e "s|$PWD/||g" "$work/leaky.html"
screenshot() {   # PAGE PNG WIDTH,HEIGHT
    chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
        --user-data-dir="$work/profile" --window-size="$3" --screenshot="$2" "file://$1" 2>/dev/null
}
screenshot "$work/leaky.html" "$PWD/examples/leaky-report.png" 1200,900
echo "wrote examples/leaky-report.png"

# the watch: the view halfway through the run (the dump named as in the README),
# from the source root as the export
session=vramtrace-readme-$$
tmux new-session -d -s "$session" -x 100 -y 10 \
    "cd '$work' && LD_LIBRARY_PATH='$PWD/$build/tests/standin' '$PWD/$build/vramtrace' run \
     -o leaky.vtr -- '$PWD/$build/examples/leaky' 40 250 >/dev/null 2>&1 & sleep 0.3;
     cd '$PWD' && '$build/vramtrace' watch --interval 0.5 '$work/leaky.vtr'; sleep 60"
sleep 5.2
tmux capture-pane -p -t "$session" | sed -e "s|$work/||g" -e 's/ *$//' -e :a -e '/^\n*$/{$d;N;ba' \
    -e '}' > examples/watch-terminal.txt
tmux kill-session -t "$session"
{
    echo '<!DOCTYPE html><meta charset="utf-8"><body style="margin:0;background:#1e1e1e">'
    echo '<pre style="margin:0;padding:10px 14px;color:#e0e0e0;font:15px/1.3 monospace">'
    sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' examples/watch-terminal.txt
    echo '</pre>'
} > "$work/watch.html"
screenshot "$work/watch.html" "$PWD/examples/watch-terminal.png" 920,200
echo "wrote examples/watch-terminal.png and examples/watch-terminal.txt"
