# SPDX-License-Identifier: MIT
"""Python frames: a thread running Python gets its Python frames (function,
file, line; module "python") where the interpreter's evaluation frames stood,
innermost first, whether it holds the GIL or not; the interpreter's own native
frames are hidden unless asked for."""
import ast
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("py_frames.py")
DEBIAN_PYTHON = "/usr/bin/python3"


def constants(source):
    """The module-level NAME = literal assignments of a Python source."""
    with open(source, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    return {t.id: ast.literal_eval(node.value) for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            for t in node.targets if isinstance(t, ast.Name) and t.id.isupper()}


SIZES = {k: v for k, v in constants(SRC).items() if k.endswith("_BYTES")}
SCRIPT_END = os.path.join(H.source_root(), "tests", "python", "py_script_end.py")


def python_frames(leak):
    return [f for f in H.frames(leak) if f.get("module") == "python"]


def expect_python_stack(leak, expected):
    """EXPECTED: [(function, line)], innermost first: the first Python frames."""
    frames = python_frames(leak)
    got = [(f.get("function"), f.get("line")) for f in frames]
    H.expect(got[:len(expected)] == expected,
             "Python frames: expected %r first, got %r" % (expected, got))
    for f in frames[:len(expected)]:
        H.expect_eq("file of Python frame %s" % f.get("function"), f.get("file"), SRC)


def nested_expectation():
    return [("allocate", _line_of("rc = lib.cudaMalloc(ctypes.byref(p), nbytes)")),
            ("innermost", H.marker_line(SRC, "nested")),
            ("middle", H.call_line(SRC, "middle")),
            ("outer", H.call_line(SRC, "outer"))]


def _line_of(text, source=SRC):
    with open(source, encoding="utf-8") as f:
        hits = [n for n, line in enumerate(f, 1) if text in line]
    H.expect(len(hits) == 1, "expected one line with %r in %s, found %r" % (text, source, hits))
    return hits[0]


def check_nested(rep):
    lk = H.leak_by_bytes(rep, SIZES["NESTED_BYTES"])
    H.expect_eq("nested leak: api", lk.get("api"), "cudaMalloc")
    expect_python_stack(lk, nested_expectation())
    frames = H.frames(lk)
    first_python = next(i for i, f in enumerate(frames) if f.get("module") == "python")
    H.expect_eq("nested leak: first frame is Python (ctypes and interpreter frames hidden)",
                first_python, 0)
    H.expect_eq("outermost Python frame", python_frames(lk)[-1].get("function"), "<module>")


def case_nested():
    rep, _ = H.traced_report([sys.executable, SRC])
    check_nested(rep)


def case_thread():
    rep, _ = H.traced_report([sys.executable, SRC])
    lk = H.leak_by_bytes(rep, SIZES["THREAD_BYTES"])
    py = [f.get("function") for f in python_frames(lk)]
    H.expect(py[:2] == ["allocate", "thread_body"],
             "thread leak: Python frames start %r, expected allocate, thread_body" % py)
    H.expect_eq("thread leak: line of thread_body", python_frames(lk)[1].get("line"),
                H.marker_line(SRC, "thread"))
    H.expect_eq("thread leak: the frame that called thread_body", py[2:3], ["Thread.run"])
    H.expect("main" not in py, "thread leak: the main thread's frames leaked in: %r" % py)


def case_no_gil():
    """ctypes.CDLL releases the GIL around the call: the frames are read all the same."""
    rep, _ = H.traced_report([sys.executable, SRC])
    lk = H.leak_by_bytes(rep, SIZES["NOGIL_BYTES"])
    expect_python_stack(lk, [("allocate", _line_of("rc = lib.cudaMalloc(ctypes.byref(p), nbytes)")),
                             ("without_gil", H.marker_line(SRC, "nogil")),
                             ("main", H.call_line(SRC, "without_gil")),
                             ("<module>", H.call_line(SRC, "main"))])


def check_script_end(rep, init_name="Buffer.__init__"):
    """tests/python/py_script_end.py's kept buffers were held when the
    script ended and freed at shutdown; the never-freed one is live at the
    end: to the byte."""
    c = constants(SCRIPT_END)
    kept = c["KEPT_COUNT"] * c["KEPT_BYTES"]
    H.check_summary(rep, leaked_bytes=c["NEVER_BYTES"], leaked_allocations=1,
                    held_bytes=kept, held_allocations=c["KEPT_COUNT"],
                    live_at_end_bytes=c["NEVER_BYTES"], live_at_end_allocations=1)
    H.expect(isinstance(rep.get("script_end_ns"), int) and
             0 < rep["script_end_ns"] <= rep["duration_ns"],
             "script_end_ns %r (duration %r)" % (rep.get("script_end_ns"), rep.get("duration_ns")))
    H.expect_eq("held: the kept buffers only",
                [(h["bytes"], h["allocations"], h["held"]) for h in rep["held"]],
                [(kept, c["KEPT_COUNT"], True)])
    lk = rep["held"][0]
    got = [(f.get("function"), f.get("file"), f.get("line")) for f in python_frames(lk)]
    expected = [(init_name, SCRIPT_END, H.marker_line(SCRIPT_END, "kept")),
                ("<module>", SCRIPT_END, H.call_line(SCRIPT_END, "keep"))]
    H.expect(got[:2] == expected, "kept: Python frames: expected %r first, got %r" % (expected, got))
    H.expect_eq("leaks: the never-freed buffer only",
                [(x["bytes"], x["held"]) for x in H.leaks(rep)], [(c["NEVER_BYTES"], False)])


def script_end_fork(python, init_name="Buffer.__init__"):
    """A child forked by a thread other than the main one never ran the
    script: its dump has no script end (its parent's main module was seen
    running); the parent's is judged as ever."""
    d = H.tmpdir()
    r = H.run_traced([python, SCRIPT_END, "fork", "atexit"], mode="preload", output=False,
                     extra_env={"VRAMTRACE_OUTPUT": os.path.join(d, "f.%p.vtr")})
    H.expect_program_ok(r, 0)
    m = re.search(r"child (\d+)", r.stdout)
    H.expect(m, "no child pid printed:\n" + r.describe())
    check_script_end(H.report(os.path.join(d, "f.%d.vtr" % r.pid)), init_name)
    child = H.report(os.path.join(d, "f.%s.vtr" % m.group(1)))
    H.expect_eq("the child: script end", child.get("script_end_ns"), None)
    H.check_summary(child, allocations=1, leaked_bytes=constants(SCRIPT_END)["CHILD_BYTES"],
                    held_bytes=0)


def case_script_end_fork():
    script_end_fork(sys.executable)


SITECUSTOMIZE = """
import ctypes, os, threading
lib = ctypes.CDLL("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
lib.cudaFree.argtypes = [ctypes.c_void_p]
def pair():
    p = ctypes.c_void_p()
    lib.cudaMalloc(ctypes.byref(p), 4096)
    lib.cudaFree(p)
def pairs():
    for _ in range(200):
        pair()
pair()
threading.Thread(target=pairs).start()
"""


def case_script_end_site():
    """CUDA while site imports sitecustomize, on the main thread and on a
    thread it starts (running on while the main module starts): the script
    has not ended yet."""
    d = H.tmpdir()
    with open(os.path.join(d, "sitecustomize.py"), "w", encoding="utf-8") as f:
        f.write(SITECUSTOMIZE)
    rep, _ = H.traced_report([sys.executable, SCRIPT_END, "atexit"], extra_env={"PYTHONPATH": d})
    check_script_end(rep)


def case_held_only_check():
    """What a script still referenced when it ended, freed by the
    interpreter's shutdown (a module-level model, say) is held, not leaked:
    check passes on it by default, and --max-held holds it to a size."""
    c = constants(SCRIPT_END)
    kept = c["KEPT_COUNT"] * c["KEPT_BYTES"]
    r = H.run_traced([sys.executable, SCRIPT_END, "held_only"], mode="preload")
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    H.check_summary(rep, leaked_bytes=0, held_bytes=kept, held_allocations=c["KEPT_COUNT"])
    H.expect_eq("the lists", (rep["leaks"], [h["bytes"] for h in rep["held"]]), ([], [kept]))
    for args, status in (((), 0), (("--max-held", str(kept)), 0),
                         (("--max-held", str(kept - 1)), 23)):
        p = subprocess.run(H.emulated([H.vramtrace_exe(), "check"] + list(args) + [r.dump]),
                           env=H.base_env(), capture_output=True, text=True)
        H.expect_eq("check %s: status (%s)" % (" ".join(args), p.stderr), p.returncode, status)
    H.expect("%d bytes (5.0 MiB) held when the script ended" % kept in p.stderr, p.stderr)
    text = subprocess.run(H.emulated([H.vramtrace_exe(), "report", r.dump]), env=H.base_env(),
                          capture_output=True, text=True).stdout.splitlines()
    H.expect_eq("the first lines", [line.split(" (peak")[0] for line in text[:2]], [
        "vramtrace: no leaks",
        "vramtrace: held at the end (still referenced when the script ended; not leaked): "
        "5.0 MiB (%d bytes) in %d allocations at 1 call site"
        % (kept, c["KEPT_COUNT"])])


def case_script_end_atexit_module():
    """python -m (runpy's _run_module_as_main outermost): an atexit handler
    frees the kept buffers after the script ended."""
    rep, _ = H.traced_report([sys.executable, "-m", "py_script_end", "atexit"],
                             extra_env={"PYTHONPATH": os.path.dirname(SCRIPT_END)})
    check_script_end(rep)


def case_script_end_atexit_command():
    """python -c: its <module> is the script."""
    code = "import sys; p = sys.argv[0] = %r; exec(compile(open(p).read(), p, 'exec'))" % SCRIPT_END
    rep, _ = H.traced_report([sys.executable, "-c", code, "atexit"])
    check_script_end(rep)


def case_debian_python():
    """Debian's python3 has the interpreter linked into the executable."""
    if not os.path.exists(DEBIAN_PYTHON):
        raise H.Skip("no " + DEBIAN_PYTHON)
    rep, _ = H.traced_report([DEBIAN_PYTHON, SRC])
    check_nested(rep)


def case_interpreter_frames_hidden():
    rep, _ = H.traced_report([sys.executable, SRC])
    lk = H.leak_by_bytes(rep, SIZES["NESTED_BYTES"])
    names = [f.get("function") or "" for f in H.frames(lk)]
    H.expect(not [n for n in names if "EvalFrame" in n or n.startswith("_PyObject")],
             "interpreter frames shown by default: %r" % names)


def case_interpreter_frames_shown():
    r = H.run_traced([sys.executable, SRC])
    H.expect_program_ok(r)
    rep = H.report(r.dump, "--python-internals")
    lk = H.leak_by_bytes(rep, SIZES["NESTED_BYTES"])
    names = [f.get("function") or "" for f in H.frames(lk)]
    H.expect([n for n in names if "EvalFrame" in n],
             "--python-internals: no evaluation frame in %r" % names)
    H.expect(python_frames(lk), "--python-internals: the Python frames are gone")


def case_example():
    """README: `vramtrace run -- python3 examples/leaky.py` names the leaking
    Python function and line at the top of its stack."""
    example = os.path.join(H.source_root(), "examples", "leaky.py")
    rep, _ = H.traced_report([sys.executable, example])
    lk = H.leaks(rep)[0]
    frames = H.frames(lk)
    with open(example, encoding="utf-8") as f:
        lines = f.read().splitlines()
    alloc_line = next(n for n, l in enumerate(lines, 1) if "cudart.cudaMalloc(" in l)
    forward_line = next(n for n, l in enumerate(lines, 1) if "activations = device_buffer" in l)
    H.expect_eq("example: leaked bytes", lk.get("bytes"), 4 << 20)
    H.expect_eq("example: frame #0", (frames[0].get("function"), frames[0].get("line")),
                ("device_buffer", alloc_line))
    H.expect_eq("example: frame #1", (frames[1].get("function"), frames[1].get("line")),
                ("Model.forward", forward_line))


def case_embedded():
    """A C program embedding Python: Python frames, then the C caller."""
    prog = H.program("embed_python")
    rep, _ = H.traced_report([prog])
    lk = H.leak_by_bytes(rep, 3200011)
    frames = H.frames(lk)
    names = [f.get("function") for f in frames]
    H.expect_eq("embedded: frame #0", (frames[0].get("function"), frames[0].get("module"),
                                       frames[0].get("line")), ("embedded_leak", "python", 7))
    H.expect("run_script" in names, "embedded: no run_script frame in %r" % names)
    i = names.index("run_script")
    H.expect_eq("embedded: run_script line", frames[i].get("line"),
                H.call_line(H.program_source("embed_python.c"), "run_script"))
    H.expect_eq("embedded: frame after run_script", names[i + 1], "main")


def case_cached_locations():
    """Locations are cached per (code object, instruction): lines stay exact
    for repeated calls and for code objects made and freed in turn."""
    src = H.program_source("py_cache.py")
    d = constants(src)
    rep, _ = H.traced_report([sys.executable, src])
    for tag, nbytes in (("site_a", d["SITE_A_BYTES"]), ("site_b", d["SITE_B_BYTES"])):
        lk = H.leak_by_bytes(rep, 3 * nbytes)
        H.expect_eq("%s: allocations" % tag, lk.get("allocations"), 3)
        top = python_frames(lk)[:2]
        H.expect_eq("%s: innermost Python frames" % tag,
                    [(f.get("function"), f.get("line")) for f in top],
                    [("allocate", _line_of("if lib.cudaMalloc(", src)),
                     ("two_sites", H.marker_line(src, tag))])
    for i in range(3):
        lk = H.leak_by_bytes(rep, d["FRESH_BYTES"] + i)
        fresh = python_frames(lk)[1]
        H.expect_eq("fresh function %d: Python frame" % i,
                    (fresh.get("function"), fresh.get("file"), fresh.get("line")),
                    ("fresh", d["FRESH_FILE"], d["FRESH_FIRST_LINE"] + i))


if __name__ == "__main__":
    H.main(globals())
