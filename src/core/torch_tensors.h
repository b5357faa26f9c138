/* SPDX-License-Identifier: MIT */
/* PyTorch's default caching allocator, tensor by tensor, without changing
 * it: a trace tracker of its own API attached once it is ready. */
#ifndef VRAMTRACE_TORCH_TENSORS_H
#define VRAMTRACE_TORCH_TENSORS_H

/* After a traced device allocation, guard held, no lock: attaches the
 * tracker the first time PyTorch's caching allocator is loaded, of a
 * verified release and initialised (cheap until objects are loaded). */
void vt_torch_tensors_notice(void);

#endif
