"""Python locations the tracer remembers by (code object, instruction):
- two_sites() leaks at two lines, called three times: every allocation
  keeps its own line (SITE_A_BYTES and SITE_B_BYTES, three allocations each);
- three functions compiled from source in turn, each deleted before the
  next is made, so the next code object may take the freed one's address:
  each leak (FRESH_BYTES + i) names its own line (FRESH_FIRST_LINE + i)."""
import ctypes
import gc
import os
import sys

SITE_A_BYTES = 3300001
SITE_B_BYTES = 3300007
FRESH_BYTES = 3400001
FRESH_FIRST_LINE = 2
FRESH_FILE = "<fresh>"


def allocate(lib, nbytes):
    p = ctypes.c_void_p()
    if lib.cudaMalloc(ctypes.byref(p), nbytes) != 0 or not p.value:
        sys.stderr.write("stand-in misbehaved\n")
        sys.exit(99)
    return p


def two_sites(lib, keep):
    keep.append(allocate(lib, SITE_A_BYTES))  # LEAK:site_a
    keep.append(allocate(lib, SITE_B_BYTES))  # LEAK:site_b


def fresh_function(blank_lines):
    """A new code object whose allocating line is FRESH_FIRST_LINE + blank_lines."""
    source = "\n" * blank_lines + "def fresh(lib, allocate, nbytes):\n" \
        "    return allocate(lib, nbytes)\n"
    scope = {}
    exec(compile(source, FRESH_FILE, "exec"), scope)
    return scope["fresh"]


def main():
    lib = ctypes.PyDLL("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
    lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    keep = []
    for _ in range(3):
        two_sites(lib, keep)
    for i in range(3):
        fresh = fresh_function(i)
        keep.append(fresh(lib, allocate, FRESH_BYTES + i))
        del fresh
        gc.collect()
    return 0


if __name__ == "__main__":
    sys.exit(main())
# SPDX-License-Identifier: MIT
