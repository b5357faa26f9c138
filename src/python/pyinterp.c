/* SPDX-License-Identifier: MIT */
/* The interpreter found in this process: filled in by pystack.c, read by
 * the readers of its memory (a unit of its own, so that they need not
 * depend on pystack.c, nor it on them). */
#include "pyinterp.h"

struct vt_python vt_py;
