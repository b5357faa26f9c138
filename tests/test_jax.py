#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Real JAX over the stand-in CUDA libraries: the jax wheels with their CUDA 13
plugin from the package index (tests/jax_env.py makes the venv in the build
folder), in a mount namespace with a stand-in /dev/nvidiactl
(tests/python/nvidiactl_ns.sh: JAX looks for the device node before it
loads its CUDA plugin). Skipped (exit 77, one line) where JAX, Python 3.12 or
a private mount namespace cannot be had."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402
import jax_env  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "python", "jax_cases.py")
NAMESPACE = os.path.join(HERE, "python", "nvidiactl_ns.sh")
ARRAY = 1024 * 1024 * 4          # one kept float32 1024 x 1024 array
STANDIN_GPU = 1 << 30            # the stand-in device's memory
OUTPUT = "kept 3 arrays on gpu copied float32 (1024, 1024)"
COMPUTE_OUTPUT = "kept 3 products on gpu summed float32 ()"


def jax_argv():
    """The command that runs the cases in the namespace, or Skip."""
    if subprocess.run(["unshare", "-m", "true"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        raise H.Skip("jax: no private mount namespace here (unshare -m needs root) for the "
                     "stand-in /dev/nvidiactl")
    try:
        python = jax_env.venv_python(H.env_path("VT_BUILD_ROOT", "dir"))
    except jax_env.Unavailable as e:
        raise H.Skip(str(e))
    return ["unshare", "-m", "sh", NAMESPACE, python, CASES]


def script_line(entry):
    """The line of the case script in ENTRY's frames, or None."""
    for f in entry.get("frames") or []:
        if (f.get("file") or "").endswith("jax_cases.py"):
            return f.get("line")
    return None


def held_at_end(rep):
    return H.leaks(rep) + rep["held"] + rep["known"]


def device_leaks_at_kept(rep, tag="kept"):
    """(bytes, allocations, apis) of what the device held at the end at the
    line marked LEAK:TAG: leaked, held when the script ended, or known."""
    line = H.marker_line(CASES, tag)
    found = [lk for lk in held_at_end(rep) if lk["kind"] == "device" and script_line(lk) == line]
    return (sum(lk["bytes"] for lk in found), sum(lk["allocations"] for lk in found),
            sorted({lk["api"] for lk in found}))


def traced(extra_env, args=(), output=OUTPUT):
    argv = jax_argv() + list(args)
    plain = H.run_plain(argv, extra_env=extra_env)
    H.expect_eq("untraced: exit status", H.run_status(plain), 0)
    H.expect_eq("untraced: output", plain.stdout.strip(), output)
    r = H.run_traced(argv, extra_env=extra_env)
    H.expect_program_ok(r)
    H.expect_eq("traced: output (as untraced)", r.stdout.strip(), output)
    H.expect_dump(r)
    return H.report(r.dump)


def case_platform_allocator():
    """XLA_PYTHON_CLIENT_ALLOCATOR=platform: each array is its own cuMemCreate;
    the three kept ones are the only device memory left at the line that
    made them, 4 MiB each."""
    rep = traced({"XLA_PYTHON_CLIENT_ALLOCATOR": "platform"})
    H.expect_eq("device leaks at the kept line", device_leaks_at_kept(rep),
                (3 * ARRAY, 3, ["cuMemCreate"]))
    others = [(lk["bytes"], script_line(lk)) for lk in held_at_end(rep)
              if lk["kind"] == "device" and script_line(lk) != H.marker_line(CASES, "kept")]
    H.expect_eq("other device leaks", others, [])


def case_platform_allocator_no_vmm():
    """The same with XLA's virtual memory management off
    (--xla_gpu_experimental_vmm_disabled): each array is a cuMemAlloc."""
    rep = traced({"XLA_PYTHON_CLIENT_ALLOCATOR": "platform",
                  "XLA_FLAGS": "--xla_gpu_experimental_vmm_disabled=true"})
    H.expect_eq("device leaks at the kept line", device_leaks_at_kept(rep),
                (3 * ARRAY, 3, ["cuMemAlloc"]))


def case_compute():
    """A matrix product (jnp.dot, through cuBLASLt) and a reduction
    (jnp.sum), which XLA autotunes (its kernels found with
    cudaGetFuncBySymbol, cuBLASLt's descriptors read back): the three kept
    products are left, 4 MiB each at the line that made them, and at most
    the reduction's buffers at its line (JAX frees them on a thread of its
    own, which os._exit may beat); each step's input was freed. Triton's GEMM candidates are
    left out of the autotuning: compiling them takes the CPU 23 s a run
    here, the rest 5 s, and the same CUDA calls are made without them."""
    rep = traced({"XLA_PYTHON_CLIENT_ALLOCATOR": "platform",
                  "XLA_FLAGS": "--xla_gpu_enable_triton_gemm=false"}, ["compute"], COMPUTE_OUTPUT)
    H.expect_eq("device leaks at the product line", device_leaks_at_kept(rep, "product"),
                (3 * ARRAY, 3, ["cuMemCreate"]))
    # The reduction's buffers are freed by JAX after the copy, on its own
    # thread: os._exit may come first. Whatever else is left (XLA's
    # autotuning buffers, the inputs) is a wrong answer.
    sum_line = H.call_line(CASES, "sum")
    others = [(lk["bytes"], script_line(lk)) for lk in held_at_end(rep)
              if lk["kind"] == "device"
              and script_line(lk) not in (H.marker_line(CASES, "product"), sum_line)]
    H.expect_eq("other device leaks", others, [])
    at_sum = [s["api"] for s in rep["sites"] if s["kind"] == "device"
              and script_line(s) == sum_line]
    H.expect(at_sum and set(at_sum) == {"cuMemCreate"},
             "the reduction's buffers at line %d: %r" % (sum_line, at_sum))


def case_script_end():
    """The script returns: JAX's atexit handler frees the kept arrays before
    the interpreter finalizes, yet the script held them when it ended."""
    rep = traced({"XLA_PYTHON_CLIENT_ALLOCATOR": "platform"}, ["return"])
    H.expect_eq("device leaks at the kept line", device_leaks_at_kept(rep),
                (3 * ARRAY, 3, ["cuMemCreate"]))
    line = H.marker_line(CASES, "kept")
    kept = [lk for lk in rep["held"] if lk["kind"] == "device" and script_line(lk) == line]
    H.expect_eq("held at the end, not leaked: the kept", sum(lk["bytes"] for lk in kept),
                3 * ARRAY)
    H.expect(isinstance(rep.get("script_end_ns"), int), "script_end_ns %r" % rep.get("script_end_ns"))


def case_preallocation():
    """JAX's default: XLA's BFC allocator takes 75 % of the device's memory at
    the first array, one cuMemCreate at the line that made it, and carves
    the arrays out of it: known framework memory, in its own list, not a
    leak."""
    rep = traced({})
    H.expect_eq("device held at the kept line", device_leaks_at_kept(rep),
                (STANDIN_GPU * 3 // 4, 1, ["cuMemCreate"]))
    H.expect_eq("all labelled XLA's: the device pool, and the host memory its host BFC "
                "allocator pins", [(lk["kind"], lk["bytes"], (lk["known"] or {}).get("label"))
                                   for lk in rep["known"]],
                [("device", STANDIN_GPU * 3 // 4, "XLA's BFC allocator"),
                 ("host", 4 << 20, "XLA's BFC allocator"), ("host", 2 << 20, "XLA's BFC allocator")])
    s = H.summary(rep)
    H.expect_eq("leaked, known device memory, known host memory",
                (s["leaked_bytes"], s["known_bytes"], s["host_known_bytes"]),
                (0, STANDIN_GPU * 3 // 4, 6 << 20))


H.main(globals())
