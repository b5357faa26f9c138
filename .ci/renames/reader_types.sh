#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 16: the reader's types get names of their own, distinct from the
# library's (src/ has struct vt_stack = a captured stack, tools/ had
# struct vt_stack = a STACK record read from a dump; likewise vt_pyframe and
# vt_alloc_event). Mechanical, over tools/ and tests/ only; re-run it after
# merging other branches (it is idempotent).
set -euo pipefail
cd "$(dirname "$0")/../.."
# (tests/unit/test_stack_intern.c tests the library's own struct vt_stack: left alone)
git ls-files -z tools tests | grep -zE '\.(c|h)$' | grep -zv '^tests/unit/test_stack_intern' |
    xargs -0 sed -i -E \
        -e 's/\bstruct vt_stack\b/struct vt_dump_stack_record/g' \
        -e 's/\bstruct vt_pyframe\b/struct vt_dump_pyframe/g' \
        -e 's/\bstruct vt_alloc_event\b/struct vt_dump_alloc/g'
