"""Python loading libcudart.so.13 with ctypes (RTLD_LOCAL), as Python
programs and extension modules do.  Leaks CTYPES_LEAK_BYTES through
cudaMalloc from a CDLL handle (the GIL released during the call), frees
CTYPES_FREED_BYTES, and leaks CTYPES_GIL_LEAK_BYTES through a PyDLL handle
(the GIL held during the call, so the tracer may see the Python frames)."""
import ctypes
import os
import sys

CTYPES_LEAK_BYTES = 2500009
CTYPES_FREED_BYTES = 2500013
CTYPES_GIL_LEAK_BYTES = 2500019

MODE = os.RTLD_NOW | os.RTLD_LOCAL


def fail(what, got):
    sys.stderr.write("stand-in misbehaved: %s returned %r\n" % (what, got))
    sys.exit(99)


def load(kind):
    lib = kind("libcudart.so.13", mode=MODE)
    lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    lib.cudaMalloc.restype = ctypes.c_int
    lib.cudaFree.argtypes = [ctypes.c_void_p]
    lib.cudaFree.restype = ctypes.c_int
    return lib


def leak(lib):
    p = ctypes.c_void_p()
    rc = lib.cudaMalloc(ctypes.byref(p), CTYPES_LEAK_BYTES)  # LEAK:ctypes
    if rc != 0 or not p.value:
        fail("cudaMalloc", rc)
    return p


def freed(lib):
    p = ctypes.c_void_p()
    rc = lib.cudaMalloc(ctypes.byref(p), CTYPES_FREED_BYTES)
    if rc != 0:
        fail("cudaMalloc", rc)
    rc = lib.cudaFree(p)
    if rc != 0:
        fail("cudaFree", rc)


def leak_with_gil(lib):
    p = ctypes.c_void_p()
    rc = lib.cudaMalloc(ctypes.byref(p), CTYPES_GIL_LEAK_BYTES)  # LEAK:ctypes_gil
    if rc != 0 or not p.value:
        fail("cudaMalloc", rc)
    return p


def main():
    cdll = load(ctypes.CDLL)
    keep = [leak(cdll)]
    freed(cdll)
    keep.append(leak_with_gil(load(ctypes.PyDLL)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
# SPDX-License-Identifier: MIT
