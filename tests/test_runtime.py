"""Runtime API ground truth (tests/programs/rt_apis.c, linked to libcudart.so.13)."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("rt_apis.c")
D = H.c_defines(SRC)
LOOP = D["LOOP"]
PITCH_BYTES = 1024 * D["RT_PITCH_HEIGHT"]                       # 17408
BYTES_3D = 1024 * D["RT_3D_HEIGHT"] * D["RT_3D_DEPTH"]          # 33792
ARRAY_BYTES = D["RT_ARRAY_WIDTH"] * D["RT_ARRAY_HEIGHT"] * 4    # 8400

# (function, tag, bytes, api, kind, device)
LEAKS = [
    ("leak_cudaMalloc", "cudaMalloc", D["RT_MALLOC_BYTES"], "cudaMalloc", "device", 0),
    ("leak_cudaMallocPitch", "cudaMallocPitch", PITCH_BYTES, "cudaMallocPitch", "device", 0),
    ("leak_cudaMalloc3D", "cudaMalloc3D", BYTES_3D, "cudaMalloc3D", "device", 0),
    ("leak_cudaMallocManaged", "cudaMallocManaged", D["RT_MANAGED_BYTES"], "cudaMallocManaged",
     "managed", 0),
    ("leak_cudaMallocAsync", "cudaMallocAsync", D["RT_ASYNC_BYTES"], "cudaMallocAsync",
     "device", 0),
    ("leak_cudaMallocAsync_ptsz", "cudaMallocAsync_ptsz", D["RT_ASYNC_PTSZ_BYTES"],
     "cudaMallocAsync", "device", 0),
    ("leak_cudaMallocFromPoolAsync", "cudaMallocFromPoolAsync", D["RT_POOL_BYTES"],
     "cudaMallocFromPoolAsync", "device", 0),
    ("leak_cudaMallocHost", "cudaMallocHost", D["RT_HOST_BYTES"], "cudaMallocHost", "host", 0),
    ("leak_cudaHostAlloc", "cudaHostAlloc", D["RT_HOSTALLOC_BYTES"], "cudaHostAlloc", "host", 0),
    ("leak_cudaMallocArray", "cudaMallocArray", ARRAY_BYTES, "cudaMallocArray", "device", 0),
    ("leak_on_device1", "device1", D["RT_DEVICE1_BYTES"], "cudaMalloc", "device", 1),
]
LEAKED = sum(b for _, _, b, _, k, _ in LEAKS if k != "host")
HOST_LEAKED = sum(b for _, _, b, _, k, _ in LEAKS if k == "host")
LOOP_APIS = 10  # balanced_loops: alloc/free pairs per iteration
SUMMARY = dict(
    allocations=LOOP_APIS * LOOP + len(LEAKS),      # 1011
    frees=LOOP_APIS * LOOP,                         # 1000
    leaked_bytes=LEAKED,
    leaked_allocations=sum(1 for x in LEAKS if x[4] != "host"),  # 9
    host_leaked_bytes=HOST_LEAKED,
    # the loops ran first, one allocation live at a time; the peak is device 0's
    # own (device 1 holds only its leak): never the sum of two devices
    peak_bytes=LEAKED - D["RT_DEVICE1_BYTES"],
    failed_allocations=0,
    invalid_frees=0,
)


def traced(mode="run"):
    rep, _ = H.traced_report([H.program("rt_apis")], mode=mode)
    return rep


def leak_case(function):
    def case():
        rep = traced()
        for fn, tag, nbytes, api, kind, dev in LEAKS:
            if fn == function:
                H.check_leak(rep, function=fn, source=SRC, tag=tag, nbytes=nbytes, api=api,
                             kind=kind, device=dev)
    return case


for _fn, _tag, *_ in LEAKS:
    globals()["case_" + _tag] = leak_case(_fn)


def case_summary():
    rep = traced()
    H.check_summary(rep, **SUMMARY)
    H.expect_eq("number of leak entries", len(H.leaks(rep)), len(LEAKS))
    H.check_complete(rep)


def case_frames():
    rep = traced()
    H.check_frame_shape(rep)
    H.check_leak_order(rep)


def case_preload():
    """The same ground truth with plain LD_PRELOAD + VRAMTRACE_OUTPUT."""
    rep = traced("preload")
    H.check_summary(rep, **SUMMARY)
    fn, tag, nbytes, api, kind, dev = LEAKS[0]
    H.check_leak(rep, function=fn, source=SRC, tag=tag, nbytes=nbytes, api=api, kind=kind,
                 device=dev)


if __name__ == "__main__":
    H.main(globals())
