# SPDX-License-Identifier: MIT
"""The on-behalf reading while thread states come and go: CHURNERS Python
threads start and end short-lived threads (each one's thread state created
and freed) while a C thread named like PyTorch's autograd thread makes
ALLOCATIONS allocations of STRESS_BYTES for the main thread, which waits in
a function compiled as torch's backward entry. No crash; every allocation
whose on-behalf frames were read has exactly the main thread's.
The first argument is the directory of vt_cudaext for this interpreter."""
import sys
import threading

STRESS_BYTES = 4099
ALLOCATIONS = 3000
CHURNERS = 4
ENGINE_FILE = "/vt-behalf/site-packages/torch/autograd/graph.py"

engine = {}
exec(compile("def _engine_run_backward(run, *args):\n    return run(*args)\n", ENGINE_FILE,
             "exec"), engine)
run_backward = engine["_engine_run_backward"]
stop = threading.Event()


def churn():
    while not stop.is_set():
        t = threading.Thread(target=sum, args=([1, 2],))
        t.start()
        t.join()


def allocate(ext):
    run_backward(ext.alloc_in_c_thread, STRESS_BYTES, "pt_autograd_0", ALLOCATIONS)  # CALL:stress


def main():
    sys.path.insert(0, sys.argv[1])
    import vt_cudaext
    churners = [threading.Thread(target=churn) for _ in range(CHURNERS)]
    for t in churners:
        t.start()
    allocate(vt_cudaext)  # CALL:main_stress
    stop.set()
    for t in churners:
        t.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())  # CALL:module
