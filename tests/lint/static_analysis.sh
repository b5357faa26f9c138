#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# clang-tidy (checks: .clang-tidy, and why) over every C file of src/ and tools/,
# compiled as BUILD (a configured meson build directory) compiles it.
#   tests/lint/static_analysis.sh BUILD
# Prints the findings and "static analysis: N files, N findings"; exit 1 on any.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: static_analysis.sh BUILD}" && pwd)
command -v clang-tidy >/dev/null || { echo "static analysis: clang-tidy is missing"; exit 1; }
db=$build/static-analysis
mkdir -p "$db"
# src/ and tools/ only, each file once; gcc's own flags removed (clang does not know them).
python3 - "$root" "$build/compile_commands.json" "$db/compile_commands.json" <<'PY' || exit 1
import json, os, sys
root, src, dst = sys.argv[1:]
seen, kept = set(), []
for e in json.load(open(src)):
    path = os.path.realpath(os.path.join(e["directory"], e["file"]))
    rel = os.path.relpath(path, root)
    if rel.split(os.sep)[0] not in ("src", "tools") or path in seen:
        continue
    seen.add(path)
    e["command"] = e["command"].replace("-fno-tree-loop-distribute-patterns", "")
    kept.append(e)
json.dump(kept, open(dst, "w"), indent=1)
PY
mapfile -t files < <(python3 -c 'import json, os, sys
for e in json.load(open(sys.argv[1])): print(os.path.join(e["directory"], e["file"]))' \
    "$db/compile_commands.json")
(cd "$build" && printf '%s\0' "${files[@]}" |
    xargs -0 -P "$(nproc)" -n 4 clang-tidy -p "$db" --quiet 2>/dev/null) >"$db/findings.txt"
findings=$(grep -c ': \(warning\|error\):' "$db/findings.txt")
grep -A3 ': \(warning\|error\):' "$db/findings.txt"
echo "static analysis: ${#files[@]} files, $findings findings"
[ "$findings" -eq 0 ]
