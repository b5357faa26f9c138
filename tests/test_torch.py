#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Real PyTorch over the stand-in CUDA libraries: the torch wheel from the
package index (tests/torch_env.py makes its venv in the build folder), its
CUDA runtime the stand-in libcudart.so.13, traced in PyTorch's three
allocator modes. Skipped (exit 77, one line) where torch cannot be had."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402
import torch_env  # noqa: E402

LOOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python", "torch_loop.py")
STEPS = 6
ACTIVATION = 1024 * 1024 * 4   # one float32 1024 x 1024 tensor
LOSS = 4                       # one float32


def torch_python():
    build = H.env_path("VT_BUILD_ROOT", "dir")
    try:
        return torch_env.venv_python(build)
    except torch_env.Unavailable as e:
        raise H.Skip(str(e))


def torch_lib(python):
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout.strip()
    return os.path.join(site, "torch", "lib")


def dynamic_symbols(path, undefined):
    flag = "--undefined-only" if undefined else "--defined-only"
    out = subprocess.run(["nm", "-D", flag, path], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.split()}


def case_cudart_symbols():
    """Every libcudart.so.13 function libtorch links is exported by the
    stand-in runtime, at the same symbol version."""
    lib = torch_lib(torch_python())
    wanted = set()
    for name in sorted(os.listdir(lib)):
        if ".so" in name:
            wanted |= {s.split("@")[0] for s in dynamic_symbols(os.path.join(lib, name), True)
                       if s.endswith("@libcudart.so.13")}
    H.expect(len(wanted) >= 100, "libtorch links %d runtime functions, expected over 100" %
             len(wanted))
    have = {s.split("@")[0] for s in dynamic_symbols(
        os.path.join(H.standin_dir(), "libcudart.so.13"), False) if s.endswith("@@libcudart.so.13")}
    missing = sorted(wanted - have)
    H.expect(not missing, "libtorch links %d runtime functions the stand-in lacks: %s" %
             (len(missing), " ".join(missing)))


def loop_sites(run_args=(), extra_env=None):
    """The loop run traced: its report's sites at the loop's own lines."""
    r = H.run_traced([torch_python(), LOOP, str(STEPS)], run_args=run_args, extra_env=extra_env)
    H.expect_program_ok(r)
    H.expect_dump(r)
    H.expect_eq("the loop's output", r.stdout.strip(),
                "kept %d activations, %d losses" % (STEPS, STEPS))
    rep = H.report(r.dump)
    H.expect_eq("growth judged at markers", (rep["growth"]["interval"], rep["growth"]["marks"]),
                ("marker", STEPS))
    return rep


def loop_line(site):
    """(function, line) of the site's innermost frame in the loop's source."""
    for f in site.get("frames") or []:
        if (f.get("file") or "").endswith("torch_loop.py"):
            return f.get("function"), f.get("line")
    return None


def growing_at(rep, tag):
    line = H.marker_line(LOOP, tag)
    found = [s for s in rep["sites"] if loop_line(s) == ("step", line) and s.get("growing")]
    H.expect(len(found) == 1, "one growing site at torch_loop.py:%d (%s), found %d: %r" % (
        line, tag, len(found), [(loop_line(s), s.get("growing")) for s in rep["sites"]]))
    return found[0]


def check_per_tensor(rep, api):
    """One allocation per tensor: the kept activation and loss grow by their
    exact bytes each step, at their own lines."""
    for tag, nbytes in (("activation", ACTIVATION), ("loss", LOSS)):
        site = growing_at(rep, tag)
        H.expect_eq("%s: api" % tag, site["api"], api)
        H.expect_eq("%s: growth per step" % tag, site["bytes_per_interval"], nbytes)
        H.expect_eq("%s: peak live" % tag, site["peak_live_bytes"], STEPS * nbytes)


def case_loop_pytorch_tensors():
    """--pytorch-tensors (backend:cudaMallocAsync): each kept tensor is one
    cudaMallocAsync at its line."""
    check_per_tensor(loop_sites(run_args=["--pytorch-tensors"]), "cudaMallocAsync")


def case_loop_no_caching():
    """PYTORCH_NO_CUDA_MEMORY_CACHING=1: each kept tensor is one cudaMalloc."""
    check_per_tensor(loop_sites(extra_env={"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}), "cudaMalloc")


def case_loop_caching_allocator():
    """The default caching allocator: 20 MiB segments for tensors over 1 MiB
    (kLargeBuffer), a 2 MiB one for the small losses (kSmallBuffer), each at
    the line whose tensor grew the cache, kept to the end: the first by the
    inputs, the second by the activations' temporaries, the small one by the
    first loss."""
    rep = loop_sites()
    live = sorted((loop_line(s), s["live_bytes"]) for s in rep["sites"] if s["live_bytes"])
    H.expect_eq("segments live at exit", live, sorted([
        (("main", H.marker_line(LOOP, "inputs")), 20 << 20),
        (("step", H.marker_line(LOOP, "loss")), 20 << 20),
        (("step", H.marker_line(LOOP, "loss")), 2 << 20)]))
    H.expect(all(s["api"] == "cudaMalloc" for s in rep["sites"]), "every segment by cudaMalloc")


H.main(globals())
