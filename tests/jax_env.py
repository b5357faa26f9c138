#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The JAX the jax tests run over the stand-ins: a venv in the build folder.

    tests/jax_env.py BUILD_DIR     prints the venv's python (making it first)

The real wheels from the package index (jax 0.12 with its CUDA 13 plugin,
which are built for CPython 3.12: the venv is made by a python3.12, from
pyenv where there is one) with --no-deps; the plugin's CUDA driver, runtime
and cuBLAS are then the stand-ins (LD_LIBRARY_PATH). The wheels are kept in
BUILD_DIR/jax-wheels (tests/wheel_env.py).
"""
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wheel_env  # noqa: E402
from wheel_env import Unavailable  # noqa: E402,F401  (the jax tests catch it)

# name==version of every wheel: jax, its CUDA plugin and what its import needs
WHEELS = ["jax==0.12.0.1", "jaxlib==0.12.0.1", "jax-cuda13-plugin==0.12.0.1",
          "jax-cuda13-pjrt==0.12.0.1", "ml_dtypes==0.7.0", "numpy==2.5.5",
          "opt_einsum==3.4.0", "scipy==1.18.1"]


def python312():
    """A CPython 3.12 with venv and pip, or Unavailable."""
    candidates = [shutil.which("python3.12")]
    try:
        root = subprocess.run(["pyenv", "root"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              universal_newlines=True).stdout.strip()
        candidates += sorted(glob.glob(os.path.join(root, "versions", "3.12*", "bin",
                                                    "python3.12")), reverse=True)
    except OSError:
        pass
    for python in filter(None, candidates):
        if subprocess.run([python, "-c", "import venv, ensurepip"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            return python
    raise Unavailable("jax: no CPython 3.12 with venv and ensurepip (the jax 0.12 wheels need it)")


def venv_python(build_dir):
    """The venv's python, made first if need be; raises Unavailable."""
    return wheel_env.venv_python(build_dir, "jax", python312(), WHEELS)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: tests/jax_env.py BUILD_DIR")
    try:
        print(venv_python(os.path.abspath(sys.argv[1])))
    except Unavailable as e:
        sys.exit(str(e))
