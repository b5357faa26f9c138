#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes (once) the small Debian unstable root that tests/test_pyversions.py
# runs CPython 3.14 and 3.15 in: no other registry ships them for this
# system, and they need unstable's libc. Cached outside the clone:
#     tests/python/sid_root.sh [ROOT]      (default: $VT_SID_ROOT, else
#                                           /var/cache/vramtrace/sid-root)
# A root made with another package list gets the missing packages added.
# Needs root and mmdebstrap (tools/install-deps.sh); the mirror is the one
# this machine's apt sources name. Exit status 0: the root is ready.
set -eu
root=${1:-${VT_SID_ROOT:-/var/cache/vramtrace/sid-root}}
# The interpreters and their headers (extensions are built in the root with
# its gcc), the tracer's libunwind and the CLI's libdw (the report is read
# there too, where the interpreter's own files are).
packages="python3.14 python3.14-dev python3.15 python3.15-dev gcc libc6-dev libunwind8 libdw1t64"
marker=etc/vramtrace-root
[ -f "$root/$marker" ] && [ "$(cat "$root/$marker")" = "$packages" ] && exit 0
[ "$(id -u)" -eq 0 ] || { echo "sid_root: needs root (mount namespaces, chroot)" >&2; exit 1; }
# Unstable's Release file may be past its Valid-Until on a snapshot mirror.
valid='Acquire::Check-Valid-Until "false"'
if [ -f "$root/$marker" ]; then
    echo "sid_root: adding to $root: $packages" >&2
    chroot "$root" apt-get -qq -o Acquire::Check-Valid-Until=false update
    DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq --no-install-recommends \
        $packages >/dev/null
    echo "$packages" >"$root/$marker"
    exit 0
fi
[ ! -e "$root" ] || { echo "sid_root: $root exists but was not made here" >&2; exit 1; }
command -v mmdebstrap >/dev/null || { echo "sid_root: no mmdebstrap" >&2; exit 1; }
mirror=$(sed -n 's/^URIs: *\([^ ]*debian\)\/* *$/\1/p; s/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*debian\)\/* .*/\2/p' \
    /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | grep -v security | head -n1)
mirror=${mirror:-http://deb.debian.org/debian}
mkdir -p "$(dirname "$root")"
new=$(mktemp -d "$root.new.XXXXXX")
chmod 755 "$new"
start=$(date +%s)
echo "sid_root: making $root from $mirror (once)" >&2
mmdebstrap --quiet --variant=apt --include="$(echo "$packages" | tr ' ' ,)" --aptopt="$valid" \
    sid "$new" "$mirror" >&2
echo "$packages" >"$new/$marker"
mv "$new" "$root"
echo "sid_root: $root made in $(($(date +%s) - start)) s, $(du -sm "$root" | cut -f1) MB" >&2
