# SPDX-License-Identifier: MIT
"""Context teardown ground truth (tests/programs/teardown.c): memory freed
by cudaDeviceReset, cuCtxDestroy and the last cuDevicePrimaryCtxRelease is
freed at teardown, not leaked."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("teardown.c")
D = H.c_defines(SRC)
RESET_DEVICE = D["TD_RT_MALLOC_BYTES"] + D["TD_RT_MANAGED_BYTES"]
CTX = D["TD_CTX_BYTES_1"] + D["TD_CTX_BYTES_2"]
TEARDOWN_DEVICE = RESET_DEVICE + CTX + D["TD_PRIMARY_BYTES"]      # 8900023
TEARDOWN_ALL = TEARDOWN_DEVICE + D["TD_RT_HOST_BYTES"]            # 8917034


def traced():
    rep, _ = H.traced_report([H.program("teardown")])
    return rep


def case_device_reset():
    rep = traced()
    for k in ("TD_RT_MALLOC_BYTES", "TD_RT_MANAGED_BYTES", "TD_RT_HOST_BYTES"):
        H.no_leak_of(rep, D[k], "cudaDeviceReset freed it (%s)" % k)
    H.check_summary(rep, host_leaked_bytes=0)


def case_ctx_destroy():
    rep = traced()
    for k in ("TD_CTX_BYTES_1", "TD_CTX_BYTES_2"):
        H.no_leak_of(rep, D[k], "cuCtxDestroy_v2 freed it (%s)" % k)


def case_primary_release():
    rep = traced()
    H.no_leak_of(rep, D["TD_PRIMARY_BYTES"],
                 "the last cuDevicePrimaryCtxRelease_v2 destroyed its context")


def case_live_context():
    rep = traced()
    H.check_leak(rep, function="leak_on_live_context", source=SRC, tag="live_context",
                 nbytes=D["TD_LIVE_BYTES"], api="cuMemAlloc", kind="device", device=1)
    H.expect_eq("number of leak entries", len(H.leaks(rep)), 1)


def case_summary():
    rep = traced()
    s = H.check_summary(rep, allocations=9, frees=2, leaked_bytes=D["TD_LIVE_BYTES"],
                        leaked_allocations=1, host_leaked_bytes=0,
                        peak_bytes=RESET_DEVICE + D["TD_RT_PAIR_BYTES"],
                        failed_allocations=0, invalid_frees=0)
    H.expect_eq("summary.teardown_freed_allocations", s.get("teardown_freed_allocations"), 6)
    # device+managed only, or with the page-locked host bytes: either reading is accepted
    H.expect_in("summary.teardown_freed_bytes", s.get("teardown_freed_bytes"),
                (TEARDOWN_DEVICE, TEARDOWN_ALL))
    H.check_frame_shape(rep)
    H.check_complete(rep)


def case_context_reused():
    """The tracer caches each thread's context -> device: a destroyed
    context's address reused on another device must not keep the old one."""
    src = H.program_source("ctx_reuse.c")
    d = H.c_defines(src)
    rep, _ = H.traced_report([H.program("ctx_reuse")],
                             extra_env={"STANDIN_CUDA_REUSE_CONTEXTS": "1"})
    H.check_leak(rep, function="leak_in_reused_context", source=src, tag="reused_context",
                 nbytes=d["CR_LEAK_BYTES"], api="cuMemAlloc", kind="device", device=1)
    H.expect_eq("number of leak entries", len(H.leaks(rep)), 1)
    H.check_summary(rep, allocations=2, frees=1, leaked_bytes=d["CR_LEAK_BYTES"],
                    leaked_allocations=1, peak_bytes=d["CR_LEAK_BYTES"])


# ---- handle-keyed memory: arrays, mipmapped arrays, VMM handles ----

ARR_SRC = H.program_source("teardown_arrays.c")
A = H.c_defines(ARR_SRC)
ARRAYS_RESET = sum(A[k] for k in ("TA_RT_ARRAY_BYTES", "TA_RT_MIP_BYTES", "TA_DRV_ARRAY_BYTES",
                                   "TA_DRV_3D_BYTES", "TA_DRV_MIP_BYTES"))
ARRAYS_TEARDOWN = ARRAYS_RESET + A["TA_CTX_ARRAY_BYTES"]


def case_arrays():
    """Arrays freed by cudaDeviceReset / cuCtxDestroy are freed at teardown;
    a VMM handle outlives the reset (the driver keeps it until released)."""
    rep, _ = H.traced_report([H.program("teardown_arrays")])
    H.check_leak(rep, function="leak_array_on_live_context", source=ARR_SRC, tag="live_array",
                 nbytes=A["TA_LIVE_ARRAY_BYTES"], api="cuArrayCreate", kind="device", device=1)
    H.expect_eq("number of leak entries", len(H.leaks(rep)), 1)
    s = H.check_summary(rep, allocations=10, frees=3, leaked_bytes=A["TA_LIVE_ARRAY_BYTES"],
                        leaked_allocations=1, invalid_frees=0, untraced_frees=0,
                        peak_bytes=A["TA_VMM_BYTES"] + ARRAYS_RESET)
    H.expect_eq("summary.teardown_freed_allocations", s.get("teardown_freed_allocations"), 6)
    H.expect_eq("summary.teardown_freed_bytes", s.get("teardown_freed_bytes"), ARRAYS_TEARDOWN)
    peaks = {p["device"]: p["bytes"] for p in rep["peaks"]}
    H.expect_eq("peak of each device", peaks,
                {0: A["TA_VMM_BYTES"] + ARRAYS_RESET, 1: A["TA_LIVE_ARRAY_BYTES"]})


def case_arrays_fail_on_leak():
    """A program whose arrays all go with their contexts is clean."""
    r = H.run_traced([H.program("teardown_arrays"), "clean"], run_args=["--fail-on-leak"])
    H.expect_program_ok(r, 0)
    rep = H.report(r.dump)
    H.check_summary(rep, leaked_bytes=0, leaked_allocations=0, allocations=9)


# ---- the device of pool and stream-ordered memory ----

POOL_SRC = H.program_source("pools.c")
P = H.c_defines(POOL_SRC)


def pools_report():
    rep, _ = H.traced_report([H.program("pools")])
    return rep


def case_pool_device():
    """Pool memory is on the pool's device, stream-ordered memory on the
    stream's device, whichever device is current."""
    rep = pools_report()
    H.check_leak(rep, function="leak_from_pool_of_device0", source=POOL_SRC, tag="pool0",
                 nbytes=P["PL_POOL0_BYTES"], api="cudaMallocFromPoolAsync", kind="device",
                 device=0)
    peaks = {p["device"]: (p["bytes"], sorted((h["bytes"], h["api"]) for h in p["holders"]))
             for p in rep["peaks"]}
    H.expect_eq("peaks per device", peaks, {
        0: (P["PL_POOL0_BYTES"] + P["PL_STREAM0_BYTES"],
            [(P["PL_POOL0_BYTES"], "cudaMallocFromPoolAsync"),
             (P["PL_STREAM0_BYTES"], "cudaMallocAsync")]),
        1: (P["PL_POOL1_BYTES"] + P["PL_STREAM1_BYTES"],
            [(P["PL_POOL1_BYTES"], "cudaMallocFromPoolAsync"),
             (P["PL_STREAM1_BYTES"], "cudaMallocAsync")]),
    })


def case_pool_teardown():
    """Device 1's reset frees what its pool and its stream held."""
    rep = pools_report()
    H.expect_eq("number of leak entries", len(H.leaks(rep)), 1)
    s = H.check_summary(rep, allocations=4, frees=1, leaked_bytes=P["PL_POOL0_BYTES"],
                        leaked_allocations=1, invalid_frees=0)
    H.expect_eq("summary.teardown_freed_allocations", s.get("teardown_freed_allocations"), 2)
    H.expect_eq("summary.teardown_freed_bytes", s.get("teardown_freed_bytes"),
                P["PL_POOL1_BYTES"] + P["PL_STREAM1_BYTES"])


# ---- process exit ----

def case_exit_release():
    """The runtime releases its primary contexts at exit (as NVIDIA's does,
    the driver log shows it): what they still hold was never freed, so it
    stays a leak, not memory "freed at teardown"."""
    log = os.path.join(H.tmpdir(), "driver.log")
    rep, _ = H.traced_report([H.program("teardown_arrays"), "clean"],
                             extra_env={"STANDIN_CUDA_LOG": log})
    with open(log) as f:
        calls = f.read().split("\n")
    H.expect("cuDevicePrimaryCtxRelease_v2 0" in calls,
             "the stand-in runtime did not release device 0's primary context at exit")
    rep, _ = H.traced_report([H.program("rt_apis")])
    H.expect(H.summary(rep)["leaked_allocations"] > 0 and
             H.summary(rep).get("teardown_freed_allocations") == 0,
             "rt_apis' leaks must stay leaks after the runtime's release at exit: %r" %
             H.summary(rep))


if __name__ == "__main__":
    H.main(globals())
