# SPDX-License-Identifier: MIT
"""Memory locations (tests/programs/locations.c): cuMemCreate memory is host
memory only at a host location (HOST, HOST_NUMA, HOST_NUMA_CURRENT); any
other, a type newer than the tracer's header among them, is VRAM; a pool
created with a host location hands out host memory."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("locations.c")
D = H.c_defines(SRC)
NEWER_TYPE = 6  # unknown to the 13.0 header; the stand-in told to know it as device memory


def traced():
    rep, _ = H.traced_report([H.program("locations"), str(NEWER_TYPE)],
                             extra_env={"STANDIN_CUDA_DEVICE_LOCATION_TYPE": str(NEWER_TYPE)})
    return rep


def case_cuMemCreate_types():
    """One leak per location type, of exact bytes: device memory at DEVICE
    and at the newer type, host memory at the three host types."""
    rep = traced()
    for name, kind in (("DEVICE", "device"), ("HOST", "host"), ("HOST_NUMA", "host"),
                       ("HOST_NUMA_CURRENT", "host"), ("NEWER", "device")):
        lk = H.leak_by_bytes(rep, D["LOC_%s_BYTES" % name])
        H.expect_eq(name + ": api, kind", (lk.get("api"), lk.get("kind")), ("cuMemCreate", kind))
        H.expect_eq(name + ": where", (H.frames(lk)[0].get("function"),
                                       H.frames(lk)[0].get("line")),
                    ("create_at", H.marker_line(SRC, "create_at")))
        if kind == "device":
            H.expect_eq(name + ": device", lk.get("device"), 0)


def case_host_pool():
    """An allocation from a pool with a host location is host memory."""
    rep = traced()
    H.check_leak(rep, function="leak_from_host_pool", source=SRC, tag="host_pool",
                 nbytes=D["LOC_HOST_POOL_BYTES"], api="cuMemAllocFromPoolAsync", kind="host")
    H.check_summary(rep, leaked_bytes=D["LOC_DEVICE_BYTES"] + D["LOC_NEWER_BYTES"],
                    host_leaked_bytes=D["LOC_HOST_BYTES"] + D["LOC_HOST_NUMA_BYTES"] +
                    D["LOC_HOST_NUMA_CURRENT_BYTES"] + D["LOC_HOST_POOL_BYTES"])


if __name__ == "__main__":
    H.main(globals())
