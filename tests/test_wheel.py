# SPDX-License-Identifier: MIT
"""The pip route (tools/wheel.sh, pyproject.toml): the wheel built and
repaired, `auditwheel show` naming its manylinux tag, then installed by an
unprivileged user into a fresh venv on a machine whose libunwind, libdw and
libelf are hidden (a mount namespace), and from that venv `vramtrace run`,
LD_PRELOAD=$(vramtrace lib) and `pytest --vramtrace` over the stand-ins,
each with the exact leak. Needs PyPI (build isolation, auditwheel, pytest)
and root (the mount namespace, the switch to nobody): skipped without.
The aarch64 wheel the same way in the aarch64 lane (case install_aarch64),
and the release recipe checked as far as no container goes (case recipe)."""
import fcntl
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import urllib.request
import zipfile

import harness as H

# tests/programs/ctypes_leak.py: CTYPES_LEAK_BYTES + CTYPES_GIL_LEAK_BYTES
CTYPES_LEAKED = 2500009 + 2500019
PYTEST_LEAK = 3000017
HIDDEN = ("libunwind*.so*", "libdw*.so*", "libelf*.so*")
EM_AARCH64 = 183

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


# What the wheel is built from: a wheel built from the same files is reused.
WHEEL_SOURCES = ("meson.build", "meson.options", "pyproject.toml", "README.md", "include", "python",
                 "src", "tools")


def sources_stamp(arch):
    h = hashlib.sha256(arch.encode())
    for top in WHEEL_SOURCES:
        for d, _, files in sorted(os.walk(os.path.join(H.source_root(), top))):
            for f in sorted(files):
                st = os.stat(os.path.join(d, f))
                h.update(("%s/%s %d %d\n" % (d, f, st.st_mtime_ns, st.st_size)).encode())
        if os.path.isfile(os.path.join(H.source_root(), top)):
            st = os.stat(os.path.join(H.source_root(), top))
            h.update(("%s %d %d\n" % (top, st.st_mtime_ns, st.st_size)).encode())
    return h.hexdigest()


def build_wheel(arch="x86_64"):
    """tools/wheel.sh (ARCH=arch) into the build tree, once for the cases
    that run at the same time (a lock) and again only when a source changed;
    the repaired wheel and the one pip built (WORK/raw)."""
    work = os.path.join(os.path.dirname(H.vramtrace_exe()), "wheel-build")
    dist = os.path.join(work, "dist")
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = os.path.join(work, "built-from")
        if not (os.path.isfile(stamp) and open(stamp).read() == sources_stamp(arch)):
            wheel_sh(arch, work, dist)
            with open(stamp, "w") as f:
                f.write(sources_stamp(arch))
    wheel = glob.glob(os.path.join(dist, "vramtrace-0.1.0-py3-none-manylinux_*.whl"))
    built = glob.glob(os.path.join(work, "raw", "vramtrace-0.1.0-cp3*.whl"))
    H.expect_eq("the wheels built", (len(wheel), len(built)), (1, 1))
    return wheel[0], built[0]


def wheel_sh(arch, work, dist):
    """tools/wheel.sh: `auditwheel show` names an ARCH manylinux tag, the
    wheel's name carries it."""
    shutil.rmtree(dist, ignore_errors=True)
    r = subprocess.run([os.path.join(H.source_root(), "tools", "wheel.sh"), work, dist],
                       env=dict(os.environ, ARCH=arch), capture_output=True, text=True,
                       timeout=900)
    H.expect_eq("tools/wheel.sh: " + r.stderr[-3000:], r.returncode, 0)
    wheel = r.stdout.strip().splitlines()[-1]
    tag = re.search(r'consistent with\s+the following platform tag:\s+"([^"]+)"', r.stderr)
    H.expect(tag is not None, "auditwheel show names no tag: " + r.stderr[-2000:])
    H.expect(re.fullmatch(r"manylinux_2_\d+_" + arch, tag.group(1)) is not None, tag.group(1))
    H.expect_eq("the wheel's name", os.path.basename(wheel),
                "vramtrace-0.1.0-py3-none-%s.whl" % tag.group(1))


def hidden_libraries(dirs=("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64",
                           "/usr/lib")):
    """The real files of the system's libunwind, libdw and libelf."""
    found = set()
    for pattern in HIDDEN:
        for d in dirs:
            found.update(os.path.realpath(p) for p in glob.glob(os.path.join(d, pattern)))
    return sorted(p for p in found if os.path.isfile(p))


def leaked(path):
    with open(path) as f:
        return H.summary(json.load(f))["leaked_bytes"]


def write_work(work, wheel, scripts):
    """The wheel, the programs and the scripts in WORK."""
    shutil.copy(wheel, work)
    shutil.copy(H.program_source("ctypes_leak.py"), work)
    for name, text in dict(scripts, **{"test_sample.py": PYTEST_FILE, "empty": ""}).items():
        with open(os.path.join(work, name), "w") as f:
            f.write(text)


def expect_three_ways(work):
    """`vramtrace run`, LD_PRELOAD=$(vramtrace lib) and `pytest --vramtrace`
    (the files inner scripts leave in WORK): the exact leak each."""
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


def case_install():
    """Wheel to report as an unprivileged user without the -dev packages:
    each way in finds the exact leak."""
    if os.geteuid() != 0:
        raise H.Skip("needs root (a mount namespace that hides libunwind and libdw, then nobody)")
    if not pypi_reachable():
        raise H.Skip("PyPI is unreachable: the wheel's build and pytest come from it")
    wheel = build_wheel()[0]
    work = H.tmpdir()
    os.chmod(work, 0o777)
    write_work(work, wheel, {"inner.sh": INNER})
    empty = os.path.join(work, "empty")
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
    expect_three_ways(work)


# The kernel runs aarch64 programs with qemu-aarch64-static (binfmt_misc's
# rule for arm64 ELF executables; F: qemu opened now, whatever mounts follow).
BINFMT_AARCH64 = (r":vt-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00"
                  r"\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe"
                  r"\xff\xff\xff:/usr/bin/qemu-aarch64-static:F")

# In a user and mount namespace of its own: a binfmt_misc of its own (Linux
# 6.7 and later), the arm64 libunwind, libdw and libelf hidden.
OUTER_AARCH64 = r'''set -eu
mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || exit 92
printf '%s' "$BINFMT" >/proc/sys/fs/binfmt_misc/register || exit 92
for f in $HIDE; do mount --bind "$WORK/empty" "$f"; done
exec bash inner.sh
'''

# The wheel and pytest unpacked for the arm64 root's Python (no pip there),
# then the wheel's `vramtrace` command and pytest run by that Python, as on
# an aarch64 machine.
INNER_AARCH64 = r'''set -eu
cd "$WORK"
"$PY" -c 'import ctypes; ctypes.CDLL("libunwind.so.8")' 2>/dev/null && exit 90
"$PY" -c 'import ctypes; ctypes.CDLL("libdw.so.1")' 2>/dev/null && exit 91
version=$("$PY" -c 'import sys; print("%%d.%%d" %% sys.version_info[:2])')
"$PIP" install -q --target site --platform "$PLATFORM" --python-version "$version" \
    --only-binary=:all: "$WHEEL" pytest
export PYTHONPATH="$WORK/site" LD_LIBRARY_PATH="$STANDIN"
vt() { "$PY" site/bin/vramtrace "$@"; }
vt run -o run.vtr -- "$PY" ctypes_leak.py 2>run.err
vt report --json run.vtr >run.json
vt lib >lib.path
LD_PRELOAD="$(cat lib.path)" VRAMTRACE_OUTPUT=preload.vtr "$PY" ctypes_leak.py
vt report --json preload.vtr >preload.json
"$PY" -c 'import pytest_vramtrace as p; print(p.human_size(%d))' >human.txt
status=0
"$PY" -m pytest -q -p no:cacheprovider --vramtrace test_sample.py >pytest.out 2>&1 || status=$?
echo "$status" >pytest.status
''' % PYTEST_LEAK


def case_install_aarch64():
    """The aarch64 wheel (ARCH=aarch64 tools/wheel.sh: cross-built, the arm64
    libunwind, libdw and libelf inside) and pytest unpacked with pip's
    --target for the arm64 root's Python, which has no pip; with the arm64
    libunwind, libdw and libelf hidden, the wheel's `vramtrace run`,
    LD_PRELOAD=$(vramtrace lib) and `pytest --vramtrace` over the aarch64
    stand-ins find the exact leak. Run by qemu-user through a binfmt_misc of the test's own, so that
    the command execs the CLI and the CLI the program as on an aarch64
    machine. The aarch64 lane's (tests/aarch64/lane.sh); as root of a user
    namespace, not as nobody (case_install shows the unprivileged install)."""
    root = os.environ.get("VT_ARM64_ROOT")
    if not root or H.elf_machine(H.vramtrace_exe()) != EM_AARCH64:
        raise H.Skip("the aarch64 lane's case (tests/aarch64/lane.sh): this build is not aarch64")
    if not pypi_reachable():
        raise H.Skip("PyPI is unreachable: the wheel's build and pytest come from it")
    wheel = build_wheel("aarch64")[0]
    work = H.tmpdir()
    write_work(work, wheel, {"outer.sh": OUTER_AARCH64, "inner.sh": INNER_AARCH64})
    hide = hidden_libraries(("/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu",
                             root + "/usr/lib/aarch64-linux-gnu", root + "/lib/aarch64-linux-gnu"))
    H.expect(hide != [], "no arm64 libunwind, libdw nor libelf found to hide")
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "LD_LIBRARY_PATH")}
    env.update({"WORK": work, "STANDIN": H.standin_dir(), "HIDE": " ".join(hide),
                "WHEEL": os.path.join(work, os.path.basename(wheel)), "BINFMT": BINFMT_AARCH64,
                "PLATFORM": re.search(r"-(manylinux_\w+)\.whl$", wheel).group(1),
                "PIP": os.path.join(os.path.dirname(os.path.dirname(wheel)), "venv", "bin", "pip"),
                "PY": os.path.join(root, "usr", "bin", "python3"), "QEMU_LD_PREFIX": root,
                "STANDIN_GPU_REGISTRY": os.path.join(work, "standin-gpus.registry"),
                "VRAMTRACE_QUIET": "1", "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"})
    r = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "outer.sh"],
                       cwd=work, env=env, capture_output=True, text=True, timeout=600)
    if r.returncode == 92:
        raise H.Skip("no binfmt_misc of a user namespace's own (Linux 6.7 and later): "
                     "the wheel's command cannot exec its aarch64 CLI")
    H.expect(r.returncode not in (90, 91), "the arm64 libunwind or libdw still loads")
    H.expect_eq("the aarch64 wheel: " + (r.stdout + r.stderr)[-3000:], r.returncode, 0)
    lib = open(os.path.join(work, "lib.path")).read().strip()
    H.expect_eq("vramtrace lib", lib, os.path.join(work, "site", "vramtrace.bin",
                                                   "libvramtrace.so"))
    H.expect_eq("the wheel's library", H.elf_machine(lib), EM_AARCH64)
    expect_three_ways(work)


# glibc's headers before 2.33 turned these into __xstat and its kin: built
# on glibc 2.28 they need no newer symbol.
STAT_FAMILY = {"stat", "fstat", "lstat", "fstatat", "stat64", "fstat64", "lstat64", "fstatat64",
               "mknod", "mknodat"}
GLIBC_LIBDIRS = {EM_AARCH64: "/usr/lib/aarch64-linux-gnu", 62: "/lib/x86_64-linux-gnu"}


def dynamic_symbols(path):
    """(name, glibc version, defined) of each GLIBC-versioned dynamic symbol."""
    out = subprocess.run(["readelf", "-W", "--dyn-syms", path], capture_output=True, text=True,
                         check=True).stdout
    return [(m.group(2), tuple(int(n) for n in m.group(3).split(".")), m.group(1) != "UND")
            for m in re.finditer(r" (\S+) +(\S+?)@@?GLIBC_([\d.]+)", out)]


def case_glibc_2_28():
    """The CLI and the tracer call nothing glibc 2.28 lacks, the glibc of the
    release recipe's manylinux_2_28 images (pyproject.toml), which this
    machine cannot run: each function they take from glibc had a version
    there no newer than 2.28 (the stat family aside: older headers rename
    it). sigabbrev_np (2.32) was one."""
    libdir = GLIBC_LIBDIRS.get(H.elf_machine(H.vramtrace_exe()))
    if not libdir:
        raise H.Skip("no glibc known for this build's machine")
    offered = {}
    for lib in ["libc.so.6", "libm.so.6"] + [os.path.basename(p) for p in
                                             glob.glob(os.path.join(libdir, "ld-linux*.so.*"))]:
        for name, version, defined in dynamic_symbols(os.path.join(libdir, lib)):
            if defined:
                offered[name] = min(version, offered.get(name, version))
    too_new = sorted("%s: %s@GLIBC_%s" % (os.path.basename(binary), name,
                                          ".".join(map(str, version)))
                     for binary in (H.vramtrace_exe(), H.vramtrace_lib())
                     for name, version, defined in dynamic_symbols(binary)
                     if not defined and name not in STAT_FAMILY and
                     offered.get(name, version) > (2, 28))
    H.expect_eq("functions glibc 2.28 lacks", too_new, [])


# The cibuildwheel the recipe was checked with.
CIBUILDWHEEL = "cibuildwheel==4.3.5"
RECIPE_IDENTIFIERS = ["cp312-manylinux_x86_64", "cp312-manylinux_aarch64"]


def cibuildwheel():
    """cibuildwheel in a venv of the build tree (made once)."""
    venv = os.path.join(os.path.dirname(H.vramtrace_exe()), "cibuildwheel-venv")
    made = os.path.join(venv, "made-from")
    if not (os.path.isfile(made) and open(made).read() == CIBUILDWHEEL):
        for cmd in ([sys.executable, "-m", "venv", "--clear", venv],
                    [os.path.join(venv, "bin", "pip"), "install", "-q", CIBUILDWHEEL]):
            r = subprocess.run(cmd, capture_output=True, text=True)
            H.expect_eq(" ".join(cmd) + ": " + r.stderr[-2000:], r.returncode, 0)
        with open(made, "w") as f:
            f.write(CIBUILDWHEEL)
    return os.path.join(venv, "bin", "cibuildwheel")


def recipe_command(recipe, key, **fields):
    """A command of the recipe with cibuildwheel's placeholders filled in."""
    command = recipe[key]
    for name, value in fields.items():
        command = command.replace("{%s}" % name, shlex.quote(value))
    return command


def case_recipe():
    """The release recipe ([tool.cibuildwheel] in pyproject.toml) as far as
    a machine without a container engine goes: cibuildwheel reads it (an
    option it does not know fails) and selects exactly one build for each
    of x86_64 and aarch64; its start names the manylinux_2_28 images (then
    stops: no engine); the recipe's own repair-wheel-command turns the wheel
    pip built (tools/wheel.sh's WORK/raw) into the repaired wheel
    tools/wheel.sh makes, and its test-command passes in a fresh venv with
    that wheel and test-requires. Not run here: before-all (dnf in the
    AlmaLinux 8 of manylinux_2_28 images: no image, no container engine,
    no AlmaLinux or EPEL mirror reachable) and the build inside the image."""
    if not pypi_reachable():
        raise H.Skip("PyPI is unreachable: cibuildwheel and the wheel's build come from it")
    import tomllib  # Python 3.11
    src = H.source_root()
    with open(os.path.join(src, "pyproject.toml"), "rb") as f:
        config = tomllib.load(f)["tool"]["cibuildwheel"]
    recipe = dict(config, **config["linux"])
    cibw = cibuildwheel()
    work = H.tmpdir()
    env = dict(os.environ, DOCKER_HOST="unix://" + os.path.join(work, "no-engine.sock"))
    r = subprocess.run([cibw, "--print-build-identifiers", "--platform", "linux", "--archs",
                        "x86_64,aarch64", src], env=env, capture_output=True, text=True)
    H.expect_eq("cibuildwheel's builds: " + r.stderr[-2000:], (r.returncode, r.stdout.split()),
                (0, RECIPE_IDENTIFIERS))
    r = subprocess.run([cibw, "--only", RECIPE_IDENTIFIERS[0], "--output-dir", work, "."],
                       cwd=src, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=120)
    images = re.findall(r"^ +(x86_64|aarch64): (quay\.io/pypa/manylinux\w+)@", r.stdout, re.M)
    H.expect_eq("the recipe's images: " + r.stdout[-3000:], images,
                [("x86_64", "quay.io/pypa/manylinux_2_28_x86_64"),
                 ("aarch64", "quay.io/pypa/manylinux_2_28_aarch64")])
    H.expect("Starting container image quay.io/pypa/manylinux_2_28_x86_64@" in r.stdout and
             r.returncode != 0, "cibuildwheel without an engine: %d %s" % (r.returncode,
                                                                        r.stdout[-2000:]))

    wheel, built = build_wheel()
    raw = os.path.join(work, "raw")
    os.mkdir(raw)
    shutil.copy(built, raw)
    venv_bin = os.path.join(os.path.dirname(os.path.dirname(wheel)), "venv", "bin")
    tools = dict(os.environ, PATH=venv_bin + ":/usr/bin:/bin")
    repair = recipe_command(recipe, "repair-wheel-command",
                            wheel=os.path.join(raw, os.path.basename(built)),
                            dest_dir=os.path.join(work, "repaired"))
    r = subprocess.run(["sh", "-c", repair], env=tools, capture_output=True, text=True)
    H.expect_eq("repair-wheel-command: " + r.stderr[-3000:], r.returncode, 0)
    repaired = os.listdir(os.path.join(work, "repaired"))
    H.expect_eq("the recipe's wheel", repaired, [os.path.basename(wheel)])
    with zipfile.ZipFile(wheel) as a, zipfile.ZipFile(os.path.join(work, "repaired",
                                                                   repaired[0])) as b:
        H.expect_eq("the recipe's wheel against tools/wheel.sh's",
                    sorted(re.sub(r"-[0-9a-f]{8}\.", "-HASH.", n) for n in b.namelist()),
                    sorted(re.sub(r"-[0-9a-f]{8}\.", "-HASH.", n) for n in a.namelist()))

    venv = os.path.join(work, "venv")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    r = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q",
                        os.path.join(work, "repaired", repaired[0])] + recipe["test-requires"],
                       capture_output=True, text=True)
    H.expect_eq("pip install the wheel and test-requires: " + r.stderr[-2000:], r.returncode, 0)
    test = recipe_command(recipe, "test-command", project=src, package=src)
    run_dir = os.path.join(work, "test")
    os.mkdir(run_dir)
    r = subprocess.run(["sh", "-c", test], cwd=run_dir, capture_output=True, text=True,
                       env=dict(os.environ, PATH=os.path.join(venv, "bin") + ":/usr/bin:/bin"))
    H.expect_eq("test-command: " + r.stderr[-2000:], r.returncode, 0)
    version = subprocess.run([H.vramtrace_exe(), "--version"], capture_output=True, text=True)
    lib = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "vramtrace.bin",
                                 "libvramtrace.so"))
    H.expect_eq("test-command's output", r.stdout, lib[0] + "\n" + version.stdout)


if __name__ == "__main__":
    H.main(globals())
