"""Python frames in the tracer's stacks.  Through a ctypes.PyDLL handle the
GIL stays held during the call into the stand-in runtime; through ctypes.CDLL
it is released, as PyTorch and CuPy release it around their CUDA calls:
- NESTED_BYTES leaked three Python calls deep (outer -> middle -> innermost);
- THREAD_BYTES leaked from a thread started with threading.Thread;
- NOGIL_BYTES leaked through a ctypes.CDLL handle (the GIL released)."""
import ctypes
import os
import sys
import threading

NESTED_BYTES = 3100007
THREAD_BYTES = 3100013
NOGIL_BYTES = 3100019

MODE = os.RTLD_NOW | os.RTLD_LOCAL


def load(kind):
    lib = kind("libcudart.so.13", mode=MODE)
    lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    lib.cudaMalloc.restype = ctypes.c_int
    return lib


def allocate(lib, nbytes):
    p = ctypes.c_void_p()
    rc = lib.cudaMalloc(ctypes.byref(p), nbytes)
    if rc != 0 or not p.value:
        sys.stderr.write("stand-in misbehaved: cudaMalloc returned %r\n" % rc)
        sys.exit(99)
    return p


def innermost(lib):
    return allocate(lib, NESTED_BYTES)  # LEAK:nested


def middle(lib):
    return innermost(lib)  # CALL:middle


def outer(lib):
    return middle(lib)  # CALL:outer


def thread_body(lib, keep):
    keep.append(allocate(lib, THREAD_BYTES))  # LEAK:thread


def without_gil(lib):
    return allocate(lib, NOGIL_BYTES)  # LEAK:nogil


def main():
    with_gil = load(ctypes.PyDLL)
    keep = [outer(with_gil)]
    worker = threading.Thread(target=thread_body, args=(with_gil, keep))
    worker.start()
    worker.join()
    keep.append(without_gil(load(ctypes.CDLL)))  # CALL:without_gil
    return 0


if __name__ == "__main__":
    sys.exit(main())  # CALL:main
# SPDX-License-Identifier: MIT
