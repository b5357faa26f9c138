# SPDX-License-Identifier: MIT
"""Programs built by nvcc (examples/*.cu, `nvcc -cudart shared`) run over
the stand-in CUDA libraries, traced: the host code nvcc generates registers
its kernels and launches them through the stand-in runtime's entry points
(__cudaRegisterFatBinary, __cudaPushCallConfiguration, __cudaLaunchKernel,
... with the real symbol versions). Ground truth from examples/leaky.cu.
They are C++: functions are named as the demangler gives them."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = os.path.join(H.source_root(), "examples", "leaky.cu")


def nvcc_program(name):
    path = os.path.join(os.environ.get("PROGRAMS_DIR", ""), name)
    if not os.path.isfile(path):
        raise H.Skip("%s was not built (no nvcc at configure time)" % name)
    return path


def line_of(text):
    with open(SRC, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if text in line:
                return n
    H.fail("%r not in %s" % (text, SRC))


def frame_is(frame, function, line):
    H.expect(frame.get("function") in function and frame.get("line") == line and
             os.path.basename(frame.get("file") or "") == "leaky.cu",
             "expected %s at leaky.cu:%d, got %r" % (function[0], line, frame))


def case_untraced():
    """The nvcc-built program runs over the stand-ins as over the real ones."""
    r = H.run_plain([nvcc_program("leaky_nvcc")])
    H.expect(r.status == 0 and r.stdout == "done: 5 steps\n",
             "leaky_nvcc failed over the stand-ins:\n" + r.describe())


def case_leaky():
    rep, r = H.traced_report([nvcc_program("leaky_nvcc")])
    H.expect_eq("program output", r.stdout, "done: 5 steps\n")
    malloc_line = line_of("CHECK(cudaMalloc((void **)&scratch")
    lk = H.leak_by_bytes(rep, 5 << 20)
    H.expect_eq("scratch: allocations, api, kind, device",
                (lk["allocations"], lk["api"], lk["kind"], lk["device"]),
                (5, "cudaMalloc", "device", 0))
    fr = H.frames(lk)
    frame_is(fr[0], ("make_scratch(int)",), malloc_line)
    frame_is(fr[1], ("train_step(float*, int)",), line_of("float *scratch = make_scratch"))
    frame_is(fr[2], ("main",), line_of("train_step(weights, n);"))
    host = H.leak_by_bytes(rep, 4096)
    H.expect_eq("staging: api, kind", (host["api"], host["kind"]), ("cudaMallocHost", "host"))
    frame_is(H.frames(host)[0], ("make_staging(unsigned long)",),
             line_of("CHECK(cudaMallocHost(&host"))
    H.check_summary(rep, allocations=7, frees=1, leaked_bytes=5 << 20, leaked_allocations=5,
                    host_leaked_bytes=4096, failed_allocations=0, invalid_frees=0)
    growing = [s for s in rep["sites"] if s["growing"]]
    H.expect_eq("growing sites", [(s["live_bytes"], s["bytes_per_interval"]) for s in growing],
                [(5 << 20, 1 << 20)])


if __name__ == "__main__":
    H.main(globals())
