# SPDX-License-Identifier: MIT
"""PyTorch programs with exact ground truth for tests/test_torch.py, one per
argument. Each ends with os._exit(0) after synchronizing, so the tensors it
keeps are still allocated when the process ends and vramtrace reports them
at the lines that made them (a normal exit would free them at interpreter
teardown)."""
import ctypes
import linecache
import os
import sys
import threading
import time

import torch

IN, OUT, BATCH = 1024, 1024, 256
TWO_THREADS_MAIN_ELEMENTS = 262144
TWO_THREADS_OTHER_ELEMENTS = 131072


def linear():
    """nn.Linear forward and backward: the parameters, the input, the
    gradients (4 MiB weight, 4 KiB bias), cuBLAS's workspace."""
    model = torch.nn.Linear(IN, OUT).to("cuda")          # LEAK:model
    x = torch.ones(BATCH, IN, device="cuda")              # LEAK:input
    for _ in range(3):
        loss = model(x).sum()                             # LEAK:forward
        loss.backward()                                   # LEAK:backward
    return model, x


def conv2d():
    """nn.Conv2d forward, twice, over PyTorch's own kernels (cuDNN off: the
    stand-ins carry no cuDNN): the parameters, the input, the two kept
    outputs; the im2col buffer of each forward is freed."""
    torch.backends.cudnn.enabled = False
    conv = torch.nn.Conv2d(16, 32, 3).to("cuda")          # LEAK:conv_layer
    x = torch.ones(4, 16, 32, 32, device="cuda")          # LEAK:conv_input
    with torch.no_grad():
        return conv, [conv(x) for _ in range(2)]          # LEAK:conv_output


def expandable():
    """expandable_segments:True: tensors in one growing segment of
    cuMemCreate'd pages; the kept ones at their line."""
    kept = [torch.empty(4 << 20, dtype=torch.uint8, device="cuda") for _ in range(5)]  # LEAK:expandable
    return kept


def oom():
    """An allocation the 1 GiB stand-in GPU cannot hold: torch raises
    OutOfMemoryError, and the program goes on."""
    keep = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")    # LEAK:before_oom
    try:
        torch.empty(768 << 20, dtype=torch.uint8, device="cuda")       # LEAK:oom
    except torch.cuda.OutOfMemoryError:
        print("out of memory")
    return keep


def graph():
    """torch.cuda.graph capture and replay: the graph's private pool holds
    its output."""
    x = torch.ones(1 << 20, device="cuda")                # LEAK:static_input
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        y = x * 2                                         # warm-up on a side stream
    torch.cuda.current_stream().wait_stream(s)
    del y
    with torch.cuda.graph(g):
        out = x * 2                                       # LEAK:captured
    for _ in range(3):
        g.replay()
    return g, x, out


def pinned():
    """Pinned host memory: pin_memory() and a non-blocking copy to the GPU."""
    host = torch.ones(1 << 20).pin_memory()               # LEAK:pinned
    dev = host.to("cuda", non_blocking=True)              # LEAK:copied
    return host, dev


def item():
    """.item() of a CUDA tensor, three times: the scalar copied back through
    a 4-byte page-locked block of PyTorch's host cache, made once, kept."""
    x = torch.ones(4, device="cuda")
    return [(x * i).sum().item() for i in range(3)]       # LEAK:item


def dataloader():
    """A DataLoader with 2 worker processes and pinned batches: 4 batches of
    64 x 1024 float32 (256 KiB) copied to the GPU and kept."""
    data = torch.utils.data.TensorDataset(torch.ones(256, 1024))
    loader = torch.utils.data.DataLoader(data, batch_size=64, num_workers=2, pin_memory=True)
    kept = [batch.to("cuda", non_blocking=True) for (batch,) in loader]   # LEAK:batches
    return kept


def snapshot():
    """The caching allocator recording its own history (torch's
    _record_memory_history) while it grows, empties its cache and grows
    again; torch's snapshot written to the file named second."""
    torch.cuda.memory._record_memory_history(max_entries=100000)
    kept = [torch.ones(1 << 20, device="cuda") for _ in range(8)]     # LEAK:history
    del kept[2:]
    torch.cuda.empty_cache()                                           # segments given back
    kept += [torch.ones(256, device="cuda") for _ in range(3)]
    torch.cuda.synchronize()
    torch.cuda.memory._dump_snapshot(sys.argv[2])
    return kept


def backward_growth():
    """A marker, then five steps with a marker after each: each backward of
    w.sum() makes w's gradient (512 x 512 float32: 1 MiB) on autograd's
    device thread, which runs no Python, and the loop keeps it. The caching
    allocator puts tensors of 1 MiB or less in 2 MiB segments: one for w
    (and the small scalars), then a new one every other step for the
    gradients, reserved on that thread."""
    mark = ctypes.CDLL(None).vramtrace_mark
    w = torch.ones(512, 512, device="cuda", requires_grad=True)
    grads = []
    mark(b"start")
    for step in range(5):
        w.sum().backward()                                # LEAK:backward_growth
        grads.append(w.grad)
        w.grad = None
        mark(b"step %d" % step)
    return grads


def waiting_in_backward(thread):
    """Whether THREAD's innermost Python frame is torch's backward entry on
    the line that calls the engine (no Python frame comes before the call)."""
    frame = sys._current_frames().get(thread.ident)
    return (frame is not None and frame.f_code.co_name == "_engine_run_backward" and
            "run_backward(" in linecache.getline(frame.f_code.co_filename, frame.f_lineno))


class Hold(torch.autograd.Function):
    """x.clone() forward; backward (on autograd's thread, in Python) first
    starts the other thread's backward when told to and returns once that
    thread waits in torch's backward entry."""

    @staticmethod
    def forward(ctx, x, other):
        ctx.other = other
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        if ctx.other is not None:
            ctx.other.go.set()
            while not waiting_in_backward(ctx.other):
                time.sleep(0.001)
        return grad, None


def backward_two_threads():
    """Two threads call backward() at once (run with --pytorch-tensors:
    each gradient is an allocation of its own on autograd's thread). This
    thread's gradient (TWO_THREADS_MAIN_ELEMENTS floats) is made after the
    other thread has entered backward() too, whose task waits behind this
    one's: no on-behalf frames. The other thread's gradient
    (TWO_THREADS_OTHER_ELEMENTS) is made for that thread, while this one
    may or may not still be returning from its backward()."""
    grads = []
    other = threading.Thread(target=other_backward, args=(grads,))
    other.go = threading.Event()
    other.start()
    w = torch.ones(TWO_THREADS_MAIN_ELEMENTS, device="cuda", requires_grad=True)
    Hold.apply(w, other).sum().backward()
    other.join()
    return grads + [w.grad]


def other_backward(grads):
    w = torch.ones(TWO_THREADS_OTHER_ELEMENTS, device="cuda", requires_grad=True)
    loss = Hold.apply(w, None).sum()
    threading.current_thread().go.wait()
    loss.backward()                                       # LEAK:other_backward
    grads.append(w.grad)


def main():
    kept = globals()[sys.argv[1]]()
    torch.cuda.synchronize()
    print("done", sys.argv[1], kept is not None)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
