# SPDX-License-Identifier: MIT
"""The training loop of tests/python/torch_loop.py, timed: STEPS steps of a
64 KiB activation and a loss kept each step (small, so that thousands of
steps fit the stand-in GPU), after a warm-up step. Prints "ms_per_step X".
tests/bench/torch.sh runs it untraced and traced."""
import os
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
activations, losses = [], []
x = torch.ones(64, 256, device="cuda")
w = torch.full((64, 256), 0.5, device="cuda")


def step():
    h = torch.relu(x * w)
    loss = (h - 1.0).abs().sum()
    activations.append(h)
    losses.append(loss)


step()
torch.cuda.synchronize()
os.getppid()  # callgrind --zero-before=getppid: the loop's count starts here (torch.sh)
start = time.perf_counter()
for _ in range(steps):
    step()
torch.cuda.synchronize()
elapsed = time.perf_counter() - start
os.getpgrp()  # and --dump-before=getpgrp ends it
print("ms_per_step %.4f" % (elapsed * 1e3 / steps))
