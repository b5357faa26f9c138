# SPDX-License-Identifier: MIT
"""The program's descriptors, signals and pipes stay its own (issue 39):
libunwind's memory checks open nothing, the tracer's fatal-signal handlers
are invisible to the program's sigaction and signal calls, and the line
naming the dump never kills the process nor lands in a file of the
program's. Each case runs tests/reliability/hostile.c (or Python) traced
and untraced: the exit status, the output and the files written are the
same, and the report is right."""
import os
import re
import resource
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = os.path.join(H.source_root(), "tests", "reliability", "hostile.c")
HOSTILE = H.c_defines(SRC)


def hostile():
    path = os.path.join(H.env_path("RELIABILITY_DIR", "dir"), "hostile")
    if not os.path.isfile(path):
        H.fail("test program %s is not built" % path)
    return path


def run(argv, env, cwd, preexec=None, shell=False):
    p = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, errors="replace", timeout=H.TIMEOUT,
                       preexec_fn=preexec, shell=shell,
                       executable="/bin/bash" if shell else None)
    return H.Run(argv if not shell else [argv], p.returncode, p.stdout, p.stderr, None, cwd,
                 None)


def preload_env(cwd, extra=None):
    """LD_PRELOAD=libvramtrace.so with the dump at CWD/trace.vtr."""
    env = H.base_env(extra)
    env["LD_PRELOAD"] = ":".join(filter(None, [env.get("LD_PRELOAD"), H.vramtrace_lib()]))
    env["VRAMTRACE_OUTPUT"] = os.path.join(cwd, "trace.vtr")
    return env


def expect_same(what, plain, traced):
    H.expect_eq(what + ": exit status and output, untraced vs traced",
                (H.run_status(traced), traced.stdout), (H.run_status(plain), plain.stdout))


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def nofile(n):
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))


def expect_site(rep, nbytes, callers):
    """The one call site: NBYTES allocated in leak() at its marked line,
    called through CALLERS (in order, others between)."""
    sites = rep["sites"]
    H.expect_eq("call sites", len(sites), 1)
    fr = H.frames(sites[0])
    H.expect_eq("bytes", sites[0]["peak_live_bytes"], nbytes)
    H.expect_eq("innermost frame", (fr[0].get("function"),
                                    os.path.basename(fr[0].get("file") or ""), fr[0].get("line")),
                ("leak", "hostile.c", H.marker_line(SRC, "hostile")))
    names = [f.get("function") for f in fr]
    pos = 1
    for caller in callers:
        H.expect(caller in names[pos:], "no frame %s after %r in %r" % (
            caller, names[pos - 1], names))
        pos = names.index(caller, pos) + 1


def expect_main_leak(dump):
    """The dump of a hostile run that leaked MAIN_LEAK_BYTES and exited: leaked (or freed by the context's teardown,
    where the stand-in's teardown ran before the end)."""
    rep = H.report(dump)
    s = H.check_summary(rep, allocations=1, frees=0)
    H.expect_eq("leaked + freed by teardown", s["leaked_bytes"] + s["teardown_freed_bytes"],
                HOSTILE["MAIN_LEAK_BYTES"])
    expect_site(rep, HOSTILE["MAIN_LEAK_BYTES"], ["main"])
    H.check_complete(rep)
    H.expect_eq('"ending"."reason"', rep["ending"]["reason"], "exit")
    return rep


# ---- libunwind's validation pipe ----

def case_unwind_closefrom():
    """A daemon closes every descriptor from 3 on and opens its input (3) and
    output (4); an allocation from a signal handler makes libunwind walk
    through the signal frame and check the memory it reads. Its input is
    read whole and its output written as untraced (libunwind's pipe, made
    at start-up as 3 and 4, read a byte of the input and wrote bytes of
    memory into the output), and the leak is reported at its line."""
    content = b"".join(b"line %04d of the program's own input\n" % i for i in range(200))
    outs = {}
    runs = {}
    for mode in ("plain", "traced"):
        cwd = H.tmpdir()
        src, dst = os.path.join(cwd, "in.txt"), os.path.join(cwd, "out.txt")
        with open(src, "wb") as f:
            f.write(content)
        env = H.base_env() if mode == "plain" else preload_env(cwd)
        runs[mode] = run([hostile(), "closefrom", src, dst], env, cwd)
        runs[mode].dump = env.get("VRAMTRACE_OUTPUT")
        outs[mode] = read_bytes(dst)
    expect_same("closefrom", runs["plain"], runs["traced"])
    H.expect_program_ok(runs["plain"], 0)
    H.expect_eq("untraced output", outs["plain"], content)
    H.expect(outs["traced"] == content,
             "the program's output file differs traced (%d bytes, first %r)"
             % (len(outs["traced"]), outs["traced"][:40]))
    rep = H.report(runs["traced"].dump)
    H.check_complete(rep)
    expect_site(rep, HOSTILE["HANDLER_LEAK_BYTES"], ["on_usr1", "closefrom_mode", "main"])


def expect_same_under_limit(argv, limit, expected):
    """ARGV under `ulimit -n LIMIT` prints EXPECTED untraced, and the same
    under plain LD_PRELOAD and in a `vramtrace run` tree."""
    plain = run(argv, H.base_env(), H.tmpdir(), nofile(limit))
    H.expect_eq("untraced", (plain.status, plain.stdout), (0, expected))
    cwd = H.tmpdir()
    expect_same("LD_PRELOAD, ulimit -n %d" % limit, plain,
                run(argv, preload_env(cwd), cwd, nofile(limit)))
    cwd = H.tmpdir()
    traced = run([H.vramtrace_exe(), "run", "--"] + argv, H.base_env(), cwd, nofile(limit))
    expect_same("vramtrace run, ulimit -n %d" % limit, plain, traced)


def case_unwind_nofile_limit():
    """Under `ulimit -n 8` a program that makes no CUDA call opens as many
    files traced as untraced (5): the tracer holds no descriptor."""
    expect_same_under_limit([hostile(), "files"], 8, "opened 5 files (Too many open files)\n")


def case_unwind_python_nofile():
    """A Python that never uses CUDA starts under `ulimit -n 6`, in a
    `vramtrace run` tree and under plain LD_PRELOAD, as it does untraced."""
    expect_same_under_limit([sys.executable, "-c", "import json; print(json.dumps([6]))"], 6,
                            "[6]\n")


# ---- fatal-signal handlers ----

def expect_same_traced(what, argv, untraced):
    """ARGV run untraced (exit 0, stdout matching the pattern UNTRACED) and
    under plain LD_PRELOAD: the same, and a dump of its one leak ending with
    the exit."""
    plain = run(argv, H.base_env(), H.tmpdir())
    H.expect(plain.status == 0 and re.fullmatch(untraced, plain.stdout),
             "untraced, expected %r:\n%s" % (untraced, plain.describe()))
    cwd = H.tmpdir()
    env = preload_env(cwd)
    expect_same(what, plain, run(argv, env, cwd))
    expect_main_leak(env["VRAMTRACE_OUTPUT"])


def case_signals_chaining_handler():
    """A SIGTERM handler installed after CUDA starts calls the previous one
    unless it is SIG_DFL (crash reporters, language runtimes): it finds
    SIG_DFL, and the graceful shutdown ends with 0 as untraced; the dump
    ends with the exit."""
    expect_same_traced("chaining SIGTERM handler", [hostile(), "chain"],
                       "shut down gracefully\n")


def case_signals_queries():
    """Once CUDA is in use (the tracer's handlers installed), sigaction's
    answer for every signal and signal()'s previous handler are what they
    are untraced, and so are sysv_signal's and sigset's, and what sigaction
    says after them; sigset's SIG_HOLD blocks and keeps the disposition."""
    # (what the test runner leaves ignored stays ignored: any disposition)
    lines = ["%d: .*" % sig for sig in range(1, 65)]
    lines += ["signal\\(%d\\): was \\w+, then mine" % sig for sig in (2, 15, 11, 12, 13)]
    lines += ["call %d: was \\w+, now mine" % call for call in (0, 1)]
    lines += ["hold: default, hold, hold, blocked 0"]
    expect_same_traced("sigaction and signal queries", [hostile(), "queries"],
                       "\n".join(lines) + "\n")


def case_signals_racing():
    """One thread sets SIGTERM's handler and the default again, 20,000
    times, while another asks sigaction: every answer is the program's own
    (its handler or the default), never the tracer's handler caught between
    the program's call and the tracer taking the signal back."""
    expect_same_traced("sigaction asked while another thread sets it", [hostile(), "racing"],
                       "foreign 0, then default\n")


def case_signals_vfork_child():
    """A vfork child shares the tracer's memory, not its parent's signal
    dispositions: what it sets before exec (Python's subprocess restores
    SIGPIPE's default) leaves what the parent's sigaction reports alone."""
    expect_same_traced("dispositions after a vfork child", [hostile(), "vfork"],
                       "child 0\nSIGPIPE ignore\nSIGTERM default\n")


# ---- the line naming the dump ----

def case_exit_line_head():
    """`prog 2>&1 | head -1` with pipefail under plain LD_PRELOAD: the line
    naming the dump meets a pipe whose reader has gone; it is lost, the
    process is not (exit 0, not 141 of SIGPIPE)."""
    line = '"$HOSTILE" head 2>&1 | head -1'
    plain = run("set -o pipefail; " + line, dict(H.base_env(), HOSTILE=hostile()), H.tmpdir(),
                shell=True)
    H.expect_eq("untraced", (plain.status, plain.stdout), (0, "first line\n"))
    cwd = H.tmpdir()
    env = dict(preload_env(cwd, {"VRAMTRACE_QUIET": ""}), HOSTILE=hostile())
    traced = run("set -o pipefail; " + line, env, cwd, shell=True)
    expect_same("| head -1", plain, traced)
    expect_main_leak(env["VRAMTRACE_OUTPUT"])


def case_exit_line_closed_stderr():
    """Started with stderr closed, the program opens its own file (it gets
    descriptor 2): the file holds what the program wrote and nothing of the
    tracer's; the dump is whole."""
    files = {}
    for mode in ("plain", "traced"):
        cwd = H.tmpdir()
        out = os.path.join(cwd, "own.txt")
        env = H.base_env() if mode == "plain" else preload_env(cwd, {"VRAMTRACE_QUIET": ""})
        r = run('exec "$HOSTILE" stderr "$OUT" 2>&-', dict(env, HOSTILE=hostile(), OUT=out),
                cwd, shell=True)
        H.expect_program_ok(r, 0)
        files[mode] = read_bytes(out)
        if mode == "traced":
            expect_main_leak(env["VRAMTRACE_OUTPUT"])
    H.expect_eq("untraced file", files["plain"], b"the program's own line\n")
    H.expect_eq("the program's file, traced", files["traced"], files["plain"])


def case_exit_line_on_stderr():
    """Where stderr is what the process started with, the line is there."""
    cwd = H.tmpdir()
    env = preload_env(cwd, {"VRAMTRACE_QUIET": ""})
    r = run([hostile(), "chain"], env, cwd)
    H.expect_program_ok(r, 0)
    dump = env["VRAMTRACE_OUTPUT"]
    H.expect_eq("stderr", r.stderr, "vramtrace: dump written to %s; read it with: vramtrace "
                "report %s\n" % (dump, dump))


if __name__ == "__main__":
    H.main(globals())
