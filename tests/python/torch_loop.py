# SPDX-License-Identifier: MIT
"""A PyTorch training loop that keeps its activations and its losses: the
tests/test_torch.py ground truth. Each step makes one 4 MiB activation
(1024 x 1024 float32) kept in a list, and a loss tensor (one float) kept in
another; a vramtrace marker after each step. torch 2.15 over the stand-in
CUDA libraries (tests/torch_env.py)."""
import ctypes
import sys

import torch

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 6
mark = getattr(ctypes.CDLL(None), "vramtrace_mark", None)
activations, losses = [], []


def step(x, w):
    h = torch.relu(x * w)                     # LEAK:activation
    loss = (h - 1.0).abs().sum()              # LEAK:loss
    activations.append(h)
    losses.append(loss)


def main():
    x = torch.ones(1024, 1024, device="cuda")                # LEAK:inputs
    w = torch.full((1024, 1024), 0.5, device="cuda")
    for i in range(STEPS):
        step(x, w)                                           # CALL:step
        if mark:
            mark(b"step %d" % i)
    torch.cuda.synchronize()
    print("kept", len(activations), "activations,", len(losses), "losses")


if __name__ == "__main__":
    main()                                                       # CALL:main
