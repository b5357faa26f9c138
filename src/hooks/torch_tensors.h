/* SPDX-License-Identifier: MIT */
/* PyTorch's caching allocator tensor by tensor (torch_tensors.c). */
#ifndef VRAMTRACE_TORCH_TENSORS_H
#define VRAMTRACE_TORCH_TENSORS_H

/* vramtrace attach: the tracker attached now, where PyTorch's allocator is
 * loaded and initialised, not at the first segment it reserves after: its
 * tensors are traced from now on, also those cut from segments reserved
 * before attach. */
void vt_torch_tensors_look_now(void);

#endif
