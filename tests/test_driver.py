# SPDX-License-Identifier: MIT
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
# every level of a 1D mipmapped array halves its width: 128, 64, 32, 16 floats
MIPMAP_BYTES = sum((D["DRV_MIPMAP_WIDTH"] >> level) * 4 for level in range(D["DRV_MIPMAP_LEVELS"]))  # 960

# (function, tag, bytes, api, kind), all on device 0
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
    ("leak_cuMipmappedArrayCreate", "cuMipmappedArrayCreate", MIPMAP_BYTES,
     "cuMipmappedArrayCreate", "device"),
    ("leak_cuMemHostRegister", "cuMemHostRegister", D["DRV_HOST_REGISTER_BYTES"],
     "cuMemHostRegister", "host"),
    # block-compressed (4x4 texels in 16 bytes) and planar video formats
    ("leak_cuArray3DCreate_bc7", "cuArray3DCreate_bc7",
     (D["DRV_BC7_WIDTH"] // 4) * (D["DRV_BC7_HEIGHT"] // 4) * 16, "cuArray3DCreate", "device"),
    ("leak_cuArrayCreate_nv12", "cuArrayCreate_nv12",
     D["DRV_NV12_WIDTH"] * D["DRV_NV12_HEIGHT"] * 3 // 2, "cuArrayCreate", "device"),
]
LOOP_APIS = 13  # balanced_loops: alloc/free pairs per iteration
SUMMARY = H.define_api_cases(globals(), program_name="drv_apis", source=SRC,
                             leak_list=[leak + (0,) for leak in LEAKS],   # all on device 0
                             loop_pairs=LOOP_APIS * LOOP)


if __name__ == "__main__":
    H.main(globals())
