"""A Python program that leaks GPU memory, for trying vramtrace's Python view:

    vramtrace run -- python3 examples/leaky.py

The report names Model.forward and the line that allocates, then the Python
calls that led there. It calls the CUDA runtime through ctypes.CDLL, which
releases the GIL around the call as PyTorch and CuPy do around theirs:
vramtrace reads the calling thread's Python frames all the same.
Without a GPU, tools/setup.sh's stand-in CUDA libraries serve (LD_LIBRARY_PATH).
"""
import ctypes
import os
import sys


def load_cuda_runtime():
    for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
        try:
            lib = ctypes.CDLL(name, mode=os.RTLD_NOW | os.RTLD_LOCAL)
        except OSError:
            continue
        lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        lib.cudaFree.argtypes = [ctypes.c_void_p]
        return lib
    sys.exit("no CUDA runtime found (libcudart.so.13 or .12)")


cudart = load_cuda_runtime()


def device_buffer(nbytes):
    ptr = ctypes.c_void_p()
    if cudart.cudaMalloc(ctypes.byref(ptr), nbytes) != 0:
        raise MemoryError("cudaMalloc(%d) failed" % nbytes)
    return ptr


class Model:
    def __init__(self):
        self.weights = device_buffer(4 << 20)
        self.history = []

    def forward(self, step):
        activations = device_buffer(1 << 20)
        self.history.append(activations)  # kept forever: the leak
        return step

    def close(self):
        cudart.cudaFree(self.weights)


def train(steps):
    model = Model()
    for step in range(steps):
        model.forward(step)
    model.close()


if __name__ == "__main__":
    train(4)
    print("trained 4 steps")
# SPDX-License-Identifier: MIT
