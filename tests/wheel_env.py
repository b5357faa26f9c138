#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A venv made from pinned wheels, for the tests that run real frameworks
(tests/torch_env.py, tests/jax_env.py) over the stand-ins.

Wheels and venvs live in a cache outside the clone (cache_dir(): VT_TEST_CACHE,
else /var/cache/vramtrace/frameworks where it can be written, else the build
folder), so that a CI run on a fresh clone neither downloads 3 GB nor unpacks
them again: the wheels in CACHE/NAME-wheels, each venv in
CACHE/NAME-venv-KEY, KEY naming its pins and Python. Once the wheels are all
there nothing is downloaded again and a venv is made offline. Without them and
without the network, the tests that need them skip with one line (the failure
is remembered in the build folder for ten minutes, so that a test run tries
once). Made once under a lock: the tests, and CI runs, that run in parallel
wait for the first.
"""
import fcntl
import glob
import hashlib
import os
import shutil
import subprocess
import time

RETRY_AFTER = 600  # seconds a failure to get the wheels is believed
STALE_AFTER = 86400  # seconds after which a venv of other pins is removed


class Unavailable(Exception):
    """The framework cannot be had here (one line saying why)."""


def wheel_file(wheels_dir, pin):
    name, version = pin.split("==")
    stem = name.replace("-", "_").lower() + "-" + version + "-"
    return [f for f in glob.glob(os.path.join(wheels_dir, "*.whl"))
            if os.path.basename(f).lower().startswith(stem)]


def download(name, python, wheels, wheels_dir):
    """pip of PYTHON fetches the wheels for that Python's version."""
    missing = [p for p in wheels if not wheel_file(wheels_dir, p)]
    if not missing:
        return
    p = subprocess.run([python, "-m", "pip", "download", "--no-deps", "--quiet",
                        "--progress-bar", "off", "-d", wheels_dir] + missing,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        last = (p.stdout.strip().splitlines() or ["pip download failed"])[-1]
        raise Unavailable("%s: %d wheels not in %s and not downloadable (offline?): %s" %
                          (name, len(missing), wheels_dir, last.strip()))


def make_venv(name, python, wheels, venv, wheels_dir):
    files = [f for pin in wheels for f in wheel_file(wheels_dir, pin)[:1]]
    for cmd in ([python, "-m", "venv", "--clear", venv],
                [os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--quiet",
                 "--no-index", "--no-deps", "--progress-bar", "off"] + files):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if p.returncode != 0:
            raise Unavailable("%s: %s failed: %s" % (name, " ".join(cmd[:4]), p.stdout[-500:]))


def python_version(python):
    return subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"],
                          stdout=subprocess.PIPE, universal_newlines=True,
                          check=True).stdout.strip()


def cache_dir(build_dir):
    """Where wheels and venvs are kept: VT_TEST_CACHE, else the machine's
    cache where this user may write it, else BUILD_DIR."""
    wanted = os.environ.get("VT_TEST_CACHE")
    if wanted:
        os.makedirs(wanted, exist_ok=True)
        return wanted
    machine = "/var/cache/vramtrace/frameworks"
    try:
        os.makedirs(machine, exist_ok=True)
    except OSError:
        return build_dir
    return machine if os.access(machine, os.W_OK) else build_dir


def keyed_dir(cache, name, made_from):
    """CACHE/NAME-KEY, KEY a digest of what it is made from. Those of other
    keys (earlier pins) untouched for a day are removed: a run of an older
    commit may still be using one."""
    key = hashlib.sha256(made_from.encode()).hexdigest()[:12]
    for old in glob.glob(os.path.join(cache, name + "-*")):
        done = os.path.join(old, "made-from")
        if (not old.endswith("-" + key) and os.path.isfile(done) and
                time.time() - os.path.getmtime(done) > STALE_AFTER):
            shutil.rmtree(old, ignore_errors=True)
    return os.path.join(cache, name + "-" + key)


def venv_python(build_dir, name, python, wheels):
    """The venv's python, made first if need be; raises Unavailable."""
    cache = cache_dir(build_dir)
    wheels_dir = os.path.join(cache, name + "-wheels")
    wanted = "\n".join(wheels + [python_version(python)]) + "\n"
    os.makedirs(wheels_dir, exist_ok=True)
    failed = os.path.join(build_dir, name + "-venv.failed")
    with open(os.path.join(cache, name + "-venv.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        venv = keyed_dir(cache, name + "-venv", wanted)
        done = os.path.join(venv, "made-from")
        if not (os.path.isfile(done) and open(done).read() == wanted):
            if os.path.isfile(failed) and time.time() - os.path.getmtime(failed) < RETRY_AFTER:
                raise Unavailable(open(failed).read().strip())
            try:
                download(name, python, wheels, wheels_dir)
                make_venv(name, python, wheels, venv, wheels_dir)
            except Unavailable as e:
                with open(failed, "w") as f:
                    f.write(str(e) + "\n")
                raise
            with open(done, "w") as f:
                f.write(wanted)
    return os.path.join(venv, "bin", "python")
