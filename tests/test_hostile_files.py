# SPDX-License-Identifier: MIT
"""The program's descriptors, disk and directories stay its own (issue 39):
each program runs untraced and traced, and its exit status, stdout and
every file it writes must be the same byte for byte, the report right.
Programs: tests/reliability/hostile_files.c and hostile_files.py."""
import os
import random
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

LEAK_BYTES = 7340033


def program(name):
    path = os.path.join(H.env_path("RELIABILITY_DIR", "dir"), name)
    if not os.path.isfile(path):
        H.fail("test program %s is not built" % path)
    return path


def script(name):
    return os.path.join(H.source_root(), "tests", "reliability", name)


def files_of(d):
    """Every file under D, by relative path, with its bytes."""
    out = {}
    for root, _, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, d)] = f.read()
    return out


def run_in(argv, cwd, env, preexec=None):
    p = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=H.TIMEOUT, preexec_fn=preexec)
    return H.Run(argv, p.returncode, p.stdout.decode(errors="replace"),
                 p.stderr.decode(errors="replace"), None, cwd)


def traced_env(dump):
    env = H.base_env()
    env["LD_PRELOAD"] = ":".join(filter(None, [env.get("LD_PRELOAD"), H.vramtrace_lib()]))
    env["VRAMTRACE_OUTPUT"] = dump
    return env


def same_as_untraced(argv, *, plain_cwd=None, traced_cwd=None, preexec=None, status=0):
    """Runs ARGV untraced, then traced (its dump %p-named in a directory of
    its own); both must give STATUS, the same stdout and the same files in
    their working directories. Returns (traced run, dump directory)."""
    plain_cwd = plain_cwd or H.tmpdir()
    traced_cwd = traced_cwd or H.tmpdir()
    dumps = H.tmpdir()
    plain = run_in(argv, plain_cwd, H.base_env(), preexec)
    traced = run_in(argv, traced_cwd, traced_env(os.path.join(dumps, "t.%p.vtr")), preexec)
    H.expect_program_ok(plain, status)
    H.expect_program_ok(traced, status)
    H.expect_eq("stdout", traced.stdout, plain.stdout)
    H.expect_eq("files written", files_of(traced_cwd), files_of(plain_cwd))
    H.expect_eq("vramtrace warnings", [w for w in traced.stderr.splitlines()
                                       if w.startswith("vramtrace:")], [])
    return traced, dumps


def main_dump(dumps):
    names = sorted(os.listdir(dumps))
    H.expect(names, "no dump in %s" % dumps)
    return [os.path.join(dumps, n) for n in names]


REOPENED = ("the program took the dump's descriptor (closed it, or put a file of its own at "
            "its number) 1 time; the tracer left that number to the program and went on in the "
            "same dump, found again by its path: nothing was lost")


def expect_leak_reported(dump, allocations, reopened=0):
    """DUMP's process exited holding the leak, after ALLOCATIONS, the tracer
    having found its dump again by path REOPENED times (0 or 1)."""
    rep = H.report(dump)
    H.expect_eq("ending", rep["ending"]["reason"], "exit")
    H.expect_eq("stop cause", rep["ending"]["stop_cause"], None)
    H.expect_eq("dump reopened", rep["ending"]["dump_reopened"], reopened)
    text = H._run([H.vramtrace_exe(), "report", dump], H.base_env(), H.tmpdir()).stdout
    H.expect_eq("the report says the dump was reopened", ("vramtrace: " + REOPENED) in text,
                reopened == 1)
    H.expect_eq("allocations", H.summary(rep)["allocations"], allocations)
    H.leak_by_bytes(rep, LEAK_BYTES)


def check_daemon(argv, allocations):
    traced, dumps = same_as_untraced(argv)
    H.expect("file 23\nlog 23\nsocket 23\n" in traced.stdout, traced.describe())
    paths = main_dump(dumps)
    # the parent's dump: the one with the leak (the child's has 1000 pairs)
    reports = {p: H.report(p) for p in paths}
    parent = [p for p, r in reports.items() if H.summary(r)["allocations"] == allocations]
    H.expect(len(parent) == 1, "dumps: %r" % {p: H.summary(r) for p, r in reports.items()})
    expect_leak_reported(parent[0], allocations, reopened=1)


def case_closeall_c():
    """A C daemon closes every descriptor from 3 up, opens a file, an
    fopen'd log and a socket (taking the dump's number), forks a child that
    writes into them, tries an exec that fails: all its bytes as untraced,
    the dump continues on the file opened again and holds the leak."""
    check_daemon([program("hostile_files"), "closeall"], 10 + 150000 + 37500 + 1)


def case_dup2_over_dump():
    """The program dup2's its own file onto every number it inherited, the
    dump's among them: the tracer never grows, maps, truncates or closes it."""
    check_daemon([program("hostile_files"), "dup2"], 10 + 150000 + 37500 + 1)


def case_dump_lost():
    """The program dup2's over the dump's number after moving the dump's
    directory: the dump cannot be found again, so tracing stops (one
    warning), the program's file at that number untouched, and the moved
    dump's footer says why, not "killed". (Its forked child cannot create
    a dump in the directory gone either: a warning of its own.)"""
    argv = [program("hostile_files"), "dup2_move"]
    plain_dir, traced_dir = H.tmpdir(), H.tmpdir()
    runs = []
    for d, env in ((plain_dir, H.base_env()),
                   (traced_dir, traced_env(os.path.join(traced_dir, "dumps", "t.%p.vtr")))):
        os.mkdir(os.path.join(d, "dumps"))
        os.mkdir(os.path.join(d, "cwd"))
        runs.append(run_in(argv + [os.path.join(d, "dumps")], os.path.join(d, "cwd"), env))
    plain, traced = runs
    H.expect_program_ok(plain)
    H.expect_program_ok(traced)
    H.expect_eq("stdout", traced.stdout, plain.stdout)
    H.expect_eq("files written", files_of(os.path.join(traced_dir, "cwd")),
                files_of(os.path.join(plain_dir, "cwd")))
    warns = [w for w in traced.stderr.splitlines() if w.startswith("vramtrace:")]
    H.expect(len(warns) == 2 and "the program took its descriptor and the file is gone; "
             "tracing stops here" in warns[0] and "cannot create dump" in warns[1],
             traced.describe())  # the second: the forked child's, its directory gone
    moved = os.path.join(traced_dir, "dumps.moved")
    dumps = [n for n in os.listdir(moved) if n.endswith(".vtr")]
    H.expect_eq("dumps", len(dumps), 1)
    rep = H.report(os.path.join(moved, dumps[0]))
    H.expect_eq("ending", rep["ending"]["reason"], "stopped")
    H.expect_eq("stop cause", rep["ending"]["stop_cause"], "dump_lost")
    text = H._run([H.vramtrace_exe(), "report", os.path.join(moved, dumps[0])], H.base_env(),
                  traced_dir).stdout
    H.expect("the program took the dump's descriptor and the file could not be found again"
             in text, text)


def case_closerange_python():
    """os.closerange(3, 1024) in Python, then its own file, log and socket."""
    traced, dumps = same_as_untraced([sys.executable, script("hostile_files.py")])
    H.expect("file 23\nlog 23\nsocket 23\n" in traced.stdout, traced.describe())
    # the dump sits at 2048, above the range closed: never taken
    expect_leak_reported(main_dump(dumps)[0], 10 + 150000 + 1, reopened=0)


def case_small_disk_filled():
    """A 2 MiB tmpfs holds the program's working directory and the dump; the
    program writes 1.5 MiB into it after its allocations: it does as
    untraced, and the dump stopped at the filesystem's margin, its END
    saying why (not a kill)."""
    if os.geteuid() != 0:
        raise H.Skip("mounting a tmpfs needs root")
    d = H.tmpdir()
    mnts = [os.path.join(d, n) for n in ("plain", "traced")]
    for m in mnts:
        os.mkdir(m)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", m]).returncode:
            raise H.Skip("cannot mount a tmpfs here")
    try:
        argv = [program("hostile_files"), "fill"]
        plain = run_in(argv, mnts[0], H.base_env())
        dump = os.path.join(mnts[1], "trace.vtr")
        traced = run_in(argv, mnts[1], traced_env(dump))
        H.expect_program_ok(plain)
        H.expect_program_ok(traced)
        H.expect_eq("stdout", traced.stdout, plain.stdout)
        H.expect_eq("written", plain.stdout.splitlines()[0], "written %d" % (1536 * 1024))
        with open(os.path.join(mnts[1], "data"), "rb") as a, \
                open(os.path.join(mnts[0], "data"), "rb") as b:
            H.expect(a.read() == b.read(), "data differs")
        rep = H.report(dump)
        H.expect_eq("ending", rep["ending"]["reason"], "stopped")
        H.expect_eq("stop cause", rep["ending"]["stop_cause"], "disk_full")
        text = H._run([H.vramtrace_exe(), "report", dump], H.base_env(), d).stdout
        H.expect("the dump's filesystem was nearly full" in text and "killed" not in text, text)
    finally:
        for m in mnts:
            subprocess.run(["umount", m])


def case_killed_early():
    """SIGKILL in the first 30 ms, 100 times: every dump left reads (one
    killed before its first record says so), none is a file of zeros."""
    d = H.tmpdir()
    rng = random.Random(39)
    env = traced_env(os.path.join(d, "k.%p.vtr"))
    for i in range(100):
        p = subprocess.Popen([program("config_probe"), "many"], env=env, cwd=d,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, 0.03))
        p.kill()
        p.wait()
    dumps = [os.path.join(d, n) for n in sorted(os.listdir(d)) if n.endswith(".vtr")]
    for dump in dumps:
        with open(dump, "rb") as f:
            head = f.read(16)
        H.expect(head == b"" or head.startswith(b"VRAMTRC\0"), "%s starts %r" % (dump, head))
        for cmd in ("report", "check"):
            r = H._run([H.vramtrace_exe(), cmd, dump], H.base_env(), d)
            H.expect(r.status in (0, 24) and "not a vramtrace dump" not in r.stderr,
                     r.describe())


def case_rmdir_of_cwd():
    """The program allocates in a directory it made, leaves it and removes
    it: rmdir succeeds as untraced, the default dump being where the
    process started, not in the directory it allocated in."""
    cwd = H.tmpdir()
    env = H.base_env()
    env["LD_PRELOAD"] = ":".join(filter(None, [env.get("LD_PRELOAD"), H.vramtrace_lib()]))
    r = run_in([program("hostile_files"), "rmdir"], cwd, env)
    H.expect_program_ok(r)
    H.expect("rmdir 0\n" in r.stdout, r.describe())
    dumps = [n for n in os.listdir(cwd) if n.endswith(".vtr")]
    H.expect(len(dumps) == 1, "files: %r" % os.listdir(cwd))
    expect_leak_reported(os.path.join(cwd, dumps[0]), 101)


def case_many_on_one_name():
    """150 processes with one VRAMTRACE_OUTPUT: every one traced, each dump
    holds its process's leak."""
    d = H.tmpdir()
    env = traced_env(os.path.join(d, "one.vtr"))
    procs = [subprocess.Popen([program("config_probe")], env=env, cwd=d,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
             for _ in range(150)]
    errors = [p.communicate()[1].decode() for p in procs]
    H.expect_eq("statuses", [p.returncode for p in procs], [5] * 150)
    H.expect_eq("warnings", [e for e in errors if "fresh dump name" in e], [])
    dumps = [n for n in os.listdir(d) if n.endswith(".vtr")]
    H.expect_eq("dumps", len(dumps), 150)
    for n in dumps:
        H.leak_by_bytes(H.report(os.path.join(d, n)), 8100007)


def case_long_cwd_run():
    """`vramtrace run` from a working directory longer than PATH_MAX: the
    dump is written and reported."""
    base = H.tmpdir()
    fd = os.open(base, os.O_RDONLY)
    try:
        os.chdir(base)
        for _ in range(20):  # 20 x 250 characters: past PATH_MAX (4096)
            name = "d" * 250
            os.mkdir(name)
            os.chdir(name)
        r = subprocess.run([H.vramtrace_exe(), "run", "--", program("config_probe")],
                           env=H.base_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=H.TIMEOUT)
        listed = [n for n in os.listdir(".") if n.endswith(".vtr")]
    finally:
        os.fchdir(fd)
        os.close(fd)
    H.expect_eq("status", r.returncode, 5)
    H.expect_eq("dumps", len(listed), 1)
    H.expect("vramtrace: dump written to %s\n" % listed[0] in r.stderr and
             "7.7 MiB (8100007 bytes) of device memory leaked in 1 allocation" in r.stderr,
             r.stdout + r.stderr)


if __name__ == "__main__":
    H.main(globals())
