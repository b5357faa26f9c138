# SPDX-License-Identifier: MIT
"""Mipmapped arrays, runtime and driver (tests/programs/mipmapped.c): the
"add a CUDA API" checklist followed for cudaMallocMipmappedArray /
cudaFreeMipmappedArray and cuMipmappedArrayCreate / cuMipmappedArrayDestroy."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("mipmapped.c")
D = H.c_defines(SRC)

# (function, tag, bytes, api, kind, device)
LEAKS = [
    ("leak_cudaMallocMipmappedArray", "cudaMallocMipmappedArray", D["MM_RT_BYTES"],
     "cudaMallocMipmappedArray", "device", 0),
    ("leak_cuMipmappedArrayCreate", "cuMipmappedArrayCreate", D["MM_DRV_BYTES"],
     "cuMipmappedArrayCreate", "device", 0),
]
SUMMARY = H.define_api_cases(globals(), program_name="mipmapped", source=SRC, leak_list=LEAKS,
                             loop_pairs=2 * D["LOOP"])


if __name__ == "__main__":
    H.main(globals())
