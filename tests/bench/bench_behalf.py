# SPDX-License-Identifier: MIT
"""tests/bench/behalf.sh's Python side: DEPTH Python frames, then a
function compiled as torch's backward entry (_engine_run_backward in
torch/autograd/graph.py) calling libbench_behalf.so through ctypes.CDLL
(the GIL released, as torch's run_backward releases it), whose thread NAME
allocates; THREADS more Python threads wait meanwhile (a process's other
threads: the tracer looks at each).
Usage: bench_behalf.py LIBRARY PAIRS DEPTH NAME THREADS; prints "ns_per_pair N"."""
import ctypes
import os
import sys
import threading

lib = ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW | os.RTLD_LOCAL)
lib.behalf_pairs.argtypes = [ctypes.c_long, ctypes.c_char_p]
lib.behalf_pairs.restype = ctypes.c_double
engine = {}
exec(compile("def _engine_run_backward(pairs, name):\n"
             "    return lib.behalf_pairs(pairs, name)\n",
             "/bench/site-packages/torch/autograd/graph.py", "exec"), {"lib": lib}, engine)
run_backward = engine["_engine_run_backward"]


def at_depth(depth, pairs, name):
    if depth <= 1:
        return run_backward(pairs, name)
    return at_depth(depth - 1, pairs, name)


def main():
    pairs, depth, name, threads = (int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].encode(),
                                   int(sys.argv[5]))
    done = threading.Event()
    waiting = [threading.Thread(target=done.wait) for _ in range(threads)]
    for t in waiting:
        t.start()
    at_depth(depth, 100, name)  # warm up
    print("ns_per_pair %.1f" % at_depth(depth, pairs, name))
    done.set()
    for t in waiting:
        t.join()


if __name__ == "__main__":
    main()
