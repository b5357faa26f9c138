# SPDX-License-Identifier: MIT
"""cudaMalloc/cudaFree pairs from Python at a chosen Python stack depth,
through ctypes.PyDLL (the GIL held) or ctypes.CDLL (the GIL released, as
PyTorch and CuPy call CUDA).
Usage: bench_python.py PAIRS DEPTH [held|released]; prints "ns_per_pair N"."""
import ctypes
import os
import sys
import time

KIND = ctypes.CDLL if sys.argv[3:] == ["released"] else ctypes.PyDLL
lib = KIND("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
lib.cudaFree.argtypes = [ctypes.c_void_p]


def loop(pairs):
    p = ctypes.c_void_p()
    ref = ctypes.byref(p)
    malloc, free = lib.cudaMalloc, lib.cudaFree
    start = time.perf_counter()
    for _ in range(pairs):
        malloc(ref, 4096)
        free(p)
    return time.perf_counter() - start


def at_depth(depth, pairs):
    if depth <= 1:
        return loop(pairs)
    return at_depth(depth - 1, pairs)


def main():
    pairs, depth = int(sys.argv[1]), int(sys.argv[2])
    at_depth(depth, 100)  # warm up
    print("ns_per_pair %.1f" % (at_depth(depth, pairs) * 1e9 / pairs))


if __name__ == "__main__":
    main()
