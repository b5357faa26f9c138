"""A module-scoped model fixture and tests that use it, for the pytest
plugin's table (tests/test_api.py, pytest --vramtrace): the model's bytes are
the fixture's, not the first test's; test_keep keeps KEPT_BYTES a run (4
runs, one call site): growing from test to test; test_first and test_clean
leave nothing."""
import ctypes
import os

import pytest

MODEL_BYTES = 3000017
KEPT_BYTES = 1048583
KEEP_RUNS = 4
CUDART = ctypes.CDLL("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
_kept = []


def cuda_malloc(size):
    p = ctypes.c_void_p()
    assert CUDART.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(size)) == 0  # LEAK:malloc
    return p


def cuda_free(p):
    assert CUDART.cudaFree(p) == 0


@pytest.fixture(scope="module")
def model():
    weights = cuda_malloc(MODEL_BYTES)  # LEAK:model
    yield weights
    cuda_free(weights)


def test_first(model):
    assert model.value


@pytest.mark.parametrize("run", range(KEEP_RUNS))
def test_keep(model, run):
    _kept.append(cuda_malloc(KEPT_BYTES))  # LEAK:kept


def test_clean(model):
    cuda_free(cuda_malloc(KEPT_BYTES))
# SPDX-License-Identifier: MIT
