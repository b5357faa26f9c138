# SPDX-License-Identifier: MIT
"""Failures ground truth (tests/programs/errors.c): OOM codes pass through
unchanged, rejected frees, cudaFree(NULL)."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("errors.c")
D = H.c_defines(SRC)


def case_passthrough_run():
    """The program asserts every error code and the untouched output
    pointers itself: it must exit 0 under `vramtrace run`."""
    H.traced_report([H.program("errors")], mode="run")


def case_passthrough_preload():
    H.traced_report([H.program("errors")], mode="preload")


def case_leak():
    rep, _ = H.traced_report([H.program("errors")])
    H.check_leak(rep, function="errors_leak", source=SRC, tag="errors",
                 nbytes=D["ERR_LEAK_BYTES"], api="cudaMalloc", kind="device")
    H.expect_eq("number of leak entries", len(H.leaks(rep)), 1)


def case_summary():
    rep, _ = H.traced_report([H.program("errors")])
    H.check_summary(rep, allocations=2, frees=1, leaked_bytes=D["ERR_LEAK_BYTES"],
                    leaked_allocations=1, host_leaked_bytes=0,
                    peak_bytes=D["ERR_DOUBLE_FREE_BYTES"], failed_allocations=2,
                    invalid_frees=3)
    H.no_leak_of(rep, D["ERR_DOUBLE_FREE_BYTES"], "it was freed (and then freed again)")
    H.check_frame_shape(rep)


if __name__ == "__main__":
    H.main(globals())
