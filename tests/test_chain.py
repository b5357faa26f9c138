# SPDX-License-Identifier: MIT
"""Interposer chains: other libraries that wrap the CUDA allocation API and
forward with dlsym(RTLD_NEXT) / dlvsym / a handle of libcuda (GPU-sharing
layers, profilers, accounting shims) preloaded ahead of the tracer, behind
it, or both (tests/programs/chain_wrapper.c, chain_user.c).

Ground truth: every wrapper sees exactly the calls it sees without the
tracer (its count line at exit), the program's results are unchanged (exit
status, its own checks), and the tracer counts each allocation once."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("chain_user.c")
D = H.c_defines(SRC)
ALL_CALLS = "cudaMalloc=2 cudaFree=1 cuMemAlloc_v2=2 cuMemFree_v2=2"
# A wrapper behind another that looks up libcuda by handle (driver calls skip
# it) or the runtime by dlvsym (glibc's dlvsym skips unversioned definitions).
SKIPPED_DRIVER = "cudaMalloc=2 cudaFree=1 cuMemAlloc_v2=0 cuMemFree_v2=0"
SKIPPED_RUNTIME = "cudaMalloc=0 cudaFree=0 cuMemAlloc_v2=2 cuMemFree_v2=2"


def second(lookup):
    """What the second wrapper of two sees."""
    return {"handle": SKIPPED_DRIVER, "vsym": SKIPPED_RUNTIME}.get(lookup, ALL_CALLS)
VT = "vt"   # where the tracer stands in a preload list


def wrapper(name):
    return H.program("libchain_%s.so" % name.lower())


def preload_list(order):
    libs = [H.vramtrace_lib() if x == VT else wrapper(x) for x in order]
    sanitizer = os.environ.get("VT_TEST_PRELOAD")
    return ":".join(([sanitizer] if sanitizer else []) + libs)


def chain_lines(stderr):
    return sorted(l for l in stderr.splitlines() if l.startswith("chain "))


def run_chain(order, lookup, traced):
    cwd = H.tmpdir()
    env = H.base_env({"CHAIN_LOOKUP": lookup})
    env["LD_PRELOAD"] = preload_list(order if traced else [x for x in order if x != VT])
    dump = os.path.join(cwd, "trace.vtr")
    if traced:
        env["VRAMTRACE_OUTPUT"] = dump
    r = H._run([H.program("chain_user")], env, cwd)
    r.dump = dump if traced else None
    return r


def check_chain(order, lookup, expected):
    """EXPECTED: {wrapper name: count line} as without the tracer."""
    plain = run_chain(order, lookup, traced=False)
    H.expect(plain.status == 0 and "chain_user: ok" in plain.stdout,
             "untraced chain failed (a wrapper or stand-in bug):\n" + plain.describe())
    want = sorted("chain %s: %s" % (name, line) for name, line in expected.items())
    H.expect_eq("wrapper counts without the tracer", chain_lines(plain.stderr), want)
    r = run_chain(order, lookup, traced=True)
    H.expect(r.status == 0, "traced chain %s (%s): exit status %s (98: a wrapper looped; "
             "negative: killed by a signal)\n%s" % (order, lookup, r.status, r.describe()))
    H.expect("chain_user: ok" in r.stdout, "the program's own checks failed:\n" + r.describe())
    H.expect_eq("wrapper counts with the tracer %s (%s)" % (order, lookup),
                chain_lines(r.stderr), want)
    H.expect_dump(r)
    rep = H.report(r.dump)
    H.check_leak(rep, function="runtime_leak", source=SRC, tag="chain_runtime",
                 nbytes=D["CH_RT_LEAK_BYTES"], api="cudaMalloc", kind="device")
    H.check_leak(rep, function="driver_leak", source=SRC, tag="chain_driver",
                 nbytes=D["CH_DRV_LEAK_BYTES"], api="cuMemAlloc", kind="device")
    H.expect_eq("number of leak entries", len(H.leaks(rep)), 2)
    H.check_summary(rep, allocations=4, frees=2, invalid_frees=1,
                    leaked_bytes=D["CH_RT_LEAK_BYTES"] + D["CH_DRV_LEAK_BYTES"],
                    peak_bytes=D["CH_RT_LEAK_BYTES"] + D["CH_DRV_LEAK_BYTES"] +
                    D["CH_DRV_PAIR_BYTES"])
    H.check_frame_shape(rep)


def cases_for(order, expected_for_lookup):
    for lookup in ("next", "vsym", "handle"):
        check_chain(order, lookup, expected_for_lookup(lookup))


def case_ahead():
    """A wrapper preloaded ahead of the tracer: its dlsym(RTLD_NEXT) finds
    ours, which must go on to the runtime, not back into the wrapper."""
    cases_for(["A", VT], lambda lookup: {"A": ALL_CALLS})


def case_behind():
    """Behind the tracer: calls bound to us by name go on to the wrapper; the
    runtime's own driver calls (pointers from cuGetProcAddress) do not."""
    cases_for([VT, "A"], lambda lookup: {"A": ALL_CALLS})


def case_around():
    """One wrapper ahead and one behind."""
    cases_for(["A", VT, "B"], lambda lookup: {
        "A": ALL_CALLS, "B": second(lookup)})


def case_two_behind():
    cases_for([VT, "A", "B"], lambda lookup: {
        "A": ALL_CALLS, "B": second(lookup)})


def case_two_ahead():
    cases_for(["A", "B", VT], lambda lookup: {
        "A": ALL_CALLS, "B": second(lookup)})


def case_run():
    """`vramtrace run` keeps a wrapper the user preloaded (ahead of it)."""
    cwd = H.tmpdir()
    dump = os.path.join(cwd, "trace.vtr")
    env = H.base_env({"CHAIN_LOOKUP": "next"})
    env["LD_PRELOAD"] = preload_list(["A"])
    r = H._run([H.vramtrace_exe(), "run", "-o", dump, "--", H.program("chain_user")], env, cwd)
    H.expect(r.status == 0 and "chain_user: ok" in r.stdout, "run failed:\n" + r.describe())
    H.expect_eq("wrapper counts", chain_lines(r.stderr), ["chain A: " + ALL_CALLS])
    H.check_summary(H.report(dump), allocations=4, frees=2)


if __name__ == "__main__":
    H.main(globals())
