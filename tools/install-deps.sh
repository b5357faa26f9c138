#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what vramtrace needs to build and test on Debian/Ubuntu, if missing.
set -euo pipefail

packages=(meson ninja-build pkg-config gcc g++ python3 libunwind-dev uthash-dev libdw-dev libelf-dev
          python3-pytest python3-pytest-xdist cmake libpython3-dev zlib1g-dev
          clang libclang-rt-dev   # clang + libclang-rt-dev: the dump reader's fuzz target
          clang-format clang-tidy # tests/lint/format.sh, tests/lint/static_analysis.sh
          gcovr                   # the coverage figure of tests/run.sh (tests/coverage.sh)
          prometheus prometheus-node-exporter # promtool and the servers tests/test_metrics.py starts
          mmdebstrap)             # makes the unstable root of CPython 3.14, 3.15 (tests/python/sid_root.sh)
# (cmake and pytest-xdist: the README's ctest and pytest-xdist recipes, tests/test_verdicts.py)
# Headless Chromium renders the HTML report in tests/run.sh (VT_WITH_CHROMIUM=1);
# it is large, so a plain install leaves it out. tmux: the terminal that
# tools/readme_picture.sh captures `vramtrace watch` in.
[ "${VT_WITH_CHROMIUM:-0}" = 1 ] && packages+=(chromium tmux)
# The aarch64 lane of tests/run.sh (VT_WITH_AARCH64=1, tests/aarch64/lane.sh):
# Debian's cross compilers, the arm64 libraries the build links (multiarch:
# the machine's own architecture stays as it is) and qemu-user; the static
# build, having no loader of its own, leaves LD_PRELOAD to the program.
aarch64=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user-static libc6-dev:arm64
         libunwind-dev:arm64 libdw-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libstdc++6:arm64)
if [ "${VT_WITH_AARCH64:-0}" = 1 ]; then
    packages+=("${aarch64[@]}")
fi
# nvml.h, for tests/test_abi.py's check of the NVML declarations: the NVIDIA
# wheel of the toolkit's version (headers only), where the toolkit lacks it.
install_nvml_header() {
    local cuda_h=/usr/local/cuda/include/cuda.h version
    [ -f "$cuda_h" ] && [ ! -f /usr/local/cuda/include/nvml.h ] || return 0
    python3 -c 'import glob, sys; sys.exit(not any(glob.glob(d + "/nvidia/*/include/nvml.h") for d in sys.path))' \
        2>/dev/null && return 0
    version=$(sed -n 's/^#define CUDA_VERSION \([0-9]*\)/\1/p' "$cuda_h")
    [ -n "$version" ] || return 0
    echo "vramtrace: installing nvml.h (pip: nvidia-nvml-dev==$((version / 1000)).$((version % 1000 / 10)).*)" >&2
    python3 -m pip install --quiet "nvidia-nvml-dev==$((version / 1000)).$((version % 1000 / 10)).*" >&2 ||
        echo "vramtrace: could not install nvml.h; the NVML ABI check will be skipped" >&2
}
install_nvml_header

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "vramtrace: installing ${missing[*]}" >&2
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
if [[ " ${missing[*]}" == *:arm64* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    "${sudo[@]}" dpkg --add-architecture arm64
fi
"${sudo[@]}" apt-get update -qq
# Debian starts (and enables) the services of prometheus and
# prometheus-node-exporter when it installs them; the tests start their own on
# free ports, so nothing is left running: policy-rc.d refuses the starts while
# installing, and on a systemd machine the new services are disabled.
services=()
for p in "${missing[@]}"; do
    case $p in prometheus | prometheus-node-exporter) services+=("$p") ;; esac
done
policy=/usr/sbin/policy-rc.d
if [ ${#services[@]} -gt 0 ] && [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod 755 "$policy"
    trap '"${sudo[@]}" rm -f "$policy"' EXIT
fi
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
if [ ${#services[@]} -gt 0 ] && [ -d /run/systemd/system ]; then
    "${sudo[@]}" systemctl disable --now "${services[@]}" >/dev/null 2>&1 || true
fi
