# SPDX-License-Identifier: MIT
"""Allocations whose Python stacks change between one and the next while
the frames' memory is reused (the same depth, the same frame addresses, the
same code objects at other instructions), each through ctypes.CDLL (the GIL
released) and leaked, ROUNDS times per call site, the sites alternating:
- PATH_A_BYTES / PATH_B_BYTES: two functions calling one leaf at the same
  depth; LINE_1_BYTES / LINE_2_BYTES: one function calling it from one line,
  then from another (ROUNDS / 2 times each);
- REC_2_BYTES / REC_4_BYTES: recursion 2 and 4 calls deep;
- GEN_1_BYTES / GEN_2_BYTES: one generator resumed by two callers;
- CORO_1_BYTES / CORO_2_BYTES: one coroutine driven by two callers;
- RAISED_BYTES / CAUGHT_BYTES: before an exception unwinds three frames, and
  after it was caught;
- GENERATED_BYTES + i: GENERATED functions compiled one after the other
  (each file "<generated-i>", its allocation on line 3 + i % 5), each freed
  before the next is made: code objects made at the addresses of freed ones;
- THREAD_BYTES + 2 * t (+ 1): THREADS threads, each alternating two paths
  (one call site per path for all threads)."""
import ctypes
import os
import threading

ROUNDS = 12
PATH_A_BYTES = 3900011
PATH_B_BYTES = 3900017
LINE_1_BYTES = 3900023
LINE_2_BYTES = 3900029
REC_2_BYTES = 3900031
REC_4_BYTES = 3900037
GEN_1_BYTES = 3900041
GEN_2_BYTES = 3900043
CORO_1_BYTES = 3900047
CORO_2_BYTES = 3900053
RAISED_BYTES = 3900059
CAUGHT_BYTES = 3900061
GENERATED_BYTES = 3910000
GENERATED = 24
THREAD_BYTES = 3920000
THREADS = 2

lib = ctypes.CDLL("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
keep = []


def allocate(nbytes):
    p = ctypes.c_void_p()
    if lib.cudaMalloc(ctypes.byref(p), nbytes) != 0:  # LEAK:alloc
        os._exit(99)
    keep.append(p)


def leaf(nbytes):
    allocate(nbytes)  # CALL:leaf


def path_a(nbytes):
    leaf(nbytes)  # CALL:path_a


def path_b(nbytes):
    leaf(nbytes)  # CALL:path_b


def two_lines(first):
    if first:
        leaf(LINE_1_BYTES)  # CALL:line_1
    else:
        leaf(LINE_2_BYTES)  # CALL:line_2


def recurse(depth, nbytes):
    if depth == 0:
        allocate(nbytes)  # CALL:rec_leaf
    else:
        recurse(depth - 1, nbytes)  # CALL:recurse


def generator():
    while True:
        nbytes = yield
        allocate(nbytes)  # CALL:gen


def resume_1(gen):
    gen.send(GEN_1_BYTES)  # CALL:resume_1


def resume_2(gen):
    gen.send(GEN_2_BYTES)  # CALL:resume_2


class Ready:
    def __await__(self):
        return (yield)


async def coroutine():
    while True:
        nbytes = await Ready()
        allocate(nbytes)  # CALL:coro


def drive_1(coro):
    coro.send(CORO_1_BYTES)  # CALL:drive_1


def drive_2(coro):
    coro.send(CORO_2_BYTES)  # CALL:drive_2


def thrower(depth):
    if depth == 0:
        allocate(RAISED_BYTES)  # CALL:raised
        raise ValueError("unwinds")
    thrower(depth - 1)  # CALL:thrower


def catcher():
    try:
        thrower(2)  # CALL:catcher
    except ValueError:
        pass
    allocate(CAUGHT_BYTES)  # CALL:caught


def generated(i):
    """A function of its own file, compiled now and freed after its call."""
    source = "\n" * (1 + i % 5) + "def generated(nbytes):\n    allocate(nbytes)\n"
    namespace = {"allocate": allocate}
    exec(compile(source, "<generated-%d>" % i, "exec"), namespace)
    namespace["generated"](GENERATED_BYTES + i)  # CALL:generated
    namespace.clear()  # no cycle left: the code object and its file's str freed now


def worker(t):
    for _ in range(ROUNDS):
        path_a(THREAD_BYTES + 2 * t)  # CALL:thread_a
        path_b(THREAD_BYTES + 2 * t + 1)  # CALL:thread_b


def main():
    gen = generator()
    next(gen)
    coro = coroutine()
    coro.send(None)
    for i in range(ROUNDS):
        path_a(PATH_A_BYTES)  # CALL:main_path_a
        path_b(PATH_B_BYTES)  # CALL:main_path_b
        two_lines(i % 2 == 0)  # CALL:main_two_lines
        recurse(2, REC_2_BYTES)  # CALL:main_rec_2
        recurse(4, REC_4_BYTES)  # CALL:main_rec_4
        resume_1(gen)  # CALL:main_resume_1
        resume_2(gen)  # CALL:main_resume_2
        drive_1(coro)  # CALL:main_drive_1
        drive_2(coro)  # CALL:main_drive_2
        catcher()  # CALL:main_catcher
    for i in range(GENERATED):
        generated(i)  # CALL:main_generated
    threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


main()  # CALL:module
