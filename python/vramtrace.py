# SPDX-License-Identifier: MIT
"""vramtrace from Python: markers, checkpoints and live bytes of the CUDA
device-memory tracer (libvramtrace.so) in this process.

    import vramtrace
    for step in range(steps):
        train_step()
        vramtrace.mark("step")          # growth is judged per marker

    token = vramtrace.checkpoint()
    run_once()
    assert vramtrace.leaked_since(token) == 0
    assert vramtrace.peak_since(token) <= 2 << 30   # at most 2 GiB at once

Every function is safe without the tracer: active() is False, mark() does
nothing, the counts are 0. Run the program under `vramtrace run -- python ...`
or with LD_PRELOAD=libvramtrace.so to trace it. Pure Python: the tracer's C
API (include/vramtrace.h) is called through ctypes where the preloaded library
put its symbols.

Installed from the wheel (pip install vramtrace, pyproject.toml), the CLI and
libvramtrace.so come with it, in vramtrace.bin/ beside this file: the
`vramtrace` command and `python -m vramtrace` run that CLI, and
LD_PRELOAD=$(vramtrace lib) preloads that library.
"""
import ctypes
import os
import sys

__all__ = ["active", "mark", "checkpoint", "leaked_since", "peak_since", "PEAK_UNKNOWN",
           "live_bytes", "leak_sites_since", "dump_path", "loaded"]

_SITES_BUFFER = 4096
# peak_since() of a checkpoint the tracer no longer follows (VRAMTRACE_PEAK_UNKNOWN)
PEAK_UNKNOWN = (1 << 64) - 1
_lib = None
_looked = False


def _tracer():
    """The preloaded library's functions, or None (looked up once)."""
    global _lib, _looked
    if not _looked:
        _looked = True
        try:
            lib = ctypes.CDLL(None)
            lib.vramtrace_active.restype = ctypes.c_int
        except (OSError, AttributeError):
            return None
        lib.vramtrace_live_bytes.restype = ctypes.c_uint64
        lib.vramtrace_checkpoint.restype = ctypes.c_uint64
        lib.vramtrace_leaked_since.restype = ctypes.c_uint64
        lib.vramtrace_leaked_since.argtypes = [ctypes.c_uint64]
        lib.vramtrace_mark.argtypes = [ctypes.c_char_p]
        try:
            lib.vramtrace_peak_since.restype = ctypes.c_uint64
            lib.vramtrace_peak_since.argtypes = [ctypes.c_uint64]
        except AttributeError:  # a tracer older than vramtrace_peak_since
            pass
        lib.vramtrace_leak_sites_since.restype = ctypes.c_size_t
        lib.vramtrace_leak_sites_since.argtypes = [ctypes.c_uint64, ctypes.c_char_p,
                                                   ctypes.c_size_t]
        _lib = lib
    return _lib


def loaded():
    """True when libvramtrace is loaded in this process (it may still not
    be tracing: see active())."""
    return _tracer() is not None


def active():
    """True when CUDA allocations of this process are being traced."""
    lib = _tracer()
    return bool(lib and lib.vramtrace_active())


def mark(label="mark"):
    """Records a named point in the dump (e.g. once per training step)."""
    lib = _tracer()
    if lib:
        lib.vramtrace_mark(str(label).encode())


def checkpoint():
    """An opaque token for "now", for leaked_since(); 0 without the tracer."""
    lib = _tracer()
    return lib.vramtrace_checkpoint() if lib else 0


def leaked_since(token):
    """Device + managed bytes allocated after checkpoint TOKEN and still live
    (inside PyTorch's caching allocator, where its tensors are traced, the
    tensors kept, not the cache's segments)."""
    lib = _tracer()
    return lib.vramtrace_leaked_since(token) if lib else 0


def peak_since(token):
    """The most device + managed bytes allocated after checkpoint TOKEN that
    were live at once (the peak of leaked_since(TOKEN) since then: inside
    PyTorch's cache, its tensors, not its segments). The 16
    most recent checkpoints are followed; an older one gives PEAK_UNKNOWN.
    0 without the tracer, or with a tracer older than this function."""
    lib = _tracer()
    f = getattr(lib, "vramtrace_peak_since", None) if lib else None
    return f(token) if f else 0


def live_bytes():
    """Live traced device + managed bytes now."""
    lib = _tracer()
    return lib.vramtrace_live_bytes() if lib else 0


def leak_sites_since(token):
    """The largest call sites of what leaked_since(TOKEN) counts, one line
    each, as the tracer names them without symbols; "" without the tracer."""
    lib = _tracer()
    if not lib:
        return ""
    buf = ctypes.create_string_buffer(_SITES_BUFFER)
    lib.vramtrace_leak_sites_since(token, buf, len(buf))
    return buf.value.decode(errors="replace")


def dump_path():
    """The path of this process's dump (the tracer maps it), or None before
    its first CUDA allocation or without the tracer."""
    if not loaded():
        return None
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split(None, 5)[-1].strip()
                if path.endswith(".vtr") and os.path.isfile(path):
                    return path
    except OSError:
        pass
    return None


def _bundled_cli():
    """The CLI a wheel installs beside this module, or None (a plain
    `pip install ./python`, or a meson install: the CLI is on PATH)."""
    cli = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vramtrace.bin", "vramtrace")
    return cli if os.access(cli, os.X_OK) else None


def main():
    """The `vramtrace` command of a wheel and `python -m vramtrace`: the
    bundled CLI, exec'd with the arguments (it finds its library beside it)."""
    cli = _bundled_cli()
    if not cli:
        sys.stderr.write("vramtrace: this install has the Python module only, no CLI (install "
                         "the wheel, or build the repository: tools/setup.sh)\n")
        sys.exit(1)
    os.execv(cli, ["vramtrace"] + sys.argv[1:])


if __name__ == "__main__":
    main()
