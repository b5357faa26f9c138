# SPDX-License-Identifier: MIT
"""tests/abi_check.c: vramtrace's own CUDA declarations (src/reach/cuda_abi.h)
against the real toolkit headers, where the toolkit is installed;
tests/nvml_abi_check.c: its NVML declarations (src/reach/nvml_abi.h, which the
stand-in libnvidia-ml.so.1 implements) against the real nvml.h, found in the
toolkit, in VT_NVML_INCLUDE_DIR, or in the nvidia-nvml-dev wheel
(tools/install-deps.sh installs it where the toolkit lacks nvml.h);
tests/nvtx_abi_check.c: its NVTX injection declarations (src/reach/nvtx_abi.h)
against the toolkit's nvtx3 headers."""
import glob
import os
import shlex
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402


def nvml_include_dir():
    """Where nvml.h is: the toolkit's include directory, VT_NVML_INCLUDE_DIR,
    or the nvidia-nvml-dev wheel of any Python on PATH."""
    places = [os.environ.get("CUDA_INCLUDE_DIR", "/usr/local/cuda/include"),
              os.environ.get("VT_NVML_INCLUDE_DIR", "")]
    for python in ("python3", sys.executable):
        p = subprocess.run([python, "-c", "import sys; print('\\n'.join(sys.path))"],
                           stdout=subprocess.PIPE, universal_newlines=True)
        for d in p.stdout.split("\n"):
            places += glob.glob(os.path.join(d, "nvidia", "*", "include"))
    for inc in places:
        if inc and os.path.isfile(os.path.join(inc, "nvml.h")):
            return inc
    raise H.Skip("no nvml.h (CUDA toolkit, VT_NVML_INCLUDE_DIR or the nvidia-nvml-dev wheel)")


def compile_check(extra, source="abi_check.c", inc=None):
    if inc is None:
        inc = os.environ.get("CUDA_INCLUDE_DIR", "/usr/local/cuda/include")
        if not os.path.isfile(os.path.join(inc, "cuda.h")):
            raise H.Skip("no CUDA toolkit headers at %s" % inc)
    cc = shlex.split(os.environ.get("VT_CC") or "cc")
    root = H.source_root()
    argv = cc + ["-std=gnu11", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-Wno-deprecated-declarations",
                 "-I", inc] + H.library_include_args() + [
                 os.path.join(root, "tests", source)] + extra
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return argv, p


def case_abi_check():
    argv, p = compile_check([])
    H.expect(p.returncode == 0, "src/reach/cuda_abi.h does not match the CUDA headers:\n%s\n%s" % (
        " ".join(argv), p.stdout[-6000:]))


def case_abi_check_bites():
    """The same checks applied to deliberately wrong declarations must fail
    to compile, once per kind of check."""
    for what in ("FN", "STRUCT", "ENUM", "TYPE"):
        argv, p = compile_check(["-DVT_ABI_SELFTEST_" + what])
        H.expect(p.returncode != 0,
                 "abi_check.c accepted a wrong %s declaration (VT_ABI_SELFTEST_%s)" % (
                     what.lower(), what))
        H.expect("VT_ABI" in p.stdout, "VT_ABI_SELFTEST_%s failed for another reason:\n%s" % (
            what, p.stdout[-3000:]))


def case_nvml_abi_check():
    inc = nvml_include_dir()
    argv, p = compile_check([], "nvml_abi_check.c", inc)
    H.expect(p.returncode == 0, "src/reach/nvml_abi.h does not match %s/nvml.h:\n%s\n%s" % (
        inc, " ".join(argv), p.stdout[-6000:]))


def case_nvml_abi_check_bites():
    """Deliberately wrong NVML declarations must fail the same check."""
    inc = nvml_include_dir()
    for what in ("FN", "STRUCT", "ENUM"):
        argv, p = compile_check(["-DVT_ABI_SELFTEST_" + what], "nvml_abi_check.c", inc)
        H.expect(p.returncode != 0,
                 "nvml_abi_check.c accepted a wrong %s declaration" % what.lower())
        H.expect("VT_ABI" in p.stdout, "VT_ABI_SELFTEST_%s failed for another reason:\n%s" % (
            what, p.stdout[-3000:]))


def nvtx_include_dir():
    inc = os.environ.get("CUDA_INCLUDE_DIR", "/usr/local/cuda/include")
    if not os.path.isfile(os.path.join(inc, "nvtx3", "nvToolsExt.h")):
        raise H.Skip("no nvtx3 headers at %s" % inc)
    return inc


def case_nvtx_abi_check():
    inc = nvtx_include_dir()
    argv, p = compile_check([], "nvtx_abi_check.c", inc)
    H.expect(p.returncode == 0, "src/reach/nvtx_abi.h does not match %s/nvtx3:\n%s\n%s" % (
        inc, " ".join(argv), p.stdout[-6000:]))


def case_nvtx_abi_check_bites():
    """Deliberately wrong NVTX declarations must fail the same check."""
    inc = nvtx_include_dir()
    for what in ("FN", "STRUCT", "ENUM"):
        argv, p = compile_check(["-DVT_ABI_SELFTEST_" + what], "nvtx_abi_check.c", inc)
        H.expect(p.returncode != 0,
                 "nvtx_abi_check.c accepted a wrong %s declaration" % what.lower())
        H.expect("VT_ABI" in p.stdout, "VT_ABI_SELFTEST_%s failed for another reason:\n%s" % (
            what, p.stdout[-3000:]))


if __name__ == "__main__":
    H.main(globals())
