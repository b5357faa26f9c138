#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""vramtrace attach / detach over the stand-ins: tests/programs/attach_target.c
is started untraced, allocates, waits for a line on stdin, and is attached
then; it allocates through every route (runtime, driver through
cuGetProcAddress, a plugin dlopen'ed after attach, another thread), waits
again and is detached; then it allocates through the same routes once more.
Exactly the allocations between attach and detach are in the dump, at their
lines; what was held before attach is reported as such; the program's output
and exit status are an untraced run's. And the refusals, each touching
nothing. tests/programs/attach_signals.c: the program's signal dispositions,
mask and alternate stack read back while attached and after detach are
exactly an untraced run's; a crash while attached ends the dump."""
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("attach_target.c")
SIGNALS_SRC = H.program_source("attach_signals.c")
ENDING_SRC = H.program_source("attach_ending.c")
ENDING = H.c_defines(ENDING_SRC)
STATIC_SRC = H.program_source("attach_static.c")
STATIC = H.c_defines(STATIC_SRC)
PLUGIN_SRC = H.program_source("leakplugin.c")
SIZES = H.c_defines(SRC)
PLUGIN_LEAK_BYTES = H.c_defines(PLUGIN_SRC)["PLUGIN_LEAK_BYTES"]
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

# What was traced between attach and detach: bytes -> (function, file, marker).
ATTACHED = {
    SIZES["RT_LEAK_BYTES"]: ("rt_leak", SRC, "rt_after"),
    SIZES["DRV_LEAK_BYTES"]: ("drv_leak", SRC, "drv_after"),
    PLUGIN_LEAK_BYTES: ("plugin_leak", PLUGIN_SRC, "plugin"),
    SIZES["THREAD_LEAK_BYTES"]: ("thread_leak", SRC, "thread_after"),
}


class Target:
    """attach_target running untraced, driven line by line."""

    def __init__(self, argv=None, env=None):
        self.cwd = H.tmpdir()
        argv = argv or [H.program("attach_target"), H.program("libleakplugin.so")]
        self.p = subprocess.Popen(argv, env=env or H.base_env(), cwd=self.cwd,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.out = []

    def said(self, expected):
        line = self.p.stdout.readline()
        self.out.append(line)
        if line.strip() != expected:
            self.p.kill()
            H.fail("the program said %r, expected %r; stderr: %s"
                   % (line, expected, self.p.stderr.read()))

    def said_after(self, expected):
        """Lines up to one that is EXPECTED."""
        for line in iter(self.p.stdout.readline, ""):
            self.out.append(line)
            if line.strip() == expected:
                return
        self.p.kill()
        H.fail("the program ended before saying %r; stderr: %s" % (expected, self.p.stderr.read()))

    def go_on(self):
        self.p.stdin.write("go\n")
        self.p.stdin.flush()

    def attach(self):
        """Once the program is ready: attached, tracing into a dump in its folder."""
        dump = os.path.join(self.cwd, "attached.vtr")
        self.said("ready")
        expect_ok(vramtrace("attach", self.p.pid, "-o", dump), "vramtrace attach")
        return dump

    def attached_part(self):
        """From the first wait to the second: everything traced runs."""
        self.go_on()
        self.said("attached part done")

    def to_end(self):
        self.go_on()
        return self.finish()

    def finish(self):
        try:
            out, err = self.p.communicate(timeout=H.TIMEOUT)
        except subprocess.TimeoutExpired:
            self.p.kill()
            H.fail("the program did not finish")
        return "".join(self.out) + out, err, self.p.returncode


def vramtrace(*args, user=None):
    """vramtrace ARGS, run by USER (a command prefix: setpriv, nsenter)."""
    cmd = (user or []) + [H.vramtrace_exe()] + [str(a) for a in args]
    env = H.base_env()
    if user is NOBODY:
        # a coverage build's counts go where nobody may write them (else
        # gcov says on stderr that it cannot, where the test expects one line)
        counts = H.tmpdir()
        os.chmod(counts, 0o777)
        env["GCOV_PREFIX"] = counts
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=H.TIMEOUT)


def expect_ok(r, what):
    if r.returncode != 0:
        H.fail("%s: exit status %d\n%s%s" % (what, r.returncode, r.stdout, r.stderr))


def expect_refused(r, words):
    """One `vramtrace: ...` line naming why, exit status 1."""
    lines = r.stderr.splitlines()
    H.expect_eq("exit status", r.returncode, 1)
    H.expect(len(lines) == 1 and lines[0].startswith("vramtrace: ") and words in lines[0],
             "expected one 'vramtrace: ...%s...' line, got %r" % (words, r.stderr))


def untraced_run():
    t = Target()
    t.said("ready")
    t.attached_part()
    return t.to_end()


def attached_run():
    """(dump, output, stderr, status) of a run attached after "ready" and
    detached after "attached part done"."""
    t = Target()
    dump = t.attach()
    t.attached_part()
    expect_ok(vramtrace("detach", t.p.pid), "vramtrace detach")
    out, err, status = t.to_end()
    return dump, out, err, status


def case_lines():
    dump, _, _, _ = attached_run()
    rep = H.live_view(H.report(dump), "detached")
    got = sorted(lk["bytes"] for lk in H.leaks(rep))
    H.expect_eq("live allocations traced between attach and detach", got, sorted(ATTACHED))
    for nbytes, (function, source, tag) in ATTACHED.items():
        top = H.frames(H.leak_by_bytes(rep, nbytes))[0]
        H.expect_eq("function of the %d bytes" % nbytes, top.get("function"), function)
        H.expect_eq("line of the %d bytes" % nbytes, (os.path.basename(top.get("file") or ""),
                                                      top.get("line")),
                    (os.path.basename(source), H.marker_line(source, tag)))
    s = H.summary(rep)
    # the four above and the runtime pair; one free of it and one of memory
    # allocated before attach; nothing after detach
    H.expect_eq("allocations", s["allocations"], 5)
    H.expect_eq("frees", s["frees"], 1)
    H.expect_eq("untraced_frees", s["untraced_frees"], 1)


def case_untouched():
    dump, out, err, status = attached_run()
    plain_out, plain_err, plain_status = untraced_run()
    H.expect_eq("exit status attached", status, plain_status)
    H.expect_eq("exit status", status, 0)
    H.expect_eq("stdout attached and detached", out, plain_out)
    H.expect_eq("stderr attached and detached", err, plain_err)


def case_held_before():
    dump, _, _, _ = attached_run()
    rep = H.report(dump)
    attach = rep.get("attach") or {}
    held = attach.get("held_before") or []
    H.expect_eq("devices with memory held before attach", [h.get("device") for h in held], [0])
    H.expect_eq("bytes held before attach", held[0].get("bytes"),
                SIZES["HELD_BYTES"] + SIZES["FREED_LATER_BYTES"])
    # libcudart's table of the driver functions it fetched before attach is
    # repointed to the wrappers: only what lies outside static data is unseen
    not_seen = attach.get("not_seen", [])
    H.expect(len(not_seen) == 1 and "libcudart" not in not_seen[0],
             "libcudart's repointed driver functions are listed as not seen: %r" % attach)
    text = subprocess.run([H.vramtrace_exe(), "report", dump], capture_output=True, text=True)
    H.expect("1.1 MiB (1114112 bytes) held on device 0 before attach" in text.stdout,
             "the text report does not say what was held before attach:\n" + text.stdout)
    H.expect("1 free of memory allocated before attach" in text.stdout,
             "the text report does not say the untraced free was of memory held before:\n"
             + text.stdout)


def static_run(attach):
    """attach_static (its runtime linked in), attached after "ready" and
    detached after "attached part done" when ATTACH: (dump, output, status)."""
    t = Target([H.program("attach_static")])
    dump = t.attach() if attach else t.said("ready")
    t.attached_part()
    if attach:
        expect_ok(vramtrace("detach", t.p.pid), "vramtrace detach")
    out, _, status = t.to_end()
    return dump, out, status


def static_runtime_traced():
    """A runtime linked into the program called its driver functions through
    the table it fetched before attach: those words are ours while attached,
    so its allocations are seen at their lines; after detach the table holds
    the driver's functions again and nothing more is traced. Returns what the
    report says was not seen."""
    dump, out, status = static_run(True)
    _, plain_out, plain_status = static_run(False)
    H.expect_eq("exit status", (status, plain_status), (0, 0))
    H.expect_eq("stdout attached and detached", out, plain_out)
    H.expect("driver table as before attach" in out, "the runtime's table was not put back:\n" + out)
    rep = H.live_view(H.report(dump), "detached")
    expected = {STATIC["STATIC_LEAK_BYTES"]: ("static_leak", "static_after"),
                STATIC["STATIC_MANAGED_BYTES"]: ("static_managed", "managed_after")}
    H.expect_eq("live allocations traced between attach and detach",
                sorted(lk["bytes"] for lk in H.leaks(rep)), sorted(expected))
    for nbytes, (function, tag) in expected.items():
        top = H.frames(H.leak_by_bytes(rep, nbytes))[0]
        H.expect_eq("place of the %d bytes" % nbytes,
                    (top.get("function"), os.path.basename(top.get("file") or ""), top.get("line")),
                    (function, "attach_static.c", H.marker_line(STATIC_SRC, tag)))
    s = H.summary(rep)
    H.expect_eq("allocations, frees", (s["allocations"], s["frees"]), (3, 1))
    return (rep.get("attach") or {}).get("not_seen", [])


def case_static_runtime():
    not_seen = static_runtime_traced()
    H.expect(len(not_seen) == 1 and "statically" not in not_seen[0],
             "the patched static runtime is still listed as not seen: %r" % not_seen)


def case_static_runtime_hidden():
    """A driver that hands out unnamed entry points: the runtime's table holds
    those; the one address it hands out for both cuGetProcAddress_v2 and its
    per-thread variant is left alone, and the report says so."""
    os.environ["STANDIN_CUDA_HIDDEN_ENTRY_POINTS"] = "1"
    not_seen = static_runtime_traced()
    H.expect(len(not_seen) == 2 and not_seen[0].startswith("the driver functions the program "
                                                           "keeps in its static data at an address"),
             "the word left in the program's data is not listed: %r" % not_seen)


def case_reattach():
    """Attach, detach, attach again: a new dump, the first one left as it was."""
    t = Target()
    first, second = (os.path.join(t.cwd, n) for n in ("first.vtr", "second.vtr"))
    t.said("ready")
    expect_ok(vramtrace("attach", t.p.pid, "-o", first), "attach")
    expect_ok(vramtrace("detach", t.p.pid), "detach")
    size = os.path.getsize(first)
    expect_ok(vramtrace("attach", t.p.pid, "-o", second), "attach again")
    t.attached_part()
    expect_ok(vramtrace("detach", t.p.pid), "detach again")
    _, _, status = t.to_end()
    H.expect_eq("exit status", status, 0)
    H.expect_eq("first dump's size after the second attach", os.path.getsize(first), size)
    H.expect_eq("allocations in the first dump",
                H.summary(H.report(first))["allocations"], 0)
    rep = H.live_view(H.report(second), "detached")
    H.expect_eq("live in the second dump", sorted(lk["bytes"] for lk in H.leaks(rep)),
                sorted(ATTACHED))


def case_exit_attached():
    """Not detached: the dump ends at exit, and what was allocated since
    attach and never freed is leaked (the later allocations too)."""
    t = Target()
    dump = t.attach()
    t.attached_part()
    _, err, status = t.to_end()
    H.expect_eq("exit status", status, 0)
    H.expect_eq("stderr", err, "")
    rep = H.report(dump)
    H.expect_eq("ending", (rep.get("ending") or {}).get("reason"), "exit")
    leaked = sorted(lk["bytes"] for lk in H.leaks(rep))
    H.expect_eq("leaked", leaked, sorted(list(ATTACHED) + [
        SIZES["AFTER_DETACH_BYTES"], SIZES["AFTER_DETACH_BYTES"] + 2, PLUGIN_LEAK_BYTES]))


def ending_run(mode):
    """attach_ending MODE attached once ready: (its report, stdout, status)."""
    t = Target([H.program("attach_ending"), mode])
    dump = t.attach()
    out, err, status = t.to_end()
    H.expect_eq("stderr", err, "")
    return H.report(dump), out, status


def expect_ending_leak(rep):
    H.check_leak(rep, function="leak_attached", source=ENDING_SRC, tag="ending",
                 nbytes=ENDING["ENDING_LEAK_BYTES"], api="cudaMalloc", kind="device")
    H.check_complete(rep)


def case_underscore_exit():
    """An attached process that leaves by _exit (no exit(), no destructor)
    still gets its footer: ending _exit with its status, and what it
    allocated since attach leaked at its line."""
    rep, out, status = ending_run("_exit")
    H.expect_eq("exit status", status, ENDING["ENDING_STATUS"])
    H.expect_eq("ending", {k: rep["ending"][k] for k in ("reason", "status", "leaks_judged")},
                {"reason": "_exit", "status": ENDING["ENDING_STATUS"], "leaks_judged": True})
    expect_ending_leak(rep)


def case_exec():
    """An attached process that becomes another program (execl) ends its
    dump there: ending exec; the program it became runs untraced."""
    rep, out, status = ending_run("exec")
    H.expect_eq("exit status (of the shell it became)", status, ENDING["ENDING_STATUS"] + 1)
    H.expect_eq("ending", rep["ending"]["reason"], "exec")
    expect_ending_leak(rep)


def case_watch():
    """watch PID follows an attached process's dump like any other."""
    t = Target()
    dump = t.attach()
    t.attached_part()
    r = vramtrace("watch", "--once", t.p.pid)
    expect_ok(r, "watch --once")
    H.expect(dump in r.stdout and "rt_leak" in r.stdout and "allocations 5" in r.stdout,
             "watch does not show the attached dump:\n" + r.stdout)
    expect_ok(vramtrace("detach", t.p.pid), "detach")
    H.expect_eq("exit status", t.to_end()[2], 0)


def torch_loop(extra_env, held_before):
    """tests/python/attach_loop.py in real PyTorch, started untraced, attached
    after its first allocations, 4 steps marked with SIGUSR2, detached: the
    growing sites (api, bytes per step) of its report, and the Python frames
    of the first, after checking the memory held before attach."""
    import torch_env
    try:
        python = torch_env.venv_python(H.env_path("VT_BUILD_ROOT", "dir"))
    except torch_env.Unavailable as e:
        raise H.Skip(str(e))
    loop = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python", "attach_loop.py")
    steps = 4
    t = Target([python, loop, str(steps)], env=H.base_env(extra_env))
    dump = t.attach()
    for _ in range(steps):
        t.go_on()
        t.said("step")
        os.kill(t.p.pid, signal.SIGUSR2)
    expect_ok(vramtrace("detach", t.p.pid), "detach")
    out, _, status = t.to_end()
    H.expect_eq("exit status and output", (status, out.splitlines()[-1]), (0, "kept 4 256"))
    rep = H.report(dump)
    H.expect_eq("held before attach", [h["bytes"] for h in rep["attach"]["held_before"]],
                [held_before])
    growing = [s for s in rep["sites"] if s["growing"]]
    frames = [(f.get("function"), os.path.basename(f.get("file") or ""), f.get("line"))
              for f in (growing[0]["frames"] if growing else []) if f.get("module") == "python"]
    H.expect_eq("the growing line's Python frames", frames[:2],
                [("step", "attach_loop.py", H.marker_line(loop, "grow")),
                 ("main", "attach_loop.py", H.call_line(loop, "step"))])
    return [(s["api"], s["bytes_per_interval"]) for s in growing]


def case_torch_loop():
    """Without PyTorch's cache: the line whose tensors the loop keeps grows
    4 MiB a step, each one cudaMalloc; the 5 MiB from before said, at no line."""
    growing = torch_loop({"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}, 5 << 20)
    H.expect_eq("growing sites", growing, [("cudaMalloc", 4 << 20)])


def case_torch_loop_caching_allocator():
    """PyTorch's caching allocator: its tensor tracker attached at attach, so
    the tensors kept each step are traced though they are cut from the 20 MiB
    segment reserved before attach (no segment is reserved after); the two
    segments from before (20 MiB, and 2 MiB for the small tensor) are what
    was held."""
    growing = torch_loop({}, 22 << 20)
    H.expect_eq("growing sites", growing, [("torchTensorAlloc", 4 << 20)])


def case_dump_not_written():
    """An -o the process cannot create (in /proc): refused, said; then a
    good one works. An -o that exists or has no folder: refused before
    anything is done."""
    t = Target()
    dump = os.path.join(t.cwd, "attached.vtr")
    t.said("ready")
    expect_refused(vramtrace("attach", t.p.pid, "-o", "/proc/self/x.vtr"),
                   "could not create its dump")
    expect_refused(vramtrace("attach", t.p.pid, "-o", os.path.join(t.cwd, "none", "x.vtr")),
                   "no folder for")
    open(dump, "w").close()
    expect_refused(vramtrace("attach", t.p.pid, "-o", dump), "exists")
    os.unlink(dump)
    expect_ok(vramtrace("attach", t.p.pid, "-o", dump), "attach after a refused dump")
    t.attached_part()
    expect_ok(vramtrace("detach", t.p.pid), "detach")
    out, err, status = t.to_end()
    H.expect_eq("exit status", status, 0)
    rep = H.live_view(H.report(dump), "detached")
    H.expect_eq("live", sorted(lk["bytes"] for lk in H.leaks(rep)), sorted(ATTACHED))


def case_marker_signal_given_back():
    """SIGUSR2 marks steps while attached; after detach it does what it did
    before attach (here its default action: the process ends of it)."""
    t = Target()
    dump = t.attach()
    t.attached_part()
    expect_ok(vramtrace("detach", t.p.pid), "detach")
    os.kill(t.p.pid, signal.SIGUSR2)
    _, _, status = t.finish()
    H.expect_eq("status after SIGUSR2 once detached", status, -signal.SIGUSR2)


def signals_run(mode, attach, reattach=False):
    """tests/programs/attach_signals.c in MODE, attached after "ready" (and
    when REATTACH, detached and attached again into another dump) and
    detached after "attached part done" when ATTACH: (output, stderr,
    status, the last dump)."""
    t = Target([H.program("attach_signals"), mode])
    dump = os.path.join(t.cwd, "attached.vtr")
    t.said_after("ready")
    if attach:
        expect_ok(vramtrace("attach", t.p.pid, "-o", dump), "vramtrace attach")
    if reattach:
        expect_ok(vramtrace("detach", t.p.pid), "vramtrace detach")
        dump = os.path.join(t.cwd, "again.vtr")
        expect_ok(vramtrace("attach", t.p.pid, "-o", dump), "vramtrace attach again")
    t.go_on()
    if mode == "crash":
        return t.finish() + (dump,)
    t.said_after("attached part done")
    if attach:
        expect_ok(vramtrace("detach", t.p.pid), "vramtrace detach")
    return t.to_end() + (dump,)


def dispositions(out, when):
    """The lines of OUT that the program printed at WHEN, without WHEN."""
    return [line.split(" ", 1)[1] for line in out.splitlines() if line.startswith(when + " ")]


def expect_signals_untouched(mode):
    """MODE's run attached says what an untraced run says and ends as it
    ends; its own SIGSEGV handler ends it after detach. Returns the output."""
    out, err, status, _ = signals_run(mode, True)
    plain_out, plain_err, plain_status = signals_run(mode, False)[:3]
    H.expect_eq("stdout attached vs untraced", out, plain_out)
    H.expect_eq("stderr attached vs untraced", err, plain_err)
    H.expect_eq("exit status attached vs untraced", status, plain_status)
    H.expect_eq("exit status: its own SIGSEGV handler's", status,
                H.c_defines(SIGNALS_SRC)["OWN_SEGV_STATUS"])
    H.expect_eq("last line", out.splitlines()[-1], "own SIGSEGV handler ran")
    return out


def case_signals_after_detach():
    """After detach every disposition is exactly what the program had before
    attach (handler, flags, mask, restorer; the defaults the tracer took
    among them), and so are its signal mask and alternate stack."""
    out = expect_signals_untouched("detach")
    before = dispositions(out, "before")
    H.expect_eq("dispositions after detach", dispositions(out, "detached"), before)
    H.expect("TRAP SIG_DFL flags=0 mask= restorer=none" in before,
             "SIGTRAP was not left untouched before attach: %r" % before)


def case_signals_while_attached():
    """While attached the program's sigaction and signal calls find its own
    dispositions (the defaults the tracer took read as the defaults they
    were; one set through a pointer to libc's sigaction taken before attach
    reads as set), the handler it sets for a signal the tracer took runs, and after
    detach what it set while attached stays: its handlers and a default with
    flags and a mask of its own."""
    out = expect_signals_untouched("attached")
    H.expect_eq("dispositions while attached", dispositions(out, "while"),
                dispositions(out, "before"))
    for said in ("XCPU was SIG_DFL flags=0 mask= restorer=none", "ILL was SIG_DFL",
                 "ALRM was SIG_DFL flags=0 mask= restorer=none", "own SIGXCPU handler ran",
                 "ABRT set by the early pointer, now own_abrt flags=RESTART|RESTORER mask= "
                 "restorer=set"):
        H.expect(said in out.splitlines(), "the program did not say %r:\n%s" % (said, out))
    after = dispositions(out, "detached")
    H.expect([line.split(" ")[:2] for line in after
              if line.split(" ")[0] in ("XCPU", "ILL", "ABRT")]
             == [["ILL", "own_ill"], ["ABRT", "own_abrt"], ["XCPU", "own_xcpu"]],
             "the handlers set while attached are not there after detach: %r" % after)


def expect_crash_written(reattach):
    out, err, status, dump = signals_run("crash", True, reattach)
    plain_out, plain_err, plain_status = signals_run("crash", False)[:3]
    H.expect_eq("exit status, stdout and stderr attached vs untraced", (status, out, err),
                (plain_status, plain_out, plain_err))
    H.expect_eq("exit status", status, -signal.SIGILL)
    ending = H.report(dump).get("ending") or {}
    H.expect_eq("ending", (ending.get("reason"), ending.get("signal")), ("signal", signal.SIGILL))


def case_signals_crash_attached():
    """A fault while attached, on a signal the program leaves to its default
    action: the dump ends with the signal, the process dies of it as
    untraced."""
    expect_crash_written(False)


def case_signals_crash_reattached():
    """The same after a detach (which gave the signals back) and a second
    attach: the second dump ends with the signal."""
    expect_crash_written(True)


def case_python_3_14_remote():
    """CPython 3.14 (Debian unstable's, in the root of tests/python/sid_root.sh)
    is attached and detached through its own remote execution (sys.remote_exec):
    the allocations between are traced at their Python line, the 3 MiB from
    before said as held before attach."""
    import test_pyversions as V
    python = V.interpreter("3.14")
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python", "attach_py.py")
    folder = H.tmpdir()
    t = Target([python, script, folder])
    dump = os.path.join(folder, "attached.vtr")
    # the CLI where the interpreter is: each entry into the root has mounts
    # of its own, and remote execution reads the interpreter's file by the
    # path its memory map gives
    inside = ["nsenter", "--target", str(t.p.pid), "--mount", "--root", "--wd"]
    t.said("ready")
    r = vramtrace("attach", t.p.pid, "-o", dump, user=inside)
    expect_ok(r, "attach")
    H.expect("through its interpreter's remote execution" in r.stdout, r.stdout)
    open(os.path.join(folder, "go"), "w").close()
    t.said("attached part done")
    expect_ok(vramtrace("detach", t.p.pid, user=inside), "detach")
    open(os.path.join(folder, "end"), "w").close()
    out, err, status = t.finish()
    H.expect_eq("exit status, last line, stderr", (status, out.splitlines()[-1], err),
                (0, "kept 5", ""))
    rep = H.live_view(H.report(dump), "detached")
    H.expect_eq("held before attach", [h["bytes"] for h in rep["attach"]["held_before"]],
                [3 << 20])
    lk = H.leak_by_bytes(rep, 3 << 20)
    H.expect_eq("allocations at the growing line", lk["allocations"], 3)
    H.expect_eq("its Python frames", V.python_frames(lk)[:2],
                [("grow", script, H.marker_line(script, "py_grow")),
                 ("main", script, H.call_line(script, "grow"))])


def case_twice():
    t = Target()
    dump = t.attach()
    expect_refused(vramtrace("attach", t.p.pid, "-o", dump + ".2"), "attached already")
    H.expect(not os.path.exists(dump + ".2"), "a second dump was created")
    expect_ok(vramtrace("detach", t.p.pid), "detach")
    expect_refused(vramtrace("detach", t.p.pid), "is not attached")
    t.attached_part()
    H.expect_eq("exit status", t.to_end()[2], 0)


def case_traced_from_start():
    env = H.base_env()
    env["LD_PRELOAD"] = ":".join(filter(None, [env.get("LD_PRELOAD"), H.vramtrace_lib()]))
    t = Target(env=env)
    t.said("ready")
    expect_refused(vramtrace("attach", t.p.pid, "-o", os.path.join(t.cwd, "x.vtr")),
                   "traced already")
    t.attached_part()
    H.expect_eq("exit status", t.to_end()[2], 0)


def case_no_such_process():
    # a pid that existed and is gone: reaped, not reused this soon
    p = subprocess.Popen(["true"])
    p.wait()
    expect_refused(vramtrace("attach", p.pid), "no process %d" % p.pid)
    expect_refused(vramtrace("detach", p.pid), "no process %d" % p.pid)


def case_other_user():
    """Attached by nobody: refused, the process untouched (it runs on and
    says what it says untraced)."""
    t = Target()
    t.said("ready")
    expect_refused(vramtrace("attach", t.p.pid, "-o", "/tmp/never.vtr", user=NOBODY),
                   "belongs to another user (uid 0)")
    t.attached_part()
    out, err, status = t.to_end()
    H.expect_eq("exit status", status, 0)
    H.expect_eq("stderr", err, "")
    H.expect(not os.path.exists("/tmp/never.vtr"), "a dump was written")


def case_no_cuda():
    p = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        expect_refused(vramtrace("attach", p.pid), "has not loaded CUDA")
        expect_refused(vramtrace("detach", p.pid), "is not attached")
    finally:
        out, _ = p.communicate(b"still cat\n", timeout=H.TIMEOUT)
    H.expect_eq("cat's output", out, b"still cat\n")


def case_usage():
    r = vramtrace("attach")
    H.expect_eq("exit status without PID", r.returncode, 2)
    r = vramtrace("attach", "12x")
    H.expect_eq("exit status of a bad PID", r.returncode, 2)
    H.expect("PID must be a process id" in r.stderr, r.stderr)


if __name__ == "__main__":
    H.main(globals())
