# SPDX-License-Identifier: MIT
"""The C API (include/vramtrace.h) from C, C++ and ctypes, its pkg-config
file, the Python module (python/vramtrace.py) and the pytest plugin built on
it (python/pytest_vramtrace.py)."""
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("api_check.c")
D = H.c_defines(SRC)
CTYPES_SRC = H.program_source("ctypes_api.py")
SAMPLE = H.program_source("vram_pytest_sample.py")
DEBIAN_PYTHON = "/usr/bin/python3"   # Debian's, with python3-pytest
PYTHON_DIR = os.path.join(H.source_root(), "python")
PLUGIN_LEAK_BYTES = H.c_defines(H.program_source("leakplugin.c"))["PLUGIN_LEAK_BYTES"]


def py_constant(path, name):
    with open(path) as f:
        return int(re.search(r"^%s = (\d+)$" % name, f.read(), re.M).group(1))


def answers(r):
    """api_check's "key=value" lines as a dict of ints (sites kept apart)."""
    vals = {}
    for line in r.stdout.splitlines():
        for key, val in re.findall(r"(\w+)=(\d+)", line):
            vals[key] = int(val)
    return vals


def sites_text(r):
    m = re.search(r"^sites=(.*?)sites_end$", r.stdout, re.S | re.M)
    H.expect(m, "api_check printed no sites:\n" + r.describe())
    return m.group(1)


def case_traced():
    """Exact answers against known allocations."""
    r = H.run_traced([H.program("api_check")], mode="preload")
    H.expect_program_ok(r)
    got = answers(r)
    want = {
        "active": 1,
        "live_base": D["API_BASE_BYTES"],
        "leaked_since": D["API_LEAK_BYTES"] + D["API_STEP_BYTES"],
        "live_step": D["API_BASE_BYTES"] + D["API_LEAK_BYTES"] + D["API_STEP_BYTES"],
        "leaked_since_end": D["API_LEAKED_BYTES"],
        "live_end": D["API_LEAKED_BYTES"],
    }
    for key, val in want.items():
        H.expect_eq(key, got.get(key), val)


def case_peak_since():
    """vramtrace_peak_since: the most bytes allocated after the checkpoint
    live at once; a checkpoint with 16 newer ones is no longer followed."""
    r = H.run_traced([H.program("api_check"), "peaks"], mode="preload")
    H.expect_program_ok(r)
    got = answers(r)
    want = {
        "peak_first": D["PEAK_A_BYTES"] + D["PEAK_B_BYTES"],
        "peak_second": D["PEAK_C_BYTES"],
        "leaked_first": 0,
        "peak_first_forgotten": (1 << 64) - 1,  # VRAMTRACE_PEAK_UNKNOWN
        "peak_last": 1,
    }
    for key, val in want.items():
        H.expect_eq(key, got.get(key), val)
    r = H.run_plain([H.program("api_check"), "peaks"])
    H.expect_program_ok(r)
    H.expect_eq("without the tracer", answers(r), dict.fromkeys(want, 0))


def case_leak_sites():
    """vramtrace_leak_sites_since: one line per call site, largest first,
    named by dladdr; its length as snprintf returns it, cut to the buffer."""
    r = H.run_traced([H.program("api_check")], mode="preload")
    H.expect_program_ok(r)
    text = sites_text(r)
    lines = text.splitlines()
    H.expect_eq("number of site lines", len(lines), 2)
    H.expect(re.match(r"%d bytes in 1 allocation at leak_after_checkpoint \(api_check\+0x[0-9a-f]+\)"
                      r" <- main \(api_check\+0x" % D["API_LEAK_BYTES"], lines[0]),
             "first site line: %r" % lines[0])
    H.expect(re.match(r"%d bytes in 1 allocation at step_buffer \(api_check\+0x[0-9a-f]+\) <- "
                      % D["API_STEP_BYTES"], lines[1]), "second site line: %r" % lines[1])
    H.expect("scratch" not in text, "a freed allocation is listed: %r" % text)
    got = answers(r)
    H.expect_eq("sites_length", got.get("sites_length"), len(text))
    H.expect_eq("length into an 8-byte buffer", got.get("tiny_length"), len(text))
    H.expect_eq("text cut to 8 bytes", got.get("tiny"), int(text[:7]))


def case_marks():
    """The markers are in the dump, two of them: too few to judge growth by
    the growth rule (three at least), so check's --max-growth holds the
    leaked bytes instead."""
    r = H.run_traced([H.program("api_check")], mode="preload")
    H.expect_program_ok(r)
    H.expect_eq("markers in the dump", H.report(r.dump)["growth"]["marks"], 2)
    leaked = D["API_LEAKED_BYTES"]
    for limit, status in ((leaked, 0), (leaked - 1, 23)):
        c = check(r.dump, "--max-growth", str(limit))
        H.expect_eq("check --max-growth %d" % limit, c.status, status)


def case_untraced():
    """Without the tracer every call answers 0 / does nothing."""
    r = H.run_plain([H.program("api_check")])
    H.expect_program_ok(r)
    for key, val in answers(r).items():
        H.expect_eq(key + " without the tracer", val, 0)
    H.expect_eq("sites without the tracer", sites_text(r), "")


def check(dump, *args):
    return H._run([H.vramtrace_exe(), "check"] + list(args) + [dump], H.base_env(),
                  os.path.dirname(dump))


def compile_header(compiler, lang, *extra):
    cc = os.environ.get("VT_CC", "cc").split()[0] if compiler == "cc" else compiler
    src = ("#include <vramtrace.h>\nint main(void) {\n  char b[64];\n"
           "  uint64_t t = vramtrace_checkpoint();\n  vramtrace_mark(\"x\");\n"
           "  return (int)(vramtrace_active() + vramtrace_live_bytes() +\n"
           "               vramtrace_leaked_since(t) + vramtrace_peak_since(t) +\n"
           "               vramtrace_leak_sites_since(t, b, sizeof b));\n}\n")
    argv = [cc, "-x", lang, "-Wall", "-Wextra", "-Werror", *extra, "-"]
    try:
        p = subprocess.run(argv, input=src, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise H.Skip("%s is not installed" % cc)
    H.expect(p.returncode == 0, "%s failed on the header:\n%s" % (" ".join(argv), p.stderr))


def case_cxx():
    """The header compiles as C++ (and as C) with warnings as errors."""
    inc = "-I" + os.path.join(H.source_root(), "include")
    compile_header("g++", "c++", inc, "-fsyntax-only")
    compile_header("cc", "c", inc, "-std=gnu11", "-fsyntax-only")


def case_ctypes():
    """ctypes.CDLL(None) reaches the API under the tracer; without it the
    symbols are simply absent."""
    r = H.run_traced([sys.executable, CTYPES_SRC], mode="preload")
    H.expect_program_ok(r)
    size = py_constant(CTYPES_SRC, "CTYPES_API_BYTES")
    H.expect_eq("ctypes answers", r.stdout.split(),
                ["active=1", "delta=%d" % size, "leaked_since=%d" % size, "after_free=0"])
    r = H.run_plain([sys.executable, CTYPES_SRC])
    H.expect_program_ok(r)
    H.expect_eq("ctypes without the tracer", r.stdout.split(), ["absent"])


def case_pkgconfig():
    """After `meson install`, cc $(pkg-config --cflags --libs vramtrace)
    builds a program that runs without the tracer."""
    build = os.path.dirname(H.vramtrace_exe())
    dest = H.tmpdir()
    p = subprocess.run(["meson", "install", "-C", build, "--destdir", dest, "--no-rebuild",
                        "--quiet"], capture_output=True, text=True, timeout=300)
    H.expect(p.returncode == 0, "meson install failed:\n%s%s" % (p.stdout, p.stderr))
    pcs = [os.path.join(root, f) for root, _, files in os.walk(dest) for f in files
           if f == "vramtrace.pc"]
    H.expect_eq("installed vramtrace.pc files", len(pcs), 1)
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]), PKG_CONFIG_SYSROOT_DIR=dest)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "vramtrace"], env=env,
                           capture_output=True, text=True)
    H.expect(flags.returncode == 0, "pkg-config failed: %s" % flags.stderr)
    H.expect("-I%s/" % dest in flags.stdout, "cflags should point into the install: %r"
             % flags.stdout)
    exe = os.path.join(dest, "api_user")
    cc = os.environ.get("VT_CC", "cc").split()
    p = subprocess.run(cc + ["-o", exe, "-x", "c", "-", *flags.stdout.split()],
                       input="#include <vramtrace.h>\nint main(void)"
                             "{ return vramtrace_active() + (int)vramtrace_live_bytes(); }\n",
                       capture_output=True, text=True)
    H.expect(p.returncode == 0, "cc with pkg-config flags failed:\n" + p.stderr)
    r = H.run_plain([exe])
    H.expect_program_ok(r)


def need_debian_python(module):
    if not os.path.exists(DEBIAN_PYTHON) or subprocess.run(
            [DEBIAN_PYTHON, "-c", "import " + module], capture_output=True).returncode:
        raise H.Skip("%s has no %s (apt-get install python3-%s)" % (DEBIAN_PYTHON, module, module))


def run_sample(traced, plugin_path=None, plugin_option=True):
    """The sample tests under Debian's pytest; {test name: (outcome, message)}.
    PLUGIN_PATH: where the plugin is (default: the source tree)."""
    need_debian_python("pytest")
    xml = os.path.join(H.tmpdir(), "results.xml")
    env = {"PYTHONPATH": plugin_path or PYTHON_DIR,
           "VT_LEAKPLUGIN": H.program("libleakplugin.so")}
    argv = [DEBIAN_PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--junitxml", xml]
    argv += ["-p", "pytest_vramtrace", SAMPLE] if plugin_option else [SAMPLE]
    if traced:
        r = H.run_traced(argv, mode="preload", extra_env=env)
    else:
        r = H.run_plain(argv, extra_env=env)
    H.expect(os.path.exists(xml), "pytest wrote no results:\n" + r.describe())
    results = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome, message = child.tag, child.get("message", "") + (child.text or "")
        results[case.get("name")] = (outcome, message)
    return results, r


def case_pytest_plugin(plugin_path=None, plugin_option=True):
    """A leaking test fails naming its call site; a clean one passes;
    warm-ups are not counted; the vram fixture gives exact live bytes."""
    results, r = run_sample(True, plugin_path, plugin_option)
    want = {"test_leaks": "failure", "test_clean": "passed", "test_under_limit": "passed",
            "test_warmup": "passed", "test_no_warmup": "failure", "test_fixture": "passed",
            "test_peak_over": "failure", "test_peak_under": "passed"}
    H.expect_eq("outcomes", {k: v[0] for k, v in results.items()}, want)
    H.expect_eq("pytest exit status", r.status, 1)
    msg = results["test_leaks"][1]
    H.expect("%d bytes of CUDA memory allocated by the test are still live, over the limit of "
             "1048576 bytes" % PLUGIN_LEAK_BYTES in msg, "test_leaks message: %r" % msg)
    # the test's own line and the leaking call (from the dump), then the dump
    lines = msg.splitlines()
    at = [i for i, l in enumerate(lines) if l.startswith("  in the test: ")]
    H.expect(at, "no test line in %r" % msg)   # (junit: the message, then the same text)
    i = at[0]
    with open(SAMPLE) as f:
        leak_line = f.read().splitlines().index("def test_leaks():") + 2
    H.expect(re.fullmatch(r"  in the test: test_leaks \(\S*vram_pytest_sample\.py:%d\)" % leak_line,
                          lines[i])
             and re.fullmatch(r"  leaking call: plugin_leak \S*leakplugin\.c:%d( <- .*)? via cudaMalloc"
                              % H.marker_line(H.program_source("leakplugin.c"), "plugin"),
                              lines[i + 1])
             and re.match(r"  dump: (\S+\.vtr) \(vramtrace report \1\)", lines[i + 2]),
             "test line, call site, dump in %r" % msg)
    msg = results["test_no_warmup"][1]
    H.expect("2097169 bytes" in msg and "over the limit of 0 bytes" in msg,
             "test_no_warmup message: %r" % msg)
    part = py_constant(SAMPLE, "PEAK_PART_BYTES")
    msg = results["test_peak_over"][1]
    H.expect("the CUDA memory allocated by the test peaked at %d bytes (3.0 MiB) live at once, "
             "over the limit of 2097152 bytes (2.0 MiB)" % (2 * part) in msg,
             "test_peak_over message: %r" % msg)


def case_pytest_skip():
    """Without the tracer the marked tests and the fixture skip, saying why."""
    results, r = run_sample(traced=False)
    H.expect_eq("pytest exit status", r.status, 0)
    H.expect_eq("tests", sorted(results), sorted(["test_leaks", "test_clean", "test_under_limit",
                                                  "test_warmup", "test_no_warmup", "test_fixture",
                                                  "test_peak_over", "test_peak_under"]))
    for name, (outcome, msg) in results.items():
        H.expect_eq(name + " outcome", outcome, "skipped")
        H.expect("vramtrace is not loaded" in msg, "%s: skip reason %r" % (name, msg))


def case_pytest_installed():
    """`pip install ./python` (offline, into a folder): pytest then loads the
    plugin by its entry point, without -p, and `import vramtrace` works."""
    need_debian_python("pip")
    src = os.path.join(H.tmpdir(), "python")
    shutil.copytree(PYTHON_DIR, src,
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    target = H.tmpdir()
    p = subprocess.run([DEBIAN_PYTHON, "-m", "pip", "install", "-q", "--no-build-isolation",
                        "--no-deps", "--no-index", "--target", target, src],
                       capture_output=True, text=True, timeout=300, cwd=src)
    H.expect(p.returncode == 0, "pip install failed:\n%s%s" % (p.stdout, p.stderr))
    case_pytest_plugin(plugin_path=target, plugin_option=False)


def case_module():
    """`import vramtrace` with the tracer: exact live bytes, checkpoint,
    a marker in the dump, the dump's path; without it: no-ops, active()
    False (where ctypes.CDLL(None).vramtrace_mark raises AttributeError)."""
    prog = H.program_source("module_api.py")
    size = py_constant(prog, "MODULE_API_BYTES")
    env = {"PYTHONPATH": PYTHON_DIR}
    r = H.run_traced([sys.executable, prog], mode="preload", extra_env=env)
    H.expect_program_ok(r)
    H.expect_eq("traced answers", r.stdout.split(),
                ["active=True", "loaded=True", "delta=%d" % size, "leaked_since=%d" % size,
                 "dump=%s" % r.dump, "after_free=0", "peak_since=%d" % size])
    rep = H.report(r.dump)
    H.expect_eq("markers in the dump", rep["growth"]["marks"], 1)
    r = H.run_plain([sys.executable, prog], extra_env=env)
    H.expect_program_ok(r)
    H.expect_eq("untraced answers", r.stdout.split(),
                ["active=False", "loaded=False", "delta=0", "leaked_since=0", "dump=None",
                 "after_free=0", "peak_since=0"])


def case_pytest_vramtrace_option():
    """`pytest --vramtrace` without the tracer re-runs the session under
    `vramtrace run` with the same interpreter: the leaky test fails as under
    the tracer, and a table lists what each test left live."""
    need_debian_python("pytest")
    build = os.path.dirname(H.vramtrace_exe())
    env = {"PYTHONPATH": PYTHON_DIR, "VT_LEAKPLUGIN": H.program("libleakplugin.so"),
           "PATH": build + ":" + os.environ.get("PATH", "")}
    argv = [DEBIAN_PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "-p", "pytest_vramtrace",
            "--vramtrace", SAMPLE]
    r = H.run_plain(argv, extra_env=env)
    H.expect_eq("pytest status (a leaky test fails): " + r.describe(), r.status, 1)
    H.expect(re.search(r"^FAILED \S*::test_leaks", r.stdout, re.M), r.describe())
    H.expect(re.search(r"^=+ vramtrace: CUDA memory each test left live =+$", r.stdout, re.M),
             r.describe())
    rows = re.findall(r"^ +([\d.]+ [KMG]?i?B)  (\S+)$", r.stdout, re.M)
    by_test = {nodeid.split("::")[-1]: size for size, nodeid in rows}
    H.expect_eq("tests in the table", sorted(by_test), ["test_leaks", "test_no_warmup",
                                                        "test_under_limit", "test_warmup"])
    H.expect_eq("test_under_limit left", by_test["test_under_limit"], "1.2 MiB")
    H.expect("vramtrace: dump written to" in r.stderr, "vramtrace run's report:\n" + r.describe())


def case_pytest_fixture_table():
    """pytest --vramtrace with a module-scoped model fixture: the model's
    bytes are charged to the fixture's setup, not to the first test; each
    run of test_keep left its buffer, and the growth rule (a marker after
    each test) finds the call site growing from test to test."""
    need_debian_python("pytest")
    sample = H.program_source("vram_pytest_fixture.py")
    c = {k: py_constant(sample, k) for k in ("MODEL_BYTES", "KEPT_BYTES", "KEEP_RUNS")}
    build = os.path.dirname(H.vramtrace_exe())
    env = {"PYTHONPATH": PYTHON_DIR, "PATH": build + ":" + os.environ.get("PATH", "")}
    argv = [DEBIAN_PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "-p", "pytest_vramtrace",
            "--vramtrace", sample]
    r = H.run_plain(argv, extra_env=env)
    H.expect_eq("pytest status: " + r.describe(), r.status, 0)
    rows = re.findall(r"^ +([\d.]+ [KMG]?i?B)  (\S+)$", r.stdout, re.M)
    H.expect_eq("the tests that left memory", sorted(n.split("::")[-1] for _, n in rows),
                ["test_keep[%d]" % i for i in range(c["KEEP_RUNS"])])
    H.expect("test_first" not in "".join(n for _, n in rows), r.stdout)
    H.expect_eq("each run left", {s for s, _ in rows}, {"1.0 MiB"})
    H.expect(re.search(r"^held by fixtures \(charged to their setup, not to a test\):\n +2\.9 MiB  "
                       r"fixture model \(module scope\)$", r.stdout, re.M), r.stdout)
    H.expect(re.search(r"^growing from test to test \(a marker after each test\):\n +1\.0 MiB per "
                       r"test  cuda_malloc \(\S*vram_pytest_fixture\.py:%d\) <- test_keep "
                       r"\(\S*vram_pytest_fixture\.py:%d\) via cudaMalloc$"
                       % (H.marker_line(sample, "malloc"), H.marker_line(sample, "kept")),
                       r.stdout, re.M), r.stdout)
    H.expect("vramtrace report (so far)" not in r.stdout, "the whole report without -v")
    r = H.run_plain(argv + ["--vramtrace-report"], extra_env=env)
    H.expect(re.search(r"^=+ vramtrace report \(so far\) =+$", r.stdout, re.M) and
             "vramtrace: growing: 1.0 MiB per marker interval at cuda_malloc" in r.stdout,
             r.stdout)


if __name__ == "__main__":
    H.main(globals())
