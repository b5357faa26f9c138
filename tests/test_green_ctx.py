# SPDX-License-Identifier: MIT
"""Green contexts (tests/programs/green_ctx.c): memory allocated on a green
context's stream belongs to that context: a reset of the device's primary
context leaves it allocated (its later free is a traced free, not an
untraced one), destroying the green context frees it at teardown, and
what a green context never destroyed holds is leaked."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("green_ctx.c")
D = H.c_defines(SRC)


def case_reset_and_destroy():
    rep, _ = H.traced_report([H.program("green_ctx")])
    H.expect_eq("leaks", [(lk.get("bytes"), lk.get("api"), lk.get("kind")) for lk in H.leaks(rep)],
                [(D["LEAK_BYTES"], "cuMemAllocAsync", "device")])
    H.expect_eq("leak: where", H.frames(H.leaks(rep)[0])[0].get("line"),
                H.marker_line(SRC, "green"))
    H.check_summary(rep, allocations=3, frees=1, untraced_frees=0, invalid_frees=0,
                    teardown_freed_bytes=D["DESTROYED_BYTES"], teardown_freed_allocations=1,
                    leaked_bytes=D["LEAK_BYTES"])


if __name__ == "__main__":
    H.main(globals())
