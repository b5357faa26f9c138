#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The C files of src/, tools/ and tests/unit/ against .clang-format.
#   tests/lint/format.sh          lists the files clang-format would change; exit 1 if any
#   tests/lint/format.sh --fix    reformats them in place (the mechanical commit: run it after
#                                 merging branches, then commit the result alone)
# Needs clang-format 14 or later (the style's options).
set -u
cd "$(dirname "$0")/../.."
command -v clang-format >/dev/null || { echo "format: clang-format is missing"; exit 1; }
mapfile -t files < <(git ls-files 'src/*.c' 'src/*.h' 'tools/*.c' 'tools/*.h' \
                                  'tests/unit/*.c' 'tests/unit/*.h')
if [ "${1:-}" = --fix ]; then
    clang-format -i "${files[@]}"
    exit
fi
unformatted=0
for f in "${files[@]}"; do
    if ! clang-format --dry-run -Werror "$f" 2>/dev/null; then
        echo "format: $f differs from .clang-format (tests/lint/format.sh --fix)"
        unformatted=$((unformatted + 1))
    fi
done
echo "format: ${#files[@]} files, $unformatted to reformat"
[ "$unformatted" -eq 0 ]
