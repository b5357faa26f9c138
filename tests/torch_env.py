#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The PyTorch the torch tests run over the stand-ins: a venv in the build folder.

    tests/torch_env.py BUILD_DIR [2.14]   prints the venv's python (making it first)

The real wheel from the package index (torch 2.15.0, built for CUDA 13.2) with
--no-deps, and only the NVIDIA libraries the CUDA 13.0 toolkit lacks; its CUDA
runtime, cuBLAS and driver are then the stand-ins (LD_LIBRARY_PATH), since no
nvidia-cuda-runtime wheel is installed. The wheels and the venv are kept in
the cache of tests/wheel_env.py (outside the clone where it can be).
"""
import fcntl
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wheel_env  # noqa: E402
from wheel_env import Unavailable  # noqa: E402,F401  (the torch tests catch it)

# name==version of every wheel: torch and what its import needs
COMMON = ["nvidia-cusparselt-cu13==0.8.1", "nvidia-cufile==1.17.1.22", "nvidia-nccl-cu13==2.30.7",
          "filelock==4.3.2", "typing_extensions==4.16.0", "sympy==1.14.0", "mpmath==1.4.1",
          "networkx==3.6.1", "jinja2==3.1.6", "markupsafe==3.0.4", "fsspec==2026.9.0",
          "numpy==2.4.6"]
WHEELS = ["torch==2.15.0", "nvidia-nvshmem-cu13==3.7.2"] + COMMON
# An older CUDA 13 release line (built for CUDA 13.0), for what the tracer
# reads per release (tests/test_torch_tensors.py): its own venv, torch214.
RELEASES = {"2.15": ("torch", WHEELS),
            "2.14": ("torch214", ["torch==2.14.1", "nvidia-nvshmem-cu13==3.4.5"] + COMMON)}


def venv_python(build_dir, release="2.15"):
    """The venv's python, made first if need be; raises Unavailable."""
    name, wheels = RELEASES[release]
    return wheel_env.venv_python(build_dir, name, sys.executable, wheels)


# The wheels' platforms, for a pip that installs for another Python.
PLATFORMS = ["manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_18_x86_64",
             "manylinux_2_17_x86_64", "manylinux2014_x86_64"]


def for_version(version):
    """pip's options that pick and install wheels for CPython VERSION ("3.14")."""
    return (["--python-version", version, "--only-binary=:all:"] +
            [a for p in PLATFORMS for a in ("--platform", p)])


def site_for(build_dir, version):
    """The same wheels built for CPython VERSION, unpacked by this machine's
    pip into a folder (made first if need be) for an interpreter without pip
    or venv (Debian unstable's in the root of tests/python/sid_root.sh) to
    import from PYTHONPATH: CACHE/torch<V>-site-KEY. The wheels: those for
    any Python in CACHE/torch-wheels, the others kept in (or downloaded to)
    CACHE/torch<V>-wheels (CACHE: wheel_env.cache_dir). Raises Unavailable."""
    tag = "cp" + version.replace(".", "")
    name = "torch" + version.replace(".", "")
    cache = wheel_env.cache_dir(build_dir)
    wheels_dir = os.path.join(cache, name + "-wheels")
    os.makedirs(wheels_dir, exist_ok=True)

    def found(pin):
        return [f for d in (wheels_dir, os.path.join(cache, "torch-wheels"))
                for f in wheel_env.wheel_file(d, pin)
                if "-%s-%s-" % (tag, tag) in f or "-py3-none-" in f]
    with open(os.path.join(cache, name + "-site.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        missing = [pin for pin in WHEELS if not found(pin)]
        if missing:
            pip = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                                  "--progress-bar", "off", "-d", wheels_dir] +
                                 for_version(version) + missing,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if pip.returncode != 0:
                raise Unavailable("%s: %d wheels for %s not in %s and not downloadable: %s" % (
                    name, len(missing), version, wheels_dir, pip.stdout.strip()[-300:]))
        files = "\n".join(sorted(found(pin)[0] for pin in WHEELS))
        site = wheel_env.keyed_dir(cache, name + "-site", files)
        done = os.path.join(site, "made-from")
        if os.path.isfile(done) and open(done).read() == files:
            return site
        shutil.rmtree(site, ignore_errors=True)
        pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index",
                              "--no-deps", "--target", site] + for_version(version) +
                             files.split("\n"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
        if pip.returncode != 0:
            raise Unavailable("%s: pip install --target failed: %s" % (name, pip.stdout[-500:]))
        with open(done, "w") as f:
            f.write(files)
    return site


def toolkit_libraries():
    """The folders outside the system's own of the NVIDIA libraries torch
    loads that no wheel here holds (cuDNN, cuSPARSE...: the machine's CUDA
    toolkit, found through ld.so.conf)."""
    out = subprocess.run(["ldconfig", "-p"], stdout=subprocess.PIPE, text=True).stdout
    return sorted({os.path.dirname(os.path.realpath(line.split(" => ")[-1]))
                   for line in out.splitlines() if " => /usr/local/" in line and
                   ("libcudnn" in line or "libcusparse" in line)})


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[2:3] and sys.argv[2] not in RELEASES:
        sys.exit("usage: tests/torch_env.py BUILD_DIR [%s]" % "|".join(RELEASES))
    try:
        print(venv_python(os.path.abspath(sys.argv[1]), *sys.argv[2:]))
    except Unavailable as e:
        sys.exit(str(e))
