# SPDX-License-Identifier: MIT
"""JAX programs with exact ground truth for tests/test_jax.py, one per
argument. Each keeps three 4 MiB arrays (1024 x 1024 float32) and ends with
os._exit(0) after they are ready, so they are still allocated when the
process ends and vramtrace reports them at the line that made them."""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

kept = []


def keep():
    kept.append(jnp.ones((1024, 1024), jnp.float32) + 1)   # LEAK:kept


def main():
    for _ in range(3):
        keep()
    jax.block_until_ready(kept)
    first = np.asarray(kept[0])   # a copy to the host (the stand-ins run no kernels)
    print("kept", len(kept), "arrays on", jax.devices()[0].platform, "copied", first.dtype, first.shape)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
