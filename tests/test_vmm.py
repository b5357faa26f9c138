# SPDX-License-Identifier: MIT
"""Virtual memory management ground truth (tests/programs/vmm.c)."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("vmm.c")
D = H.c_defines(SRC)
MIB = 1 << 20


def traced():
    rep, _ = H.traced_report([H.program("vmm")])
    return rep


def case_leak():
    """The never-released handle: a leak of api cuMemCreate."""
    rep = traced()
    H.check_leak(rep, function="leak_cuMemCreate", source=SRC, tag="cuMemCreate",
                 nbytes=D["VMM_LEAK_BYTES"], api="cuMemCreate", kind="device", device=0)
    H.expect_eq("number of leak entries", len(H.leaks(rep)), 1)


def case_summary():
    """Released-while-mapped memory lives until its last unmap (peak 18 MiB);
    reserve and map never count as allocations."""
    rep = traced()
    H.check_summary(rep, allocations=3, frees=2, leaked_bytes=8 * MIB, leaked_allocations=1,
                    host_leaked_bytes=0, peak_bytes=18 * MIB, failed_allocations=0,
                    invalid_frees=0)
    H.no_leak_of(rep, D["VMM_H1_BYTES"], "h1 was released and unmapped")
    H.no_leak_of(rep, D["VMM_H2_BYTES"], "h2 was released")
    H.no_leak_of(rep, D["VMM_RESERVE1"], "cuMemAddressReserve is no allocation")
    H.no_leak_of(rep, D["VMM_RESERVE3"], "cuMemAddressReserve is no allocation")
    H.check_frame_shape(rep)
    H.check_complete(rep)


if __name__ == "__main__":
    H.main(globals())
