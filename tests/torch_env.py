#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The PyTorch the torch tests run over the stand-ins: a venv in the build folder.

    tests/torch_env.py BUILD_DIR     prints the venv's python (making it first)

The real wheel from the package index (torch 2.15.0, built for CUDA 13.2) with
--no-deps, and only the NVIDIA libraries the CUDA 13.0 toolkit lacks; its CUDA
runtime, cuBLAS and driver are then the stand-ins (LD_LIBRARY_PATH), since no
nvidia-cuda-runtime wheel is installed. The wheels are kept in
BUILD_DIR/torch-wheels: once they are all there, nothing is downloaded again
and the venv is made offline. Without them and without the network, the
tests that need torch skip with one line (the failure is remembered for ten
minutes, so that a test run tries once). Made once under a lock: the tests
that run in parallel wait for the first.
"""
import fcntl
import glob
import os
import subprocess
import sys
import time

# name==version of every wheel: torch and what its import needs
WHEELS = ["torch==2.15.0", "nvidia-cusparselt-cu13==0.8.1", "nvidia-nvshmem-cu13==3.7.2",
          "nvidia-cufile==1.17.1.22", "nvidia-nccl-cu13==2.30.7", "filelock==4.3.2",
          "typing_extensions==4.16.0", "sympy==1.14.0", "mpmath==1.4.1", "networkx==3.6.1",
          "jinja2==3.1.6", "markupsafe==3.0.4", "fsspec==2026.9.0", "numpy==2.4.6"]


RETRY_AFTER = 600  # seconds a failure to get the wheels is believed


class Unavailable(Exception):
    """torch cannot be had here (one line saying why)."""


def wheel_file(wheels_dir, pin):
    name, version = pin.split("==")
    stem = name.replace("-", "_").lower() + "-" + version + "-"
    return [f for f in glob.glob(os.path.join(wheels_dir, "*.whl"))
            if os.path.basename(f).lower().startswith(stem)]


def download(wheels_dir):
    missing = [p for p in WHEELS if not wheel_file(wheels_dir, p)]
    if not missing:
        return
    p = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                        "--progress-bar", "off", "-d", wheels_dir] + missing,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        last = (p.stdout.strip().splitlines() or ["pip download failed"])[-1]
        raise Unavailable("torch: %d wheels not in %s and not downloadable (offline?): %s" %
                          (len(missing), wheels_dir, last.strip()))


def make_venv(venv, wheels_dir):
    files = [f for pin in WHEELS for f in wheel_file(wheels_dir, pin)[:1]]
    for cmd in ([sys.executable, "-m", "venv", "--clear", venv],
                [os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--quiet",
                 "--no-index", "--no-deps", "--progress-bar", "off"] + files):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if p.returncode != 0:
            raise Unavailable("torch: %s failed: %s" % (" ".join(cmd[:4]), p.stdout[-500:]))


def venv_python(build_dir):
    """The venv's python, made first if need be; raises Unavailable."""
    venv = os.path.join(build_dir, "torch-venv")
    wheels_dir = os.path.join(build_dir, "torch-wheels")
    done = os.path.join(venv, "made-from")
    wanted = "\n".join(WHEELS + [sys.version.split()[0]]) + "\n"
    os.makedirs(wheels_dir, exist_ok=True)
    failed = os.path.join(build_dir, "torch-venv.failed")
    with open(os.path.join(build_dir, "torch-venv.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (os.path.isfile(done) and open(done).read() == wanted):
            if os.path.isfile(failed) and time.time() - os.path.getmtime(failed) < RETRY_AFTER:
                raise Unavailable(open(failed).read().strip())
            try:
                download(wheels_dir)
                make_venv(venv, wheels_dir)
            except Unavailable as e:
                with open(failed, "w") as f:
                    f.write(str(e) + "\n")
                raise
            with open(done, "w") as f:
                f.write(wanted)
    return os.path.join(venv, "bin", "python")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: tests/torch_env.py BUILD_DIR")
    try:
        print(venv_python(os.path.abspath(sys.argv[1])))
    except Unavailable as e:
        sys.exit(str(e))
