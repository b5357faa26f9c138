# SPDX-License-Identifier: MIT
"""A Python program started untraced and attached while it runs
(tests/test_attach.py, CPython 3.14: through sys.remote_exec): 3 MiB through
the stand-in runtime before attach, then 1 MiB a step kept, through the
driver's cuMemAlloc looked up after attach (a function ctypes looked up
before attach keeps its pointer: not seen). It waits for a file of FOLDER
to appear, running Python meanwhile (a safe point for a remote script at
each turn)."""
import ctypes
import os
import sys
import time

FOLDER = sys.argv[1]
runtime = ctypes.CDLL("libcudart.so.13")


def alloc(nbytes):
    ptr = ctypes.c_void_p()
    if runtime.cudaMalloc(ctypes.byref(ptr), ctypes.c_size_t(nbytes)) != 0:
        sys.exit(99)
    return ptr


def wait_for(name):
    while not os.path.exists(os.path.join(FOLDER, name)):
        time.sleep(0.002)


def grow(kept, mem_alloc):
    ptr = ctypes.c_uint64()
    if mem_alloc(ctypes.byref(ptr), ctypes.c_size_t(1 << 20)) != 0:  # LEAK:py_grow
        sys.exit(99)
    kept.append(ptr)


def main():
    kept = [alloc(3 << 20)]
    print("ready", flush=True)
    wait_for("go")
    mem_alloc = ctypes.CDLL("libcuda.so.1").cuMemAlloc_v2
    for _ in range(3):
        grow(kept, mem_alloc)                                # CALL:grow
    print("attached part done", flush=True)
    wait_for("end")
    grow(kept, mem_alloc)
    print("kept", len(kept))


main()
