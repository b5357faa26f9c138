# SPDX-License-Identifier: MIT
"""`import vramtrace` (python/vramtrace.py): what the module answers around a
cudaMalloc of MODULE_API_BYTES (stand-in runtime via ctypes) and a marker,
one "key=value" per line; the same program with and without the tracer."""
import ctypes
import os
import sys

import vramtrace

MODULE_API_BYTES = 1234583


def main():
    cudart = ctypes.CDLL("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
    cudart.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    cudart.cudaFree.argtypes = [ctypes.c_void_p]
    before = vramtrace.live_bytes()
    token = vramtrace.checkpoint()
    p = ctypes.c_void_p()
    if cudart.cudaMalloc(ctypes.byref(p), MODULE_API_BYTES) != 0:
        sys.exit(99)
    vramtrace.mark("after-malloc")
    print("active=%s" % vramtrace.active())
    print("loaded=%s" % vramtrace.loaded())
    print("delta=%d" % (vramtrace.live_bytes() - before))
    print("leaked_since=%d" % vramtrace.leaked_since(token))
    print("dump=%s" % vramtrace.dump_path())
    cudart.cudaFree(p)
    print("after_free=%d" % (vramtrace.leaked_since(token)))
    print("peak_since=%d" % vramtrace.peak_since(token))
    return 0


if __name__ == "__main__":
    sys.exit(main())
