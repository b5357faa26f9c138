# SPDX-License-Identifier: MIT
"""Python frames as frameworks make them, through vt_cudaext (the GIL
released around cudaMalloc; its directory is the first argument):
- LOOP_COUNT allocations of LOOP_BYTES from one line in a loop, and as many
  of CDLL_LOOP_BYTES through ctypes.CDLL: the interpreter specializes the
  call after the first ones (another return address in its evaluation
  loop), the line shown stays the same: one leak each;
- CALLBACK_BYTES at the end of Python -> C -> Python -> C -> Python, C
  calling back into Python as JAX's jit, PyTorch's autograd Functions and
  hooks do (vt_cudaext.call_back)."""
import ctypes
import functools
import os
import sys

LOOP_BYTES = 3700011
CDLL_LOOP_BYTES = 3700017
LOOP_COUNT = 8
CALLBACK_BYTES = 3700023


def loop(ext, keep):
    for _ in range(LOOP_COUNT):
        keep.append(ext.alloc_nogil(LOOP_BYTES))  # LEAK:loop


def loop_cdll(keep):
    lib = ctypes.CDLL("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
    lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    for _ in range(LOOP_COUNT):
        p = ctypes.c_void_p()
        keep.append(p)
        if lib.cudaMalloc(ctypes.byref(p), CDLL_LOOP_BYTES) != 0:  # LEAK:loop_cdll
            sys.exit(99)


def inner(ext, keep):
    keep.append(ext.alloc_nogil(CALLBACK_BYTES))  # LEAK:callback


def middle(ext, keep):
    ext.call_back(functools.partial(inner, ext, keep))  # CALL:middle


def outer(ext, keep):
    ext.call_back(functools.partial(middle, ext, keep))  # CALL:outer


def main():
    sys.path.insert(0, sys.argv[1])
    import vt_cudaext
    keep = []
    loop(vt_cudaext, keep)  # CALL:main_loop
    loop_cdll(keep)  # CALL:main_loop_cdll
    outer(vt_cudaext, keep)  # CALL:main_callback
    return 0


if __name__ == "__main__":
    sys.exit(main())  # CALL:module
