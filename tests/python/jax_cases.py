# SPDX-License-Identifier: MIT
"""JAX programs with exact ground truth for tests/test_jax.py, one per
argument. Each keeps three 4 MiB arrays (1024 x 1024 float32) and ends with
os._exit(0) after they are ready, so they are still allocated when the
process ends and vramtrace reports them at the line that made them; with
the argument "return" main returns instead, and JAX's atexit handler
(clean_up) frees them before the interpreter finalizes. With "compute"
the kept arrays are matrix products (jnp.dot: cuBLASLt), each input made
and dropped in the same step, and a reduction (jnp.sum) of the last one
is copied to the host: what makes XLA autotune. JAX frees the reduction's
device buffers on a thread of its own, after the copy: some may still be
allocated when os._exit ends the process."""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

kept = []


def keep():
    kept.append(jnp.ones((1024, 1024), jnp.float32) + 1)   # LEAK:kept


def keep_product():
    x = jnp.ones((1024, 1024), jnp.float32) + 1
    kept.append(jnp.dot(x, x))   # LEAK:product


def compute():
    for _ in range(3):
        keep_product()
    total = np.asarray(jnp.sum(kept[-1]))   # CALL:sum
    print("kept", len(kept), "products on", jax.devices()[0].platform, "summed", total.dtype,
          total.shape)


def main():
    if sys.argv[1:] == ["compute"]:
        compute()
        sys.stdout.flush()
        os._exit(0)
    for _ in range(3):
        keep()
    jax.block_until_ready(kept)
    first = np.asarray(kept[0])   # a copy to the host (the stand-ins run no kernels)
    print("kept", len(kept), "arrays on", jax.devices()[0].platform, "copied", first.dtype, first.shape)
    sys.stdout.flush()
    if sys.argv[1:] != ["return"]:
        os._exit(0)


if __name__ == "__main__":
    main()
