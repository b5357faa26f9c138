#!/usr/bin/env bash
# Installs what vramtrace needs to build and test on Debian/Ubuntu, if missing.
set -euo pipefail

packages=(meson ninja-build pkg-config gcc g++ python3 libunwind-dev uthash-dev libdw-dev libelf-dev
          python3-pytest python3-pytest-xdist cmake libpython3-dev zlib1g-dev
          clang libclang-rt-dev)  # clang + libclang-rt-dev: the dump reader's fuzz target
# (cmake and pytest-xdist: the README's ctest and pytest-xdist recipes, tests/test_verdicts.py)
# Headless Chromium renders the HTML report in tests/run.sh (VT_WITH_CHROMIUM=1);
# it is large, so a plain install leaves it out.
[ "${VT_WITH_CHROMIUM:-0}" = 1 ] && packages+=(chromium)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "vramtrace: installing ${missing[*]}" >&2
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
