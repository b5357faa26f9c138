# SPDX-License-Identifier: MIT
"""A thread that runs no Python allocating for one that waits for it, as
PyTorch's autograd engine does, without torch: the function the waiting
thread is in is compiled under the name and file of torch's backward entry
(_engine_run_backward in torch/autograd/graph.py), and the allocating
thread is a C thread of vt_cudaext named like autograd's (pt_autograd_0),
which the caller waits for in C with the GIL released.
- ALONE_BYTES: the main thread alone waits: its frames are the on-behalf
  frames of each of ALONE_COUNT allocations (the thread remembers them
  after the first);
- TWO_BYTES: another Python thread waits in the same entry at that moment:
  no on-behalf frames (which one it was for cannot be told);
- NOT_WAITING_BYTES: no thread waits in the entry: none;
- OTHER_NAME_BYTES: the allocating thread is not named like autograd's: none.
The first argument is the directory of vt_cudaext for this interpreter."""
import sys
import threading
import time

ALONE_BYTES = 3700001
ALONE_COUNT = 3
TWO_BYTES = 3700003
NOT_WAITING_BYTES = 3700007
OTHER_NAME_BYTES = 3700009
AUTOGRAD_NAME = "pt_autograd_0"
ENGINE_FILE = "/vt-behalf/site-packages/torch/autograd/graph.py"
ENGINE_LINE = 3

ENGINE_SOURCE = """
def _engine_run_backward(run, *args):
    return run(*args)
"""
engine = {}
exec(compile(ENGINE_SOURCE, ENGINE_FILE, "exec"), engine)
run_backward = engine["_engine_run_backward"]
keep = []


def backward_alone(ext):
    keep.append(run_backward(ext.alloc_in_c_thread, ALONE_BYTES, AUTOGRAD_NAME, ALONE_COUNT))  # CALL:alone


def waiting_in_entry(thread):
    frame = sys._current_frames().get(thread.ident)
    return frame is not None and frame.f_code.co_name == "_engine_run_backward"


def backward_beside_another(ext):
    """A second thread waits in the entry (on a lock) while this one's
    allocation is made."""
    blocker = threading.Lock()
    blocker.acquire()
    other = threading.Thread(target=run_backward, args=(blocker.acquire,))
    other.start()
    while not waiting_in_entry(other):
        time.sleep(0.001)
    keep.append(run_backward(ext.alloc_in_c_thread, TWO_BYTES, AUTOGRAD_NAME))
    blocker.release()
    other.join()


def main():
    sys.path.insert(0, sys.argv[1])
    import vt_cudaext
    backward_alone(vt_cudaext)  # CALL:main_alone
    backward_beside_another(vt_cudaext)
    keep.append(vt_cudaext.alloc_in_c_thread(NOT_WAITING_BYTES, AUTOGRAD_NAME))
    keep.append(run_backward(vt_cudaext.alloc_in_c_thread, OTHER_NAME_BYTES, "vt-c-worker"))
    return 0


if __name__ == "__main__":
    sys.exit(main())  # CALL:module
