# SPDX-License-Identifier: MIT
"""Reliability (issue 3): threads, fork, crashes, exit ordering, signal
handlers, bad configuration and privileged processes, against the programs
in tests/reliability/ with exact ground truth."""
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402


def source(name):
    return os.path.join(H.source_root(), "tests", "reliability", name)


def program(name):
    path = os.path.join(H.env_path("RELIABILITY_DIR", "dir"), name)
    if not os.path.isfile(path):
        H.fail("test program %s is not built" % path)
    return path


THREADS = H.c_defines(source("threads.c"))
FORK = H.c_defines(source("forking.c"))
CRASH = H.c_defines(source("crasher.c"))
REENTRY = H.c_defines(source("signal_reentry.c"))
EXIT = dict(H.c_defines(source("exit_order.c")), **H.c_defines(source("early_late.c")),
            **H.c_defines(source("late_free.c")))
PROBE = H.c_defines(source("config_probe.c"))

# One malloc arena and no per-thread cache: a block freed on one thread is
# handed to the next thread that allocates, so the stand-in's addresses
# (host memory) cross threads at once.
SHARED_ARENA = {"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1"}


def sanitizer_env():
    """The crash cases need the fatal signals untouched by ASan's handlers
    (it would turn SIGSEGV into an abort)."""
    opts = os.environ.get("ASAN_OPTIONS")
    if not opts:
        return {}
    return {"ASAN_OPTIONS": opts + ":handle_segv=0:handle_sigbus=0:handle_sigill=0"
                                   ":handle_sigfpe=0:handle_abort=0"}


def warnings(r):
    return [l for l in r.stderr.splitlines() if l.startswith("vramtrace:")]


def dumps_in(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".vtr"))


def summary_of(rep, **expected):
    return H.check_summary(rep, **expected)


# ---- threads ----

def threads_leaks_report():
    rep, _ = H.traced_report([program("threads")], mode="preload")
    return rep


def thread_leak_bytes(i):
    return THREADS["LEAK_BASE"] + i * THREADS["LEAK_STEP"]


def case_threads_exact():
    """8 threads x 20,000 alloc/free pairs: every one counted."""
    rep = threads_leaks_report()
    n = THREADS["THREADS"]
    leaked = sum((i + 1) * thread_leak_bytes(i) for i in range(n))
    summary_of(rep, allocations=n * THREADS["PAIRS"] + n * (n + 1) // 2,
               frees=n * THREADS["PAIRS"], leaked_bytes=leaked,
               leaked_allocations=n * (n + 1) // 2, invalid_frees=0, failed_allocations=0,
               host_leaked_bytes=0)
    H.expect_eq("untraced frees", H.summary(rep).get("untraced_frees"), 0)
    H.check_complete(rep)


def case_threads_per_thread():
    """Thread i leaked i+1 allocations of its own size from leak_t<i>."""
    rep = threads_leaks_report()
    n = THREADS["THREADS"]
    H.expect_eq("number of leak entries", len(H.leaks(rep)), n)
    for i in range(n):
        lk = H.leak_by_function(rep, "leak_t%d" % i)
        H.expect_eq("leak_t%d bytes" % i, lk.get("bytes"), (i + 1) * thread_leak_bytes(i))
        H.expect_eq("leak_t%d allocations" % i, lk.get("allocations"), i + 1)
        H.expect_eq("leak_t%d api" % i, lk.get("api"), "cudaMalloc")
        H.expect_eq("leak_t%d caller" % i, H.frames(lk)[1].get("function"), "churn_and_leak")
    H.check_leak_order(rep)


def case_threads_handoff():
    """Frees on one thread race allocations of the same addresses on
    others: nothing dropped, nothing misattributed."""
    rep, _ = H.traced_report([program("threads"), "handoff"], mode="preload",
                             extra_env=SHARED_ARENA)
    n = THREADS["PRODUCERS"] * THREADS["HANDOFF_PER_PRODUCER"]
    summary_of(rep, allocations=n, frees=n, leaked_bytes=0, leaked_allocations=0,
               invalid_frees=0)
    H.expect_eq("untraced frees", H.summary(rep).get("untraced_frees"), 0)
    H.expect_eq("leaks", H.leaks(rep), [])
    H.check_complete(rep)


def case_exit_busy_threads():
    """Threads keep calling CUDA while the process exits: calls during and
    after the footer pass through; the dump stays whole. The window after
    the footer is short, so up to 30 runs are tried until one hits it."""
    size = H.c_defines(source("exit_busy.c"))["BUSY_BYTES"]
    threads = H.c_defines(source("exit_busy.c"))["BUSY_THREADS"]
    for attempt in range(30):
        r = H.run_traced([program("exit_busy")], mode="preload")
        H.expect_program_ok(r, 0)
        H.expect_eq("vramtrace warnings", warnings(r), [])
        rep = H.report(r.dump)
        H.check_complete(rep)
        s = summary_of(rep)
        # an allocation whose free came after the footer is still live there;
        # one whose free lost the race with the runtime's release of its
        # context at exit was refused by the driver (an invalid free)
        H.expect(s["leaked_allocations"] <= threads and
                 s["leaked_bytes"] == s["leaked_allocations"] * size and
                 s["invalid_frees"] <= threads,
                 "at most one in-flight %d-byte allocation per thread may be live at the "
                 "footer: %r" % (size, s))
        if "late call passed through" in r.stdout:
            return
    H.fail("in 30 runs no thread made a CUDA call after the tracer's footer")


# ---- fork ----

def fork_run(mode):
    """Runs forking MODE with a per-pid dump name; returns (run, dir,
    parent report, child pid)."""
    d = H.tmpdir()
    r = H.run_traced([program("forking"), mode], mode="preload", output=False,
                     extra_env={"VRAMTRACE_OUTPUT": os.path.join(d, "f.%p.vtr")})
    H.expect_program_ok(r, 0)
    m = re.search(r"child (\d+)", r.stdout)
    H.expect(m, "forking printed no child pid:\n" + r.describe())
    parent = os.path.join(d, "f.%d.vtr" % r.pid)
    H.expect(os.path.isfile(parent), "no parent dump %s; files: %r" % (parent, dumps_in(d)))
    rep = H.report(parent)
    summary_of(rep, allocations=2 + FORK["PARENT_PAIRS"], frees=FORK["PARENT_PAIRS"],
               leaked_bytes=FORK["PARENT_BEFORE_BYTES"] + FORK["PARENT_AFTER_BYTES"],
               leaked_allocations=2, invalid_frees=0)
    H.check_complete(rep)
    H.expect_eq("parent dump pid", rep["process"]["pid"], r.pid)
    H.expect_eq("vramtrace warnings", warnings(r), [])
    return r, d, rep, int(m.group(1))


def child_report(d, pid):
    path = os.path.join(d, "f.%d.vtr" % pid)
    H.expect(os.path.isfile(path), "no child dump %s; files: %r" % (path, dumps_in(d)))
    rep = H.report(path)
    H.expect_eq("child dump pid", rep["process"]["pid"], pid)
    return rep


def case_fork_exit():
    r, d, _, child = fork_run("exit")
    H.expect_eq("dumps", dumps_in(d), sorted(["f.%d.vtr" % r.pid, "f.%d.vtr" % child]))
    rep = child_report(d, child)
    # the atexit handler's pair is traced too: the footer comes after it
    summary_of(rep, allocations=2, frees=1, leaked_bytes=FORK["CHILD_BYTES"],
               leaked_allocations=1)
    H.check_complete(rep)


def case_fork_underscore_exit():
    r, d, _, child = fork_run("_exit")
    H.expect_eq("dumps", dumps_in(d), sorted(["f.%d.vtr" % r.pid, "f.%d.vtr" % child]))
    rep = child_report(d, child)
    summary_of(rep, allocations=1, frees=0, leaked_bytes=FORK["CHILD_BYTES"])
    # _exit runs no destructor, but the tracer's _exit writes the footer
    H.expect_eq('"ending"', rep["ending"], {"reason": "_exit", "signal": None, "status": 0, "stop_cause": None,
                                            "dump_reopened": 0, "leaks_judged": True})
    H.check_complete(rep)


def case_fork_exec():
    r, d, _, child = fork_run("exec")
    H.expect_eq("dumps", dumps_in(d), sorted(["f.%d.vtr" % r.pid, "f.%d.vtr" % child]))
    rep = child_report(d, child)
    summary_of(rep, allocations=1, frees=0, leaked_bytes=FORK["LEAF_BYTES"])
    H.expect_eq("exec'd program's argv", rep["process"]["argv"][1:], ["leaf"])
    H.check_complete(rep)


def case_fork_nocuda():
    r, d, _, _ = fork_run("nocuda")
    H.expect_eq("dumps (the child made no CUDA call)", dumps_in(d), ["f.%d.vtr" % r.pid])


# ---- crashes ----

def crash_run(mode, status, ending):
    r = H.run_traced([program("crasher"), mode], mode="preload", extra_env=sanitizer_env())
    H.expect_eq("exit status of crasher %s" % mode, H.run_status(r), status)
    H.expect_dump(r)
    rep = H.report(r.dump)
    # what a process killed by a signal held is live at that moment, not
    # leaked; one that ended on its own (_exit) leaked it
    if ending in ("signal", "unknown"):
        rep = H.live_view(rep, ending)
    else:
        H.expect_eq('"ending"."reason"', rep["ending"]["reason"], ending)
    leaks = CRASH["CRASH_LEAKS"]
    summary_of(rep, allocations=CRASH["CRASH_PAIRS"] + leaks, frees=CRASH["CRASH_PAIRS"],
               leaked_allocations=leaks,
               leaked_bytes=sum(CRASH["CRASH_BASE"] + i * 1000 for i in range(leaks)))
    lk = H.leak_by_function(rep, "leak_before_death")
    H.expect_eq("leak allocations", lk["allocations"], leaks)
    return r, rep


def expect_signal_end(rep, sig):
    H.expect_eq('"end"', rep.get("end"), "signal")
    H.expect_eq('"signal"', rep.get("signal"), sig)
    H.check_complete(rep)


def case_crash_segv():
    _, rep = crash_run("segv", 128 + signal.SIGSEGV, "signal")
    expect_signal_end(rep, signal.SIGSEGV)


def case_crash_abort():
    _, rep = crash_run("abort", 128 + signal.SIGABRT, "signal")
    expect_signal_end(rep, signal.SIGABRT)


def case_crash_trap():
    # __builtin_trap: ud2 on x86_64 (SIGILL), brk on aarch64 (SIGTRAP)
    arm = H.elf_machine(program("crasher")) == H.EM_AARCH64
    sig = signal.SIGTRAP if arm else signal.SIGILL
    _, rep = crash_run("trap", 128 + sig, "signal")
    expect_signal_end(rep, sig)


def case_crash_breakpoint():
    """A breakpoint no debugger catches (int3, brk) ends the program with
    SIGTRAP: a crash like the others, with its footer."""
    _, rep = crash_run("breakpoint", 128 + signal.SIGTRAP, "signal")
    expect_signal_end(rep, signal.SIGTRAP)


def case_crash_kill():
    """SIGKILL leaves no footer; the writer is gone: "unknown" (killed)."""
    _, rep = crash_run("kill", 128 + signal.SIGKILL, "unknown")
    H.expect(rep.get("complete") is False, "SIGKILL leaves no footer")
    H.expect_eq('"end"', rep.get("end"), "no footer")
    H.expect_eq('"signal"', rep.get("signal"), None)


def case_crash_own_handler():
    """The program's own SIGSEGV handler stays in charge; it _exit()s, and
    that ending has its footer."""
    r, rep = crash_run("own", 3, "_exit")
    H.expect_eq("stdout", r.stdout, "own handler\n")
    H.expect_eq('"ending"', rep["ending"], {"reason": "_exit", "signal": None, "status": 3, "stop_cause": None,
                                            "dump_reopened": 0, "leaks_judged": True})
    H.check_complete(rep)


def case_crash_text_report():
    r = H.run_traced([program("crasher"), "segv"], extra_env=sanitizer_env())
    H.expect_eq("exit status through vramtrace run", H.run_status(r), 128 + signal.SIGSEGV)
    H.expect("vramtrace: crashed with SIGSEGV: what was still allocated is listed as live at "
             "the crash, not as leaked\n" in r.stderr,
             "the report should say how the process died:\n" + r.describe())
    H.expect("\nLive at the crash: " in r.stderr and "\nLeak of" not in r.stderr,
             "what was live at the crash must not read as a leak:\n" + r.describe())


# ---- exit and start-up ----

def exit_order_run(extra_env=None):
    env = H.base_env(extra_env)
    lib = os.path.join(H.env_path("RELIABILITY_DIR", "dir"), "libearly_late.so")
    cwd = H.tmpdir()
    dump = os.path.join(cwd, "trace.vtr")
    env["LD_PRELOAD"] = ":".join(filter(None, [env.get("LD_PRELOAD"), H.vramtrace_lib(), lib]))
    env["VRAMTRACE_OUTPUT"] = dump
    p = subprocess.run(H.emulated([program("exit_order")]), env=env, cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                       timeout=H.TIMEOUT)
    r = H.Run([program("exit_order")], p.returncode, p.stdout, p.stderr, dump, cwd)
    H.expect_program_ok(r, 0)
    H.expect_eq("stdout", r.stdout, "destructor calls ok\n")
    H.expect_dump(r)
    return r, H.report(dump)


def case_exit_destructors():
    """Memory freed by a linked library's destructor (it runs after the
    tracer's) is freed, and a preloaded library's destructor calls are seen."""
    _, rep = exit_order_run()
    H.no_leak_of(rep, EXIT["LATE_FREE_BYTES"], "liblate_free's destructor freed it")
    src = source("early_late.c")
    H.check_leak(rep, function="leak_in_destructor", source=src, tag="destructor",
                 nbytes=EXIT["DESTRUCTOR_LEAK_BYTES"], api="cudaMalloc", kind="device",
                 caller="late_fini")
    summary_of(rep, allocations=5, frees=2, leaked_allocations=3,
               leaked_bytes=EXIT["EXIT_MAIN_BYTES"] + EXIT["EARLY_LEAK_BYTES"] +
               EXIT["DESTRUCTOR_LEAK_BYTES"], invalid_frees=0)
    H.check_complete(rep)


def case_before_constructor():
    """Hooks called from a constructor that runs before the tracer's (the
    dynamic linker's own trace proves the order) count the allocation."""
    r, rep = exit_order_run({"LD_DEBUG": "files"})
    inits = re.findall(r"calling init: (\S+)", r.stderr)
    early = [i for i, p in enumerate(inits) if p.endswith("libearly_late.so")]
    tracer = [i for i, p in enumerate(inits) if p.endswith("libvramtrace.so")]
    H.expect(early and tracer and early[0] < tracer[0],
             "expected libearly_late's constructor before libvramtrace's; init order: %r"
             % inits)
    H.check_leak(rep, function="leak_before_constructor", source=source("early_late.c"),
                 tag="early", nbytes=EXIT["EARLY_LEAK_BYTES"], api="cudaMalloc",
                 kind="device", caller="early_init")
    H.check_leak(rep, function="leak_in_main", source=source("exit_order.c"), tag="exit_main",
                 nbytes=EXIT["EXIT_MAIN_BYTES"], api="cudaMalloc", kind="device")


def case_signal_handler():
    """A timer signal interrupts the tracer (holding its lock or not) and
    its handler calls CUDA and the tracer's API: no deadlock, exact counts."""
    r = H.run_traced([program("signal_reentry")], mode="preload")
    H.expect_program_ok(r, 0)
    m = re.search(r"iterations (\d+) leaks (\d+) tracer_hits (\d+) program_hits (\d+)",
                  r.stdout)
    H.expect(m, "no counts printed:\n" + r.describe())
    iterations, leaks, tracer_hits, program_hits = map(int, m.groups())
    H.expect(tracer_hits >= REENTRY["MIN_TRACER_HITS"], "too few interruptions: " + r.stdout)
    rep = H.report(r.dump)
    s = H.summary(rep)
    # pairs made by the handler while its thread was inside a traced call
    # pass through untraced; the others are counted, alloc and free alike
    handler_traced = s["allocations"] - iterations - leaks
    H.expect(program_hits <= handler_traced <= program_hits + tracer_hits,
             "allocations %d: expected %d loop + %d leaks + between %d and %d from the "
             "handler" % (s["allocations"], iterations, leaks, program_hits,
                          program_hits + tracer_hits))
    summary_of(rep, frees=iterations + handler_traced, leaked_allocations=leaks,
               leaked_bytes=leaks * REENTRY["LOOP_LEAK_BYTES"], invalid_frees=0)
    H.expect_eq("untraced frees", s.get("untraced_frees"), 0)
    H.check_leak(rep, function="leak_in_loop", source=source("signal_reentry.c"), tag="loop",
                 nbytes=leaks * REENTRY["LOOP_LEAK_BYTES"], api="cudaMalloc", kind="device",
                 allocations=leaks)
    H.expect_eq("leak entries", len(H.leaks(rep)), 1)


# ---- bad configuration ----

def probe(output, extra=None, args=(), preexec=None):
    env = H.base_env(extra)
    env["LD_PRELOAD"] = ":".join(filter(None, [env.get("LD_PRELOAD"), H.vramtrace_lib()]))
    env["VRAMTRACE_OUTPUT"] = output
    cwd = H.tmpdir()
    argv = [program("config_probe")] + list(args)
    p = subprocess.run(H.emulated(argv), env=env, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=H.TIMEOUT,
                       preexec_fn=preexec)
    r = H.Run(argv, p.returncode, p.stdout, p.stderr, output, cwd)
    H.expect_program_ok(r, 5)
    H.expect_eq("stdout", r.stdout, "result 42\n")
    return r


def expect_one_warning(r, pattern):
    w = warnings(r)
    H.expect(len(w) == 1 and re.search(pattern, w[0]),
             "expected exactly one vramtrace: warning matching %r, got %r\n%s" % (
                 pattern, w, r.describe()))


def case_config_missing_dir():
    d = H.tmpdir()
    r = probe(os.path.join(d, "no", "such", "dir", "x.vtr"))
    expect_one_warning(r, r"cannot create dump .*No such file or directory; not tracing")
    H.expect_eq("files left", os.listdir(d), [])


def case_config_untraced_programs():
    """Once the dump cannot be written, every hook passes straight through:
    the programs that use each API run as they do untraced (their own checks,
    exit status, output), with one warning each."""
    for name in ("rt_apis", "drv_apis", "vmm", "teardown_arrays", "pools", "ptsz_routes",
                 "entry_point", "dlsym_driver"):
        plain = H.run_plain([H.program(name)])
        d = H.tmpdir()
        env = H.base_env({"VRAMTRACE_OUTPUT": os.path.join(d, "no", "such", "dir", "x.vtr")})
        env["LD_PRELOAD"] = ":".join(filter(None, [env.get("LD_PRELOAD"), H.vramtrace_lib()]))
        r = H._run([H.program(name)], env, d)
        H.expect_eq("%s: exit status untraced and with the tracer off" % name,
                    (r.status, r.stdout), (plain.status, plain.stdout))
        expect_one_warning(r, r"cannot create dump .*No such file or directory; not tracing")


def case_no_driver():
    """No CUDA library in the process, the tracer's exports found by name:
    every one fails with "not initialized" (3 in both APIs), nothing
    crashes, no dump is made."""
    plain = H.run_plain([H.program("no_driver")])
    H.expect_eq("untraced: no CUDA function found", (plain.status, plain.stdout), (0, ""))
    r = H.run_traced([H.program("no_driver")], mode="preload")
    H.expect_program_ok(r)
    results = dict(line.split() for line in r.stdout.splitlines())
    H.expect(len(results) >= 39, "the tracer's exports found: %r" % sorted(results))
    H.expect_eq("results", {v for v in results.values()}, {"3"})
    H.expect_eq("vramtrace warnings", warnings(r), [])
    H.expect(not os.path.exists(r.dump), "a dump without any CUDA call: %s" % r.dump)


def case_config_unwritable_dir():
    d = H.tmpdir()
    out = os.path.join(d, "ro")
    os.mkdir(out, 0o555)
    os.chmod(out, 0o555)
    if os.geteuid() == 0:
        r = probe(os.path.join(out, "x.vtr"), preexec=drop_to_nobody(d))
    else:
        r = probe(os.path.join(out, "x.vtr"))
    expect_one_warning(r, r"cannot create dump .*Permission denied; not tracing")
    H.expect_eq("files in the unwritable directory", os.listdir(out), [])


def nobody_ids():
    import pwd
    try:
        pw = pwd.getpwnam("nobody")
    except KeyError:
        raise H.Skip("no user 'nobody' to drop root privileges to")
    return pw.pw_uid, pw.pw_gid


def drop_to_nobody(workdir):
    """As root, permissions do not stop us: run as nobody instead."""
    uid, gid = nobody_ids()
    for root, dirs, files in os.walk(workdir):
        for name in dirs + files:
            os.chmod(os.path.join(root, name), os.stat(os.path.join(root, name)).st_mode)

    def preexec():
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    return preexec


def case_config_bad_pattern():
    d = H.tmpdir()
    r = probe(os.path.join(d, "x.%q.vtr"))
    expect_one_warning(r, r"VRAMTRACE_OUTPUT does not expand")
    H.expect_eq("files left", os.listdir(d), [])


def case_config_full_disk():
    """A 1.5 MiB tmpfs is all margin (the disk's last part is the program's):
    tracing stops at its first record with one warning, the program
    finishes, the dump's END says why and the report does not say killed."""
    if os.geteuid() != 0:
        raise H.Skip("mounting a small tmpfs needs root")
    d = H.tmpdir()
    mnt = os.path.join(d, "small")
    os.mkdir(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1536k", "tmpfs", mnt]).returncode:
        raise H.Skip("cannot mount a tmpfs here")
    try:
        out = os.path.join(mnt, "x.vtr")
        r = probe(out, args=["many"])
        expect_one_warning(r, r"dump .*: its filesystem is nearly full \(the rest is left to "
                           r"the program\); tracing stops here")
        H.expect_eq("dump size", os.path.getsize(out) <= 4096, True)
        rep = H.report(out)
        H.expect_eq("ending", rep["ending"]["reason"], "stopped")
        H.expect_eq("leaks judged", rep["ending"]["leaks_judged"], False)
        H.expect_eq("stop cause", rep["ending"]["stop_cause"], "disk_full")
        text = H._run([H.vramtrace_exe(), "report", out], H.base_env(), d).stdout
        H.expect("tracing stopped early, the process running on: the dump's filesystem was "
                 "nearly full" in text and "killed" not in text, text)
    finally:
        subprocess.run(["umount", mnt])


def case_config_file_size_limit():
    """RLIMIT_FSIZE below the dump's second chunk: the tracer stops with one
    warning instead of the kernel killing the program with SIGXFSZ."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1536 * 1024, 1536 * 1024))
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    d = H.tmpdir()
    out = os.path.join(d, "x.vtr")
    r = probe(out, args=["many"], preexec=limit)
    expect_one_warning(r, r"dump .*: the file size limit \(ulimit -f\) is reached; tracing "
                       r"stops here")
    rep = H.report(out)
    s = H.summary(rep)
    H.expect(10000 < s["allocations"] < PROBE["BIG_PAIRS"], "dump: %r" % s)
    H.expect_eq("ending", rep["ending"]["reason"], "stopped")
    H.expect_eq("stop cause", rep["ending"]["stop_cause"], "size_limit")


def case_config_dump_window():
    """A dump of 2 million events stays mostly out of the traced process:
    only the writer's window of it (4 MiB) is mapped and resident."""
    d = H.tmpdir()
    out = os.path.join(d, "x.vtr")
    r = probe(out, args=["huge"])
    m = re.search(r"^dump_resident_kb (\d+)$", r.stderr, re.M)
    H.expect(m, "the probe did not say how much of its dump is resident\n" + r.describe())
    size = os.path.getsize(out)
    H.expect(size > 20 * 1024 * 1024, "expected a dump of more than 20 MiB, got %d bytes" % size)
    H.expect(int(m.group(1)) <= 4 * 1024 + 4,
             "%s KiB of the %d-byte dump resident in the traced process (window: 4 MiB)"
             % (m.group(1), size))
    s = H.summary(H.report(out))
    H.expect_eq("allocations", s["allocations"], PROBE["HUGE_PAIRS"] + 1)
    H.expect_eq("frees", s["frees"], PROBE["HUGE_PAIRS"])


# ---- security ----

def case_secure_symlink():
    """A symlink at the dump path is not followed: its target stays as it
    was and the dump gets a fresh name, mode 0600."""
    d = H.tmpdir()
    target = os.path.join(d, "target")
    with open(target, "w") as f:
        f.write("precious\n")
    os.symlink(target, os.path.join(d, "x.vtr"))
    r = probe(os.path.join(d, "x.vtr"))
    H.expect_eq("vramtrace warnings", warnings(r), [
        "vramtrace: %s is a symlink (not followed); writing this process's dump to %s instead"
        % (os.path.join(d, "x.vtr"), os.path.join(d, "x.1.vtr"))])
    with open(target) as f:
        H.expect_eq("symlink target contents", f.read(), "precious\n")
    fresh = os.path.join(d, "x.1.vtr")
    H.expect(os.path.isfile(fresh) and not os.path.islink(fresh),
             "expected the dump at %s; files: %r" % (fresh, os.listdir(d)))
    H.expect_eq("dump mode", stat.S_IMODE(os.stat(fresh).st_mode), 0o600)
    H.leak_by_bytes(H.report(fresh), PROBE["PROBE_LEAK_BYTES"])


def case_secure_dangling_symlink():
    d = H.tmpdir()
    target = os.path.join(d, "would-be-created")
    os.symlink(target, os.path.join(d, "x.vtr"))
    r = probe(os.path.join(d, "x.vtr"))
    H.expect_eq("vramtrace warnings", warnings(r), [
        "vramtrace: %s is a symlink (not followed); writing this process's dump to %s instead"
        % (os.path.join(d, "x.vtr"), os.path.join(d, "x.1.vtr"))])
    H.expect(not os.path.exists(target), "the dangling symlink was followed")
    H.expect(os.path.isfile(os.path.join(d, "x.1.vtr")), "files: %r" % os.listdir(d))


def case_secure_no_clobber():
    d = H.tmpdir()
    existing = os.path.join(d, "x.vtr")
    with open(existing, "w") as f:
        f.write("an earlier dump\n")
    r = probe(existing)
    H.expect_eq("vramtrace warnings", warnings(r), [
        "vramtrace: %s exists; writing this process's dump to %s instead"
        % (existing, os.path.join(d, "x.1.vtr"))])
    with open(existing) as f:
        H.expect_eq("existing file", f.read(), "an earlier dump\n")
    H.leak_by_bytes(H.report(os.path.join(d, "x.1.vtr")), PROBE["PROBE_LEAK_BYTES"])


def case_secure_mode():
    old = os.umask(0)
    try:
        d = H.tmpdir()
        probe(os.path.join(d, "x.vtr"))
    finally:
        os.umask(old)
    H.expect_eq("dump mode with umask 0", stat.S_IMODE(os.stat(os.path.join(d, "x.vtr")).st_mode),
                0o600)


# A setuid or setgid program does not read STANDIN_GPU_REGISTRY (the
# stand-ins take it with secure_getenv), so it would use the machine's
# registry: it runs in a mount namespace whose /dev/shm holds the test's
# registry under the stand-ins' default name (docs/standins.md).
OWN_SHM = ('mount -t tmpfs -o size=1m,mode=1777 vramtrace-test /dev/shm && : > "/dev/shm/$1" '
           '&& mount --bind "$2" "/dev/shm/$1" && shift 2 && exec "$@"')


def own_registry_prefix():
    """The prefix that gives a command the test's registry at the default
    path; () where no mount namespace can be had (the machine's registry)."""
    open(H.gpu_registry(), "a").close()
    prefix = ["unshare", "--mount", "--propagation", "private", "sh", "-c", OWN_SHM, "sh",
              "vramtrace-standin-gpus.%d" % os.getuid(), H.gpu_registry()]
    if subprocess.run(prefix + ["true"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        return ()
    return prefix


def secure_probe(bits):
    """secure_probe copied, owned by nobody, with BITS (S_ISUID/S_ISGID)
    set, run by root: the kernel marks it AT_SECURE. Returns its stdout."""
    if os.geteuid() != 0:
        raise H.Skip("making a setuid/setgid program needs root")
    uid, gid = nobody_ids()
    d = H.tmpdir()
    os.chmod(d, 0o777)
    exe = os.path.join(d, "secure_probe")
    shutil.copy(program("secure_probe"), exe)
    os.chown(exe, uid, gid)
    os.chmod(exe, 0o755 | bits)
    out = os.path.join(d, "x.vtr")
    cuda = os.path.join(H.standin_dir(), "libcuda.so.1")
    env = H.base_env({"VRAMTRACE_OUTPUT": out})
    env.pop("LD_PRELOAD", None)
    p = subprocess.run(list(own_registry_prefix()) + [exe, H.vramtrace_lib(), cuda], env=env,
                       cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=H.TIMEOUT)
    H.expect_eq("secure_probe status (stderr: %s)" % p.stderr.strip(), p.returncode, 0)
    return p.stdout, out, p.stderr


def control_probe():
    """The same program, not privileged: the tracer does trace."""
    d = H.tmpdir()
    out = os.path.join(d, "x.vtr")
    env = H.base_env({"VRAMTRACE_OUTPUT": out})
    env.pop("LD_PRELOAD", None)
    cuda = os.path.join(H.standin_dir(), "libcuda.so.1")
    p = subprocess.run([program("secure_probe"), H.vramtrace_lib(), cuda], env=env, cwd=d,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                       timeout=H.TIMEOUT)
    H.expect_eq("control secure_probe status (stderr: %s)" % p.stderr.strip(), p.returncode, 0)
    H.expect_eq("control: tracer active", p.stdout, "active 1\n")
    H.leak_by_bytes(H.report(out), 9100003)


def check_not_traced(bits):
    if os.environ.get("VT_TEST_PRELOAD"):
        raise H.Skip("a sanitizer runtime cannot be preloaded into a setuid program")
    control_probe()
    stdout, out, stderr = secure_probe(bits)
    H.expect_eq("privileged: tracer active", stdout, "active 0\n")
    H.expect(not os.path.exists(out), "a privileged process left a dump at %s" % out)
    # the tracer's messages start so (a coverage build's runtime complains
    # of its .gcda files of libvramtrace.so otherwise)
    H.expect_eq("privileged: vramtrace messages",
                [l for l in stderr.splitlines() if l.startswith("vramtrace:")], [])


def case_secure_setuid():
    check_not_traced(stat.S_ISUID)


def case_secure_setgid():
    check_not_traced(stat.S_ISGID)


def case_secure_setgid_own_registry():
    """The machine's stand-in registry full (in this test's own /dev/shm, a
    holder of the whole GPU 0): the setgid program still gets its memory,
    from the test's registry."""
    if os.geteuid() != 0:
        raise H.Skip("making a setuid/setgid program needs root")
    if not own_registry_prefix():
        raise H.Skip("no mount namespace here (unshare --mount)")
    own_shm()
    # a small GPU, for the probes too: a holder of all of it writes no
    # gigabyte (MALLOC_PERTURB_)
    os.environ["STANDIN_CUDA_MEMORY"] = "64M"
    env = H.base_env()
    del env["STANDIN_GPU_REGISTRY"]  # the machine's: /dev/shm, this test's own
    holder = subprocess.Popen(H.emulated([H.program("gpu_holder"), "hold", str(64 << 20)]), env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              universal_newlines=True)
    try:
        H.expect("ready" in holder.stdout.readline(), "the holder of the whole GPU did not start")
        check_not_traced(stat.S_ISGID)
    finally:
        holder.kill()
        holder.wait()


def own_shm():
    """This test process, and what it starts, in a mount namespace with a
    /dev/shm of its own: the machine's registry is not touched."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    clone_newns, ms_rec, ms_private = 0x20000, 0x4000, 1 << 18
    if (libc.unshare(clone_newns) != 0
            or libc.mount(b"none", b"/", None, ms_rec | ms_private, None) != 0
            or libc.mount(b"vramtrace-test", b"/dev/shm", b"tmpfs", 0, b"size=1m") != 0):
        H.fail("a /dev/shm of the test's own: %s" % os.strerror(ctypes.get_errno()))


if __name__ == "__main__":
    H.main(globals())
