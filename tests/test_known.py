# SPDX-License-Identifier: MIT
"""Known framework memory (tools/analyze/known_memory.c): what PyTorch's
caching allocator and cuBLAS workspace, CuPy's pool and XLA's BFC allocator
keep is labelled, listed and not counted as leaked, by report, check and
run --fail-on-leak; a user's file of known:PATTERN lines extends the list.
The frameworks are stand-ins: tests/cxx/frameworks.cpp, functions named as
theirs (PyTorch's own, over the stand-in CUDA: tests/test_torch.py)."""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

MIB = 1 << 20
# (bytes, label, pattern) of each framework's allocation, most first; the
# cuBLAS workspace's is a segment of PyTorch's cache (made for the workspace,
# it may hold any tensor after): the cache's, never the workspace's label
KNOWN = [(32 * MIB, "PyTorch's cache", "DeviceCachingAllocator::alloc_block"),
         (20 * MIB, "PyTorch's cache", "DeviceCachingAllocator::alloc_block"),
         (12 * MIB, "CuPy's memory pool", "SingleDeviceMemoryPool"),
         (8 * MIB, "XLA's BFC allocator", "BFCAllocator::Extend")]
KNOWN_BYTES = sum(k[0] for k in KNOWN)
ARENA, USER = 3 * MIB, 1 * MIB
LIST = ("52.0 MiB by PyTorch's cache, 12.0 MiB by CuPy's memory pool, 8.0 MiB by XLA's BFC "
        "allocator")
BUILT_IN = [
    "  known:DeviceCachingAllocator::alloc_block      PyTorch's cache  (built in)",
    "  known:ExpandableSegment::map                   PyTorch's cache  (built in)",
    "  known:allocateCUDABlasWorkspace                PyTorch's cuBLAS workspace  (built in)",
    "  known:getCUDABlasLtWorkspace                   PyTorch's cuBLAS workspace  (built in)",
    "  known:setWorkspaceForHandle                    PyTorch's cuBLAS workspace  (built in)",
    "  known:getCurrentCUDABlasHandle                 PyTorch's cuBLAS workspace  (built in)",
    "  known:_local_scalar_dense_cuda                 PyTorch's pinned buffer for .item()  "
    "(built in)",
    "  known:SingleDeviceMemoryPool                   CuPy's memory pool  (built in)",
    "  known:nvtxMemHeapRegister                      an NVTX memory heap  (built in)",
    "  known:BFCAllocator::Extend                     XLA's BFC allocator  (built in)",
    "  known:ncclMemAlloc                             not known: the program's own  (built in)",
    "  known:libnccl.so                               NCCL's buffers  (built in)",
    "  known:ncclCommInit                             NCCL's buffers  (built in)",
    "  known:ncclProxy                                NCCL's buffers  (built in)",
    "  known:cublasAlloc                              not known: the program's own  (built in)",
    "  known:cufftXtMalloc                            not known: the program's own  (built in)",
    "  known:libcublas                                cuBLAS's handles and workspaces  "
    "(built in)",
    "  known:libcudnn                                 cuDNN's handles  (built in)",
    "  known:libcufft                                 cuFFT's plans  (built in)",
    "  known:libcusparse                              cuSPARSE's handles  (built in)",
    "  known:libcusolver                              cuSOLVER's handles  (built in)"]


def program():
    out = H.tmpdir()
    prog = os.path.join(out, "frameworks")
    src = os.path.join(H.source_root(), "tests", "cxx")
    r = subprocess.run(["g++", "-g", "-O0", "-fno-omit-frame-pointer", "-I", src,
                        os.path.join(src, "frameworks.cpp"), "-L", H.standin_dir(), "-lcudart",
                        "-o", prog], capture_output=True, text=True)
    if r.returncode != 0:
        H.fail("g++ frameworks.cpp failed:\n" + r.stderr[-3000:])
    return prog


def traced(*args, run_args=()):
    r = H.run_traced([program()] + list(args), run_args=run_args)
    H.expect_program_ok(r)
    return r


def cli(*args):
    return subprocess.run([H.vramtrace_exe()] + list(args), env=H.base_env(),
                          capture_output=True, text=True)


def known_file(text):
    path = os.path.join(H.tmpdir(), "known.txt")
    with open(path, "w") as f:
        f.write(text)
    return path


def function_of(entry):
    return H.frames(entry)[1]["function"]


def case_builtin_labels():
    """Each framework's allocation is listed with its label, in the JSON and
    the text; only the program's own count as leaked."""
    dump = traced().dump
    rep = H.report(dump)
    s = rep["summary"]
    H.expect_eq("leaked", (s["leaked_bytes"], s["leaked_allocations"]), (ARENA + USER, 2))
    H.expect_eq("known", (s["known_bytes"], s["known_allocations"]), (KNOWN_BYTES, 4))
    got = [(lk["bytes"], (lk["known"] or {}).get("label"), (lk["known"] or {}).get("pattern"))
           for lk in H.leaks(rep) + rep["known"]]
    H.expect_eq("leaks, then known memory in a list of its own", got,
                [(ARENA, None, None), (USER, None, None)] + KNOWN)
    text = cli("report", dump).stdout.splitlines()
    H.expect_eq("the known line", text[1],
                "vramtrace: also held at the end, known framework memory (not counted as "
                "leaked): " + LIST)
    H.expect_eq("the first known entry", [line for line in text if "Known" in line][0],
                "Known framework memory, PyTorch's cache: 33554432 bytes (32.0 MiB) "
                "in 1 allocation via cudaMalloc on device 0 [device]")


def nccl_program():
    """The program of tests/nccl/nccl_user.c over the stand-in NCCL library
    (libnccl.so.2, built beside it)."""
    out = H.tmpdir()
    src = os.path.join(H.source_root(), "tests", "nccl")
    cuda = os.environ.get("CUDA_INCLUDE_DIR", "/usr/local/cuda/include")
    lib = os.path.join(out, "libnccl.so.2")
    prog = os.path.join(out, "nccl_user")
    for cmd in (["cc", "-g", "-O0", "-fno-omit-frame-pointer", "-shared", "-fPIC", "-I", cuda,
                 "-Wl,-soname,libnccl.so.2", os.path.join(src, "nccl_standin.c"), "-o", lib,
                 "-L", H.standin_dir(), "-lcudart", "-lcuda"],
                ["cc", "-g", "-O0", "-fno-omit-frame-pointer", os.path.join(src, "nccl_user.c"),
                 "-o", prog, lib, "-Wl,-rpath," + out]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            H.fail(" ".join(cmd) + " failed:\n" + r.stderr[-3000:])
    return prog


def case_nccl_buffers():
    """A communicator never destroyed: NCCL's device buffers (made inside
    libnccl, by a function it does not export) and its page-locked proxy
    buffer are NCCL's buffers, known, at the line that created the
    communicator; the buffer the program asked NCCL for (ncclMemAlloc) and
    never freed is the program's leak at its own line."""
    src = os.path.join(H.source_root(), "tests", "nccl", "nccl_user.c")
    r = H.run_traced([nccl_program()])
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    line = H.call_line(src, "comm")
    H.expect_eq("NCCL's buffers", sorted(
        (k["bytes"], k["allocations"], k["kind"], k["known"]["label"],
         [f.get("line") for f in H.frames(k) if (f.get("file") or "").endswith("nccl_user.c")])
        for k in rep["known"]),
        [(2 << 20, 1, "host", "NCCL's buffers", [line]),
         (8 << 20, 2, "device", "NCCL's buffers", [line])])
    H.expect_eq("the program's leak", [
        (lk["bytes"], lk["known"], [f.get("line") for f in H.frames(lk)
                                    if (f.get("file") or "").endswith("nccl_user.c")])
        for lk in H.leaks(rep)], [(1 << 20, None, [H.marker_line(src, "buffer")])])
    first = cli("report", r.dump).stdout.splitlines()[:2]
    H.expect(first[0].startswith("vramtrace: 1.0 MiB (1048576 bytes) of device memory leaked") and
             first[1] == "vramtrace: also held at the end, known framework memory (not counted "
             "as leaked): 8.0 MiB by NCCL's buffers", "\n".join(first))


def case_no_leaks_headline():
    """Only known memory held at exit: the headline says no leaks, and what
    the frameworks hold."""
    dump = traced("known-only").dump
    first = cli("report", dump).stdout.splitlines()[0]
    H.expect_eq("headline", first.split(" (peak")[0],
                "vramtrace: no leaks; known framework memory held at the end: " + LIST)


def case_host_memory_apart():
    """XLA's BFC allocators of device and of page-locked host memory: the
    device headline names only the device's 8 MiB, the host's 2 MiB are
    said with the host memory, never summed with it (a real JAX run on an
    H200 read "128.0 MiB by XLA's BFC allocator" beside a device peak of
    126 MiB)."""
    dump = traced("xla-host").dump
    s = H.report(dump)["summary"]
    H.expect_eq("known device, host", (s["known_bytes"], s["known_allocations"],
                                       s["host_known_bytes"], s["host_known_allocations"]),
                (8 * MIB, 1, 2 * MIB, 1))
    H.expect_eq("leaked device, host", (s["leaked_bytes"], s["host_leaked_bytes"]), (0, 0))
    H.expect_eq("headline", cli("report", dump).stdout.splitlines()[0],
                "vramtrace: no leaks; known framework memory held at the end: 8.0 MiB by XLA's "
                "BFC allocator (peak 8.0 MiB on device 0, 2 allocations, 0 frees, 0 failed, "
                "0 invalid frees); page-locked host memory: peak 2.0 MiB, known framework memory "
                "held at the end: 2.0 MiB by XLA's BFC allocator")


def case_several_dumps():
    """The combined view of several dumps says the known memory of all."""
    a, b = traced("known-only").dump, traced().dump
    lines = cli("report", a, b).stdout.splitlines()
    combined = lines.index("== combined: 2 processes ==")
    H.expect_eq("combined", lines[combined + 1:combined + 3], [
        "vramtrace: 4.0 MiB (4194304 bytes) of device memory leaked in 2 allocations, 0 failed "
        "allocations, 0 invalid frees, over all processes",
        "vramtrace: 144.0 MiB (150994944 bytes) of known framework memory held at the end (not "
        "counted as leaked), over all processes"])


def case_html():
    """report --html says what known memory is held, never "All memory was
    freed"."""
    dump = traced("known-only").dump
    page = os.path.join(H.tmpdir(), "report.html")
    r = cli("report", "--html", page, dump)
    H.expect_eq("status", r.returncode, 0)
    with open(page) as f:
        html = f.read()
    H.expect("<p>Known framework memory held at the end, not counted as leaked: 72.0 MiB "
             "(<code>vramtrace report</code> says what it is).</p>" in html, html[-3000:])
    H.expect("All memory was freed" not in html, "the page says all memory was freed")


def case_check_exit_status():
    """check and run --fail-on-leak pass on known memory alone; without the
    built-in list (--no-default-known) it is leaked."""
    dump = traced("known-only").dump
    r = cli("check", dump)
    H.expect_eq("check, known only", r.returncode, 0)
    r = cli("check", "--no-default-known", dump)
    H.expect_eq("check --no-default-known", r.returncode, 23)
    run = H.run_traced([program(), "known-only"], run_args=["--fail-on-leak"])
    H.expect_eq("run --fail-on-leak, known only", H.run_status(run), 0)
    run = H.run_traced([program()], run_args=["--fail-on-leak"])
    H.expect_eq("run --fail-on-leak, a leak of its own", H.run_status(run), 23)


def case_user_pattern_file():
    """known:PATTERN LABEL in a file given with --known (or $VRAMTRACE_KNOWN)
    labels the program's arena: only the 1 MiB leak is left."""
    dump = traced().dump
    path = known_file("# our allocator keeps its arena\nknown:my_arena_grow our arena\n")
    for rep in (H.report(dump, "--known", path),):
        H.expect_eq("leaked", rep["summary"]["leaked_bytes"], USER)
        arena = [lk for lk in rep["known"] if lk["bytes"] == ARENA][0]
        H.expect_eq("the arena's label", (arena["known"]["label"], arena["known"]["origin"],
                                          arena["known"]["line"]), ("our arena", path, 2))
    r = cli("check", "--max-leaked", str(USER), "--known", path, dump)
    H.expect_eq("check with the file", r.returncode, 0)
    r = cli("check", "--max-leaked", str(USER), dump)
    H.expect_eq("check without it", r.returncode, 23)


def case_show_known():
    """--show-known lists the built-in patterns, then a file's with where
    they came from."""
    r = cli("report", "--show-known")
    H.expect_eq("status", r.returncode, 0)
    H.expect_eq("built in", r.stdout.splitlines()[2:], BUILT_IN)
    path = known_file("known:my_arena_grow our arena\nknown:other\n")
    r = cli("report", "--show-known", "--no-default-known", "--known", path)
    H.expect_eq("from the file", r.stdout.splitlines()[2:], [
        "  known:my_arena_grow                            our arena  (%s:1)" % path,
        "  known:other                                    known:other  (%s:2)" % path])


def case_bad_known_file():
    """A line that is not known:PATTERN, or a missing file: one line naming
    it, status 1, no report."""
    dump = traced("known-only").dump
    path = known_file("known:fine\nleak:wrong_kind\n")
    for cmd in (["report"], ["check"]):
        r = cli(*cmd, "--known", path, dump)
        H.expect_eq("%s: status" % cmd[0], r.returncode, 1)
        H.expect_eq("%s: stderr" % cmd[0], r.stderr,
                    "vramtrace: %s:2: expected 'known:PATTERN [LABEL]', got 'leak:wrong_kind'\n"
                    % path)
        H.expect_eq("%s: stdout" % cmd[0], r.stdout, "")
    missing = os.path.join(H.tmpdir(), "missing.txt")
    r = cli("report", "--show-known", "--known", missing)
    H.expect_eq("missing: status", r.returncode, 1)
    H.expect_eq("missing: stderr", r.stderr,
                "vramtrace: %s: cannot read known patterns: No such file or directory\n" % missing)


if __name__ == "__main__":
    H.main(globals())
