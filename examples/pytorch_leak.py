"""For PyTorch users: find the tensor that is never released.

    PYTORCH_NO_CUDA_MEMORY_CACHING=1 vramtrace run -- python3 examples/pytorch_leak.py

PyTorch's caching allocator keeps freed blocks to reuse them, and allocates
large segments that many tensors share; at exit you would see those segments
at the call that first grew the cache. PYTORCH_NO_CUDA_MEMORY_CACHING=1 makes
every tensor its own cudaMalloc/cudaFree, so the report names the Python line
that created each tensor still alive. (Without the variable, read the usage
over time instead: a cache reaches a plateau, a leak keeps growing.)
"""
import torch

history = []


def train_step(x):
    y = torch.relu(x @ x)                 # temporaries: freed when they go out of scope
    history.append(y.sum(dim=0))          # a small tensor kept every step: the leak
    return y.mean().item()


def main():
    x = torch.randn(1024, 1024, device="cuda")
    for _ in range(10):
        train_step(x)
    torch.cuda.synchronize()
    print("kept %d tensors" % len(history))


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
