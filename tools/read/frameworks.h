/* SPDX-License-Identifier: MIT */
/* The frameworks whose own frames stand between a program and the CUDA
 * call (PyTorch, CuPy, JAX/XLA, Triton, NumPy's C layer), known by the
 * library a native frame is in or the file of a Python frame: text and
 * HTML fold them as they fold runtime frames, JSON marks them. */
#ifndef VT_FRAMEWORKS_H
#define VT_FRAMEWORKS_H

#include "symbolize.h"

enum vt_framework {
    VT_FRAMEWORK_NONE,
    VT_FRAMEWORK_PYTORCH,
    VT_FRAMEWORK_CUPY,
    VT_FRAMEWORK_JAX,
    VT_FRAMEWORK_TRITON,
    VT_FRAMEWORK_NUMPY,
};

/* The framework frame F belongs to (VT_FRAMEWORK_NONE: none). */
enum vt_framework vt_frame_framework(const struct vt_frame *f);

/* "pytorch" (JSON's "framework") and "PyTorch" (the text's fold line). */
const char *vt_framework_id(enum vt_framework fw);
const char *vt_framework_name(enum vt_framework fw);

/* PATH after its packages folder ("torch/nn/functional.py" of
 * ".../site-packages/torch/nn/functional.py"), or PATH. */
const char *vt_package_path(const char *path);

#endif
