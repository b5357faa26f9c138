# SPDX-License-Identifier: MIT
"""Tests for the pytest plugin over real PyTorch, its default caching
allocator (tests/test_torch_tensors.py, pytest --vramtrace): a module-scoped
model fixture, a clean test and a test that keeps a 1 MiB tensor per run,
once in the free room of a segment the cache already has and once in a new
one: each run left its tensor, not the segment, the model is the fixture's."""
import pytest
import torch

FEATURES = 1024
KEPT_FLOATS = 256 * 1024          # float32 elements: 1 MiB
KEEP_RUNS = 2
_kept = []


@pytest.fixture(scope="module")
def model():
    return torch.nn.Linear(FEATURES, FEATURES, device="cuda")   # LEAK:model


def test_clean(model):
    x = torch.ones(KEPT_FLOATS // FEATURES, FEATURES, device="cuda")
    assert model(x).sum().item() == model(x).sum().item()


@pytest.mark.parametrize("run", range(KEEP_RUNS))
def test_keep(model, run):
    _kept.append(torch.empty(KEPT_FLOATS, device="cuda"))        # LEAK:kept
