#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs "$@" in this mount namespace (made by `unshare -m`) with a /dev of its
# own that holds an empty nvidiactl beside the usual nodes: JAX uses CUDA
# only where /dev/nvidia0, /dev/nvidiactl or /dev/dxg exists (its
# hardware_utils.has_visible_nvidia_gpu), and the stand-in driver needs no
# device node. The machine's /dev is left as it is.
set -e
mount --make-rprivate /
dev=$(mktemp -d)
mount -t tmpfs -o mode=755 vt-standin-dev "$dev"
for node in null zero full random urandom tty; do
    if [ -e "/dev/$node" ]; then cp -a "/dev/$node" "$dev/"; fi
done
for dir in shm pts mqueue; do
    if [ -d "/dev/$dir" ]; then mkdir "$dev/$dir" && mount --rbind "/dev/$dir" "$dev/$dir"; fi
done
ln -s /proc/self/fd "$dev/fd"
for i in 0 1 2; do ln -s "/proc/self/fd/$i" "$dev/$(echo stdin stdout stderr | cut -d' ' -f$((i + 1)))"; done
: >"$dev/nvidiactl"
mount --move "$dev" /dev
exec "$@"
