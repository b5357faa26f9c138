# SPDX-License-Identifier: MIT
"""Verdicts CI can trust (issue 13): `vramtrace run` over whole process
trees, the right dump, crashes and other endings told from leaks, empty and
truncated dumps, invalid and double frees with stacks, suppressions with
comments, check --skip / DIR, and run's JSON and log outputs.
Ground truth: tests/programs/tree.c, usage.c (warmup), reliability/crasher.c."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("tree.c")
T = H.c_defines(SRC)
LEAF, CHILD, PARENT, FREES = (T["TREE_LEAF_BYTES"], T["TREE_CHILD_BYTES"],
                              T["TREE_PARENT_BYTES"], T["TREE_FREES_BYTES"])
LEAK_STATUS, NO_DATA = 23, 24
CRASHER_SRC = os.path.join(H.source_root(), "tests", "reliability", "crasher.c")
CRASH = H.c_defines(CRASHER_SRC)


def tree(*args):
    return [H.program("tree")] + list(args)


def vt(*args, cwd=None, env=None):
    return H._run([H.vramtrace_exe()] + list(args), H.base_env(env), cwd or H.tmpdir())


def run(argv, *run_args, cwd=None, env=None):
    """vramtrace run RUN_ARGS -- ARGV in CWD (default: a fresh directory)."""
    return vt("run", *run_args, "--", *argv, cwd=cwd, env=env)


def status(r):
    return H.run_status(r)


def expect_status(r, want, what):
    H.expect(status(r) == want, "%s: expected exit status %d, got %d\n%s"
             % (what, want, status(r), r.describe()))


def written_dumps(r):
    """The dumps run says it wrote (absolute paths), in its order."""
    one = re.findall(r"^vramtrace: dump written to (/\S+)$", r.stderr, re.M)
    if one:
        return one
    m = re.search(r"^vramtrace: \d+ dumps written by the process tree:\n((?:    /\S+\n)+)",
                  r.stderr, re.M)
    return m.group(1).split() if m else []


def sanitizer_env():
    opts = os.environ.get("ASAN_OPTIONS")
    return {"ASAN_OPTIONS": opts + ":handle_segv=0:handle_abort=0"} if opts else {}


def leak_lines(text):
    return re.findall(r"^Leak of (\d+) bytes", text, re.M)


# ---- 1. process trees ----

def case_shell_wrapper():
    """A shell script that starts the CUDA program: its leak fails the run."""
    d = H.tmpdir()
    script = os.path.join(d, "train.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n%s leaf\necho wrapper done\n" % H.program("tree"))
    os.chmod(script, 0o755)
    r = run([script], "--fail-on-leak", cwd=d)
    expect_status(r, LEAK_STATUS, "a leaking program under a shell script")
    H.expect_eq("stdout", r.stdout, "wrapper done\n")
    dumps = written_dumps(r)
    H.expect_eq("dumps (the shell made no CUDA call)", len(dumps), 1)
    rep = H.report(dumps[0])
    H.check_leak(rep, function="leak_leaf", source=SRC, tag="leaf", nbytes=LEAF,
                 api="cudaMalloc", kind="device")
    H.expect_eq("leak lines", leak_lines(r.stderr), [str(LEAF)])
    # --no-children: only the shell is traced, which used no CUDA: nothing to judge
    r = run([script], "--fail-on-leak", "--no-children", cwd=d)
    expect_status(r, NO_DATA, "--no-children around a shell script")
    H.expect("vramtrace: no dump: the program never made a CUDA allocation call" in r.stderr,
             r.describe())


def case_fork_children():
    """Forked children that run CUDA: one section each (pid and ppid in each
    dump), then the combined totals; the JSON's summary is their sum."""
    d = H.tmpdir()
    r = run(tree("fork", "3"), "--fail-on-leak", cwd=d)
    expect_status(r, LEAK_STATUS, "forked children leaking")
    dumps = written_dumps(r)
    H.expect_eq("dumps", len(dumps), 4)
    reps = [H.report(p) for p in dumps]
    parent = [x for x in reps if H.leaks(x) and H.leaks(x)[0]["bytes"] == PARENT]
    H.expect_eq("the parent's dump", len(parent), 1)
    ppid = parent[0]["process"]["pid"]
    children = sorted(H.leaks(x)[0]["bytes"] for x in reps if x is not parent[0])
    H.expect_eq("children's leaks", children, [CHILD, CHILD + 1, CHILD + 2])
    for x in reps:
        if x is not parent[0]:
            H.expect_eq("child's ppid", x["process"]["ppid"], ppid)
            H.check_leak(x, function="leak_child", source=SRC, tag="child",
                         nbytes=H.leaks(x)[0]["bytes"], api="cudaMalloc", kind="device",
                         caller="fork_children")
    H.expect(re.search(r"^== combined: 4 processes ==$", r.stderr, re.M), r.describe())
    whole = vt("report", "--json", *dumps)
    data = json.loads(whole.stdout)
    H.expect_eq("processes", len(data["processes"]), 4)
    H.check_summary(data, leaked_bytes=PARENT + 3 * CHILD + 3, leaked_allocations=4,
                    allocations=4, frees=0)
    # the same through run --json, and report DIR
    data = json.loads(run(tree("fork", "3"), "--json", cwd=H.tmpdir()).stdout)
    H.check_summary(data, leaked_bytes=PARENT + 3 * CHILD + 3)
    data = json.loads(vt("report", "--json", d).stdout)
    H.check_summary(data, leaked_bytes=PARENT + 3 * CHILD + 3, leaked_allocations=4)


def case_orphan_grandchild():
    """fork + exec grandchildren whose parent is gone: run waits for them
    (it is their subreaper) and reports their dump."""
    r = run(tree("orphan"), "--fail-on-leak")
    expect_status(r, LEAK_STATUS, "a leaking orphaned grandchild")
    dumps = written_dumps(r)
    H.expect_eq("dumps", len(dumps), 1)
    rep = H.report(dumps[0])
    H.expect_eq("grandchild's argv", rep["process"]["argv"][1:], ["leaf"])
    H.check_leak(rep, function="leak_leaf", source=SRC, tag="leaf", nbytes=LEAF,
                 api="cudaMalloc", kind="device")
    H.check_complete(rep)


def case_xargs_parallel():
    """xargs -P: parallel children, one of them leaking."""
    if not shutil.which("xargs"):
        raise H.Skip("no xargs")
    d = H.tmpdir()
    script = "printf 'clean\\nclean\\nleaf\\nclean\\n' | xargs -P 4 -n 1 %s" % H.program("tree")
    r = run(["sh", "-c", script], "--fail-on-leak", cwd=d)
    expect_status(r, LEAK_STATUS, "xargs children, one leaking")
    H.expect_eq("dumps", len(written_dumps(r)), 4)
    H.expect_eq("leak lines", leak_lines(r.stderr), [str(LEAF)])
    r = run(["sh", "-c", script.replace("leaf", "clean")], "--fail-on-leak", cwd=d)
    expect_status(r, 0, "xargs children, none leaking")


def case_python_workers():
    """Python multiprocessing workers (fork) that call CUDA through ctypes."""
    d = H.tmpdir()
    script = os.path.join(d, "workers.py")
    with open(script, "w") as f:
        f.write("""import ctypes, multiprocessing as mp
def work(n):
    lib = ctypes.CDLL("libcudart.so.13")
    p = ctypes.c_void_p()
    assert lib.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(%d + n)) == 0
    return n
if __name__ == "__main__":
    pool = mp.get_context("fork").Pool(2)
    print(sorted(pool.map(work, range(3))))
    pool.close()   # workers end on their own (leaving "with" would SIGTERM them)
    pool.join()
""" % CHILD)
    r = run([sys.executable, script], "--fail-on-leak", cwd=d)
    expect_status(r, LEAK_STATUS, "leaking pool workers")
    H.expect_eq("stdout", r.stdout, "[0, 1, 2]\n")
    reps = [H.report(p) for p in written_dumps(r)]
    H.expect_eq("endings", sorted(x["ending"]["reason"] for x in reps), ["_exit", "_exit"])
    H.expect_eq("bytes leaked by the workers", sum(H.summary(x)["leaked_bytes"] for x in reps),
                3 * CHILD + 3)


def case_ctest_recipe():
    """The README's ctest recipes: the whole ctest under one run, and each
    test under its own run (ctest names the leaking ones)."""
    if not shutil.which("cmake") or not shutil.which("ctest"):
        raise H.Skip("no cmake/ctest")
    d = H.tmpdir()
    tree_exe = H.program("tree")
    with open(os.path.join(d, "CMakeLists.txt"), "w") as f:
        f.write("""cmake_minimum_required(VERSION 3.16)
project(gpu_tests NONE)
enable_testing()
set(VRAMTRACE %s)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/vram)
function(add_gpu_test name)
  add_test(NAME ${name} COMMAND ${VRAMTRACE} run --fail-on-leak
           -o ${CMAKE_BINARY_DIR}/vram/${name}.%%p.vtr -- ${ARGN})
endfunction()
add_test(NAME plain_clean COMMAND %s clean)
add_test(NAME plain_forks COMMAND %s fork 2)
add_gpu_test(clean %s clean)
add_gpu_test(leaf %s leaf)
""" % (H.vramtrace_exe(), tree_exe, tree_exe, tree_exe, tree_exe))
    build = os.path.join(d, "build")
    H.expect_eq("cmake", H._run(["cmake", "-S", d, "-B", build], H.base_env(), d).status, 0)
    r = H._run(["ctest", "--test-dir", build, "-R", "gpu|clean|leaf", "-E", "plain"],
               H.base_env(), d)
    H.expect(re.search(r"The following tests FAILED:\n\s+\d+ - leaf \(Failed\)\n", r.stdout)
             and "- clean (Failed)" not in r.stdout, r.describe())
    os.mkdir(os.path.join(d, "vram"))
    r = run(["ctest", "--test-dir", build, "-j", "2", "-R", "plain"], "--fail-on-leak", "-o",
            os.path.join(d, "vram", "%e.%p.vtr"), cwd=d)
    expect_status(r, LEAK_STATUS, "ctest under one run")
    H.expect_eq("dumps: the two tests' processes and the forked children", len(written_dumps(r)),
                4)


def case_pytest_xdist_recipe():
    """The README's pytest-xdist recipe: each worker traced, a leaking test
    in any worker fails the run; a clean suite passes."""
    python = "/usr/bin/python3" if os.path.isfile("/usr/bin/python3") else sys.executable
    if subprocess.run([python, "-c", "import xdist"], stderr=subprocess.DEVNULL).returncode:
        raise H.Skip("no pytest-xdist for %s" % python)
    d = H.tmpdir()
    os.mkdir(os.path.join(d, "tests"))
    with open(os.path.join(d, "tests", "test_gpu.py"), "w") as f:
        f.write("""import ctypes, os
lib = ctypes.CDLL("libcudart.so.13")
def alloc(n):
    p = ctypes.c_void_p()
    assert lib.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(n)) == 0
    return p
def test_clean_a(): lib.cudaFree(alloc(1000))
def test_clean_b(): lib.cudaFree(alloc(2000))
def test_leaky():
    if os.environ.get("LEAK"): alloc(%d)
def test_clean_c(): lib.cudaFree(alloc(4000))
""" % LEAF)
    cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "tests"]
    r = run(cmd, "--fail-on-leak", cwd=d, env={"LEAK": "1"})
    expect_status(r, LEAK_STATUS, "a leaking test in an xdist worker")
    H.expect("4 passed" in r.stdout, r.describe())
    H.expect(len(written_dumps(r)) >= 2, "expected a dump per worker:\n" + r.describe())
    H.expect_eq("leak lines", leak_lines(r.stderr), [str(LEAF)])
    expect_status(run(cmd, "--fail-on-leak", cwd=d), 0, "a clean suite under xdist")


# ---- 2. the right dump ----

def case_stale_dump():
    """An old leaking dump at the path: the library writes a fresh name,
    says so, and run reports the new file (the clean run passes)."""
    d = H.tmpdir()
    old = run(tree("leaf"), "-o", os.path.join(d, "x.vtr"), cwd=d)
    H.expect_program_ok(old)
    r = run(tree("clean"), "--fail-on-leak", cwd=d, env={"VRAMTRACE_OUTPUT":
                                                          os.path.join(d, "x.vtr")})
    expect_status(r, 0, "a clean run next to a stale leaking dump")
    fresh = os.path.join(d, "x.1.vtr")
    H.expect("vramtrace: %s exists; writing this process's dump to %s instead\n"
             % (os.path.join(d, "x.vtr"), fresh) in r.stderr, r.describe())
    H.expect_eq("the dump run reports", written_dumps(r), [fresh])
    H.check_summary(H.report(fresh), allocations=1, frees=1, leaked_bytes=0)


def case_bad_output():
    """-o into a missing directory, onto a directory or a symlink: exit 2
    with a clear message, and the program is not started."""
    d = H.tmpdir()
    os.mkdir(os.path.join(d, "adir"))
    os.symlink(os.path.join(d, "nowhere.vtr"), os.path.join(d, "dangling.vtr"))
    open(os.path.join(d, "target.vtr"), "w").close()
    os.symlink(os.path.join(d, "target.vtr"), os.path.join(d, "link.vtr"))
    marker = os.path.join(d, "started")
    cases = [("missing/x.vtr", "directory missing: No such file or directory"),
             ("adir", "adir is a directory; give a file name"),
             ("adir/", "adir/ is a directory; give a file name"),
             ("dangling.vtr", "dangling.vtr is a symlink; dumps are never written through one"),
             ("link.vtr", "link.vtr is a symlink"),
             ("x.%q.vtr", "unknown '%q'"), ("x.vtr%", "unknown '%'"),
             # %% is a plain '%' (src/output_path.h): a fixed path, checked as one
             ("missing%%/x.vtr", "directory missing%: No such file or directory")]
    for out, message in cases:
        r = run(["sh", "-c", "touch %s" % marker], "-o", out, "--fail-on-leak", cwd=d)
        expect_status(r, 2, "-o %s" % out)
        H.expect(message in r.stderr and r.stderr.count("\n") == 1,
                 "-o %s: expected one line saying %r\n%s" % (out, message, r.describe()))
        H.expect(not os.path.exists(marker), "-o %s: the program was started" % out)


# ---- 3. no dump, nothing to judge ----

def case_driver_missing():
    """libcuda.so.1 cannot be loaded: every cudaMalloc fails; nothing to
    judge (24), never 'no leaks'; check on that dump agrees."""
    d = H.tmpdir()
    only_runtime = os.path.join(d, "lib")
    os.mkdir(only_runtime)
    os.symlink(os.path.join(H.standin_dir(), "libcudart.so.13"),
               os.path.join(only_runtime, "libcudart.so.13"))
    env = {"LD_LIBRARY_PATH": only_runtime}
    r = run(tree("leaf"), "--fail-on-leak", cwd=d, env=env)
    expect_status(r, NO_DATA, "no driver")
    H.expect("nothing to judge for leaks: no CUDA allocation succeeded (1 failed: is the "
             "driver, libcuda.so.1, loadable?)" in r.stderr, r.describe())
    H.expect("no leaks" not in r.stderr, "a run without a driver must not pass as clean")
    dumps = written_dumps(r)
    H.check_summary(H.report(dumps[0]), allocations=0, failed_allocations=1)
    expect_status(vt("check", dumps[0]), NO_DATA, "check on a dump with no allocation")
    r = run(tree("leaf"), cwd=d, env=env)
    H.expect_eq("without --fail-on-leak: the program's status", status(r), 99)


def case_no_dump():
    """A program that never calls CUDA: no dump, and --fail-on-leak says so."""
    r = run(["true"], "--fail-on-leak")
    expect_status(r, NO_DATA, "no CUDA at all")
    H.expect("vramtrace: no dump: no process of the tree made a CUDA allocation call" in
             r.stderr, r.describe())
    expect_status(run(["true"]), 0, "without --fail-on-leak")


def case_empty_and_cut():
    """A 0-byte dump ended before its first record (24); one cut after 40 bytes holds no
    allocation: nothing to judge (24), and the report does not say 'no leaks'."""
    d = H.tmpdir()
    full = os.path.join(d, "full.vtr")
    H.expect_program_ok(run(tree("clean"), "-o", full, cwd=d))
    with open(full, "rb") as f:
        data = f.read()
    empty, cut = os.path.join(d, "empty.vtr"), os.path.join(d, "cut.vtr")
    open(empty, "wb").close()
    with open(cut, "wb") as f:
        f.write(data[:40])
    r = vt("check", empty)  # killed before its header
    expect_status(r, NO_DATA, "check on an empty file")
    H.expect_eq("message", r.stderr, "vramtrace: %s: nothing to judge for leaks: the process "
                "ended before its first record\n" % empty)
    r = vt("check", cut)
    expect_status(r, NO_DATA, "check on a 40-byte dump")
    H.expect("nothing to judge for leaks: no CUDA allocation succeeded (0 failed); the dump "
             "ends early: truncated" in r.stderr, r.describe())
    text = vt("report", cut).stdout
    H.expect(text.startswith("vramtrace: nothing to judge: no CUDA allocation succeeded") and
             "no leaks" not in text, text)
    os.unlink(empty)
    expect_status(vt("check", d), 0, "check DIR: the full dump passes, the cut one has nothing")


# ---- 4. endings ----

def case_crash_segv():
    """SIGSEGV: the crash's status (139) wins over the leaks; what was live
    is listed as live at the crash, in text and JSON."""
    r = run([os.path.join(H.env_path("RELIABILITY_DIR", "dir"), "crasher"), "segv"],
            "--fail-on-leak", env=sanitizer_env())
    expect_status(r, 128 + signal.SIGSEGV, "a crash with leaks and --fail-on-leak")
    H.expect("vramtrace: crashed with SIGSEGV: what was still allocated is listed as live at the "
             "crash, not as leaked\n" in r.stderr, r.describe())
    H.expect(leak_lines(r.stderr) == [] and "\nLive at the crash: " in r.stderr, r.describe())
    rep = H.report(written_dumps(r)[0])
    H.expect_eq("ending", rep["ending"], {"reason": "signal", "signal": 11, "status": None, "stop_cause": None,
                                          "dump_reopened": 0, "leaks_judged": False})
    live = H.live_view(rep, "signal")
    H.check_leak(live, function="leak_before_death", source=CRASHER_SRC, tag="crash",
                 nbytes=sum(CRASH["CRASH_BASE"] + i * 1000 for i in range(CRASH["CRASH_LEAKS"])),
                 api="cudaMalloc", kind="device", allocations=CRASH["CRASH_LEAKS"])


def signal_run(sig, own):
    """run --fail-on-leak -- tree signal SIG [own]; SIG sent once it is ready."""
    d = H.tmpdir()
    cmd = [H.vramtrace_exe(), "run", "--fail-on-leak", "--"] + tree("signal", str(int(sig)))
    cmd += ["own"] if own else []
    # SIG at its default action whatever the suite inherited (under nohup,
    # SIGHUP is ignored and the program would wait on)
    p = subprocess.Popen(cmd, cwd=d, env=H.base_env(), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True,
                         preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
    H.expect_eq("first line", p.stdout.readline(), "ready\n")
    child = int(open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()[0])
    os.kill(child, sig)
    out, err = p.communicate(timeout=H.TIMEOUT)
    return H.Run(cmd, p.returncode, "ready\n" + out, err, None, d)


def check_signal(sig):
    name = signal.Signals(sig).name
    for own in (False, True):
        r = signal_run(sig, own)
        what = "%s %s" % (name, "(the program's own handler)" if own else "")
        expect_status(r, 128 + sig, what)
        H.expect_eq("stdout " + what, r.stdout, "ready\nown handler\n" if own else "ready\n")
        dumps = written_dumps(r)
        H.expect_eq("dumps " + what, len(dumps), 1)
        rep = H.report(dumps[0])
        H.check_complete(rep)
        H.expect_eq("ending " + what, rep["ending"]["signal"], int(sig))
        H.check_leak(H.live_view(rep, "signal"), function="leak_parent", source=SRC,
                     tag="parent", nbytes=PARENT, api="cudaMalloc", kind="device",
                     caller="wait_for_signal")
        H.expect("vramtrace: killed by %s: what was still allocated is listed as live when it "
                 "was killed, not as leaked" % name in r.stderr, r.describe())


def case_sigterm():
    check_signal(signal.SIGTERM)


def case_sigint():
    check_signal(signal.SIGINT)


def case_sighup():
    check_signal(signal.SIGHUP)


def interpreters():
    """CPython 3.8 and later (they die of SIGINT after an unhandled
    KeyboardInterrupt): pyenv's and Debian's, where installed."""
    found = []
    root = os.path.expanduser("~/.pyenv/versions")
    for v in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        m = re.match(r"3\.(\d+)\.", v)
        exe = os.path.join(root, v, "bin", "python3")
        if m and int(m.group(1)) >= 8 and os.path.isfile(exe):
            found.append(exe)
    if os.path.isfile("/usr/bin/python3"):
        found.append("/usr/bin/python3")
    return found or [sys.executable]


def case_python_ctrl_c():
    """Ctrl-C in Python: KeyboardInterrupt, then CPython kills itself with
    SIGINT (its handler gone): the dump still gets its footer, status 130."""
    d = H.tmpdir()
    script = os.path.join(d, "ki.py")
    with open(script, "w") as f:
        f.write("import ctypes, time\nlib = ctypes.CDLL('libcudart.so.13')\n"
                "p = ctypes.c_void_p()\n"
                "assert lib.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(%d)) == 0\n"
                "print('ready', flush=True)\ntime.sleep(60)\n" % LEAF)
    for python in interpreters():
        cmd = [H.vramtrace_exe(), "run", "--json", "--", python, script]
        p = subprocess.Popen(cmd, cwd=d, env=H.base_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True)
        H.expect_eq("%s: first line" % python, p.stdout.readline(), "ready\n")
        child = int(open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()[0])
        os.kill(child, signal.SIGINT)
        out, err = p.communicate(timeout=H.TIMEOUT)
        H.expect(p.returncode == 128 + signal.SIGINT and "KeyboardInterrupt" in err,
                 "%s: status %d\n%s" % (python, p.returncode, err))
        rep = json.loads(out)
        H.check_complete(rep)
        H.expect_eq("%s: ending" % python, rep["ending"]["signal"], signal.SIGINT)
        H.leak_by_bytes(H.live_view(rep, "signal"), LEAF)


def case_underscore_exit():
    """_exit(5): its own footer; its status without --fail-on-leak; its
    allocations are leaks (it ended on its own)."""
    r = run(tree("_exit"))
    expect_status(r, 5, "_exit(5)")
    rep = H.report(written_dumps(r)[0])
    H.expect_eq("ending", rep["ending"], {"reason": "_exit", "signal": None, "status": 5, "stop_cause": None,
                                          "dump_reopened": 0, "leaks_judged": True})
    H.check_complete(rep)
    H.check_leak(rep, function="leak_parent", source=SRC, tag="parent", nbytes=PARENT,
                 api="cudaMalloc", kind="device")
    H.expect("vramtrace: the process ended with _exit(5)" in r.stderr, r.describe())
    expect_status(run(tree("_exit"), "--fail-on-leak"), LEAK_STATUS, "_exit with a leak")


def case_exec_ending():
    """exec: the old program's dump ends "exec" (its leak counts), the new
    one (same pid) gets its own dump, without a fresh-name warning."""
    r = run(tree("exec"), "--fail-on-leak")
    expect_status(r, LEAK_STATUS, "exec after a leak")
    before, after = [H.report(p) for p in written_dumps(r)]
    H.expect_eq("pids", before["process"]["pid"], after["process"]["pid"])
    H.expect_eq("first ending", before["ending"]["reason"], "exec")
    H.check_leak(before, function="leak_parent", source=SRC, tag="parent", nbytes=PARENT,
                 api="cudaMalloc", kind="device")
    H.expect_eq("second ending", after["ending"]["reason"], "exit")
    H.check_leak(after, function="leak_leaf", source=SRC, tag="leaf", nbytes=LEAF,
                 api="cudaMalloc", kind="device")
    H.expect("exists; writing" not in r.stderr, r.describe())


def case_still_running():
    """A live process's dump: "still running" (ending running; check 24);
    once it is killed by SIGKILL: "gone (no footer)" (ending unknown: the dump
    alone cannot say it was a kill)."""
    d = H.tmpdir()
    dump = os.path.join(d, "live.vtr")
    env = H.base_env({"VRAMTRACE_OUTPUT": dump})
    env["LD_PRELOAD"] = ":".join(filter(None, [env.get("LD_PRELOAD"), H.vramtrace_lib()]))
    p = subprocess.Popen(tree("wait"), env=env, cwd=d, stdout=subprocess.PIPE,
                         universal_newlines=True)
    try:
        H.expect_eq("first line", p.stdout.readline(), "ready\n")
        rep = H.live_view(H.report(dump), "running")
        H.leak_by_bytes(rep, PARENT)
        text = vt("report", dump).stdout
        H.expect("vramtrace: still running: what is allocated so far is listed as live" in text,
                 text)
        r = vt("check", dump)
        expect_status(r, NO_DATA, "check on a running process's dump")
        H.expect("nothing to judge for leaks: the process is still running" in r.stderr,
                 r.describe())
    finally:
        p.kill()
        p.wait()
    rep = H.live_view(H.report(dump), "unknown")
    H.leak_by_bytes(rep, PARENT)
    text = vt("report", dump).stdout
    H.expect("vramtrace: gone (no footer): the process ended without saying how" in text, text)


# ---- 6. suppressions ----

def case_comment_suppressions():
    """The README's example: trailing '# comments' are comments; the
    suppressions used are tabled, the unused ones listed; --gen-suppressions
    writes a file that suppresses every leak."""
    d = H.tmpdir()
    dump = os.path.join(d, "t.vtr")
    H.expect_program_ok(run(tree("fork", "1"), "-o", os.path.join(d, "t.%p.vtr"), cwd=d))
    supp = os.path.join(d, "vram.supp")
    with open(supp, "w") as f:
        f.write("# ci/vram.supp\nleak:^leak_child$      # a function\n"
                "leak:tests/programs/tree.c  # a source file\n"
                "leak:libmyplugin.so         # a module\n")
    r = vt("check", "--suppressions", supp, d)
    expect_status(r, 0, "both leaks suppressed by commented lines")
    H.expect("      1 %15d  ^leak_child$\n" % CHILD in r.stdout, r.describe())
    H.expect("      1 %15d  tests/programs/tree.c\n" % PARENT in r.stdout, r.describe())
    H.expect(r.stdout.endswith("\nSuppressions not used (they matched no leak):\n"
                               "  leak:libmyplugin.so  (%s:4)\n" % supp), r.describe())
    gen = vt("report", "--gen-suppressions", d)
    H.expect_eq("gen status", gen.status, 0)
    H.expect(re.search(r"^leak:\^leak_child\$$", gen.stdout, re.M) and
             re.search(r"^leak:\^leak_parent\$$", gen.stdout, re.M), gen.stdout)
    with open(supp, "w") as f:
        f.write(gen.stdout)
    expect_status(vt("check", "--suppressions", supp, d), 0, "check with the generated file")
    del dump


# ---- 7. check --skip, check DIR ----

def case_check_skip():
    """A cache that fills in 4 steps, then stays flat: not growing in report,
    and check --max-growth 0 passes as well, with or without --skip (a
    warm-up is a one-time rise: the growth rule of both)."""
    r = H.run_traced([H.program("usage"), "warmup"], mode="preload")
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    H.expect_eq("growing sites", [s for s in rep["sites"] if s["growing"]], [])
    for skip in ((), ("--skip", "2"), ("--skip", "3")):
        c = vt("check", "--max-growth", "0", *skip, r.dump)
        expect_status(c, 0, "check --max-growth 0 %s" % " ".join(skip))
    expect_status(vt("check", "--skip", "x", r.dump), 2, "a bad --skip")
    rr = H.run_traced([H.program("usage"), "warmup"], run_args=["--max-growth", "0", "--skip",
                                                                 "3"])
    expect_status(rr, 0, "run --max-growth 0 --skip 3")


# ---- 7b. the JSON's lists and its summary ----

# each list of what was allocated at the end, and the summary figures it sums to
LIST_FIGURES = {"leaks": "leaked", "held": "held", "known": "known"}


def check_list_sums(what, rep):
    """Every summary figure is the sum of its own list (device and managed
    memory apart from page-locked host memory): a script that adds up
    "leaks" gets summary.leaked_bytes, no more."""
    s = rep["summary"]
    for key, figure in LIST_FIGURES.items():
        for host in (False, True):
            entries = [e for e in rep[key] if (e["kind"] == "host") == host]
            name = ("host_" if host else "") + figure
            H.expect_eq("%s: sum of %s%s, bytes" % (what, key, " (host)" if host else ""),
                        sum(e["bytes"] for e in entries), s[name + "_bytes"])
            H.expect_eq("%s: sum of %s%s, allocations" % (what, key, " (host)" if host else ""),
                        sum(e["allocations"] for e in entries), s[name + "_allocations"])
    H.expect(all(e["known"] is None for e in rep["leaks"] + rep["held"]) and
             all(e["known"] for e in rep["known"]),
             "%s: known framework memory outside its own list: %r" % (what, rep))


def case_json_list_sums():
    """Leaks, held and known framework memory, each in its own list, each
    summed by its summary figure: a C++ program with four frameworks'
    memory and two leaks of its own, XLA's host and device allocators, and
    a Python script holding buffers to its end and leaking one."""
    import test_known as K
    import test_python as P
    check_list_sums("frameworks", H.report(K.traced().dump, "--top", "0"))
    check_list_sums("xla-host", H.report(K.traced("xla-host").dump, "--top", "0"))
    r = H.run_traced([sys.executable, P.SCRIPT_END], mode="preload")
    H.expect_program_ok(r)
    rep = H.report(r.dump, "--top", "0")
    H.expect(rep["held"] and rep["leaks"], "the script: both lists filled: %r" % rep)
    check_list_sums("py_script_end", rep)


# ---- 8. invalid and double frees ----

def check_bad_frees(rep, free_stacks):
    bad = rep["invalid_frees"]
    H.expect_eq("invalid frees", len(bad), 2)
    dbl, unknown = bad
    H.expect_eq("double_free", (dbl["double_free"], unknown["double_free"]), (True, False))
    H.expect_eq("api", (dbl["api"], unknown["api"]), ("cudaFree", "cudaFree"))
    for entry, tag, fn in ((dbl, "frees_double", "frees_double"),
                           (unknown, "frees_unknown", "frees_unknown")):
        fr = entry["frames"]
        H.expect_eq("%s: innermost frame" % tag, (fr[0]["function"], fr[0]["line"]),
                    (fn, H.marker_line(SRC, tag)))
        H.expect_eq("%s: caller" % tag, fr[1]["function"], "bad_frees")
    alloc = dbl["allocated_frames"]
    H.expect_eq("allocated at", (alloc[0]["function"], alloc[0]["line"]),
                ("frees_alloc", H.marker_line(SRC, "frees_alloc")))
    H.expect_eq("allocated bytes", dbl["allocated_bytes"], FREES)
    H.expect(isinstance(dbl["first_freed_time_ns"], int), dbl)
    if free_stacks:
        first = dbl["first_freed_frames"]
        H.expect_eq("first freed at", (first[0]["function"], first[0]["line"]),
                    ("frees_first", H.marker_line(SRC, "frees_first")))
    else:
        H.expect_eq("first_freed_frames without free stacks", dbl["first_freed_frames"], None)
    H.expect_eq("unknown pointer: allocated_frames", unknown["allocated_frames"], None)
    H.expect_eq("unknown pointer: first_freed_frames", unknown["first_freed_frames"], None)
    H.expect(unknown["address"] != dbl["address"], "addresses")
    H.check_summary(rep, invalid_frees=2, allocations=1, frees=1)


def case_double_free():
    """A double free and a free of an unknown pointer, memcheck style, in
    text, JSON and HTML, in events and aggregate mode; they fail
    --fail-on-leak and check by default."""
    for mode_args, free_stacks in (([], False), ([], True), (["--aggregate"], True)):
        d = H.tmpdir()
        args = ["--fail-on-leak"] + mode_args + (["--free-stacks"] if free_stacks else [])
        r = run(tree("frees"), *args, cwd=d)
        expect_status(r, LEAK_STATUS, "invalid frees with --fail-on-leak")
        H.expect("2 invalid frees (refused by the driver), over --max-invalid-frees 0" in
                 r.stderr, r.describe())
        dump = written_dumps(r)[0]
        check_bad_frees(H.report(dump), free_stacks)
        text = vt("report", dump).stdout
        H.expect(re.search(r"^Invalid free \(double free\) of 0x[0-9a-f]+ via cudaFree", text,
                           re.M) and "    #0 frees_double " in text and
                 re.search(r"  Address 0x[0-9a-f]+ is %d bytes .* allocated via cudaMalloc" % FREES,
                           text) and "    #0 frees_alloc " in text, text)
        H.expect(("    #0 frees_first " in text) == free_stacks, text)
        H.expect("is no allocation the tracer saw, nor one freed lately" in text, text)
        html = os.path.join(d, "r.html")
        H.expect_eq("html", vt("report", "--html", html, dump).status, 0)
        page = open(html).read()
        H.expect('<h2 id="invalid">Invalid frees</h2>' in page and "frees_double" in page and
                 "frees_alloc" in page, "the HTML lacks the invalid frees")
        expect_status(vt("check", dump), LEAK_STATUS, "check: invalid frees fail by default")
        expect_status(vt("check", "--max-invalid-frees", "2", dump), 0, "--max-invalid-frees 2")
        expect_status(vt("check", "--max-invalid-frees", "1", "--error-exitcode", "42", dump),
                      42, "--error-exitcode")


def case_runtime_error_names():
    """A runtime call's refused free is named in the runtime's enum
    (cudaFree: cudaErrorInvalidValue), not the driver's (issue 38)."""
    r = run(tree("frees"), cwd=H.tmpdir())
    dump = written_dumps(r)[0]
    text = vt("report", dump).stdout
    lines = [l for l in text.splitlines() if l.startswith("Invalid free")]
    H.expect_eq("invalid free lines", [re.sub(r"0x[0-9a-f]+", "ADDR", l) for l in lines],
                ["Invalid free (double free) of ADDR via cudaFree: cudaErrorInvalidValue (1), 1 time",
                 "Invalid free of ADDR via cudaFree: cudaErrorInvalidValue (1), 1 time"])
    H.expect_eq("JSON error names", [(f["api"], f["error"], f["error_name"])
                                     for f in H.report(dump)["invalid_frees"]],
                [("cudaFree", 1, "cudaErrorInvalidValue")] * 2)


# ---- 9. run's outputs and options ----

def case_run_json_stdout():
    """run --json: the JSON alone on stdout, however noisy the program's
    stderr; --json-output and --log-file put reports into files."""
    d = H.tmpdir()
    r = run(tree("noisy"), "--json", cwd=d)
    H.expect_program_ok(r)
    data = json.loads(r.stdout)
    H.check_summary(data, leaked_bytes=LEAF)
    H.expect_eq("noise on stderr", r.stderr.count("noise "), T["TREE_NOISE_LINES"])
    H.expect("{\"vramtrace_version\"" not in r.stderr, "JSON on stderr")
    jpath, log = os.path.join(d, "r.json"), os.path.join(d, "r.log")
    r = run(tree("noisy"), "--json-output", jpath, "--log-file", log, "--fail-on-leak", cwd=d)
    expect_status(r, LEAK_STATUS, "leak with --json-output")
    H.check_summary(json.load(open(jpath)), leaked_bytes=LEAF)
    text = open(log).read()
    H.expect(text.startswith("vramtrace: dump written to ") and "Leak of %d bytes" % LEAF in text,
             text)
    H.expect("Leak of" not in r.stderr, "the text report belongs in the log file")
    H.expect("leaked, over --max-leaked 0" in r.stderr, "the verdict stays on stderr")


def case_run_cli():
    """--fail-on-leak is a flag: a value after it is refused (not run as the
    command); the usage line says how limits are given."""
    r = run(tree("leaf"), "--fail-on-leak", "1MiB")
    r = vt("run", "--fail-on-leak", "1MiB", "--", *tree("leaf"))
    expect_status(r, 2, "--fail-on-leak 1MiB")
    H.expect_eq("message", r.stderr, "vramtrace run: --fail-on-leak takes no value; for a limit "
                "give --max-leaked 1MiB (see vramtrace run --help)\n")
    usage = vt("run", "--help").stdout
    H.expect("[--fail-on-leak] [--max-leaked SIZE]" in usage and "LIMIT..." not in usage, usage)
    expect_status(run(tree("leaf"), "--max-leaked", str(LEAF)), 0, "within --max-leaked")
    expect_status(run(tree("leaf"), "--error-exitcode", "9"), 9, "--error-exitcode 9")
    expect_status(vt("run", "--error-exitcode", "0", "--", "true"), 2, "--error-exitcode 0")


if __name__ == "__main__":
    H.main(globals())
