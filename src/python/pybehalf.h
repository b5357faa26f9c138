/* SPDX-License-Identifier: MIT */
/* The Python stack that a thread without Python frames of its own works
 * for. PyTorch's autograd engine runs a backward pass on its device thread
 * (pt_autograd_N) while the thread that called backward() waits for it in
 * C++ with the GIL released: that thread's frames stay as they are until
 * the pass ends. It is found among the interpreter's thread states as the
 * one other thread whose innermost Python frame is torch's backward entry
 * (none when two or more are: never a guess), and its frames are read
 * through vt_peek, since thread states and frames of other threads may be
 * freed meanwhile: in batches, what was read remembered by each autograd
 * thread and checked against one fresh batch at its next allocation (2
 * system calls where nothing moved). No GIL, no call into the interpreter,
 * nothing of the interpreter's written. */
#ifndef VRAMTRACE_PYBEHALF_H
#define VRAMTRACE_PYBEHALF_H

#include "pystack.h"

/* On an autograd engine thread: the caller's frames into STACK (no entries;
 * count 0 when there is no single caller or it could not be read). Elsewhere
 * count 0, at the cost of a thread-local load after the thread's first call. */
void vt_pybehalf_capture(struct vt_pystack *stack);

#endif
