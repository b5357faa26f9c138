# SPDX-License-Identifier: MIT
"""Python frames on every CPython here: each pyenv 3.8-3.13, Debian unstable's
3.14 and 3.15 in the small unstable root that tests/python/sid_root.sh makes
once (they need unstable's libc: the CLI, compiler and program run chrooted
there, the build bound at its own path), the free-threaded 3.14t where built
by hand in /opt/python3.14t (no registry ships it here), Debian's python3
(interpreter linked into the executable) and Python embedded in a C program;
an interpreter that is absent skips its cases with one line saying why
(`tests/test_pyversions.py --interpreters` lists them all).
Per interpreter: a leak through ctypes.CDLL (GIL released), ctypes.PyDLL (GIL
held) and a C extension built for that version that releases the GIL
(routes_*); a C thread named like PyTorch's autograd thread allocating for the
Python thread waiting for it in torch's backward entry (behalf_*); coroutines in a worker thread's event loop, a generator, a named
C thread that never ran Python, 1,000-deep recursion, a subinterpreter and an
allocation at interpreter shutdown (scenarios_*); one line allocating in a
loop (specialized after its first calls) as one leak, and Python called back
from C twice, its frames between the C frames in call order (callback_*);
exact function, file and line for every Python frame checked."""
import glob
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402
from test_python import check_script_end, constants, script_end_fork  # noqa: E402

DEBIAN_PYTHON = "/usr/bin/python3"
PYENV_ROOT = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
MINORS = range(8, 14)
# Built from source where present (not by CI: no registry ships it here).
BUILT = {"3.14t": "/opt/python3.14t/bin/python3.14t"}
# Debian unstable's, inside the root of tests/python/sid_root.sh.
SID_ROOT = os.environ.get("VT_SID_ROOT", "/var/cache/vramtrace/sid-root")
IN_ROOT = {"3.14": "/usr/bin/python3.14", "3.15": "/usr/bin/python3.15"}
# Every tag but Debian's python3; those in the root last (entering it is for
# the rest of the test's process).
NEWER = list(BUILT) + list(IN_ROOT)


def python_source(name):
    return os.path.join(H.source_root(), "tests", "python", name)


ROUTES = python_source("py_routes.py")
CALLBACK = python_source("py_callback.py")
SCRIPT_END = python_source("py_script_end.py")
SCENARIOS = python_source("py_scenarios.py")
BEHALF = python_source("py_behalf.py")
FRAMES_CHANGE = python_source("py_frames_change.py")
EXTENSION = python_source("cuda_ext.c")


def in_root(name, program):
    """A script NAME that runs PROGRAM inside the root (tests/python/in_root.sh)."""
    path = os.path.join(H.tmpdir(), name)
    with open(path, "w") as f:
        f.write('#!/bin/sh\nexec %s %s "$@"\n' % (python_source("in_root.sh"), program))
    os.chmod(path, 0o755)
    return path


def root_missing():
    """Why the root cannot be used here, or None."""
    if not os.path.isfile(os.path.join(SID_ROOT, "etc", "vramtrace-root")):
        return ("no Debian unstable root at %s (tests/python/sid_root.sh makes it; "
                "tests/run.sh calls it)" % SID_ROOT)
    if os.geteuid() != 0:
        return "entering the Debian unstable root needs root (mount namespace, chroot)"
    return None


def enter_root():
    """From here on this test's CLI (traced runs and reports: the report
    reads the interpreter's own files) and compiler run inside the root;
    Skip where it is not made or cannot be entered."""
    if root_missing():
        raise H.Skip(root_missing())
    if os.environ.get("VT_SID_ROOT") == SID_ROOT and os.environ.get("VT_ROOT_BINDS"):
        return
    build = os.path.commonpath([os.path.dirname(H.vramtrace_exe()), H.standin_dir(),
                                H.env_path("PYTHON_TEST_DIR", "dir")])
    os.environ.update(VT_SID_ROOT=SID_ROOT, VRAMTRACE_SYMBOL_CACHE="0", VT_ROOT_BINDS=":".join(
        [H.source_root(), build, tempfile.gettempdir()]))
    os.environ["VRAMTRACE_EXE"] = in_root("vramtrace", H.vramtrace_exe())


_rooted = set()  # the interpreters that run in the root (scripts of in_root)


def runner(python):
    """What runs a program built for PYTHON: nothing, or the root's entry."""
    return [python_source("in_root.sh")] if python in _rooted else []


def interpreter(tag):
    """The python executable for TAG ("3.8" ... or "debian"); Skip if absent."""
    if tag in IN_ROOT:
        enter_root()
        path = in_root("python" + tag, IN_ROOT[tag])
        _rooted.add(path)
        return path
    if tag == "debian":
        path = DEBIAN_PYTHON
    elif tag in BUILT:
        path = BUILT[tag]
    else:
        found = sorted(glob.glob(os.path.join(PYENV_ROOT, "versions", tag + ".*", "bin",
                                              "python" + tag)))
        path = found[-1] if found else ""
    if not os.path.isfile(path):
        raise H.Skip("no Python %s here (%s)" % (tag, path or PYENV_ROOT + "/versions"))
    return path


def config(python, *names):
    out = subprocess.run([python, "-c", "import sys, sysconfig; print('\\n'.join("
                          "str(sysconfig.get_config_var(n) or sysconfig.get_paths().get(n) or '')"
                          " for n in sys.argv[1:]))"] + list(names),
                         capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def compile_c(args, what, python=None):
    """Builds with the compiler for PYTHON (the root's gcc for one in it)."""
    cc = runner(python) + ["gcc"] if runner(python) else os.environ.get("VT_CC", "cc").split()
    r = subprocess.run(cc + args, capture_output=True, text=True)
    if r.returncode != 0:
        H.fail("building %s failed:\n%s" % (what, r.stderr[-3000:]))


def build_extension(python):
    """vt_cudaext for PYTHON, in a fresh directory (returned)."""
    include, suffix = config(python, "include", "EXT_SUFFIX")
    out = H.tmpdir()
    compile_c(["-shared", "-fPIC", "-g", "-O0", "-fno-omit-frame-pointer", "-I", include,
               "-I", os.path.join(H.source_root(), "tests", "standin", "include")] +
              H.library_include_args() + [EXTENSION,
               "-L", H.standin_dir(), "-lcudart", "-lpthread",
               "-o", os.path.join(out, "vt_cudaext" + suffix)], "vt_cudaext for " + python, python)
    return out


def python_frames(leak):
    return [(f.get("function"), f.get("file"), f.get("line"))
            for f in H.frames(leak) if f.get("module") == "python"]


def expect_python(leak, what, expected):
    """EXPECTED: [(function, file, line)], innermost first: the first Python frames."""
    got = python_frames(leak)
    H.expect(got[:len(expected)] == expected,
             "%s: Python frames: expected %r first, got %r" % (what, expected, got))


def check_routes(rep, source, caller_of_main):
    c = constants(source)
    L = lambda tag: H.marker_line(source, tag)  # noqa: E731
    C = lambda tag: H.call_line(source, tag)  # noqa: E731
    for nbytes, via, call in ((c["CDLL_BYTES"], "through_cdll", "cdll"),
                              (c["PYDLL_BYTES"], "through_pydll", "pydll")):
        expect_python(H.leak_by_bytes(rep, nbytes), via,
                      [("allocate", source, L("ctypes")), (via, source, C(call)),
                       ("main", source, C("main_" + call)), caller_of_main])
    lk = H.leak_by_bytes(rep, c["EXT_BYTES"])
    expect_python(lk, "extension", [("through_extension", source, L("extension")),
                                    ("main", source, C("main_extension")), caller_of_main])
    native = [(f.get("function"), f.get("line")) for f in H.frames(lk)]
    H.expect(("allocate", H.marker_line(EXTENSION, "ext")) in native,
             "extension: the C frame that allocated is missing: %r" % native)


def routes(tag):
    python = interpreter(tag)
    rep, _ = H.traced_report([python, ROUTES, build_extension(python)])
    check_routes(rep, ROUTES, ("<module>", ROUTES, H.call_line(ROUTES, "module")))


def scenarios(tag):
    python = interpreter(tag)
    has_subinterp = subprocess.run([python, "-c", "import _testcapi; _testcapi.run_in_subinterp"],
                                   capture_output=True).returncode == 0
    args = [python, SCENARIOS, build_extension(python)]
    r = H.run_traced(args + ([] if has_subinterp else ["--no-subinterpreter"]))
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    c = constants(SCENARIOS)
    S = SCENARIOS
    L = lambda tag: H.marker_line(S, tag)  # noqa: E731
    C = lambda tag: H.call_line(S, tag)  # noqa: E731
    alloc = ("allocate", S, L("alloc"))
    expect_python(H.leak_by_bytes(rep, c["CORO_BYTES"]), "coroutines",
                  [alloc, ("coro_leaf", S, L("coro")), ("coro_middle", S, C("coro_middle")),
                   ("coro_top", S, C("coro_top"))])
    expect_python(H.leak_by_bytes(rep, c["GEN_BYTES"]), "generator",
                  [alloc, ("generator", S, L("gen")), ("consume", S, C("consume"))])
    check_c_thread(H.leak_by_bytes(rep, c["C_THREAD_BYTES"]), c["C_THREAD_NAME"])
    check_deep(H.leak_by_bytes(rep, c["DEEP_BYTES"]), S)
    expect_python(H.leak_by_bytes(rep, c["EXIT_BYTES"]), "at exit",
                  [alloc, ("at_exit", S, L("exit"))])
    if has_subinterp:
        check_subinterpreter(rep, c, python)
    H.check_complete(rep)


def callback(tag):
    """One line allocating in a loop is one leak; Python called back from C
    shows its frames between the C frames, in the order they were called."""
    python = interpreter(tag)
    rep, _ = H.traced_report([python, CALLBACK, build_extension(python)])
    c = constants(CALLBACK)
    S = CALLBACK
    L = lambda tag: H.marker_line(S, tag)  # noqa: E731
    C = lambda tag: H.call_line(S, tag)  # noqa: E731
    for name, nbytes in (("loop", c["LOOP_BYTES"]), ("loop_cdll", c["CDLL_LOOP_BYTES"])):
        sites = [lk for lk in H.leaks(rep) if lk.get("bytes") % nbytes == 0]
        H.expect_eq("%s: leaks of %d bytes each (one site)" % (name, nbytes),
                    [(lk.get("bytes"), lk.get("allocations")) for lk in sites],
                    [(c["LOOP_COUNT"] * nbytes, c["LOOP_COUNT"])])
        expect_python(sites[0], name, [(name, S, L(name)), ("main", S, C("main_" + name)),
                                       ("<module>", S, C("module"))])
    lk = H.leak_by_bytes(rep, c["CALLBACK_BYTES"])
    ext = os.path.basename(EXTENSION)
    shown = [(f.get("function"), f.get("line")) for f in H.frames(lk)
             if f.get("module") == "python" or (f.get("file") or "").endswith(ext)]
    call_python = ("call_python", H.call_line(EXTENSION, "c_calls_python"))
    expected = [("allocate", H.marker_line(EXTENSION, "ext")), ("inner", L("callback")),
                call_python, ("middle", C("middle")), call_python, ("outer", C("outer")),
                ("main", C("main_callback")), ("<module>", C("module"))]
    got = [f for f in shown if f[0] not in ("alloc_nogil", "call_back")]
    H.expect_eq("Python -> C -> Python -> C -> Python: the extension's and Python's frames",
                got, expected)


def behalf(tag):
    """A thread that runs no Python, named like PyTorch's autograd thread,
    allocating while one other thread waits for it in torch's backward entry:
    that thread's Python frames, exactly, as the allocation's on-behalf
    frames; none when two threads wait there, none waits, or the allocating
    thread is named otherwise. Free-threaded builds are not read (none)."""
    python = interpreter(tag)
    rep, _ = H.traced_report([python, BEHALF, build_extension(python)])
    c = constants(BEHALF)
    S = BEHALF
    C = lambda tag: H.call_line(S, tag)  # noqa: E731
    expected = [("_engine_run_backward", c["ENGINE_FILE"], c["ENGINE_LINE"]),
                ("backward_alone", S, C("alone")), ("main", S, C("main_alone")),
                ("<module>", S, C("module"))]
    none = [c["TWO_BYTES"], c["NOT_WAITING_BYTES"], c["OTHER_NAME_BYTES"]]
    if tag.endswith("t"):
        expected, none = None, none + [c["ALONE_BYTES"]] * c["ALONE_COUNT"]
    else:
        lk = H.leak_by_bytes(rep, c["ALONE_BYTES"] * c["ALONE_COUNT"])
        got = [(f.get("function"), f.get("file"), f.get("line"))
               for f in (lk.get("on_behalf") or {}).get("frames", [])]
        H.expect_eq("one thread waiting: its frames on behalf of each allocation",
                    (got, lk.get("allocations")), (expected, c["ALONE_COUNT"]))
        H.expect_eq("one thread waiting: frames of its own", python_frames(lk), [])
    # Beside another waiting thread, with none waiting, from a thread named
    # otherwise: the same stack without on-behalf frames, one call site.
    lk = H.leak_by_bytes(rep, sum(none))
    H.expect_eq("no single waiting thread: allocations, on behalf",
                (lk.get("allocations"), lk.get("on_behalf")), (len(none), None))
    H.check_complete(rep)


def frames_change(tag):
    """Stacks that change between allocations while the frames' memory and
    code objects are reused (py_frames_change.py): every allocation at its
    own call site, each site's Python frames exact to the line."""
    python = interpreter(tag)
    rep, _ = H.traced_report([python, FRAMES_CHANGE])
    c = constants(FRAMES_CHANGE)
    S = FRAMES_CHANGE
    C = lambda tag: H.call_line(S, tag)  # noqa: E731
    alloc = ("allocate", S, H.marker_line(S, "alloc"))
    leaf = [alloc, ("leaf", S, C("leaf"))]
    main = lambda tag: [("main", S, C(tag)), ("<module>", S, C("module"))]  # noqa: E731
    rec = lambda depth: ([alloc, ("recurse", S, C("rec_leaf"))] +  # noqa: E731
                         [("recurse", S, C("recurse"))] * depth)
    sites = {
        "PATH_A_BYTES": leaf + [("path_a", S, C("path_a"))] + main("main_path_a"),
        "PATH_B_BYTES": leaf + [("path_b", S, C("path_b"))] + main("main_path_b"),
        "REC_2_BYTES": rec(2) + main("main_rec_2"),
        "REC_4_BYTES": rec(4) + main("main_rec_4"),
        "GEN_1_BYTES": [alloc, ("generator", S, C("gen")), ("resume_1", S, C("resume_1"))] +
        main("main_resume_1"),
        "GEN_2_BYTES": [alloc, ("generator", S, C("gen")), ("resume_2", S, C("resume_2"))] +
        main("main_resume_2"),
        "CORO_1_BYTES": [alloc, ("coroutine", S, C("coro")), ("drive_1", S, C("drive_1"))] +
        main("main_drive_1"),
        "CORO_2_BYTES": [alloc, ("coroutine", S, C("coro")), ("drive_2", S, C("drive_2"))] +
        main("main_drive_2"),
        "RAISED_BYTES": [alloc, ("thrower", S, C("raised"))] + [("thrower", S, C("thrower"))] * 2 +
        [("catcher", S, C("catcher"))] + main("main_catcher"),
        "CAUGHT_BYTES": [alloc, ("catcher", S, C("caught"))] + main("main_catcher"),
    }
    for name, expected in sites.items():
        lk = H.leak_by_bytes(rep, c[name] * c["ROUNDS"])
        H.expect_eq("%s: allocations at the site" % name, lk.get("allocations"), c["ROUNDS"])
        H.expect_eq("%s: Python frames" % name, python_frames(lk), expected)
    for name, line in (("LINE_1_BYTES", "line_1"), ("LINE_2_BYTES", "line_2")):
        lk = H.leak_by_bytes(rep, c[name] * (c["ROUNDS"] // 2))
        H.expect_eq("%s: Python frames" % name, python_frames(lk),
                    leaf + [("two_lines", S, C(line))] + main("main_two_lines"))
    for i in range(c["GENERATED"]):
        lk = H.leak_by_bytes(rep, c["GENERATED_BYTES"] + i)
        H.expect_eq("generated function %d: Python frames" % i, python_frames(lk),
                    [alloc, ("generated", "<generated-%d>" % i, 3 + i % 5),
                     ("generated", S, C("generated"))] + main("main_generated"))
    for k, path in enumerate(("a", "b")):
        each = [c["THREAD_BYTES"] + 2 * t + k for t in range(c["THREADS"])]
        lk = H.leak_by_bytes(rep, sum(each) * c["ROUNDS"])
        H.expect_eq("threads, path %s: allocations per thread" % path,
                    sorted(t.get("allocations") for t in lk["threads"]),
                    [c["ROUNDS"]] * c["THREADS"])
        H.expect_eq("threads, path %s: Python frames" % path, python_frames(lk)[:4],
                    leaf + [("path_" + path, S, C("path_" + path)),
                            ("worker", S, C("thread_" + path))])
    H.check_complete(rep)


def case_behalf_stress():
    """Thread states created and freed by other threads while a thread
    named like PyTorch's autograd thread allocates for the waiting main
    thread: no crash, every allocation counted, and each one's on-behalf
    frames, where they were read, exactly the main thread's."""
    src = python_source("py_behalf_stress.py")
    c = constants(src)
    rep, _ = H.traced_report([sys.executable, src, build_extension(sys.executable)])
    stress = [lk for lk in H.leaks(rep) if lk["bytes"] % c["STRESS_BYTES"] == 0]
    H.expect_eq("allocations", sum(lk["allocations"] for lk in stress), c["ALLOCATIONS"])
    C = lambda tag: H.call_line(src, tag)  # noqa: E731
    expected = [("_engine_run_backward", c["ENGINE_FILE"], 2), ("allocate", src, C("stress")),
                ("main", src, C("main_stress")), ("<module>", src, C("module"))]
    read = [lk for lk in stress if lk.get("on_behalf")]
    H.expect(read, "no allocation had its on-behalf frames read")
    for lk in read:
        H.expect_eq("on-behalf frames", [(f.get("function"), f.get("file"), f.get("line"))
                                         for f in lk["on_behalf"]["frames"]], expected)


def script_end(tag, how=(), status=0, mode=None, python=None):
    """What a script held when it ended is leaked, though the interpreter
    freed most of it at shutdown (or its atexit handlers, or a thread that
    threading's shutdown joined): said apart, to the byte."""
    python = python or interpreter(tag)
    env = {"VRAMTRACE_MODE": mode} if mode else None
    rep, _ = H.traced_report([python, SCRIPT_END] + list(how), status=status, extra_env=env)
    check_script_end(rep, "Buffer.__init__" if tag not in ("3.8", "3.9", "3.10") else "__init__")


def case_script_end_aggregate():
    """Aggregate mode: the sites' samples at the script's end."""
    script_end("3.11", mode="aggregate")


def case_script_end_exit():
    """sys.exit(3): the script ended there; the exit status passes through."""
    script_end("3.11", ["exit"], constants(SCRIPT_END)["EXIT_STATUS"])


def case_script_end_raise():
    """An uncaught exception ends the script too (status 1)."""
    script_end("3.11", ["raise"], 1)


def case_script_end_exit_atexit():
    """sys.exit, then an atexit handler frees the kept buffers (3.12 keeps
    its running-main state set on this path: the main thread's frames
    tell)."""
    for tag in ("3.11", "3.12"):
        script_end(tag, ["atexit", "exit"], constants(SCRIPT_END)["EXIT_STATUS"])


def case_script_end_fork_3_13():
    """3.13 clears its running-main state in a child forked by another
    thread: no script end there either."""
    script_end_fork(interpreter("3.13"))


def case_script_end_embedded():
    """A C program embedding Python: its interpreter's end is not the
    program's (no script end; what the program frees after is not leaked)."""
    rep, _ = H.traced_report([build_embedding("3.11", interpreter("3.11")), SCRIPT_END])
    c = constants(SCRIPT_END)
    H.expect_eq("script_end_ns of an embedding program", rep.get("script_end_ns"), None)
    H.check_summary(rep, leaked_bytes=c["NEVER_BYTES"], held_bytes=0)


def check_c_thread(leak, name):
    H.expect_eq("C thread: Python frames", python_frames(leak), [])
    native = [(f.get("function"), f.get("line")) for f in H.frames(leak)]
    H.expect_eq("C thread: innermost frame", native[:1],
                [("named_worker", H.marker_line(EXTENSION, "c_thread"))])
    H.expect_eq("C thread: its name", [t.get("name") for t in leak.get("threads", [])], [name])


def check_deep(leak, S):
    frames = python_frames(leak)
    H.expect_eq("deep recursion: Python frames kept", len(frames), 128)
    H.expect_eq("deep recursion: innermost", frames[:2],
                [("allocate", S, H.marker_line(S, "alloc")), ("deep", S, H.marker_line(S, "deep"))])
    H.expect(all(f == ("deep", S, H.call_line(S, "deep")) for f in frames[2:]),
             "deep recursion: expected the recursive call's line below, got %r" % frames[2:6])
    H.expect_eq("deep recursion: marked truncated", leak.get("python_frames_truncated"), True)


def check_subinterpreter(rep, c, python):
    held = python_frames(H.leak_by_bytes(rep, c["SUB_HELD_BYTES"]))
    H.expect_eq("subinterpreter, GIL held: innermost Python frames", held[:2],
                [("sub_allocate", "<string>", 7), ("<module>", "<string>", 9)])
    released = python_frames(H.leak_by_bytes(rep, c["SUB_RELEASED_BYTES"]))
    minor = int(subprocess.run([python, "-c", "import sys; print(sys.version_info[1])"],
                               capture_output=True, text=True).stdout)
    if minor >= 12:
        expected = [("sub_allocate", "<string>", 7), ("<module>", "<string>", 10)]
    else:
        # Up to 3.11 a thread's gilstate stays with its first (main
        # interpreter) state: without the GIL, the call into the
        # subinterpreter is the innermost frame seen.
        expected = [("in_subinterpreter", SCENARIOS, H.call_line(SCENARIOS, "subinterpreter"))]
    H.expect_eq("subinterpreter, GIL released: innermost Python frames",
                released[:len(expected)], expected)


def build_embedding(tag, python):
    """tests/python/embed_routes.c built against PYTHON's libpython."""
    include, libdir, ldlib = config(python, "include", "LIBDIR", "LDLIBRARY")
    prog = os.path.join(H.tmpdir(), "embed")
    lib = re.sub(r"^lib|\.so.*$", "", ldlib)
    compile_c(["-g", "-O0", "-fno-omit-frame-pointer", "-I", include,
               python_source("embed_routes.c"), "-L", libdir, "-l" + lib,
               "-Wl,-rpath," + libdir, "-o", prog], "the embedding program for " + tag, python)
    return prog


def case_embedded_versions():
    """Python embedded in C, for each pyenv version, 3.14t where built and
    3.14 and 3.15 in the unstable root: CDLL, PyDLL and the extension, then
    the C function that ran the script and main."""
    tried = 0
    for tag in ["3.%d" % minor for minor in MINORS] + NEWER:
        try:
            python = interpreter(tag)
        except H.Skip:
            continue
        prog = build_embedding(tag, python)
        rep, _ = H.traced_report([prog, ROUTES, build_extension(python)])
        check_routes(rep, ROUTES, ("<module>", ROUTES, H.call_line(ROUTES, "module")))
        for nbytes in (constants(ROUTES)["CDLL_BYTES"],):
            names = [f.get("function") for f in H.frames(H.leak_by_bytes(rep, nbytes))]
            H.expect("run_file" in names and names[names.index("run_file") + 1] == "main",
                     "embedded %s: expected run_file then main below Python, got %r" % (tag, names))
        tried += 1
    H.expect(tried > 0, "no pyenv Python found")


def case_stress():
    """Eight threads allocating without the GIL while others churn code:
    exact counts and call sites, no crash (also run under TSan)."""
    src = python_source("py_stress.py")
    c = constants(src)
    rep, _ = H.traced_report([sys.executable, src])
    total = c["WORKERS"] * c["PER_WORKER"]
    H.check_summary(rep, allocations=total, frees=total - c["WORKERS"] * c["KEPT"])
    # One call site for all: the same Python and native frames on each thread.
    lk = H.leak_by_bytes(rep, c["KEPT"] * sum(c["STRESS_BYTES"] + i for i in range(c["WORKERS"])))
    H.expect_eq("leaked allocations", lk.get("allocations"), c["WORKERS"] * c["KEPT"])
    expect_python(lk, "workers", [("allocate", src, H.marker_line(src, "stress")),
                                  ("worker", src, H.call_line(src, "worker"))])
    H.expect_eq("allocations per thread", sorted(t.get("allocations") for t in lk["threads"]),
                [c["KEPT"]] * c["WORKERS"])


for _tag in ["3.%d" % m for m in MINORS] + NEWER + ["debian"]:
    globals()["case_routes_" + _tag] = (lambda t: lambda: routes(t))(_tag)
    globals()["case_scenarios_" + _tag] = (lambda t: lambda: scenarios(t))(_tag)
    globals()["case_callback_" + _tag] = (lambda t: lambda: callback(t))(_tag)
    globals()["case_behalf_" + _tag] = (lambda t: lambda: behalf(t))(_tag)
    globals()["case_frames_change_" + _tag] = (lambda t: lambda: frames_change(t))(_tag)
    globals()["case_script_end_" + _tag] = (lambda t: lambda: script_end(t))(_tag)
    globals()["case_script_end_atexit_" + _tag] = (lambda t: lambda: script_end(t, ["atexit"]))(_tag)
# A thread that frees while threading's shutdown joins it: up to 3.11 only
# the main thread's own frames would tell, and it is not the one freeing.
for _tag in ["3.12", "3.13"] + NEWER:
    globals()["case_script_end_thread_" + _tag] = (lambda t: lambda: script_end(t, ["thread"]))(_tag)


def print_interpreters():
    """One line per interpreter: the one its cases run, or why they skip."""
    for tag in ["3.%d" % m for m in MINORS] + NEWER + ["debian"]:
        try:
            if tag in IN_ROOT and root_missing():
                raise H.Skip(root_missing())
            found = ("%s in %s" % (IN_ROOT[tag], SID_ROOT) if tag in IN_ROOT
                     else interpreter(tag))
            print("pyversions: Python %s: %s" % (tag, found))
        except H.Skip as e:
            print("pyversions: Python %s: skipped: %s" % (tag, e))


if __name__ == "__main__":
    if sys.argv[1:] == ["--interpreters"]:
        print_interpreters()
    else:
        H.main(globals())
