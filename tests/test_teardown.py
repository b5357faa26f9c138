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


if __name__ == "__main__":
    H.main(globals())
