# SPDX-License-Identifier: MIT
"""The pip route (tools/wheel.sh, pyproject.toml): the wheel built and
repaired, `auditwheel show` naming its manylinux tag, then installed by an
unprivileged user into a fresh venv on a machine whose libunwind, libdw and
libelf are hidden (a mount namespace), and from that venv `vramtrace run`,
LD_PRELOAD=$(vramtrace lib) and `pytest --vramtrace` over the stand-ins,
each with the exact leak. Needs PyPI (build isolation, auditwheel, pytest)
and root (the mount namespace, the switch to nobody): skipped without."""
import glob
import json
import os
import re
import shutil
import subprocess
import urllib.request

import harness as H

# tests/programs/ctypes_leak.py: CTYPES_LEAK_BYTES + CTYPES_GIL_LEAK_BYTES
CTYPES_LEAKED = 2500009 + 2500019
PYTEST_LEAK = 3000017
HIDDEN = ("libunwind*.so*", "libdw*.so*", "libelf*.so*")

PYTEST_FILE = '''import ctypes, os

def test_leaks():
    lib = ctypes.CDLL("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
    ptr = ctypes.c_void_p()
    assert lib.cudaMalloc(ctypes.byref(ptr), ctypes.c_size_t(%d)) == 0

def test_clean():
    pass
''' % PYTEST_LEAK

# Run as nobody inside the mount namespace: a fresh venv, the wheel and
# pytest into it, then the three ways in.
INNER = r'''set -eu
cd "$WORK"
python3 -c 'import ctypes; ctypes.CDLL("libunwind.so.8")' 2>/dev/null && exit 90
python3 -c 'import ctypes; ctypes.CDLL("libdw.so.1")' 2>/dev/null && exit 91
python3 -m venv venv
venv/bin/pip install -q "$WHEEL" pytest
export LD_LIBRARY_PATH="$STANDIN"
venv/bin/vramtrace run -o run.vtr -- venv/bin/python ctypes_leak.py 2>run.err
venv/bin/vramtrace report --json run.vtr >run.json
lib=$(venv/bin/vramtrace lib)
echo "$lib" >lib.path
venv/bin/python -m vramtrace lib >lib-module.path
LD_PRELOAD="$lib" VRAMTRACE_OUTPUT=preload.vtr venv/bin/python ctypes_leak.py
venv/bin/vramtrace report --json preload.vtr >preload.json
venv/bin/python -c 'import pytest_vramtrace as p; print(p.human_size(%d))' >human.txt
status=0
venv/bin/python -m pytest -q -p no:cacheprovider --vramtrace test_sample.py >pytest.out 2>&1 ||
    status=$?
echo "$status" >pytest.status
''' % PYTEST_LEAK


def case_lib_command():
    """`vramtrace lib` prints the library run preloads (the build tree's:
    beside the CLI), which LD_PRELOAD takes as it is; an argument is a
    usage error."""
    r = H._run([H.vramtrace_exe(), "lib"], H.base_env(), H.tmpdir())
    H.expect_eq("vramtrace lib: " + r.stderr, (r.status, r.stdout),
                (0, os.path.realpath(H.vramtrace_lib()) + "\n"))
    r = H._run([H.vramtrace_exe(), "lib", "extra"], H.base_env(), H.tmpdir())
    H.expect_eq("vramtrace lib extra: " + r.stdout, (r.status, r.stderr),
                (2, "vramtrace lib: unexpected argument 'extra' (see vramtrace lib --help)\n"))


def pypi_reachable():
    try:
        urllib.request.urlopen("https://pypi.org/simple/pip/", timeout=10).close()
        return True
    except OSError:
        return False


def build_wheel():
    """tools/wheel.sh into the build tree (kept between runs: incremental)."""
    work = os.path.join(os.path.dirname(H.vramtrace_exe()), "wheel-build")
    dist = os.path.join(work, "dist")
    shutil.rmtree(dist, ignore_errors=True)
    r = subprocess.run([os.path.join(H.source_root(), "tools", "wheel.sh"), work, dist],
                       capture_output=True, text=True, timeout=900)
    H.expect_eq("tools/wheel.sh: " + r.stderr[-3000:], r.returncode, 0)
    wheel = r.stdout.strip().splitlines()[-1]
    tag = re.search(r'consistent with\s+the following platform tag:\s+"([^"]+)"', r.stderr)
    H.expect(tag is not None, "auditwheel show names no tag: " + r.stderr[-2000:])
    H.expect(re.fullmatch(r"manylinux_2_\d+_x86_64", tag.group(1)) is not None, tag.group(1))
    H.expect_eq("the wheel's name", os.path.basename(wheel),
                "vramtrace-0.1.0-py3-none-%s.whl" % tag.group(1))
    return wheel


def hidden_libraries():
    """The real files of the system's libunwind, libdw and libelf."""
    found = set()
    for pattern in HIDDEN:
        for d in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"):
            found.update(os.path.realpath(p) for p in glob.glob(os.path.join(d, pattern)))
    return sorted(p for p in found if os.path.isfile(p))


def leaked(path):
    with open(path) as f:
        return H.summary(json.load(f))["leaked_bytes"]


def case_install():
    """Wheel to report as an unprivileged user without the -dev packages:
    each way in finds the exact leak."""
    if os.geteuid() != 0:
        raise H.Skip("needs root (a mount namespace that hides libunwind and libdw, then nobody)")
    if not pypi_reachable():
        raise H.Skip("PyPI is unreachable: the wheel's build and pytest come from it")
    wheel = build_wheel()
    work = H.tmpdir()
    os.chmod(work, 0o777)
    shutil.copy(wheel, work)
    shutil.copy(H.program_source("ctypes_leak.py"), work)
    with open(os.path.join(work, "test_sample.py"), "w") as f:
        f.write(PYTEST_FILE)
    with open(os.path.join(work, "inner.sh"), "w") as f:
        f.write(INNER)
    empty = os.path.join(work, "empty")
    open(empty, "w").close()
    hide = "".join("mount --bind %s %s && " % (empty, p) for p in hidden_libraries())
    H.expect(hide != "", "no libunwind, libdw nor libelf found to hide")
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "LD_LIBRARY_PATH")}
    env.update({"WORK": work, "HOME": work, "PIP_NO_CACHE_DIR": "1", "STANDIN": H.standin_dir(),
                "WHEEL": os.path.join(work, os.path.basename(wheel)), "VRAMTRACE_QUIET": "1",
                "STANDIN_GPU_REGISTRY": os.path.join(work, "standin-gpus.registry"),
                "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"})
    r = subprocess.run(["unshare", "-m", "sh", "-c",
                        hide + "exec setpriv --reuid=65534 --regid=65534 --clear-groups "
                        "bash inner.sh"], cwd=work, env=env, capture_output=True, text=True,
                       timeout=600)
    H.expect(r.returncode not in (90, 91), "the system's libunwind or libdw still loads")
    H.expect_eq("as nobody: " + (r.stdout + r.stderr)[-3000:], r.returncode, 0)
    lib = open(os.path.join(work, "lib.path")).read().strip()
    H.expect_eq("python -m vramtrace lib", open(os.path.join(work, "lib-module.path")).read(),
                lib + "\n")
    H.expect(lib.startswith(os.path.join(work, "venv", "lib")) and
             lib.endswith("/site-packages/vramtrace.bin/libvramtrace.so"), lib)
    H.expect_eq("vramtrace run: leaked bytes", leaked(os.path.join(work, "run.json")),
                CTYPES_LEAKED)
    H.expect_eq("LD_PRELOAD=$(vramtrace lib): leaked bytes",
                leaked(os.path.join(work, "preload.json")), CTYPES_LEAKED)
    out = open(os.path.join(work, "pytest.out")).read()
    human = open(os.path.join(work, "human.txt")).read().strip()
    H.expect_eq("pytest --vramtrace status: " + out, open(os.path.join(work, "pytest.status"))
                .read().strip(), "0")
    H.expect("vramtrace: CUDA memory each test left live" in out, out)
    H.expect("Leak of %d bytes " % PYTEST_LEAK in out, out)
    rows = [l.split() for l in out.splitlines() if l.rstrip().endswith("::test_leaks")]
    H.expect_eq("the table's row of test_leaks", rows,
                [human.split() + ["test_sample.py::test_leaks"]])


if __name__ == "__main__":
    H.main(globals())
