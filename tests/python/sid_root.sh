#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes (once) the small Debian unstable root that tests/test_pyversions.py
# runs CPython 3.14 and 3.15 in: no other registry ships them for this
# system, and they need unstable's libc. With them the debug information of
# their -dbg packages: the interpreters are stripped. Cached outside the clone:
#     tests/python/sid_root.sh [ROOT]      (default: $VT_SID_ROOT, else
#                                           /var/cache/vramtrace/sid-root)
# A root made with another package list gets the missing packages added.
# Needs root and mmdebstrap (tools/install-deps.sh); the mirror is the one
# this machine's apt sources name. Exit status 0: the root is ready.
set -eu
# The interpreters and their headers (extensions are built in the root with
# its gcc), the tracer's libunwind and the CLI's libdw (the report is read
# there too, where the interpreter's own files are).
packages="python3.14 python3.14-dev python3.15 python3.15-dev gcc libc6-dev libunwind8 libdw1t64"
# The interpreters are stripped: the debug information of their -dbg
# packages (only /usr/lib/debug, not the debug builds) names their
# evaluation loop's frames for the report.
debug="python3.14-dbg python3.15-dbg"
marker=etc/vramtrace-root

# Puts the packages' /usr/lib/debug into the root DIR (its package lists
# read); mmdebstrap calls it as a hook: sid_root.sh --add-debug-information DIR.
add_debug_information() {
    chroot "$1" sh -c "cd /var/cache/apt/archives &&
        apt-get download -qq -o APT::Sandbox::User=root $debug"
    for deb in "$1"/var/cache/apt/archives/*-dbg_*.deb; do
        dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$1" --wildcards './usr/lib/debug/*'
        rm "$deb"
    done
}

if [ "${1:-}" = --add-debug-information ]; then
    add_debug_information "$2"
    exit 0
fi
root=${1:-${VT_SID_ROOT:-/var/cache/vramtrace/sid-root}}
wanted="$packages; debug information of $debug"
[ -f "$root/$marker" ] && [ "$(cat "$root/$marker")" = "$wanted" ] && exit 0
[ "$(id -u)" -eq 0 ] || { echo "sid_root: needs root (mount namespaces, chroot)" >&2; exit 1; }
# Unstable's Release file may be past its Valid-Until on a snapshot mirror.
valid='Acquire::Check-Valid-Until "false"'

if [ -f "$root/$marker" ]; then
    echo "sid_root: adding to $root: $wanted" >&2
    chroot "$root" apt-get -qq -o Acquire::Check-Valid-Until=false update
    DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq --no-install-recommends \
        $packages >/dev/null
    add_debug_information "$root"
    echo "$wanted" >"$root/$marker"
    exit 0
fi
[ ! -e "$root" ] || { echo "sid_root: $root exists but was not made here" >&2; exit 1; }
command -v mmdebstrap >/dev/null || { echo "sid_root: no mmdebstrap" >&2; exit 1; }
mirror=$(sed -n -e 's/^URIs: *\([^ ]*debian\)\/* *$/\1/p' \
    -e 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*debian\)\/* .*/\2/p' \
    /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | grep -v security | head -n1)
mirror=${mirror:-http://deb.debian.org/debian}
mkdir -p "$(dirname "$root")"
new=$(mktemp -d "$root.new.XXXXXX")
chmod 755 "$new"
start=$(date +%s)
echo "sid_root: making $root from $mirror (once)" >&2
mmdebstrap --quiet --variant=apt --include="$(echo "$packages" | tr ' ' ,)" --aptopt="$valid" \
    --customize-hook="\"$(realpath "$0")\" --add-debug-information \"\$1\"" \
    sid "$new" "$mirror" >&2
echo "$wanted" >"$new/$marker"
mv "$new" "$root"
echo "sid_root: $root made in $(($(date +%s) - start)) s, $(du -sm "$root" | cut -f1) MB" >&2
