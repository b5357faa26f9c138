# SPDX-License-Identifier: MIT
"""A rank of a data-parallel job under torchrun (tests/test_job.py): the
gloo backend, CUDA tensors on device LOCAL_RANK. Each step every rank keeps
a 1 MiB tensor, rank 2 also an 8 MiB one, and the ranks sum a small CUDA
tensor; a vramtrace marker after each step."""
import ctypes
import os
import sys

import torch
import torch.distributed as dist

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 4
mark = getattr(ctypes.CDLL(None), "vramtrace_mark", None)


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    torch.cuda.set_device(device)
    kept, extra = [], []
    for _ in range(STEPS):
        kept.append(torch.ones(256 * 1024, device=device))               # LEAK:common
        if rank == 2:
            extra.append(torch.ones(2 * 1024 * 1024, device=device))     # LEAK:extra
        dist.all_reduce(torch.ones(4, device=device))
        if mark:
            mark(b"step")
    torch.cuda.synchronize()
    print("rank", rank, "kept", len(kept), len(extra))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
