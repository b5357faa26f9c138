#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs PROGRAM inside the Debian unstable root of tests/python/sid_root.sh:
#     VT_SID_ROOT=ROOT VT_ROOT_BINDS=DIR:DIR... tests/python/in_root.sh PROGRAM [ARG...]
# in a mount namespace of its own (the machine's mounts are left as they
# are), chrooted, in the same working directory, with /proc, /sys, /dev and
# each DIR (the source, the build, the temporary folder) bound at the same
# paths, so that the tracer, stand-ins and tests built here load there.
# Already inside (a program of the root running this): runs PROGRAM.
set -eu
[ -f /etc/vramtrace-root ] && exec "$@"
exec unshare --mount --propagation private sh -euc '
root=$VT_SID_ROOT
IFS=:
for dir in /proc /sys /dev $VT_ROOT_BINDS; do
    mkdir -p "$root$dir"
    mount --rbind "$dir" "$root$dir"
done
exec chroot "$root" env -C "$PWD" "$@"' in_root "$@"
