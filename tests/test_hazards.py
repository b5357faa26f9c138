# SPDX-License-Identifier: MIT
"""What real machines do to a traced program that the other tests' programs
do not (issue 25): a runtime that refuses and unloads the driver, sharing
layers that wrap dlsym, networked symbol servers, signals the program or
its scheduler uses, idle tails before exit. Each case compares the traced
program with the untraced one, or the report with the ground truth."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

CUDA_HOME = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
REFUSED = "cudaMalloc %d\ncudaMallocHost %d\n"


def expect_same_as_untraced(argv, env):
    """The traced program exits and prints as the untraced one; returns
    (untraced, traced) runs."""
    plain = H.run_plain(argv, env)
    traced = H.run_traced(argv, mode="preload", extra_env=dict(env, VRAMTRACE_QUIET="1"))
    H.expect_eq("exit status and output, untraced vs traced",
                (H.run_status(traced), traced.stdout), (H.run_status(plain), plain.stdout))
    return plain, traced


def expect_failures(r, n, error):
    H.expect_dump(r)
    rep = H.report(r.dump)
    H.expect_eq("failed allocations (count, error)",
                sorted((f["count"], f["error"]) for f in rep["failed"]),
                sorted([(1, error)] * n))


# ---- idle tails: a dump is evidence ----

IDLE_LEAK = 3000017


def idle_case(ms, mode):
    """tests/programs/idle_tail.c idle for MS milliseconds before a normal
    exit (the time passing at once under clock_shim, preloaded ahead of the
    tracer): every command reads the whole dump, with no record disbelieved
    (a tail of over a second lost the whole report), and `run --fail-on-leak`
    judges the leak (23, not 1)."""
    shim = os.path.join(os.environ["PROGRAMS_DIR"], "libclock_shim.so")
    env = {"LD_PRELOAD": ":".join(filter(None, [H.base_env().get("LD_PRELOAD"), shim])),
           "VRAMTRACE_MODE": mode}
    argv = [H.program("idle_tail"), str(ms)]
    r = H.run_traced(argv, extra_env=env, run_args=["--fail-on-leak"])
    H.expect_eq("run --fail-on-leak: the leak judged", H.run_status(r), 23)
    rep = H.report(r.dump)
    H.check_summary(rep, leaked_bytes=IDLE_LEAK, leaked_allocations=1)
    H.expect_eq("records disbelieved", rep.get("disbelieved_records"), 0)
    for cmd in (["report"], ["timeline"], ["export", "--format", "folded", "-o",
                                           os.path.join(r.cwd, "f.txt")]):
        c = H._run([H.vramtrace_exe()] + cmd + [r.dump], H.base_env(), r.cwd)
        H.expect_eq("vramtrace %s: status, warnings" % cmd[0],
                    (c.status, [l for l in c.stderr.splitlines() if "corrupt" in l or
                                "disbelieved" in l or "clamped" in l]), (0, []))
    c = H._run([H.vramtrace_exe(), "check", r.dump], H.base_env(), r.cwd)
    H.expect_eq("vramtrace check: the leak judged", c.status, 23)


IDLE_TAILS = {"idle_1500ms": 1500, "idle_5s": 5000, "clock_jump_hours": 3 * 3600 * 1000}
for _name, _ms in IDLE_TAILS.items():
    for _mode in ("events", "aggregate"):
        globals()["case_%s_%s" % (_name, _mode)] = (
            lambda ms=_ms, mode=_mode: idle_case(ms, mode))


# ---- a driver the runtime refuses and unloads ----

def case_refused_driver_standin():
    """The stand-in runtime over a driver older than itself: it answers
    cudaErrorInsufficientDriver (35) and unloads the driver first, as
    NVIDIA's does. Traced: the same output and exit status (was SIGSEGV:
    the failed allocation's owner was asked of the unloaded driver)."""
    env = {"STANDIN_CUDA_DRIVER_VERSION": "12000"}
    plain, traced = expect_same_as_untraced([H.program("refused_driver")], env)
    H.expect_eq("untraced", (plain.status, plain.stdout), (1, REFUSED % (35, 35)))
    expect_failures(traced, 2, 35)


def toolkit_program(source):
    """SOURCE built against the installed toolkit's shared runtime."""
    lib = os.path.join(CUDA_HOME, "lib64")
    if not os.path.isfile(os.path.join(CUDA_HOME, "include", "cuda_runtime_api.h")) or \
            not os.path.isfile(os.path.join(lib, "libcudart.so")):
        raise H.Skip("no CUDA toolkit at %s" % CUDA_HOME)
    exe = os.path.join(H.tmpdir(), os.path.splitext(os.path.basename(source))[0])
    cc = os.environ.get("VT_CC", "cc").split()
    subprocess.run(cc + ["-o", exe, source, "-I", os.path.join(CUDA_HOME, "include"),
                         "-L", lib, "-lcudart", "-Wl,-rpath," + lib], check=True)
    return exe


def driver_only_dir():
    """A folder with the stand-in libcuda.so.1 and nothing else."""
    d = H.tmpdir()
    shutil.copy2(os.path.join(H.standin_dir(), "libcuda.so.1"), d)
    return d


def case_refused_driver_toolkit():
    """NVIDIA's runtime from the installed toolkit over the stand-in driver,
    which it refuses (36 or 801, as the stand-in has grown) and unloads:
    traced, the same output and exit status, and both failures reported."""
    exe = toolkit_program(H.program_source("refused_driver.c"))
    env = {"LD_LIBRARY_PATH": driver_only_dir()}
    plain, traced = expect_same_as_untraced([exe], env)
    error = int(plain.stdout.split()[1]) if plain.stdout.startswith("cudaMalloc ") else 0
    H.expect_eq("untraced: refused", (plain.status, plain.stdout), (1, REFUSED % (error, error)))
    H.expect(error != 0, "the runtime accepted the stand-in driver:\n" + plain.describe())
    expect_failures(traced, 2, error)


# ---- a GPU-sharing layer that exports dlsym ----

QUOTA = 8 << 20
QUOTA_OUTPUT = "allocated 8\nrefused 2\nfree 0 total %d\n" % QUOTA


def quota_case(layer_first):
    """tests/programs/quota_layer.c holds the process to 8 MiB, preloaded
    ahead of the tracer or after it (as /etc/ld.so.preload loads it): the
    quota and its cudaMemGetInfo view hold (the tracer's dlsym went straight
    to glibc's, around a layer after it), and the report is exact."""
    layer = os.path.join(os.environ["PROGRAMS_DIR"], "libquota_layer.so")
    env = H.base_env({"QUOTA_BYTES": str(QUOTA)})
    sanitizer = env.get("LD_PRELOAD")
    plain = H._run([H.program("quota_user")], dict(env, LD_PRELOAD=":".join(
        filter(None, [sanitizer, layer]))), H.tmpdir())
    H.expect_eq("untraced, under the quota", (plain.status, plain.stdout), (0, QUOTA_OUTPUT))
    order = [layer, H.vramtrace_lib()] if layer_first else [H.vramtrace_lib(), layer]
    cwd = H.tmpdir()
    dump = os.path.join(cwd, "trace.vtr")
    r = H._run([H.program("quota_user")], dict(env, VRAMTRACE_OUTPUT=dump, LD_PRELOAD=":".join(
        filter(None, [sanitizer] + order))), cwd)
    H.expect_eq("traced, under the quota", (H.run_status(r), r.stdout), (0, QUOTA_OUTPUT))
    rep = H.report(dump)
    H.check_summary(rep, allocations=8, frees=0, leaked_bytes=QUOTA, leaked_allocations=8,
                    failed_allocations=1)
    H.expect_eq("the refusal", [(f["count"], f["error"], f["bytes"]) for f in rep["failed"]],
                [(1, 2, 1 << 20)])


def case_quota_layer_first():
    quota_case(True)


def case_quota_layer_after():
    quota_case(False)


# ---- signals: the marker signal is the tracer's only where CUDA is used ----

def case_signal_without_cuda():
    """A traced process that never uses CUDA keeps SIGUSR2's default action:
    a batch scheduler's warning signal kills it as it does untraced (the
    marker handler was installed in every process at start-up)."""
    argv = ["/bin/sh", "-c", "kill -USR2 $$; echo survived"]
    plain, traced = expect_same_as_untraced(argv, {})
    H.expect_eq("untraced", (plain.status, plain.stdout), (-int(signal.SIGUSR2), ""))
    H.expect_eq("warnings", [l for l in traced.stderr.splitlines() if "vramtrace" in l], [])


def case_signal_own_handler():
    """A program that installs its own SIGUSR2 handler where it finds the
    default action (as daemons do) finds the default, keeps its handler
    through its CUDA use, and the tracer says once that it left the signal
    alone; no marker is written."""
    plain, traced = expect_same_as_untraced([H.program("own_signal")], {})
    H.expect_eq("untraced", (plain.status, plain.stdout), (0, "default at start 1\nhandled 3\n"))
    H.expect_eq("warnings", [l for l in traced.stderr.splitlines() if "vramtrace" in l],
                ["vramtrace: SIGUSR2 has the program's own handler: left to it, no marker signal "
                 "(VRAMTRACE_MARK_SIGNAL chooses another)"])
    H.expect_eq("markers", H.report(traced.dump)["growth"]["marks"], 0)


# ---- symbol servers: nothing leaves the machine unless asked ----

class Listener:
    """A local HTTP server that answers 404 to everything and counts the
    connections it accepted."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.connections = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def url(self):
        return "http://127.0.0.1:%d" % self.sock.getsockname()[1]

    def serve(self):
        while True:
            conn, _ = self.sock.accept()
            self.connections += 1
            conn.settimeout(5)
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
                             b"Connection: close\r\n\r\n")
            except OSError:
                pass
            conn.close()


def stripped_dump():
    """The dump of a stripped program (no symbols, no debug information:
    only its build id), whose report libdw would look up elsewhere."""
    d = H.tmpdir()
    exe = os.path.join(d, "refused_driver")
    shutil.copy2(H.program("refused_driver"), exe)
    subprocess.run(["strip", "--strip-all", exe], check=True)
    r = H.run_traced([exe], mode="preload")
    H.expect_program_ok(r)
    H.expect_dump(r)
    return r.dump


def report_connections(dump, args=(), extra_env=None):
    listener = Listener()
    env = H.base_env({"DEBUGINFOD_URLS": listener.url(),
                      "DEBUGINFOD_CACHE_PATH": os.path.join(H.tmpdir(), "cache"),
                      "DEBUGINFOD_TIMEOUT": "10"})
    env.pop("VRAMTRACE_DEBUGINFOD", None)
    env.update(extra_env or {})
    r = H._run([H.vramtrace_exe(), "report", *args, dump], env, os.path.dirname(dump))
    H.expect_eq("report status", r.status, 0)
    H.expect("Leak of 1048576 bytes" in r.stdout, "the leak reported:\n" + r.describe())
    return listener.connections


def case_report_no_debuginfod():
    """DEBUGINFOD_URLS set (Ubuntu sets it for everyone) and a stripped
    program: `report` makes no connection (it made one per module); with
    --debuginfod or VRAMTRACE_DEBUGINFOD=1 it asks, as told."""
    dump = stripped_dump()
    H.expect_eq("connections without --debuginfod", report_connections(dump), 0)
    H.expect(report_connections(dump, ["--debuginfod"]) > 0, "--debuginfod asked no server")
    H.expect(report_connections(dump, extra_env={"VRAMTRACE_DEBUGINFOD": "1"}) > 0,
             "VRAMTRACE_DEBUGINFOD=1 asked no server")


if __name__ == "__main__":
    H.main(globals())
