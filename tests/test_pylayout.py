# SPDX-License-Identifier: MIT
"""The tracer's knowledge of CPython's insides against each installed
version's own headers and functions:
- tables: the built-in layouts (3.8-3.12) equal what offsetof computes from
  that version's internal headers (tests/python/layout_probe.c, compiled per
  version); for 3.13+ our _Py_DebugOffsets definition matches the header's
  field by field, and the layout derived from the live interpreter's
  offsets equals the headers' too;
- lines: the line-table decoder gives PyCode_Addr2Line's answer for every
  instruction of every code object in a set of standard-library modules."""
import ctypes  # noqa: F401  (used by the child interpreters' script)
import glob
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402
from test_pyversions import (interpreter, config, compile_c, python_source, runner,  # noqa: E402
                             MINORS, NEWER)


def installed():
    """[(minor, python)]: each pyenv version, 3.14t where built, 3.14 and
    3.15 in the unstable root where it is made."""
    found = []
    for tag in ["3.%d" % minor for minor in MINORS] + NEWER:
        try:
            found.append((int(tag[2:].rstrip("t")), interpreter(tag)))
        except H.Skip:
            pass
    H.expect(found, "no pyenv Python found")
    return found


def parse(text):
    fields = {}
    for line in text.splitlines():
        key, *values = line.split()
        fields[key] = values
    return fields


def probe(python):
    include, = config(python, "include")
    exe = os.path.join(H.tmpdir(), "probe")
    compile_c(["-I", include] + H.library_include_args() + [
               python_source("layout_probe.c"), "-o", exe], "the layout probe for " + python,
              python)
    return parse(subprocess.run(runner(python) + [exe], capture_output=True, text=True,
                                check=True).stdout)


def builtin(minor, python):
    libdir, ldlib = config(python, "LIBDIR", "LDLIBRARY")
    exe = os.path.join(H.env_path("PYTHON_TEST_DIR", "dir"), "layout_table")
    r = subprocess.run(runner(python) + [exe, str(minor), os.path.join(libdir, ldlib)],
                       capture_output=True, text=True)
    H.expect(r.returncode == 0, "layout_table 3.%d: %s" % (minor, r.stderr.strip()))
    return parse(r.stdout)


def case_tables():
    for minor, python in installed():
        headers, ours = probe(python), builtin(minor, python)
        for key, values in headers.items():
            if key.startswith("debug_offsets."):
                H.expect_eq("3.%d: our definition of _Py_DebugOffsets: %s" % (minor, key[14:]),
                            values[1], values[0])
            else:
                H.expect_eq("3.%d: %s" % (minor, key), ours.get(key), values)
        H.expect_eq("3.%d: fields" % minor, sorted(ours), sorted(k for k in headers
                                                                if not k.startswith("debug_")))


LINES_SCRIPT = r"""
import ctypes, sys, types, importlib
check = ctypes.CDLL(sys.argv[1]).vt_test_pyline
check.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_long, ctypes.c_int, ctypes.c_long]
addr2line = ctypes.pythonapi.PyCode_Addr2Line
addr2line.argtypes = [ctypes.py_object, ctypes.c_int]
minor = sys.version_info[1]
fmt = 0 if minor < 10 else 1 if minor == 10 else 2
def codes(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from codes(c)
count = 0
for name in sys.argv[2:]:
    mod = importlib.import_module(name)
    src = open(mod.__file__).read()
    for code in codes(compile(src, mod.__file__, "exec")):
        table = code.co_lnotab if minor < 10 else code.co_linetable
        for addr in range(-2, len(code.co_code), 2):
            want, got = addr2line(code, addr), check(fmt, table, len(table), code.co_firstlineno, addr)
            if want != got:
                print("MISMATCH %s %s offset %d: PyCode_Addr2Line %d, ours %d" % (
                    mod.__file__, code.co_qualname if minor >= 11 else code.co_name, addr, want, got))
                sys.exit(1)
            count += 1
print("checked", count)
"""

MODULES = ["asyncio.base_events", "json.decoder", "typing", "argparse", "dataclasses",
           "inspect", "threading", "email.message", "unittest.case", "pathlib"]


def case_lines():
    lib = os.path.join(H.env_path("PYTHON_TEST_DIR", "dir"), "libpyline_check.so")
    if not os.path.isfile(lib):
        lib = glob.glob(os.path.join(os.path.dirname(lib), "*pyline_check*.so"))[0]
    for minor, python in installed():
        r = subprocess.run([python, "-c", LINES_SCRIPT, lib] + MODULES, capture_output=True,
                           text=True)
        H.expect(r.returncode == 0, "3.%d: %s%s" % (minor, r.stdout[-2000:], r.stderr[-2000:]))
        checked = int(r.stdout.split()[-1])
        H.expect(checked > 20000, "3.%d: only %d offsets checked" % (minor, checked))


if __name__ == "__main__":
    H.main(globals())
