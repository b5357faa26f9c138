# SPDX-License-Identifier: MIT
"""A PyTorch loop started untraced and attached while it runs
(tests/test_attach.py): 5 MiB on the device before attach, then each step
keeps one 4 MiB tensor, a line on stdin between steps (the test marks the
step with SIGUSR2 meanwhile). Run with PYTORCH_NO_CUDA_MEMORY_CACHING=1:
each kept tensor is one cudaMalloc."""
import sys

import torch

kept = []


def step(x):
    kept.append(x * 2.0)                                     # LEAK:grow


def main(steps):
    x = torch.ones(1024, 1024, device="cuda")
    before = torch.ones(256, 1024, device="cuda")
    print("ready", flush=True)
    for _ in range(steps):
        sys.stdin.readline()
        step(x)                                              # CALL:step
        torch.cuda.synchronize()
        print("step", flush=True)
    sys.stdin.readline()
    print("kept", len(kept), before.shape[0])


if __name__ == "__main__":
    main(int(sys.argv[1]))                                   # CALL:main
