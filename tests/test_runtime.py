# SPDX-License-Identifier: MIT
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
ARRAY3D_BYTES = D["RT_3DARRAY_WIDTH"] * D["RT_3DARRAY_HEIGHT"] * D["RT_3DARRAY_DEPTH"] * 4  # 4800
# every level of a mipmapped array halves width and height: 64x32, 32x16, 16x8 texels of 4 bytes
MIPMAP_BYTES = sum((D["RT_MIPMAP_WIDTH"] >> level) * (D["RT_MIPMAP_HEIGHT"] >> level) * 4
                   for level in range(D["RT_MIPMAP_LEVELS"]))                  # 10752

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
    ("leak_cudaMalloc3DArray", "cudaMalloc3DArray", ARRAY3D_BYTES, "cudaMalloc3DArray", "device", 0),
    ("leak_cudaMallocMipmappedArray", "cudaMallocMipmappedArray", MIPMAP_BYTES,
     "cudaMallocMipmappedArray", "device", 0),
    ("leak_cudaHostRegister", "cudaHostRegister", D["RT_HOST_REGISTER_BYTES"],
     "cudaHostRegister", "host", 0),
    ("leak_on_device1", "device1", D["RT_DEVICE1_BYTES"], "cudaMalloc", "device", 1),
]
LOOP_APIS = 13  # balanced_loops: alloc/free pairs per iteration
SUMMARY = H.define_api_cases(globals(), program_name="rt_apis", source=SRC,
                             leak_list=LEAKS, loop_pairs=LOOP_APIS * LOOP)


if __name__ == "__main__":
    H.main(globals())
