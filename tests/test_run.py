# SPDX-License-Identifier: MIT
"""`vramtrace run` and the library's output naming (tests/programs/exit_status.c, clean_exit.c)."""
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("exit_status.c")
D = H.c_defines(SRC)
LEAK = D["EXIT_LEAK_BYTES"]
FAIL_ON_LEAK = 23


def dumps_in(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".vtr"))


def case_status_passthrough():
    r = H.run_traced([H.program("exit_status")])
    H.expect_program_ok(r, 7)
    H.expect_dump(r)
    rep = H.report(r.dump)
    H.check_leak(rep, function="leak_then_exit", source=SRC, tag="exit_status", nbytes=LEAK,
                 api="cudaMalloc", kind="device")


def case_status_passthrough_preload():
    r = H.run_traced([H.program("exit_status")], mode="preload")
    H.expect_program_ok(r, 7)
    H.expect_dump(r)


def case_fail_on_leak():
    r = H.run_traced([H.program("exit_status"), "zero"], run_args=["--fail-on-leak"])
    H.expect_eq("exit status with --fail-on-leak and a device leak", H.run_status(r),
                FAIL_ON_LEAK)


def case_fail_on_leak_nonzero():
    """Leaks and a failing program: --fail-on-leak still answers 23."""
    r = H.run_traced([H.program("exit_status")], run_args=["--fail-on-leak"])
    H.expect_eq("exit status with --fail-on-leak, a device leak and status 7",
                H.run_status(r), FAIL_ON_LEAK)


def case_fail_on_leak_clean():
    r = H.run_traced([H.program("clean_exit")], run_args=["--fail-on-leak"])
    H.expect_program_ok(r, 0)


def case_fail_on_leak_host_only():
    """Page-locked host memory alone does not trigger --fail-on-leak."""
    r = H.run_traced([H.program("exit_status"), "host"], run_args=["--fail-on-leak"])
    H.expect_program_ok(r, 0)
    rep = H.report(r.dump)
    H.check_summary(rep, leaked_bytes=0, host_leaked_bytes=D["EXIT_HOST_BYTES"])


def case_output_option():
    r = H.run_traced([H.program("exit_status")])
    H.expect_program_ok(r, 7)
    H.expect_dump(r)
    H.expect_eq(".vtr files in the working directory", dumps_in(r.cwd),
                [os.path.basename(r.dump)])


def case_report_on_stderr():
    r = H.run_traced([H.program("exit_status")])
    H.expect_program_ok(r, 7)
    H.expect("leak_then_exit" in r.stderr,
             "the leak report (naming leak_then_exit) should be on stderr:\n" + r.describe())
    H.expect("leak_then_exit" not in r.stdout,
             "the leak report should not be on stdout:\n" + r.describe())


def case_killed():
    """Killed by SIGKILL: status 128+9, and the dump still reads up to the
    last whole record."""
    r = H.run_traced([H.program("exit_status"), "kill"])
    H.expect_eq("exit status of a program killed by SIGKILL", H.run_status(r), 137)
    H.expect_dump(r)
    rep = H.live_view(H.report(r.dump), "unknown")   # killed: live, not leaked
    lk = H.leak_by_bytes(rep, LEAK)
    H.expect_eq("api", lk.get("api"), "cudaMalloc")
    H.expect(rep.get("complete") is not True,
             'a dump cut short by SIGKILL must not say "complete": true')


LOADER_LINE = ("vramtrace: exited with status 127 before the tracer's footer was written (the "
               "dynamic loader exits so on an error such as 'symbol lookup error': see the "
               "program's stderr): what was still allocated is listed as live at the end of the "
               "dump, not as leaked\n")


def case_loader_error():
    """A process the dynamic loader ends ("symbol lookup error", exit 127,
    no footer): `run` reaped it with status 127, and the report says so;
    it never claims a kill (issue 38)."""
    tree = H.program("tree")
    lib = os.path.join(os.path.dirname(tree), "libloader_error.so")
    r = H.run_traced([tree, "loader", lib])
    H.expect_eq("exit status of a loader error", H.run_status(r), 127)
    H.expect("symbol lookup error" in r.stderr and "vt_symbol_nobody_defines" in r.stderr,
             r.describe())
    H.expect(LOADER_LINE in r.stderr, r.describe())
    ours = [l for l in r.stderr.splitlines() if l.startswith("vramtrace:")]
    H.expect(not any("killed" in l or "SIGKILL" in l for l in ours), r.describe())
    j = H.run_traced([tree, "loader", lib], run_args=["--json"])
    H.expect_eq("exit status with --json", H.run_status(j), 127)
    ending = json.loads(j.stdout)["ending"]
    H.expect_eq("JSON ending", ending,
                {"reason": "unknown", "signal": None, "status": 127, "stop_cause": None,
                 "dump_reopened": 0, "leaks_judged": False})
    c = H.run_traced([tree, "loader", lib], run_args=["--fail-on-leak"])
    H.expect("nothing to judge for leaks: the process exited with status 127 without the "
             "tracer's footer\n" in c.stderr, c.describe())
    # the dump alone (no `run` to say how it ended) claims no kill either
    text = H._run([H.vramtrace_exe(), "report", r.dump], H.base_env(), H.tmpdir()).stdout
    H.expect("vramtrace: gone (no footer): the process ended without saying how (killed by "
             "SIGKILL or the OOM killer, or exited where the tracer could not see it, as the "
             "dynamic loader's errors do); what was still allocated" in text, text)


def case_killed_names_signal():
    """A real SIGKILL (no footer) under `run`: the wait status names it."""
    r = H.run_traced([H.program("exit_status"), "kill"])
    H.expect_eq("exit status", H.run_status(r), 137)
    H.expect("vramtrace: killed by SIGKILL (no footer): what was still allocated is listed as "
             "live when it was killed, not as leaked\n" in r.stderr, r.describe())
    j = H.run_traced([H.program("exit_status"), "kill"], run_args=["--json"])
    H.expect_eq("JSON ending", json.loads(j.stdout)["ending"],
                {"reason": "unknown", "signal": 9, "status": None, "stop_cause": None,
                 "dump_reopened": 0, "leaks_judged": False})


def case_default_output_run():
    """Without -o the dump lands in the working directory under the
    library's default name."""
    r = H.run_traced([H.program("exit_status")], output=False)
    H.expect_program_ok(r, 7)
    files = dumps_in(r.cwd)
    H.expect(len(files) == 1 and re.fullmatch(r"vramtrace\.exit_status\.\d+\.vtr", files[0]),
             "expected one vramtrace.exit_status.<pid>.vtr in %s, got %r" % (r.cwd, files))


def case_default_output_preload():
    r = H.run_traced([H.program("exit_status")], mode="preload", output=False)
    H.expect_program_ok(r, 7)
    H.expect_eq(".vtr files", dumps_in(r.cwd), ["vramtrace.exit_status.%d.vtr" % r.pid])


def case_output_pid():
    """%p in VRAMTRACE_OUTPUT becomes the pid."""
    d = H.tmpdir()
    r = H.run_traced([H.program("exit_status")], mode="preload", output=False,
                     extra_env={"VRAMTRACE_OUTPUT": os.path.join(d, "out.%p.vtr")})
    H.expect_program_ok(r, 7)
    H.expect_eq(".vtr files", dumps_in(d), ["out.%d.vtr" % r.pid])
    rep = H.report(os.path.join(d, "out.%d.vtr" % r.pid))
    H.leak_by_bytes(rep, LEAK)


def case_default_name_sanitized():
    """exe-name is the basename of argv[0] with chars outside [A-Za-z0-9._-]
    turned into '_'."""
    d = H.tmpdir()
    link = os.path.join(d, "my prog+x")
    os.symlink(H.program("exit_status"), link)
    r = H.run_traced([link], mode="preload", output=False)
    H.expect_program_ok(r, 7)
    H.expect_eq(".vtr files", dumps_in(r.cwd), ["vramtrace.my_prog_x.%d.vtr" % r.pid])


def case_clean():
    r = H.run_traced([H.program("clean_exit")])
    H.expect_program_ok(r, 0)
    rep = H.report(r.dump)
    H.check_summary(rep, allocations=20, frees=20, leaked_bytes=0, leaked_allocations=0,
                    host_leaked_bytes=0, failed_allocations=0, invalid_frees=0,
                    peak_bytes=2450009)
    H.expect_eq("leaks", H.leaks(rep), [])
    H.check_complete(rep)


PRINT_CONF = ("import os; print(repr(os.environ.get('PYTORCH_CUDA_ALLOC_CONF')), "
              "repr(os.environ.get('PYTORCH_ALLOC_CONF')))")


def case_pytorch_tensors():
    """--pytorch-tensors: PyTorch's cudaMallocAsync backend, the user's other
    settings kept in order, a backend of theirs replaced and said so."""
    for env, want, replaced in (
            ({}, ("'backend:cudaMallocAsync'", "None"), None),
            ({"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True, backend : native,"
              "max_split_size_mb:128"},
             ("'backend:cudaMallocAsync,expandable_segments:True,max_split_size_mb:128'", "None"),
             "native"),
            ({"PYTORCH_ALLOC_CONF": "backend:cudaMallocAsync,roundup_power2_divisions:4"},
             ("'backend:cudaMallocAsync'", "'backend:cudaMallocAsync,roundup_power2_divisions:4'"),
             None)):
        r = H.run_traced([sys.executable, "-c", PRINT_CONF], run_args=["--pytorch-tensors"],
                         extra_env=env)
        H.expect_program_ok(r)
        H.expect_eq("allocator settings with %r" % env, tuple(r.stdout.split()), want)
        note = "--pytorch-tensors sets backend:cudaMallocAsync"
        H.expect_eq("note on a replaced backend with %r" % env, note in r.stderr,
                    replaced is not None)
    r = H.run_traced([sys.executable, "-c", PRINT_CONF])
    H.expect_eq("without --pytorch-tensors", r.stdout.split(), ["None", "None"])


def case_dump_named_at_exit():
    """Plain LD_PRELOAD: the last stderr line names the dump and the command
    that reads it (once, by the process that wrote it); VRAMTRACE_QUIET=1
    silences it; under `vramtrace run` only run names the dumps."""
    loud = {"VRAMTRACE_QUIET": ""}
    r = H.run_traced([H.program("exit_status")], mode="preload", extra_env=loud)
    H.expect_program_ok(r, 7)
    want = "vramtrace: dump written to %s; read it with: vramtrace report %s" % (r.dump, r.dump)
    H.expect_eq("last stderr line", r.stderr.splitlines()[-1:], [want])
    H.expect_eq("lines naming the dump", r.stderr.count("dump written to"), 1)
    # a relative VRAMTRACE_OUTPUT is named absolute
    q = H.run_traced([H.program("exit_status")], mode="preload", output=False,
                     extra_env={"VRAMTRACE_OUTPUT": "rel.vtr", "VRAMTRACE_QUIET": ""})
    path = os.path.join(q.cwd, "rel.vtr")
    H.expect_eq("relative output named", q.stderr.splitlines()[-1:],
                ["vramtrace: dump written to %s; read it with: vramtrace report %s" % (path, path)])
    quiet = H.run_traced([H.program("exit_status")], mode="preload",
                         extra_env={"VRAMTRACE_QUIET": "1"})
    H.expect_program_ok(quiet, 7)
    H.expect("dump written to" not in quiet.stderr, quiet.describe())
    run = H.run_traced([H.program("exit_status")], extra_env=loud)
    H.expect_eq("under run: lines naming the dump", run.stderr.count("dump written to"), 1)
    H.expect("read it with" not in run.stderr, run.describe())


def case_many_growing_first():
    """Several dumps: which processes grow leads the combined lines, before
    the totals (a rank that grows while the others hold steady), and the
    JSON counts them."""
    grows = H.run_traced([H.program("usage"), "grow"])
    steady = H.run_traced([H.program("usage"), "warmup"])
    for r in (grows, steady):
        H.expect_program_ok(r)
        H.expect_dump(r)
    pid = H.report(grows.dump)["process"]["pid"]
    p = subprocess.run(H.emulated([H.vramtrace_exe(), "report", grows.dump, steady.dump]),
                       env=H.base_env(), stdout=subprocess.PIPE, universal_newlines=True,
                       check=True)
    combined = p.stdout.split("== combined: 2 processes ==\n", 1)[1].splitlines()
    H.expect_eq("the combined block's first line", combined[0],
                "vramtrace: growing in 1 of 2 processes: pid %d (1 call site)" % pid)
    data = json.loads(subprocess.run(
        H.emulated([H.vramtrace_exe(), "report", "--json", grows.dump, steady.dump]),
        env=H.base_env(), stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout)
    H.expect_eq("growing_processes", data["combined"]["growing_processes"], 1)


if __name__ == "__main__":
    H.main(globals())
