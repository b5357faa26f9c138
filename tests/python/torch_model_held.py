# SPDX-License-Identifier: MIT
"""A user's training script, PyTorch's default caching allocator, no flag,
ending normally: a module-level model with Adam (what it holds at the end
is held, not leaked), a marker per step (vramtrace_mark), and with the argument
"cache" a dict that keeps one 1 MiB activation a step (the leak)."""
import ctypes
import sys

import torch

mark = ctypes.CDLL(None).vramtrace_mark  # the tracer is preloaded

STEPS = 12
keep = sys.argv[1:] == ["cache"]
model = torch.nn.Linear(1024, 1024).cuda()                # LEAK:model
opt = torch.optim.Adam(model.parameters())
cache = {}
for step in range(STEPS):
    x = torch.randn(256, 1024, device="cuda")
    out = model(x)
    loss = out.square().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if keep:
        cache[step] = torch.relu(out).detach() * 2        # LEAK:cache
    mark(b"step")
print("done", len(cache))
