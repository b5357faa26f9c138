# SPDX-License-Identifier: MIT
"""Inlined frames (tests/programs/inline_leak.c, built -O2 -g)."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("inline_leak.c")
D = H.c_defines(SRC)


def case_inline():
    rep, _ = H.traced_report([H.program("inline_leak")])
    lk = H.check_leak(rep, function="alloc_inline", source=SRC, tag="inline",
                      nbytes=D["INLINE_LEAK_BYTES"], api="cudaMalloc", kind="device",
                      caller="inline_caller")
    fr = H.frames(lk)
    H.expect_eq("inline_caller frame file", os.path.basename(fr[1].get("file") or ""),
                "inline_leak.c")
    H.expect_eq("inline_caller frame line", fr[1].get("line"),
                H.call_line(SRC, "inline_caller"))
    H.check_frame_shape(rep)


if __name__ == "__main__":
    H.main(globals())
