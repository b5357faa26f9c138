# SPDX-License-Identifier: MIT
"""The stand-in CUDA libraries and the test programs on their own, without
the tracer: a failure here is a stand-in (or program) bug, not a tracer bug."""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

PROGRAMS = {  # program: (args, expected status)
    "rt_apis": ([], 0), "drv_apis": ([], 0), "vmm": ([], 0), "static_rt": ([], 0),
    "dlopen_local": ([], 0), "dlsym_driver": (["--check-names"], 0),
    "entry_point": (["--check-names"], 0), "errors": ([], 0), "teardown": ([], 0),
    "inline_leak": ([], 0), "exit_status": ([], 7), "clean_exit": ([], 0), "graphs": ([], 0),
    "graph_nodes": ([], 0), "drv_graph_nodes": ([], 0),
}


def plain_case(name):
    def case():
        args, status = PROGRAMS[name]
        r = H.run_plain([H.program(name)] + args)
        H.expect(H.run_status(r) == status, "untraced: expected status %d\n%s" % (
            status, r.describe()))
    return case


for _name in PROGRAMS:
    globals()["case_" + _name] = plain_case(_name)


def case_exit_status_kill():
    r = H.run_plain([H.program("exit_status"), "kill"])
    H.expect_eq("status", H.run_status(r), 137)


def case_ctypes():
    r = H.run_plain([sys.executable, H.program_source("ctypes_leak.py")])
    H.expect(r.status == 0, "untraced ctypes_leak.py failed\n" + r.describe())


def case_interposed_names():
    """With another library exporting cuMemAlloc_v2 / cuGetProcAddress_v2
    preloaded, the stand-ins still hand out their own entry points."""
    env = {"LD_PRELOAD": H.program("libinterposer.so")}
    for name in ("dlsym_driver", "entry_point"):
        r = H.run_plain([H.program(name), "--check-names"], env)
        H.expect(r.status == 0, "interposed: %s\n%s" % (name, r.describe()))


def _tool(argv):
    try:
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise H.Skip("%s unavailable: %s" % (argv[0], e))


def case_cudart_imports():
    """The runtime reaches the driver only through dlopen + cuGetProcAddress:
    no cu* import, no DT_NEEDED on libcuda."""
    lib = os.path.join(H.standin_dir(), "libcudart.so.13")
    H.expect(os.path.isfile(lib), "missing " + lib)
    undef = _tool(["nm", "-D", "--undefined-only", lib])
    bad = [l.split()[-1] for l in undef.splitlines() if re.match(r"cu[A-Z]", l.split()[-1])]
    H.expect(not bad, "libcudart.so.13 imports driver symbols: %r" % bad)
    needed = [l for l in _tool(["readelf", "-d", lib]).splitlines() if "(NEEDED)" in l]
    H.expect(not any("libcuda.so" in l for l in needed),
             "libcudart.so.13 links libcuda:\n" + "\n".join(needed))
    defined = _tool(["nm", "-D", "--defined-only", lib])
    exported = [l.split()[-1] for l in defined.splitlines() if l.split()[-2] in ("T", "W")]
    others = [s for s in exported if not s.startswith("cuda") and not s.startswith("_")]
    H.expect(not others, "libcudart.so.13 exports non-cuda* functions: %r" % others)


def case_static_rt_exports():
    """The compiled-in runtime is not exported dynamically."""
    dyn = _tool(["nm", "-D", "--defined-only", H.program("static_rt")])
    H.expect("cudaMalloc" not in dyn, "static_rt exports cudaMalloc:\n" + dyn)


# ---- the stand-in headers ----

STANDIN_INCLUDE = os.path.join(H.source_root(), "tests", "standin", "include")


def case_headers_c_and_cxx():
    """Every stand-in header compiles on its own and with the others, as C
    and as C++ (-Wall -Wextra -Werror, C++ -pedantic too), and includes no
    file of ours outside tests/standin/include."""
    headers = sorted(h for h in os.listdir(STANDIN_INCLUDE) if h.endswith(".h"))
    for h in headers:
        with open(os.path.join(STANDIN_INCLUDE, h)) as f:
            quoted = re.findall(r'^#\s*include\s+"([^"]+)"', f.read(), re.M)
        outside = [q for q in quoted if q not in headers]
        H.expect(not outside, "%s includes %r from outside the stand-in headers" % (h, outside))
    source = os.path.join(H.tmpdir(), "headers.c")
    for chosen in [[h] for h in headers] + [headers, list(reversed(headers))]:
        with open(source, "w") as f:
            f.write("".join('#include "%s"\n' % h for h in chosen) + "int main(void) { return 0; }\n")
        for argv in (["cc", "-std=c11", "-x", "c"],
                     ["c++", "-std=c++11", "-pedantic", "-x", "c++"]):
            cmd = argv + ["-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I", STANDIN_INCLUDE,
                          source]
            try:
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   universal_newlines=True)
            except OSError as e:
                raise H.Skip("%s unavailable: %s" % (argv[0], e))
            H.expect(p.returncode == 0, "%s: %s\n%s" % (" ".join(chosen), " ".join(cmd),
                                                       p.stdout[-3000:]))


# ---- the stand-in runtime calls the driver as NVIDIA's does ----
# shared/real-runtime.md, observed on CUDA 13.0's own libcudart.so.13 and
# cudart_static over a logging driver: what each runtime call asks of it.

# (name, version, flags) the runtime asks cuGetProcAddress for
REAL_LOOKUPS = [
    ("cuMemAlloc", 3020, 0), ("cuMemFree", 3020, 0), ("cuMemAllocPitch", 3020, 0),
    ("cuMemAllocHost", 3020, 0), ("cuMemGetInfo", 3020, 0), ("cuDeviceTotalMem", 3020, 0),
    ("cuMemAllocManaged", 6000, 0), ("cuMemHostAlloc", 2020, 0),
    ("cuMemAllocAsync", 11020, 0), ("cuMemAllocAsync", 11020, 2),
    ("cuMemFreeAsync", 11020, 0), ("cuMemFreeAsync", 11020, 2),
    ("cuMemAllocFromPoolAsync", 11020, 0), ("cuMemAllocFromPoolAsync", 11020, 2),
    ("cuGraphAddMemAllocNode", 11040, 0),
    ("cuCtxGetDevice", 2000, 0), ("cuCtxGetDevice", 13000, 0),
    ("cuCtxSynchronize", 2000, 0), ("cuCtxSynchronize", 13000, 0),
]
# runtime call: the driver calls it makes, in order (attribute queries and
# per-device repeats folded)
REAL_CALLS = {
    "first call": ["cuDriverGetVersion", "cuInit 0", "cuDeviceGetCount", "cuDeviceGet",
                   "cuDeviceGetName", "cuDeviceTotalMem_v2", "cuDeviceGetUuid_v2",
                   "cuDeviceGetAttribute",
                   "cuCtxGetCurrent", "cuDevicePrimaryCtxRetain 0", "cuCtxSetCurrent",
                   "cuCtxGetDevice_v2"],
    "cudaMalloc": ["cuMemAlloc_v2 1000"],
    "cudaFree": ["cuMemFree_v2"],
    "cudaMallocManaged": ["cuMemAllocManaged 2000 1"],     # CU_MEM_ATTACH_GLOBAL
    "cudaFree managed": ["cuMemFree_v2"],
    "cudaMallocHost": ["cuMemHostAlloc 3000 0"],           # not cuMemAllocHost_v2
    "cudaFreeHost": ["cuMemFreeHost"],
    "cudaHostAlloc mapped": ["cuMemHostAlloc 4000 2", "cuMemFreeHost"],
    "cudaMallocAsync": ["cuMemAllocAsync 5000"],           # no pool call
    "cudaFreeAsync": ["cuMemFreeAsync"],
    "cudaMemGetInfo": ["cuMemGetInfo_v2"],
    "cudaDeviceSynchronize": ["cuCtxGetCurrent", "cuCtxSynchronize"],
    "cudaDeviceReset": ["cuCtxGetApiVersion", "cuDevicePrimaryCtxReset_v2 0"],
    # the next call sets the context up again, as the first call did
    "after reset": ["cuCtxGetCurrent", "cuDevicePrimaryCtxRetain 0", "cuMemAlloc_v2 6000",
                    "cuMemFree_v2"],
    "exit": ["cuDevicePrimaryCtxRelease_v2 0"],
}


def driver_log(program, extra_env=None):
    log = os.path.join(H.tmpdir(), "driver.log")
    env = {"STANDIN_CUDA_LOG": log}
    env.update(extra_env or {})
    r = H.run_plain([H.program(program)], env)
    H.expect(r.status == 0, "%s failed\n%s" % (program, r.describe()))
    with open(log) as f:
        return f.read().splitlines()


DEVICE_QUERIES = ("cuDeviceGet", "cuDeviceGetName", "cuDeviceTotalMem_v2", "cuDeviceGetUuid_v2",
                  "cuDeviceGetAttribute")


def fold(calls):
    """The per-device queries as their names, each kept once (every device
    gets the same ones, and ~112 attribute queries each)."""
    out = []
    for c in calls:
        name = c.split()[0]
        if name in DEVICE_QUERIES:
            if name not in out:
                out.append(name)
        else:
            out.append(c)
    return out


def check_runtime_calls(program):
    lines = driver_log(program)
    steps, current = {}, None
    lookups = []
    for line in lines:
        if line.startswith("== "):
            current = line[3:]
            steps[current] = []
        elif line.startswith("cuGetProcAddress"):
            name, symbol, version, flags = (line.split(" ") + ["", "", ""])[:4]
            lookups.append((name, symbol, int(version), int(flags)))
        elif current is not None:
            steps[current].append(line)
    # start-up: dlsym(cuGetProcAddress_v2), the empty-name probe, cuInit,
    # cuGetProcAddress at 11030 and 12000
    H.expect_eq("the first look-ups", lookups[:4], [
        ("cuGetProcAddress_v2", "", 0, 0), ("cuGetProcAddress_v2", "cuInit", 2000, 0),
        ("cuGetProcAddress_v2", "cuGetProcAddress", 11030, 0),
        ("cuGetProcAddress_v2", "cuGetProcAddress", 12000, 0)])
    asked = {(sym, v, f) for _, sym, v, f in lookups}
    missing = [x for x in REAL_LOOKUPS if x not in asked]
    H.expect(not missing, "look-ups NVIDIA's runtime makes that the stand-in does not: %r" %
             missing)
    attributes = [l for l in steps.get("first call", []) if l.startswith("cuDeviceGetAttribute")]
    H.expect(len(attributes) >= 100, "about 112 cuDeviceGetAttribute calls per device at "
             "start-up, got %d" % len(attributes))
    for step, want in REAL_CALLS.items():
        H.expect_eq("driver calls of %s" % step, fold(steps.get(step, [])), want)


def case_runtime_driver_calls():
    check_runtime_calls("runtime_calls")


def case_runtime_driver_calls_static():
    """The static runtime makes the same calls."""
    check_runtime_calls("runtime_calls_static")


RUNTIME_PROBE = """
import ctypes, sys
rt = ctypes.CDLL("libcudart.so.13")
p = ctypes.c_void_p()
print(rt.cudaMallocAsync(ctypes.byref(p), 4096, None), rt.cudaMalloc(ctypes.byref(p), 4096))
"""


def case_runtime_old_driver():
    """A driver below 13000 fails start-up with cudaErrorInsufficientDriver
    (35); one without an entry point fails the calls that need it with
    cudaErrorCallRequiresNewerDriver (36), the others work."""
    r = H.run_plain([sys.executable, "-c", RUNTIME_PROBE], {"STANDIN_CUDA_DRIVER_VERSION": "12080"})
    H.expect_eq("results with an old driver", r.stdout.split(), ["35", "35"])
    r = H.run_plain([sys.executable, "-c", RUNTIME_PROBE], {"STANDIN_CUDA_HIDE": "cuMemAllocAsync"})
    H.expect_eq("results without cuMemAllocAsync", r.stdout.split(), ["36", "0"])


def case_runtime_answers():
    """The runtime's answers to what PyTorch and NVIDIA's samples call
    (tests/programs/standin_runtime.c): properties of the stand-in H100,
    every error named, events, stream priorities, copies and sets in stream
    order, pointer attributes, 30,000 registered kernels."""
    r = H.run_plain([H.program("standin_runtime")])
    H.expect(r.status == 0, "the stand-in runtime answered otherwise:\n" + r.describe())


def case_runtime_copies():
    """Copies and sets of two and three dimensions as the CUDA 13.0 headers
    document them (tests/programs/standin_copies.c): cudaMemcpy3D(Async)
    between pitched memory and arrays, cudaMemset3D(Async),
    cudaMemset2DAsync, cudaMemcpyToArray/FromArray through an array's rows,
    copies to and from symbols; every byte and every refusal."""
    r = H.run_plain([H.program("standin_copies")])
    H.expect(r.status == 0, "the stand-in runtime copied otherwise:\n" + r.describe())


def case_cublaslt_answers():
    """cuBLAS's and cuBLASLt's answers to what XLA asks before a matrix
    product (tests/programs/standin_cublaslt.c): statuses named and
    described, cuBLASLt handles, descriptors keeping each attribute at its
    documented size and default."""
    r = H.run_plain([H.program("standin_cublaslt")])
    H.expect(r.status == 0, "the stand-in cuBLASLt answered otherwise:\n" + r.describe())


def case_driver_answers():
    """The driver's answers to what c10, JAX and the samples call
    (tests/programs/standin_driver.c): H100 attributes, peers, events and
    stream order, modules and launches, address ranges, cuMemMap'ped
    pointers' attributes, handles retained, exported and imported,
    cuGetExportTable exported and supporting no table."""
    r = H.run_plain([H.program("standin_driver")])
    H.expect(r.status == 0, "the stand-in driver answered otherwise:\n" + r.describe())


def case_graph_build_answers():
    """The driver's answers to graphs built node by node (memset and host
    nodes run at each launch of a clone; a graph with memory nodes is not
    cloned), a capture forked to a second stream (joined by
    cuStreamWaitEvent, UNMATCHED and UNJOINED as documented, its free on
    the second stream a free node), occupancy, peer access between contexts
    and modules from files (tests/programs/standin_graph_build.c; issue 38)."""
    r = H.run_plain([H.program("standin_graph_build")])
    H.expect(r.status == 0, "the stand-in driver answered otherwise:\n" + r.describe())


if __name__ == "__main__":
    H.main(globals())
