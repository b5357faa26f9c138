"""tests/abi_check.c: vramtrace's own CUDA declarations (src/cuda_abi.h)
against the real toolkit headers, where the toolkit is installed."""
import os
import shlex
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402


def compile_check(extra):
    inc = os.environ.get("CUDA_INCLUDE_DIR", "/usr/local/cuda/include")
    if not os.path.isfile(os.path.join(inc, "cuda.h")):
        raise H.Skip("no CUDA toolkit headers at %s" % inc)
    cc = shlex.split(os.environ.get("VT_CC") or "cc")
    root = H.source_root()
    argv = cc + ["-std=gnu11", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-Wno-deprecated-declarations",
                 "-I", inc, "-I", os.path.join(root, "src"),
                 os.path.join(root, "tests", "abi_check.c")] + extra
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return argv, p


def case_abi_check():
    argv, p = compile_check([])
    H.expect(p.returncode == 0, "src/cuda_abi.h does not match the CUDA headers:\n%s\n%s" % (
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


if __name__ == "__main__":
    H.main(globals())
