# SPDX-License-Identifier: MIT
"""Shared helpers for vramtrace's ground-truth tests (stdlib only, Python 3.9+).

A test file defines functions named case_<name> and ends with
`harness.main(globals())`; meson runs `python3 tests/test_<area>.py <name>`.
Exit status: 0 pass, 1 fail, 77 skip.

Environment (set by tests/meson.build):
  VRAMTRACE_EXE  the vramtrace CLI        VRAMTRACE_LIB  libvramtrace.so
  STANDIN_DIR    the stand-in libcuda.so.1 / libcudart.so.13
  PROGRAMS_DIR   the built test programs  SOURCE_ROOT    the source tree
Set VT_TEST_KEEP=1 to keep every temporary directory (failures keep theirs).
Set VRAMTRACE_TEST_REAL_CUDA=1 to run the programs over the machine's CUDA
(a GPU's driver, the toolkit's runtime on LD_LIBRARY_PATH) instead of
putting the stand-ins first: for the programs that do not link the
stand-ins themselves, the nvcc-built samples (tests/test_samples.py,
tests/gpu/README.md).
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import traceback

# A guard against hangs, per command: a sanitized build on a machine busy
# with other work runs some (pip, a venv) for over a minute.
TIMEOUT = 300
FRAME_KEYS = {"function", "file", "line", "module"}
# Extra per-frame keys the CLI may add (and nothing else): the return
# address, the offset in its module, whether the frame is an inlined one.
FRAME_EXTRA_KEYS = {"address", "offset", "inlined", "runtime", "framework"}
SUMMARY_KEYS = ("allocations", "frees", "peak_bytes", "leaked_bytes", "leaked_allocations",
                "host_leaked_bytes", "failed_allocations", "invalid_frees")


class Failure(Exception):
    """A test assertion failed; the message says expected vs actual."""


class Skip(Exception):
    """The test cannot run here (exit 77)."""


def fail(msg):
    raise Failure(msg)


def expect_eq(what, actual, expected):
    if actual != expected:
        fail("%s: expected %r, got %r" % (what, expected, actual))


def expect_in(what, actual, allowed):
    if actual not in allowed:
        fail("%s: expected one of %r, got %r" % (what, list(allowed), actual))


def expect(cond, msg):
    if not cond:
        fail(msg)


# ---- environment ----

def env_path(name, kind="file"):
    val = os.environ.get(name)
    if not val:
        fail("%s is not set: run the tests through meson (meson test -C BUILD)" % name)
    if kind == "file" and not os.path.isfile(val):
        fail("%s=%s does not exist: is it built? (ninja -C BUILD)" % (name, val))
    if kind == "dir" and not os.path.isdir(val):
        fail("%s=%s is not a directory" % (name, val))
    return val


def vramtrace_exe():
    return env_path("VRAMTRACE_EXE")


def vramtrace_lib():
    return env_path("VRAMTRACE_LIB")


def standin_dir():
    return env_path("STANDIN_DIR", "dir")


def source_root():
    """SOURCE_ROOT, or the tree this file is in."""
    if os.environ.get("SOURCE_ROOT"):
        return env_path("SOURCE_ROOT", "dir")
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def library_include_args():
    """-I options for the library's headers: src/ and each of its folders."""
    src = os.path.join(source_root(), "src")
    dirs = [src] + sorted(os.path.join(src, d) for d in os.listdir(src)
                          if os.path.isdir(os.path.join(src, d)))
    return [a for d in dirs for a in ("-I", d)]


def program(name):
    path = os.path.join(env_path("PROGRAMS_DIR", "dir"), name)
    if not os.path.isfile(path):
        fail("test program %s is not built" % path)
    return path


def program_source(name):
    return os.path.join(source_root(), "tests", "programs", name)


def real_cuda():
    """VRAMTRACE_TEST_REAL_CUDA=1: programs run over the machine's CUDA."""
    return os.environ.get("VRAMTRACE_TEST_REAL_CUDA") == "1"


def base_env(extra=None):
    env = dict(os.environ)
    for k in ("LD_PRELOAD", "VRAMTRACE_OUTPUT"):
        env.pop(k, None)
    # Sanitized builds: the sanitizer runtime must be loaded first.
    if os.environ.get("VT_TEST_PRELOAD"):
        env["LD_PRELOAD"] = os.environ["VT_TEST_PRELOAD"]
    # meson puts the folders of the libraries it built on the path too
    path = [d for d in env.get("LD_LIBRARY_PATH", "").split(":")
            if d and os.path.realpath(d) != os.path.realpath(standin_dir())]
    env["LD_LIBRARY_PATH"] = ":".join(path if real_cuda() else [standin_dir()] + path)
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    # the stand-in GPUs' usage registry: shared by this test's processes only
    env.setdefault("STANDIN_GPU_REGISTRY", gpu_registry())
    # the line naming the dump at exit is tested by test_run.py's
    # dump_named_at_exit (VRAMTRACE_QUIET=""); elsewhere stderr holds what
    # each test checks
    env["VRAMTRACE_QUIET"] = "1"
    if extra:
        env.update(extra)
    return env


# ---- temporary directories ----

_tmpdirs = []
_registry = []


def gpu_registry():
    """The stand-in GPUs' registry file of this test (tests/standin/standin_gpus.h):
    its processes see each other on the stand-in GPUs, other tests' do not."""
    if not _registry:
        _registry.append(os.path.join(tmpdir(), "standin-gpus.registry"))
    return _registry[0]


def tmpdir():
    d = tempfile.mkdtemp(prefix="vramtrace-test-")
    _tmpdirs.append(d)
    return d


def _cleanup(keep):
    for d in _tmpdirs:
        if keep:
            sys.stderr.write("kept %s\n" % d)
        else:
            shutil.rmtree(d, ignore_errors=True)


# ---- running ----

class Run:
    """One program run: argv, status (negative: killed by that signal for a
    direct run), stdout, stderr, the dump path, the working directory."""

    def __init__(self, argv, status, stdout, stderr, dump, cwd, pid=None):
        self.argv, self.status, self.stdout, self.stderr = argv, status, stdout, stderr
        self.dump, self.cwd, self.pid = dump, cwd, pid

    def describe(self):
        return "%s exited %s\n--- stdout ---\n%s--- stderr ---\n%s" % (
            " ".join(self.argv), self.status, _tail(self.stdout), _tail(self.stderr))


def _tail(text, n=4000):
    if len(text) > n:
        text = "...\n" + text[-n:]
    return text if text.endswith("\n") or not text else text + "\n"


# ---- another machine's programs (the aarch64 lane, tests/aarch64/lane.sh) ----

EM_AARCH64 = 183  # <elf.h>


def elf_machine(path):
    """The ELF e_machine of the file at PATH, or None."""
    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError:
        return None
    return int.from_bytes(head[18:20], "little") if head[:4] == b"\x7fELF" else None


def emulated(argv):
    """ARGV as run where the build is another machine's: VT_TEST_QEMU (say
    "qemu-aarch64-static -L ROOT") runs its programs. qemu-user's static
    build has no loader of its own to take the LD_PRELOAD meant for the
    program. A program `vramtrace run` starts is wrapped too (no binfmt
    here), and the Python a test runs is that machine's (VT_TEST_PYTHON)."""
    qemu = shlex.split(os.environ.get("VT_TEST_QEMU", ""))
    if not qemu:
        return argv
    own = elf_machine("/proc/self/exe")
    python = os.environ.get("VT_TEST_PYTHON") or sys.executable
    # The CLI at pages of VT_TEST_CLI_PAGE bytes (qemu's -p; its loader
    # cannot start a traced program at pages larger than the host's).
    page = os.environ.get("VT_TEST_CLI_PAGE")

    def cli(path):
        return os.path.realpath(path) == os.path.realpath(vramtrace_exe())

    def wrapped(cmd):
        cmd = [python if cmd[0] == sys.executable else cmd[0]] + cmd[1:]
        if elf_machine(cmd[0]) in (None, own):
            return cmd
        return qemu + (["-p", page] if page and cli(cmd[0]) else []) + cmd

    argv = list(argv)
    if len(argv) > 2 and argv[1] == "run" and "--" in argv and cli(argv[0]):
        start = argv.index("--") + 1
        argv[start:] = wrapped(argv[start:])
    return wrapped(argv)


def _run(argv, env, cwd):
    argv = emulated(argv)
    try:
        p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True,
                             errors="replace")
    except OSError as e:
        fail("cannot run %s: %s" % (argv[0], e))
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        fail("%s did not finish within %d s\n--- stderr ---\n%s" % (" ".join(argv), TIMEOUT,
                                                                      _tail(err)))
    return Run(argv, p.returncode, out, err, None, cwd, p.pid)


def run_plain(argv, extra_env=None):
    """Runs a program without the tracer (stand-ins on LD_LIBRARY_PATH)."""
    return _run(list(argv), base_env(extra_env), tmpdir())


def run_traced(argv, mode="run", extra_env=None, run_args=(), output=True):
    """Runs argv traced in a fresh temporary directory.
    mode "run":     vramtrace run [-o DUMP] RUN_ARGS -- argv
    mode "preload": LD_PRELOAD=libvramtrace.so VRAMTRACE_OUTPUT=DUMP argv
    output=False leaves the dump name to the defaults (Run.dump is None)."""
    tool = vramtrace_exe() if mode == "run" else vramtrace_lib()
    cwd = tmpdir()
    dump = os.path.join(cwd, "trace.vtr") if output else None
    argv = list(argv)
    if mode == "run":
        cmd = [tool, "run"]
        if dump:
            cmd += ["-o", dump]
        cmd += list(run_args) + ["--"] + argv
        r = _run(cmd, base_env(extra_env), cwd)
    elif mode == "preload":
        env = base_env(extra_env)
        env["LD_PRELOAD"] = ":".join(filter(None, [env.get("LD_PRELOAD"), tool]))
        if dump:
            env["VRAMTRACE_OUTPUT"] = dump
        r = _run(argv, env, cwd)
    else:
        raise ValueError(mode)
    r.dump = dump
    return r


def run_status(r):
    """The exit status as a shell reports it (128+N for signal N)."""
    return 128 - r.status if r.status < 0 else r.status


def expect_program_ok(r, status=0):
    """The traced program must have run as it does untraced."""
    if run_status(r) == 99:
        fail("the %s CUDA libraries misbehaved under the tracer (a program check failed):\n%s"
             % ("machine's" if real_cuda() else "stand-in", r.describe()))
    if run_status(r) != status:
        fail("exit status: expected %d, got %d\n%s" % (status, run_status(r), r.describe()))


def expect_dump(r):
    if not r.dump or not os.path.isfile(r.dump):
        fail("no dump at %s\n%s" % (r.dump, r.describe()))


def report(dump, *args):
    """`vramtrace report --json DUMP` as a dict: every call site (--top 0)
    unless ARGS give --top: the ground truth is in all of them."""
    top = [] if "--top" in args else ["--top", "0"]
    cmd = [vramtrace_exe(), "report", "--json"] + top + list(args) + [dump]
    r = _run(cmd, base_env(), os.path.dirname(dump) or ".")
    if r.status != 0:
        fail("vramtrace report failed:\n" + r.describe())
    try:
        data = json.loads(r.stdout)
    except ValueError as e:
        fail("vramtrace report --json printed no valid JSON (%s):\n%s" % (e, _tail(r.stdout)))
    if not isinstance(data, dict):
        fail("vramtrace report --json: expected one object, got %s" % type(data).__name__)
    return data


def traced_report(argv, mode="run", status=0, extra_env=None):
    """Runs argv traced, checks its exit status, returns (report, run)."""
    r = run_traced(argv, mode=mode, extra_env=extra_env)
    expect_program_ok(r, status)
    expect_dump(r)
    return report(r.dump), r


# ---- reading dumps (src/format.h) ----

def varint_at(data, p):
    """(value, position after it) of the LEB128 varint at data[p]."""
    v, shift = 0, 0
    while True:
        b = data[p]
        v |= (b & 0x7f) << shift
        p += 1
        if not b & 0x80:
            return v, p
        shift += 7


def dump_records(path):
    """(data, [(offset, type, payload start, payload end)]) of a dump."""
    data = open(path, "rb").read()
    out, pos = [], 16
    while pos < len(data) and data[pos]:
        length, p = varint_at(data, pos + 1)
        out.append((pos, data[pos], p, p + length))
        pos = p + length
    return data, out


VT_REC_PYSTACK, VT_REC_DEVICE, VT_REC_DEVICE_USAGE = 10, 18, 19  # format.h's record types


def record_offset(path, rtype, index=0):
    """The offset of the INDEXth record of type RTYPE in a dump (-1: the
    last); offsets move with the recorded program path, so tests read them."""
    return [offset for offset, t, _, _ in dump_records(path)[1] if t == rtype][index]


# ---- reading reports ----

def summary(rep):
    s = rep.get("summary")
    if not isinstance(s, dict):
        fail('report has no "summary" object: %s' % _short(rep))
    for k in SUMMARY_KEYS:
        if not isinstance(s.get(k), int) or isinstance(s.get(k), bool):
            fail('summary["%s"] missing or not an integer: %s' % (k, _short(s)))
    return s


def leaks(rep):
    lk = rep.get("leaks")
    if not isinstance(lk, list):
        fail('report has no "leaks" list: %s' % _short(rep))
    return lk


def live_view(rep, reason):
    """For a dump whose process did not end on its own (ending REASON:
    "signal", "running", "unknown"): nothing is listed as leaked, and the
    report with "leaks" standing for what was live at the end, so the leak
    checks apply to it."""
    ending = rep.get("ending") or {}
    expect_eq('"ending"."reason"', ending.get("reason"), reason)
    expect_eq('"ending"."leaks_judged"', ending.get("leaks_judged"), False)
    expect_eq('"leaks" of a process that did not end on its own', rep.get("leaks"), [])
    s = summary(rep)
    expect_eq("summary.leaked_bytes", s.get("leaked_bytes"), 0)
    view = dict(rep, leaks=rep.get("live_at_end"))
    view["summary"] = dict(s, leaked_bytes=s.get("live_at_end_bytes"),
                           leaked_allocations=s.get("live_at_end_allocations"))
    return view


def _short(obj, n=1500):
    text = json.dumps(obj, indent=1, sort_keys=True)
    return text if len(text) <= n else text[:n] + "..."


def describe_leaks(rep):
    lines = []
    for lk in rep.get("leaks", []) or []:
        fr = lk.get("frames") or []
        top = " <- ".join("%s (%s:%s)" % (f.get("function"), _base(f.get("file")), f.get("line"))
                          for f in fr[:3])
        lines.append("  %s bytes x%s %s %s dev %s: %s" % (
            lk.get("bytes"), lk.get("allocations"), lk.get("api"), lk.get("kind"),
            lk.get("device"), top or "(no frames)"))
    return "\n".join(lines) or "  (no leaks)"


def _base(path):
    return os.path.basename(path) if isinstance(path, str) else path


def frames(leak):
    fr = leak.get("frames")
    if not isinstance(fr, list):
        fail("leak has no frames list: %s" % _short(leak))
    return fr


def leak_by_function(rep, function):
    """The one leak whose innermost frame is `function`."""
    found = [lk for lk in leaks(rep) if frames(lk) and frames(lk)[0].get("function") == function]
    if len(found) != 1:
        fail("expected exactly one leak with innermost frame %s, found %d; leaks:\n%s" % (
            function, len(found), describe_leaks(rep)))
    return found[0]


def leak_by_bytes(rep, nbytes):
    found = [lk for lk in leaks(rep) if lk.get("bytes") == nbytes]
    if len(found) != 1:
        fail("expected exactly one leak of %d bytes, found %d; leaks:\n%s" % (
            nbytes, len(found), describe_leaks(rep)))
    return found[0]


def no_leak_of(rep, nbytes, why):
    found = [lk for lk in leaks(rep) if lk.get("bytes") == nbytes]
    if found:
        fail("%d bytes reported leaked, but %s; leaks:\n%s" % (nbytes, why, describe_leaks(rep)))


def marker_line(source, tag):
    """The line carrying the marker LEAK:<tag> (C: /* LEAK:tag */, Python:
    # LEAK:tag); it must occur exactly once."""
    return _marker(source, "LEAK", tag)


def call_line(source, tag):
    """The line carrying the marker CALL:<tag>."""
    return _marker(source, "CALL", tag)


def _marker(source, kind, tag):
    pat = re.compile(r"\b%s:%s(?![\w])" % (kind, re.escape(tag)))
    hits = []
    with open(source, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if pat.search(line):
                hits.append(n)
    if len(hits) != 1:
        fail("marker %s:%s: expected once in %s, found on lines %r" % (kind, tag, source, hits))
    return hits[0]


def c_defines(source):
    """Integer #defines of a C source: {name: value}; simple arithmetic
    over earlier defines and (size_t) casts allowed."""
    vals = {}
    pat = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)\s+(.+?)\s*(?:/\*.*)?$")
    with open(source, encoding="utf-8") as f:
        for line in f:
            m = pat.match(line)
            if not m:
                continue
            expr = re.sub(r"\((?:size_t|uintptr_t|unsigned)\)", "", m.group(2))
            expr = re.sub(r"\b([A-Za-z_]\w*)\b",
                          lambda mm: str(vals[mm.group(1)]) if mm.group(1) in vals else "X",
                          expr)
            if re.fullmatch(r"[0-9xXa-fA-F\s()+\-*/<>]+", expr):
                try:
                    vals[m.group(1)] = int(eval(expr.replace("/", "//"), {"__builtins__": {}}))
                except Exception:
                    pass
    return vals


# ---- checks ----

def check_frame_shape(rep):
    """Every frame has the keys function/file/line/module (plus at most the
    FRAME_EXTRA_KEYS); no frame comes from the tracer; function names carry
    no +offset."""
    for i, lk in enumerate(leaks(rep)):
        for j, f in enumerate(frames(lk)):
            if not isinstance(f, dict) or not FRAME_KEYS <= set(f) or \
                    set(f) - FRAME_KEYS - FRAME_EXTRA_KEYS:
                fail("leak %d frame %d: expected the keys %s (extra allowed: %s), got %s" % (
                    i, j, sorted(FRAME_KEYS), sorted(FRAME_EXTRA_KEYS),
                    sorted(f) if isinstance(f, dict) else f))
            mod, fn = f.get("module"), f.get("function")
            if isinstance(mod, str) and "libvramtrace" in os.path.basename(mod):
                fail("leak %d frame %d comes from the tracer: %s" % (i, j, _short(f)))
            if fn is not None and (not isinstance(fn, str) or "+" in fn or not fn):
                fail("leak %d frame %d: function must be a bare name or null, got %r" % (
                    i, j, fn))
            if f.get("line") is not None and not isinstance(f.get("line"), int):
                fail("leak %d frame %d: line must be an integer or null, got %r" % (
                    i, j, f.get("line")))


def check_leak(rep, *, function, source, tag, nbytes, api, kind, device=0, allocations=1,
               caller="main"):
    """The leak whose innermost frame is `function` must match exactly."""
    lk = leak_by_function(rep, function)
    where = "leak in %s" % function
    expect_eq(where + ": bytes", lk.get("bytes"), nbytes)
    expect_eq(where + ": allocations", lk.get("allocations"), allocations)
    expect_eq(where + ": api", lk.get("api"), api)
    expect_eq(where + ": kind", lk.get("kind"), kind)
    if kind == "host":
        # page-locked host memory belongs to no device; the current one is fine
        expect_in(where + ": device", lk.get("device"), (device, None, -1))
    else:
        expect_eq(where + ": device", lk.get("device"), device)
    fr = frames(lk)
    expect_eq(where + ": innermost frame file", _base(fr[0].get("file")), os.path.basename(source))
    expect_eq(where + ": innermost frame line", fr[0].get("line"), marker_line(source, tag))
    if caller is not None:
        expect(len(fr) >= 2, where + ": expected a caller frame (%s), got %d frame(s)" % (
            caller, len(fr)))
        expect_eq(where + ": next frame function", fr[1].get("function"), caller)
    return lk


def check_summary(rep, **expected):
    s = summary(rep)
    for k, v in expected.items():
        if isinstance(v, (tuple, list)):
            expect_in("summary.%s" % k, s.get(k), v)
        else:
            expect_eq("summary.%s" % k, s.get(k), v)
    return s


def check_leak_order(rep):
    lk = leaks(rep)
    sizes = [x.get("bytes") for x in lk]
    expect(sizes == sorted(sizes, reverse=True),
           "leaks must be listed largest bytes first, got %r" % sizes)


def check_complete(rep):
    expect_eq('top-level "complete"', rep.get("complete"), True)


# ---- entry point ----

def define_api_cases(namespace, *, program_name, source, leak_list, loop_pairs):
    """The ground truth shared by tests/test_runtime.py and test_driver.py:
    PROGRAM_NAME (built from SOURCE) ran LOOP_PAIRS balanced alloc/free pairs
    first, one live at a time, then leaked LEAK_LIST, a list of (function, tag,
    bytes, api, kind, device), once each. Defines in NAMESPACE case_<tag>
    for each leak (exact bytes, api, kind, device, call site), case_summary,
    case_frames, case_preload (plain LD_PRELOAD + VRAMTRACE_OUTPUT) and
    case_labels_offline (reported without the CUDA libraries)."""
    vram = [x for x in leak_list if x[4] != "host"]
    summary = dict(
        allocations=loop_pairs + len(leak_list),
        frees=loop_pairs,
        leaked_bytes=sum(x[2] for x in vram),
        leaked_allocations=len(vram),
        host_leaked_bytes=sum(x[2] for x in leak_list if x[4] == "host"),
        # the loops ran first; the peak is one device's own, never a sum
        peak_bytes=max(sum(x[2] for x in vram if x[5] == d) for d in {x[5] for x in vram}),
        failed_allocations=0,
        invalid_frees=0,
    )

    def traced(mode="run"):
        rep, _ = traced_report([program(program_name)], mode=mode)
        return rep

    def check(rep, leak):
        fn, tag, nbytes, api, kind, dev = leak
        check_leak(rep, function=fn, source=source, tag=tag, nbytes=nbytes, api=api, kind=kind,
                   device=dev)

    def leak_case(leak):
        return lambda: check(traced(), leak)

    for leak in leak_list:
        namespace["case_" + leak[1]] = leak_case(leak)

    def case_summary():
        rep = traced()
        check_summary(rep, **summary)
        expect_eq("number of leak entries", len(leaks(rep)), len(leak_list))
        check_complete(rep)

    def case_frames():
        rep = traced()
        check_frame_shape(rep)
        check_leak_order(rep)

    def case_preload():
        rep = traced("preload")
        check_summary(rep, **summary)
        check(rep, leak_list[0])

    def case_labels_offline():
        """Reported where the CUDA libraries it ran with are gone (another
        machine): their frames cannot be read, so each leak's api is the one
        the tracer recorded, not one the report recognises in them."""
        libs = tmpdir()
        for name in os.listdir(standin_dir()):
            if name in ("libcuda.so.1", "libcudart.so.13"):
                shutil.copy2(os.path.join(standin_dir(), name), libs)
        r = run_traced([program(program_name)],
                       extra_env={"LD_LIBRARY_PATH": libs + ":" + standin_dir()})
        expect_program_ok(r)
        expect_dump(r)
        shutil.rmtree(libs)
        rep = report(r.dump)
        check_summary(rep, **summary)
        for leak in leak_list:
            check(rep, leak)

    namespace.update(case_summary=case_summary, case_frames=case_frames,
                     case_preload=case_preload, case_labels_offline=case_labels_offline)
    return summary


def main(namespace):
    cases = {k[5:]: v for k, v in namespace.items() if k.startswith("case_") and callable(v)}
    if len(sys.argv) == 2 and sys.argv[1] == "--list":
        print("\n".join(sorted(cases)))
        return 0
    if len(sys.argv) != 2 or sys.argv[1] not in cases:
        sys.stderr.write("usage: %s CASE   (cases: %s)\n" % (
            os.path.basename(sys.argv[0]), " ".join(sorted(cases))))
        sys.exit(1)
    name = sys.argv[1]
    keep = os.environ.get("VT_TEST_KEEP") == "1"
    # every process the test starts, whatever environment it is given
    # from ours, shares the test's stand-in registry, and no other's
    os.environ["STANDIN_GPU_REGISTRY"] = gpu_registry()
    try:
        cases[name]()
    except Failure as e:
        sys.stderr.write("FAIL %s: %s\n" % (name, e))
        _cleanup(True)
        sys.exit(1)
    except Skip as e:
        sys.stderr.write("SKIP %s: %s\n" % (name, e))
        _cleanup(keep)
        sys.exit(77)
    except Exception:
        sys.stderr.write("ERROR %s: the test itself raised:\n%s" % (name, traceback.format_exc()))
        _cleanup(True)
        sys.exit(1)
    _cleanup(keep)
    print("PASS %s" % name)
    sys.exit(0)
