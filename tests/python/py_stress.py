"""WORKERS threads allocate through ctypes.CDLL (the GIL released) while
CHURNERS threads make and drop code: functions compiled from fresh source,
modules written, imported and forgotten. Worker i makes PER_WORKER
allocations of STRESS_BYTES + i bytes and keeps the first KEPT. The workers
stay alive until the process exits: ThreadSanitizer (tests/run.sh runs this
under it) crashes in libunwind's thread-exit destructor in threads of an
uninstrumented interpreter, and no worker thread ever ends here."""
import ctypes
import os
import sys
import tempfile
import threading

WORKERS = 8
CHURNERS = 3
PER_WORKER = 150
KEPT = 7
STRESS_BYTES = 3700001

lib = ctypes.CDLL("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
lib.cudaFree.argtypes = [ctypes.c_void_p]
stop = threading.Event()
done = threading.Semaphore(0)
never = threading.Event()
# The workers allocate first all at once: every thread looks for the
# interpreter on its first allocation, and none may go without its frames.
start = threading.Barrier(WORKERS)


def allocate(nbytes):
    p = ctypes.c_void_p()
    if lib.cudaMalloc(ctypes.byref(p), nbytes) != 0:  # LEAK:stress
        os._exit(99)
    return p


def worker(i, kept):
    start.wait()
    for n in range(PER_WORKER):
        p = allocate(STRESS_BYTES + i)  # CALL:worker
        if n < KEPT:
            kept.append(p)
        elif lib.cudaFree(p) != 0:
            os._exit(98)
    done.release()
    never.wait()


def churn(k, where):
    n = 0
    while not stop.is_set():
        scope = {}
        exec(compile("\n" * (n % 50) + "def f%d(x):\n    return x + %d\n" % (n, n),
                     "<churn %d>" % k, "exec"), scope)
        scope["f%d" % n](n)
        name = "vt_churn_%d_%d" % (k, n)
        with open(os.path.join(where, name + ".py"), "w") as f:
            f.write("def g():\n    return %d\n" % n)
        __import__(name).g()
        del sys.modules[name]
        n += 1


def main():
    where = tempfile.mkdtemp()
    sys.path.insert(0, where)
    churners = [threading.Thread(target=churn, args=(k, where)) for k in range(CHURNERS)]
    kept = [[] for _ in range(WORKERS)]
    workers = [threading.Thread(target=worker, args=(i, kept[i]), daemon=True)
               for i in range(WORKERS)]
    for t in churners + workers:
        t.start()
    for _ in workers:
        done.acquire()
    stop.set()
    for t in churners:
        t.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
# SPDX-License-Identifier: MIT
