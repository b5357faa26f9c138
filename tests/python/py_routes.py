"""The three ways Python code reaches cudaMalloc, each leaking once:
- CDLL_BYTES through ctypes.CDLL (the GIL released around the call);
- PYDLL_BYTES through ctypes.PyDLL (the GIL held);
- EXT_BYTES through a C extension that releases the GIL itself, as PyTorch's
  and CuPy's do (vt_cudaext, built for this interpreter; its directory is
  the first argument)."""
import ctypes
import os
import sys

CDLL_BYTES = 3500011
PYDLL_BYTES = 3500017
EXT_BYTES = 3500023


def load(kind):
    lib = kind("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
    lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    return lib


def allocate(lib, nbytes):
    p = ctypes.c_void_p()
    if lib.cudaMalloc(ctypes.byref(p), nbytes) != 0:  # LEAK:ctypes
        sys.exit(99)
    return p


def through_cdll(keep):
    keep.append(allocate(load(ctypes.CDLL), CDLL_BYTES))  # CALL:cdll


def through_pydll(keep):
    keep.append(allocate(load(ctypes.PyDLL), PYDLL_BYTES))  # CALL:pydll


def through_extension(keep, ext):
    keep.append(ext.alloc_nogil(EXT_BYTES))  # LEAK:extension


def main():
    sys.path.insert(0, sys.argv[1])
    import vt_cudaext
    keep = []
    through_cdll(keep)  # CALL:main_cdll
    through_pydll(keep)  # CALL:main_pydll
    through_extension(keep, vt_cudaext)  # CALL:main_extension
    return 0


if __name__ == "__main__":
    sys.exit(main())  # CALL:module
# SPDX-License-Identifier: MIT
