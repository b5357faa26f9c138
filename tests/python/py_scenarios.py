"""Python stacks as programs make them, every allocation through ctypes.CDLL
(the GIL released) unless said otherwise:
- SUB_HELD_BYTES / SUB_RELEASED_BYTES: in a subinterpreter, through PyDLL and
  through CDLL (run first: after it, PyGILState_Check lies);
- CORO_BYTES: a chain of coroutines on an event loop in a worker thread;
- GEN_BYTES: a generator, consumed by list();
- C_THREAD_BYTES: a thread created in C (named C_THREAD_NAME) that never
  runs Python;
- DEEP_BYTES: at the bottom of DEEP_CALLS nested Python calls;
- EXIT_BYTES: from an atexit handler, while the interpreter shuts down, with
  daemon threads still allocating and freeing (DAEMON_BYTES) around it.
The first argument is the directory of vt_cudaext for this interpreter."""
import asyncio
import atexit
import ctypes
import os
import sys
import threading

SUB_HELD_BYTES = 3600011
SUB_RELEASED_BYTES = 3600017
CORO_BYTES = 3600023
GEN_BYTES = 3600029
C_THREAD_BYTES = 3600031
C_THREAD_NAME = "vt-c-worker"
DEEP_BYTES = 3600037
DEEP_CALLS = 1000
EXIT_BYTES = 3600041
DAEMON_BYTES = 3600043
DAEMONS = 2

MODE = os.RTLD_NOW | os.RTLD_LOCAL
lib = ctypes.CDLL("libcudart.so.13", mode=MODE)
lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
lib.cudaFree.argtypes = [ctypes.c_void_p]
keep = []


def allocate(nbytes):
    p = ctypes.c_void_p()
    if lib.cudaMalloc(ctypes.byref(p), nbytes) != 0:  # LEAK:alloc
        os._exit(99)
    return p


SUBINTERPRETER_CODE = """
import ctypes, os
def sub_allocate(kind, nbytes):
    lib = kind("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
    lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    p = ctypes.c_void_p()
    if lib.cudaMalloc(ctypes.byref(p), nbytes) != 0:
        os._exit(99)
sub_allocate(ctypes.PyDLL, %d)
sub_allocate(ctypes.CDLL, %d)
""" % (SUB_HELD_BYTES, SUB_RELEASED_BYTES)


def in_subinterpreter():
    import _testcapi
    if _testcapi.run_in_subinterp(SUBINTERPRETER_CODE) != 0:  # CALL:subinterpreter
        os._exit(98)


async def coro_leaf():
    await asyncio.sleep(0)
    return allocate(CORO_BYTES)  # LEAK:coro


async def coro_middle():
    return await coro_leaf()  # CALL:coro_middle


async def coro_top():
    return await coro_middle()  # CALL:coro_top


def event_loop_thread():
    loop = asyncio.new_event_loop()
    keep.append(loop.run_until_complete(coro_top()))
    loop.close()


def generator():
    yield allocate(GEN_BYTES)  # LEAK:gen


def consume():
    keep.extend(list(generator()))  # CALL:consume


def deep(depth):
    if depth == 1:
        return allocate(DEEP_BYTES)  # LEAK:deep
    return deep(depth - 1)  # CALL:deep


def daemon():
    while True:
        lib.cudaFree(allocate(DAEMON_BYTES))


def at_exit():
    keep.append(allocate(EXIT_BYTES))  # LEAK:exit


def main():
    if "--no-subinterpreter" not in sys.argv:
        in_subinterpreter()
    worker = threading.Thread(target=event_loop_thread)
    worker.start()
    worker.join()
    consume()
    sys.path.insert(0, sys.argv[1])
    import vt_cudaext
    keep.append(vt_cudaext.alloc_in_c_thread(C_THREAD_BYTES, C_THREAD_NAME))
    sys.setrecursionlimit(DEEP_CALLS + 100)
    keep.append(deep(DEEP_CALLS))
    atexit.register(at_exit)
    for _ in range(DAEMONS):
        threading.Thread(target=daemon, daemon=True).start()
    return 0


if __name__ == "__main__":
    sys.exit(main())
# SPDX-License-Identifier: MIT
