# SPDX-License-Identifier: MIT
"""PyTorch programs for tests/test_torch_tensors.py, one per argument, run
with PyTorch's default caching allocator and no flag: the tensors inside its
segments are traced at their own lines. Each ends with os._exit(0) after
synchronizing, so what it keeps is still allocated at the end."""
import os
import sys

import torch

STEPS = 30
ACTIVATION = 1024 * 1024          # float32 elements: 4 MiB
SLOW_STEPS = 300
SLOW = 2048                       # float32 elements: 8 KiB
BATCH, FEATURES = 256, 1024
KEPT_FLOATS = 256 * 1024          # float32 elements: 1 MiB


def dict_cache():
    """A dict keeps one 4 MiB activation per step."""
    cache = {}
    x = torch.ones(ACTIVATION, device="cuda")             # CALL:input
    for i in range(STEPS):
        y = torch.relu(x)                                 # CALL:relu
        cache[i] = y * 2                                  # LEAK:cache
        del y
    return cache


def slow_leak():
    """8 KiB kept per step for 300 steps, 1 MiB made and dropped beside."""
    kept = []
    for _ in range(SLOW_STEPS):
        scratch = torch.ones(256 * 1024, device="cuda")
        kept.append(torch.empty(SLOW, device="cuda"))     # LEAK:slow
        del scratch
    return kept


def validation():
    """A validation loop without no_grad: each kept loss keeps its graph,
    and relu saved its 1 MiB output for a backward that never comes."""
    model = torch.nn.Linear(FEATURES, FEATURES).to("cuda")
    x = torch.ones(BATCH, FEATURES, device="cuda")
    losses = []
    for _ in range(10):
        losses.append(torch.relu(model(x)).sum())        # LEAK:validation
    return losses


def module_adam():
    """A module-level model and its Adam optimizer: the parameters, their
    gradients (made on autograd's thread) and Adam's two moments each,
    held to the end; the step's temporaries freed."""
    global MODEL, OPTIMIZER
    MODEL = torch.nn.Linear(FEATURES, FEATURES).to("cuda")               # LEAK:model
    OPTIMIZER = torch.optim.Adam(MODEL.parameters(), foreach=False)
    x = torch.ones(BATCH, FEATURES, device="cuda")  # freed when this returns
    for _ in range(3):
        OPTIMIZER.zero_grad(set_to_none=False)
        MODEL(x).sum().backward()                                        # LEAK:adam_backward
        OPTIMIZER.step()                                                 # LEAK:adam_step
    return MODEL


def nvtx_probe():
    """Exits (0, saying so) where this torch has no NVTX."""
    try:
        torch.cuda.nvtx.range_push("probe")
        torch.cuda.nvtx.range_pop()
    except (RuntimeError, AttributeError, ImportError) as e:
        print("no nvtx:", e, flush=True)
        os._exit(0)


def nvtx_steps():
    """20 steps, each an NVTX range named "step" that keeps a 1 MiB tensor
    (no vramtrace marker: `run --mark-on-nvtx step` makes them)."""
    nvtx_probe()
    kept = []
    for _ in range(20):
        with torch.cuda.nvtx.range("step"):
            kept.append(torch.empty(KEPT_FLOATS, device="cuda"))  # LEAK:nvtx
    return kept


def nvtx_phases():
    """20 steps, each keeping a 1 MiB tensor inside a range "forward" (a
    phase) inside the step's range."""
    nvtx_probe()
    kept = []
    for _ in range(20):
        with torch.cuda.nvtx.range("step"), torch.cuda.nvtx.range("forward"):
            kept.append(torch.empty(KEPT_FLOATS, device="cuda"))  # LEAK:nvtx_forward
    return kept


def since():
    """vramtrace.leaked_since, peak_since and leak_sites_since around a
    1 MiB tensor kept, in a new segment of the cache and then in that
    segment's free room, and around one made and dropped: each figure the
    tensors kept, each peak the 1 MiB tensor live at once."""
    import vramtrace
    kept = []
    for _ in range(2):
        token = vramtrace.checkpoint()
        kept.append(torch.empty(KEPT_FLOATS, device="cuda"))     # LEAK:since
        print("kept", vramtrace.leaked_since(token), flush=True)
        print("peak", vramtrace.peak_since(token), flush=True)
        print(vramtrace.leak_sites_since(token), end="", flush=True)
    token = vramtrace.checkpoint()
    del kept[-1]
    torch.empty(KEPT_FLOATS, device="cuda")
    print("dropped", vramtrace.leaked_since(token), flush=True)
    print("peak", vramtrace.peak_since(token), flush=True)
    return kept


def graph_shared_pool():
    """Two CUDA graphs sharing one private pool (pool=g1.pool()), replayed
    for 10 steps that each keep a clone of the second graph's output: the
    graphs' outputs are tensors in the pool at their captured lines, the
    clones grow at theirs."""
    import vramtrace
    x = torch.ones(ACTIVATION, device="cuda")                        # LEAK:graph_input
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        warm = x * 2                                                 # warm-up, off the graphs
    torch.cuda.current_stream().wait_stream(side)
    del warm
    g1, g2 = torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()
    with torch.cuda.graph(g1):
        a = x * 2                                                    # LEAK:graph_first
    with torch.cuda.graph(g2, pool=g1.pool()):
        b = a + 1                                                    # LEAK:graph_second
    kept = []
    for _ in range(10):
        g1.replay()
        g2.replay()
        kept.append(b.clone())                                       # LEAK:graph_kept
        vramtrace.mark("step")
    return g1, g2, x, a, b, kept


if __name__ == "__main__":
    KEPT = globals()[sys.argv[1]]()
    torch.cuda.synchronize()
    print("done", sys.argv[1], KEPT is not None, flush=True)
    os._exit(0)
