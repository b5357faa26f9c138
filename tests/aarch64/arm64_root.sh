#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes (once) the small arm64 root whose Debian Python the aarch64 lane
# traces (tests/aarch64/lane.sh): the machine's own release, its packages
# unpacked (mmdebstrap's extract variant: no maintainer script runs, so no
# binfmt is needed), run by qemu-aarch64-static -L ROOT. The machine's
# python3 stays as it is: multiarch cannot hold both. Cached outside the clone:
#     tests/aarch64/arm64_root.sh [ROOT]   (default: $VT_ARM64_ROOT, else
#                                           /var/cache/vramtrace/arm64-root)
# Needs root and mmdebstrap (tools/install-deps.sh). Exit status 0: ready.
set -eu
packages="python3-minimal libpython3-stdlib"
marker=etc/vramtrace-root
root=${1:-${VT_ARM64_ROOT:-/var/cache/vramtrace/arm64-root}}
[ -f "$root/$marker" ] && [ "$(cat "$root/$marker")" = "$packages" ] && exit 0
[ "$(id -u)" -eq 0 ] || { echo "arm64_root: needs root (mmdebstrap)" >&2; exit 1; }
[ ! -e "$root" ] || { echo "arm64_root: $root exists but was not made here" >&2; exit 1; }
command -v mmdebstrap >/dev/null || { echo "arm64_root: no mmdebstrap" >&2; exit 1; }
# The release and mirror this machine's apt reads its own packages from.
set -- $(apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 'Created-By: Packages' |
    grep -v -e security -e updates -e backports | head -n1)
suite=${1:-$(. /etc/os-release && echo "$VERSION_CODENAME")} mirror=${2:-http://deb.debian.org/debian}
mkdir -p "$(dirname "$root")"
new=$(mktemp -d "$root.new.XXXXXX")
chmod 755 "$new"
echo "arm64_root: making $root ($suite, arm64) from $mirror (once)" >&2
mmdebstrap --quiet --variant=extract --arch=arm64 --include="$(echo "$packages" | tr ' ' ,)" \
    "$suite" "$new" "$mirror" >&2
echo "$packages" >"$new/$marker"
mv "$new" "$root"
echo "arm64_root: $root made, $(du -sm "$root" | cut -f1) MB" >&2
