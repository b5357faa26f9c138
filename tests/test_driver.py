"""Driver API ground truth (tests/programs/drv_apis.c, linked to libcuda.so.1)."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("drv_apis.c")
D = H.c_defines(SRC)
LOOP = D["LOOP"]
PITCH_BYTES = 1024 * D["DRV_PITCH_HEIGHT"]                                   # 13312
ARRAY_BYTES = D["DRV_ARRAY_WIDTH"] * D["DRV_ARRAY_HEIGHT"] * 2 * 4           # 14400
ARRAY3D_BYTES = D["DRV_ARRAY3D_WIDTH"] * D["DRV_ARRAY3D_HEIGHT"] * D["DRV_ARRAY3D_DEPTH"] * 2  # 1920

# (function, tag, bytes, api, kind)
LEAKS = [
    ("leak_cuMemAlloc", "cuMemAlloc", D["DRV_ALLOC_BYTES"], "cuMemAlloc", "device"),
    ("leak_cuMemAllocPitch", "cuMemAllocPitch", PITCH_BYTES, "cuMemAllocPitch", "device"),
    ("leak_cuMemAllocManaged", "cuMemAllocManaged", D["DRV_MANAGED_BYTES"], "cuMemAllocManaged",
     "managed"),
    ("leak_cuMemAllocAsync", "cuMemAllocAsync", D["DRV_ASYNC_BYTES"], "cuMemAllocAsync",
     "device"),
    ("leak_cuMemAllocAsync_ptsz", "cuMemAllocAsync_ptsz", D["DRV_ASYNC_PTSZ_BYTES"],
     "cuMemAllocAsync", "device"),
    ("leak_cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync", D["DRV_POOL_BYTES"],
     "cuMemAllocFromPoolAsync", "device"),
    ("leak_cuMemAllocFromPoolAsync_ptsz", "cuMemAllocFromPoolAsync_ptsz",
     D["DRV_POOL_PTSZ_BYTES"], "cuMemAllocFromPoolAsync", "device"),
    ("leak_cuMemAllocHost", "cuMemAllocHost", D["DRV_HOST_BYTES"], "cuMemAllocHost", "host"),
    ("leak_cuMemHostAlloc", "cuMemHostAlloc", D["DRV_HOSTALLOC_BYTES"], "cuMemHostAlloc", "host"),
    ("leak_cuArrayCreate", "cuArrayCreate", ARRAY_BYTES, "cuArrayCreate", "device"),
    ("leak_cuArray3DCreate", "cuArray3DCreate", ARRAY3D_BYTES, "cuArray3DCreate", "device"),
]
LEAKED = sum(b for _, _, b, _, k in LEAKS if k != "host")
LOOP_APIS = 11  # balanced_loops: alloc/free pairs per iteration
SUMMARY = dict(
    allocations=LOOP_APIS * LOOP + len(LEAKS),      # 1111
    frees=LOOP_APIS * LOOP,                         # 1100
    leaked_bytes=LEAKED,
    leaked_allocations=sum(1 for x in LEAKS if x[4] != "host"),  # 9
    host_leaked_bytes=sum(b for _, _, b, _, k in LEAKS if k == "host"),
    peak_bytes=LEAKED,
    failed_allocations=0,
    invalid_frees=0,
)


def traced(mode="run"):
    rep, _ = H.traced_report([H.program("drv_apis")], mode=mode)
    return rep


def leak_case(function):
    def case():
        rep = traced()
        for fn, tag, nbytes, api, kind in LEAKS:
            if fn == function:
                H.check_leak(rep, function=fn, source=SRC, tag=tag, nbytes=nbytes, api=api,
                             kind=kind, device=0)
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
    rep = traced("preload")
    H.check_summary(rep, **SUMMARY)
    fn, tag, nbytes, api, kind = LEAKS[0]
    H.check_leak(rep, function=fn, source=SRC, tag=tag, nbytes=nbytes, api=api, kind=kind)


if __name__ == "__main__":
    H.main(globals())
