#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The PyTorch the torch tests run over the stand-ins: a venv in the build folder.

    tests/torch_env.py BUILD_DIR [2.14]   prints the venv's python (making it first)

The real wheel from the package index (torch 2.15.0, built for CUDA 13.2) with
--no-deps, and only the NVIDIA libraries the CUDA 13.0 toolkit lacks; its CUDA
runtime, cuBLAS and driver are then the stand-ins (LD_LIBRARY_PATH), since no
nvidia-cuda-runtime wheel is installed. The wheels are kept in
BUILD_DIR/torch-wheels (tests/wheel_env.py).
"""
import os
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


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[2:3] and sys.argv[2] not in RELEASES:
        sys.exit("usage: tests/torch_env.py BUILD_DIR [%s]" % "|".join(RELEASES))
    try:
        print(venv_python(os.path.abspath(sys.argv[1]), *sys.argv[2:]))
    except Unavailable as e:
        sys.exit(str(e))
