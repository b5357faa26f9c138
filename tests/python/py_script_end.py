# SPDX-License-Identifier: MIT
"""A script that keeps KEPT_COUNT buffers of KEPT_BYTES in a global list (the
interpreter frees them when it clears the module at shutdown), frees a
TEMP_BYTES buffer every step and never frees one of NEVER_BYTES. Held when
the script ended: the kept ones and the never-freed one. Arguments: "exit"
ends by sys.exit(EXIT_STATUS), "raise" by an uncaught exception; "atexit"
frees the kept ones in an atexit handler registered after they were made
(before the interpreter finalizes, as JAX's clean_up does), "thread" from a
non-daemon thread when threading's shutdown joins it; "fork" forks from
another thread a child that makes CHILD_BYTES and ends with that thread
(its script never ran in it: no script end there); "held_only" frees the
never-freed one before the script ends."""
import atexit
import ctypes
import os
import sys
import threading
import warnings

KEPT_COUNT = 5
KEPT_BYTES = 1048577
TEMP_BYTES = 4099
NEVER_BYTES = 3005
EXIT_STATUS = 3
CHILD_BYTES = 5003

lib = ctypes.CDLL("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
lib.cudaFree.argtypes = [ctypes.c_void_p]


class Buffer:
    free = lib.cudaFree  # kept by the class: module globals may be gone at shutdown

    def __init__(self, nbytes):
        self.p = ctypes.c_void_p()
        if lib.cudaMalloc(ctypes.byref(self.p), nbytes) != 0:  # LEAK:kept
            os._exit(99)

    def __del__(self):
        self.free(self.p)


def fork_from_thread():
    pid = os.fork()
    if pid == 0:
        child = ctypes.c_void_p()
        lib.cudaMalloc(ctypes.byref(child), CHILD_BYTES)  # LEAK:child
        return  # the child's only thread ends: the child exits, its interpreter never finalizes
    print("child", pid, flush=True)
    os.waitpid(pid, 0)


kept = []
for step in range(KEPT_COUNT):
    kept.append(Buffer(KEPT_BYTES))  # CALL:keep
    tmp = Buffer(TEMP_BYTES)
    del tmp
never = ctypes.c_void_p()
if lib.cudaMalloc(ctypes.byref(never), NEVER_BYTES) != 0:  # LEAK:never
    os._exit(99)
if "atexit" in sys.argv:
    atexit.register(kept.clear)
if "thread" in sys.argv:
    threading.Thread(target=lambda: threading.main_thread().join() or kept.clear()).start()
if "fork" in sys.argv:
    warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads: known here
    forker = threading.Thread(target=fork_from_thread)
    forker.start()
    forker.join()
if "exit" in sys.argv:
    sys.exit(EXIT_STATUS)
if "raise" in sys.argv:
    raise RuntimeError("the script ends by an exception")
if "held_only" in sys.argv:  # nothing left but what the script holds: held, no leak
    lib.cudaFree(never)
