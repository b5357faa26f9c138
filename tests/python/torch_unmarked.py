# SPDX-License-Identifier: MIT
"""A user's training script without markers (issue 38): `import torch`
takes seconds, then STEPS fast steps, PyTorch's default caching allocator,
no flag. With the argument "keep" a dict keeps a 1 MiB activation a step
(the leak); without it nothing is kept. The model loaded first is held."""
import sys

import torch

STEPS = 30
keep = sys.argv[1:] == ["keep"]
model = torch.nn.Linear(1024, 1024).cuda()                # LEAK:model
acts = {}
for step in range(STEPS):
    x = torch.randn(256, 1024, device="cuda")
    out = model(x)
    loss = out.square().mean()
    loss.backward()
    if keep:
        acts[step] = torch.relu(out).detach() * 2         # LEAK:keep
print("done", len(acts))
