# SPDX-License-Identifier: MIT
"""tests/bench/deep.sh's Python caller of libtorchish.so (torchish.cpp):
DEPTH Python frames above it, called through ctypes.CDLL (the GIL released,
as PyTorch's C++ releases it around CUDA work).
Usage: bench_torchish.py LIBRARY PAIRS DEPTH; prints "ns_per_pair N"."""
import ctypes
import os
import sys

lib = ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW | os.RTLD_LOCAL)
lib.torchish_pairs.argtypes = [ctypes.c_long]
lib.torchish_pairs.restype = ctypes.c_double


def at_depth(depth, pairs):
    if depth <= 1:
        return lib.torchish_pairs(pairs)
    return at_depth(depth - 1, pairs)


def main():
    pairs, depth = int(sys.argv[2]), int(sys.argv[3])
    at_depth(depth, 100)  # warm up
    print("ns_per_pair %.1f" % at_depth(depth, pairs))


if __name__ == "__main__":
    main()
