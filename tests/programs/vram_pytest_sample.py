"""Tests for the pytest plugin (python/pytest_vramtrace.py), run by
tests/test_api.py: under the tracer test_leaks, test_no_warmup and
test_peak_over must fail, the others pass; without it every test here must
be skipped.

VT_LEAKPLUGIN is libleakplugin.so (tests/programs/leakplugin.c): plugin_leak
leaks 1300021 bytes, plugin_balanced frees what it allocates."""
import ctypes
import os

import pytest

PLUGIN = ctypes.CDLL(os.environ["VT_LEAKPLUGIN"], mode=os.RTLD_NOW | os.RTLD_LOCAL)
CUDART = ctypes.CDLL("libcudart.so.13", mode=os.RTLD_NOW | os.RTLD_LOCAL)
CUDART.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
CUDART.cudaFree.argtypes = [ctypes.c_void_p]
CACHE_BYTES = 2097169
FIXTURE_BYTES = 777781
PEAK_PART_BYTES = 1572869
_cache = []


def cuda_malloc(size):
    p = ctypes.c_void_p()
    assert CUDART.cudaMalloc(ctypes.byref(p), size) == 0
    return p


def cached_workspace():
    """Allocates once, keeps it: what warm-ups are for."""
    if not _cache:
        _cache.append(cuda_malloc(CACHE_BYTES))


@pytest.mark.vram_limit_leaks("1 MiB", warmups=1)
def test_leaks():
    PLUGIN.plugin_leak()


@pytest.mark.vram_limit_leaks("1 MiB", warmups=1)
def test_clean():
    PLUGIN.plugin_balanced()


@pytest.mark.vram_limit_leaks("1.5 MiB")
def test_under_limit():
    PLUGIN.plugin_leak()   # 1300021 bytes, within 1.5 MiB


@pytest.mark.vram_limit_leaks(0, warmups=2)
def test_warmup():
    cached_workspace()


@pytest.mark.vram_limit_leaks("0 B")
def test_no_warmup():
    _cache.clear()
    cached_workspace()


def test_fixture(vram):
    before = vram.live_bytes
    p = cuda_malloc(FIXTURE_BYTES)
    assert vram.live_bytes == before + FIXTURE_BYTES
    assert CUDART.cudaFree(p) == 0
    assert vram.live_bytes == before


@pytest.mark.vram_limit_peak("2 MiB")
def test_peak_over():
    """Two parts live at once: 3.0 MiB, over; nothing left live."""
    a, b = cuda_malloc(PEAK_PART_BYTES), cuda_malloc(PEAK_PART_BYTES)
    assert CUDART.cudaFree(a) == 0 and CUDART.cudaFree(b) == 0


@pytest.mark.vram_limit_peak("2 MiB")
def test_peak_under():
    """The same bytes one part at a time: 1.5 MiB at once, within."""
    for _ in range(2):
        assert CUDART.cudaFree(cuda_malloc(PEAK_PART_BYTES)) == 0
# SPDX-License-Identifier: MIT
