# SPDX-License-Identifier: MIT
"""One long run with everything at once (tests/programs/soak.c, about two
minutes; SOAK_SECONDS changes it): 8 threads allocating in bursts with idle
gaps, markers by SIGUSR2 meanwhile, a fork, the CUDA runtime unloaded with the
library that uses it and loaded again, SIGTERM at the end. The counts in the
parent's dump and the child's are exactly what the program did."""
import os
import re
import signal
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

D = H.c_defines(H.program_source("soak.c"))


def case_soak():
    seconds = os.environ.get("SOAK_SECONDS", "120")
    H.TIMEOUT = float(seconds) + H.TIMEOUT  # the run itself is long; a hang still fails
    d = H.tmpdir()
    r = H._run([H.vramtrace_exe(), "run", "-o", os.path.join(d, "%p.vtr"), "--",
                H.program("soak"), seconds], H.base_env(), d)
    H.expect_eq("exit status (SIGTERM)", H.run_status(r), 128 + int(signal.SIGTERM))
    did = dict((m.group(1), int(m.group(2)))
               for m in re.finditer(r"^(allocations|frees|marks|runtime unloaded|runtime moved) (\d+)$",
                                    r.stdout, re.M))
    H.expect_eq("what the program says it did", sorted(did), sorted(
        ["allocations", "frees", "marks", "runtime unloaded", "runtime moved"]))
    H.expect_eq("the runtime was unloaded, and loaded again elsewhere",
                (did["runtime unloaded"], did["runtime moved"]), (1, 1))
    dumps = sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".vtr"))
    H.expect_eq("dumps (the parent's, the child's)", len(dumps), 2)
    reports = [H.report(p) for p in dumps]
    ended = sorted(((rep.get("ending") or {}).get("reason"), i) for i, rep in enumerate(reports))
    H.expect_eq("endings (the child's exit, the parent's SIGTERM)", [e for e, _ in ended],
                ["exit", "signal"])
    crep, parent = reports[ended[0][1]], reports[ended[1][1]]
    rep = H.live_view(parent, "signal")
    H.expect_eq('"signal"', rep.get("signal"), int(signal.SIGTERM))
    H.check_summary(rep, allocations=did["allocations"], frees=did["frees"],
                    leaked_allocations=D["THREADS"],
                    leaked_bytes=D["THREADS"] * D["THREAD_LEAK_BYTES"], failed_allocations=0,
                    invalid_frees=0)
    H.expect_eq("markers", rep["growth"]["marks"], did["marks"])
    H.expect_eq("records disbelieved", rep.get("disbelieved_records"), 0)
    H.check_summary(crep, allocations=1, frees=0, leaked_allocations=1,
                    leaked_bytes=D["CHILD_BYTES"])


if __name__ == "__main__":
    H.main(globals())
