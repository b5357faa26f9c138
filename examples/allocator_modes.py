"""How PyTorch's three allocator settings look to vramtrace, without PyTorch:
this script allocates "tensors" the way PyTorch's allocator would under the
same environment variables, through the CUDA runtime (ctypes.CDLL releases
the GIL, as PyTorch does around its CUDA calls):

    vramtrace run -- python3 examples/allocator_modes.py                  # caching
    vramtrace run --pytorch-tensors -- python3 examples/allocator_modes.py  # cudaMallocAsync
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 vramtrace run -- python3 examples/allocator_modes.py

Caching (the default): 2 MiB tensors carved out of 20 MiB segments, each
segment one cudaMalloc, made when the cache is full and never given back.
cudaMallocAsync backend: each tensor one cudaMallocAsync / cudaFreeAsync.
No caching: each tensor one cudaMalloc / cudaFree. One tensor a step is kept
forever: the leak.
"""
import ctypes
import os

cudart = ctypes.CDLL("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
cudart.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
cudart.cudaMallocAsync.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t,
                                   ctypes.c_void_p]
cudart.cudaFree.argtypes = [ctypes.c_void_p]
cudart.cudaFreeAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
TENSOR, SEGMENT = 2 << 20, 20 << 20
ASYNC = "backend:cudaMallocAsync" in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
NO_CACHE = os.environ.get("PYTORCH_NO_CUDA_MEMORY_CACHING") == "1"
free_blocks = []


def device_malloc(nbytes):
    p = ctypes.c_void_p()
    if ASYNC:
        rc = cudart.cudaMallocAsync(ctypes.byref(p), nbytes, None)
    else:
        rc = cudart.cudaMalloc(ctypes.byref(p), nbytes)
    if rc != 0:
        raise MemoryError(rc)
    return p.value


def empty(nbytes=TENSOR):
    """A tensor's memory, as PyTorch's allocator would hand it out."""
    if ASYNC or NO_CACHE:
        return device_malloc(nbytes)
    if not free_blocks:  # the cache grows by a segment
        base = device_malloc(SEGMENT)
        free_blocks.extend(base + i * TENSOR for i in range(SEGMENT // TENSOR))
    return free_blocks.pop()


def release(block):
    if ASYNC:
        cudart.cudaFreeAsync(block, None)
    elif NO_CACHE:
        cudart.cudaFree(block)
    else:
        free_blocks.append(block)  # back to the cache, not to CUDA


def train_step(history):
    activations = empty()
    history.append(empty())  # kept every step: the leak
    release(activations)


def main():
    history = []
    for _ in range(12):
        train_step(history)


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
