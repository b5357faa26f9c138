"""The C API from ctypes: ctypes.CDLL(None) finds the preloaded tracer's
functions. Prints "absent" without the tracer, else what the API answered
around a cudaMalloc of CTYPES_API_BYTES (stand-in runtime via ctypes)."""
import ctypes
import os
import sys

CTYPES_API_BYTES = 1234577


def main():
    me = ctypes.CDLL(None)
    try:
        live = me.vramtrace_live_bytes
    except AttributeError:
        print("absent")
        return 0
    live.restype = ctypes.c_uint64
    me.vramtrace_checkpoint.restype = ctypes.c_uint64
    me.vramtrace_leaked_since.restype = ctypes.c_uint64
    me.vramtrace_leaked_since.argtypes = [ctypes.c_uint64]
    cudart = ctypes.CDLL("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
    cudart.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    cudart.cudaFree.argtypes = [ctypes.c_void_p]
    before = live()
    token = me.vramtrace_checkpoint()
    p = ctypes.c_void_p()
    if cudart.cudaMalloc(ctypes.byref(p), CTYPES_API_BYTES) != 0:
        sys.exit(99)
    print("active=%d" % me.vramtrace_active())
    print("delta=%d" % (live() - before))
    print("leaked_since=%d" % me.vramtrace_leaked_since(token))
    cudart.cudaFree(p)
    print("after_free=%d" % (live() - before))
    return 0


if __name__ == "__main__":
    sys.exit(main())
# SPDX-License-Identifier: MIT
