#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Real PyTorch over the stand-ins, its default caching allocator, no flag:
every tensor inside its segments is traced at its own line (the tracker of
src/hooks/torch_tensors.c), the segments stay the device's view (peaks count
them, never the tensors again); under `vramtrace run` and plain LD_PRELOAD.
Skipped (exit 77) where torch cannot be had."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402
import torch_env  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "python", "torch_tensor_cases.py")
MiB = 1 << 20
TENSOR = "torchTensorAlloc"


def torch_python(release="2.15"):
    try:
        return torch_env.venv_python(H.env_path("VT_BUILD_ROOT", "dir"), release)
    except torch_env.Unavailable as e:
        raise H.Skip(str(e))


def run_case(case, mode="run", extra_env=None, release="2.15", run_args=()):
    r = H.run_traced([torch_python(release), CASES, case], mode=mode, extra_env=extra_env,
                     run_args=run_args)
    H.expect_program_ok(r)
    H.expect_dump(r)
    H.expect("done %s True" % case in r.stdout, "the case did not finish:\n" + r.describe())
    return H.report(r.dump)


def at_end(rep):
    """Every site still allocated at the end, whatever its verdict: leaked,
    held when the script ended (freed by the interpreter's shutdown), or
    known framework memory (PyTorch's cache)."""
    return H.leaks(rep) + rep["held"] + rep["known"]


def line_of(entry):
    for f in entry.get("frames") or []:
        if (f.get("file") or "").endswith("torch_tensor_cases.py"):
            return f.get("line")
    return None


def leaks_at(rep, tag, api=TENSOR):
    """(bytes, allocations) of each leak of API at the line marked TAG."""
    line = H.marker_line(CASES, tag)
    return sorted((lk["bytes"], lk["allocations"]) for lk in at_end(rep)
                  if lk["api"] == api and line_of(lk) == line)


def segments(rep):
    """Bytes of the segments the caching allocator still holds (known)."""
    return sum(lk["bytes"] for lk in at_end(rep) if lk["api"] in ("cudaMalloc", "cuMemCreate"))


def check_dict_cache(rep):
    H.expect_eq("the kept activations at their line", leaks_at(rep, "cache"), [(30 * 4 * MiB, 30)])
    H.expect_eq("format version: a reader from before tensors refuses it",
                rep["format_version"], 3)
    H.expect_eq("the peak: the segments only, never their tensors again",
                H.summary(rep)["peak_bytes"], segments(rep))


def case_dict_cache():
    """A dict keeps a 4 MiB activation per step: 30 tensors of 4 MiB at the
    line that made them, inside 20 MiB segments that the peak counts once."""
    check_dict_cache(run_case("dict_cache"))


def case_peak_at_lines():
    """The peak's holders are the tensors at their lines, not the segments
    (each at whichever line grew the cache): the 30 kept activations, the
    input and the last relu output, live when the last segment came (with
    the activation it came for); the rest of the segments is free in the
    cache, and the holders and the free room sum to the peak. At the end
    the cache is described as reserved, in tensors and free."""
    r = H.run_traced([torch_python(), CASES, "dict_cache"])
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    peak = rep["peaks"][0]
    H.expect_eq("the peak's holders: tensors at their lines",
                [(h["bytes"], h["api"], line_of(h)) for h in peak["holders"]],
                [(30 * 4 * MiB, TENSOR, H.marker_line(CASES, "cache")),
                 (4 * MiB, TENSOR, H.call_line(CASES, "input")),
                 (4 * MiB, TENSOR, H.call_line(CASES, "relu"))])
    H.expect_eq("the cache at the peak",
                peak["cache"], {"reserved_bytes": peak["bytes"], "tensor_bytes": 32 * 4 * MiB,
                                "free_bytes": peak["bytes"] - 32 * 4 * MiB})
    H.expect_eq("the cache at the end (os._exit: no script end)", rep["caches"],
                [{"device": 0, "when": "end", "reserved_bytes": segments(rep),
                  "tensor_bytes": 30 * 4 * MiB, "free_bytes": segments(rep) - 30 * 4 * MiB}])
    text = subprocess.run([H.vramtrace_exe(), "report", r.dump], env=H.base_env(),
                          stdout=subprocess.PIPE, universal_newlines=True).stdout
    H.expect(re.search(r"^PyTorch's cache on device 0 at the end: [\d.]+ MiB \(%d bytes\) reserved "
                       r"in \d+ segments: 120\.0 MiB in live tensors \(listed at their lines\), "
                       r"[\d.]+ MiB free for reuse; not counted as leaked" % segments(rep),
                       text, re.M), text)
    H.expect("Known framework memory, PyTorch's cache" not in text,
             "the segments' own entries, whose stacks say nothing of their tensors:\n" + text)


def case_torch_snapshot():
    """export --format torch-snapshot as PyTorch's own snapshot has the
    cache: its segments segment_alloc only, each tensor alloc and
    free_requested + free_completed at its line, and at the end each
    segment's tensors as active_allocated blocks, the room between them
    inactive; memory_viz's timeline peaks at the tensors' peak."""
    import test_export as E
    r = H.run_traced([torch_python(), CASES, "dict_cache"])
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    snap = E.torch_snapshot(r.dump)
    trace = snap["device_traces"][0]
    nsegments = sum(k["allocations"] for k in rep["known"])
    counts = {}
    for e in trace:
        counts[e["action"]] = counts.get(e["action"], 0) + 1
    # the input and 30 relu outputs, freed; 30 kept
    H.expect_eq("trace events", counts, {"segment_alloc": nsegments, "alloc": 61,
                                         "free_requested": 31, "free_completed": 31})
    kept = [e for e in trace if e["action"] == "alloc" and
            any(f["line"] == H.marker_line(CASES, "cache") and f["filename"] == CASES
                for f in e["frames"])]
    H.expect_eq("the kept tensors' allocs at their line", len(kept), 30)
    _, _, _, high = E.memory_viz_timeline(snap, 0)
    H.expect_eq("the timeline's peak: the tensors'", high,
                rep["peaks"][0]["cache"]["tensor_bytes"])
    segs = snap["segments"]
    H.expect_eq("segments at the end", (len(segs), sum(s["total_size"] for s in segs)),
                (nsegments, segments(rep)))
    blocks = [b for s in segs for b in s["blocks"]]
    H.expect_eq("active blocks: the kept tensors", sorted(
        (b["size"], line_of({"frames": [{"file": f["filename"], "line": f["line"]}
                                        for f in b["frames"]]}))
        for b in blocks if b["state"] == "active_allocated"),
        [(4 * MiB, H.marker_line(CASES, "cache"))] * 30)
    for s in segs:
        H.expect_eq("a segment's blocks tile it", (sum(b["size"] for b in s["blocks"]),
                                                   s["blocks"][0]["address"]),
                    (s["total_size"], s["address"]))
        H.expect_eq("its allocated size", s["allocated_size"],
                    sum(b["size"] for b in s["blocks"] if b["state"] == "active_allocated"))


def case_graph_shared_pool():
    """Two CUDA graphs sharing a private pool: the graphs' outputs held at
    their captured lines (tensors in the pool's segments, not the segments),
    the clones kept each step growing 4 MiB a marker at theirs."""
    r = H.run_traced([torch_python(), CASES, "graph_shared_pool"],
                     extra_env={"PYTHONPATH": os.path.join(H.source_root(), "python")})
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    grow = [(s["api"], line_of(s), s["bytes_per_interval"]) for s in rep["sites"] if s["growing"]]
    H.expect_eq("growing", grow, [(TENSOR, H.marker_line(CASES, "graph_kept"), 4 * MiB)])
    for tag in ("graph_input", "graph_first", "graph_second"):
        H.expect_eq("held at %s" % tag, leaks_at(rep, tag), [(4 * MiB, 1)])
    H.expect_eq("the kept clones", leaks_at(rep, "graph_kept"), [(10 * 4 * MiB, 10)])


def case_dict_cache_preload():
    """The same through plain LD_PRELOAD, without `vramtrace run`."""
    check_dict_cache(run_case("dict_cache", mode="preload"))


def case_dict_cache_aggregate():
    """The same in aggregate mode: the tensors' site totals, the device's
    peak the segments' alone (the tracer's own count)."""
    check_dict_cache(run_case("dict_cache", run_args=["--aggregate"]))


def case_dict_cache_2_14():
    """The same on the older CUDA 13 release line, torch 2.14.1 (cu130)."""
    check_dict_cache(run_case("dict_cache", release="2.14"))


def case_slow_leak():
    """8 KiB a step for 300 steps, beside 1 MiB made and dropped: 300
    tensors of 8 KiB at their line, nothing of the dropped ones."""
    rep = run_case("slow_leak")
    H.expect_eq("the slow leak at its line", leaks_at(rep, "slow"), [(300 * 8192, 300)])
    H.expect_eq("the tensors leaked in all", H.summary(rep)["leaked_allocations"], 300)


def case_nvtx_steps():
    """`with torch.cuda.nvtx.range("step")` around each of 20 steps keeping
    1 MiB, under `run --mark-on-nvtx step`: 20 markers (libtorch_python's
    NVTX loads the library from NVTX_INJECTION64_PATH at its first range),
    growth of 1 MiB per marker interval at the script's line. Skipped where
    this torch has no NVTX."""
    r = H.run_traced([torch_python(), CASES, "nvtx_steps"], run_args=("--mark-on-nvtx", "step"))
    H.expect_program_ok(r)
    if "no nvtx:" in r.stdout:
        raise H.Skip("torch has no NVTX: " + r.stdout.strip())
    H.expect("done nvtx_steps True" in r.stdout, "the case did not finish:\n" + r.describe())
    H.expect_dump(r)
    rep = H.report(r.dump)
    H.expect_eq("markers", rep["growth"]["marks"], 20)
    growing = [s for s in rep["sites"] if s["growing"]]
    H.expect_eq("growing sites' lines", [line_of(s) for s in growing],
                [H.marker_line(CASES, "nvtx")])
    H.expect_eq("bytes per marker interval", growing[0]["bytes_per_interval"], MiB)


def case_nvtx_phases():
    """`with torch.cuda.nvtx.range("forward")` inside each step's range:
    the growing site's phase is "forward", in JSON and text."""
    r = H.run_traced([torch_python(), CASES, "nvtx_phases"], run_args=("--mark-on-nvtx", "step"))
    H.expect_program_ok(r)
    if "no nvtx:" in r.stdout:
        raise H.Skip("torch has no NVTX: " + r.stdout.strip())
    H.expect("done nvtx_phases True" in r.stdout, "the case did not finish:\n" + r.describe())
    rep = H.report(r.dump)
    growing = [s for s in rep["sites"] if s["growing"]]
    H.expect_eq("growing sites: line and phase", [(line_of(s), s["phase"]) for s in growing],
                [(H.marker_line(CASES, "nvtx_forward"), "forward")])
    text = H._run([H.vramtrace_exe(), "report", r.dump], H.base_env(), r.cwd).stdout
    H.expect("[device]  during forward\n" in text, "the growing site's phase:\n" + text)


def case_validation():
    """A validation loop without no_grad: relu's saved 1 MiB output and the
    4-byte loss of each of 10 steps, at the loop's line."""
    rep = run_case("validation")
    H.expect_eq("what the kept graphs hold", leaks_at(rep, "validation"),
                [(10 * 4, 10), (10 * MiB, 10)])


def behalf_line(entry):
    """The case script's first line among ENTRY's on-behalf frames."""
    for f in (entry.get("on_behalf") or {}).get("frames") or []:
        if (f.get("file") or "").endswith("torch_tensor_cases.py"):
            return f.get("line")
    return None


def case_module_adam():
    """A module-level model with Adam: the parameters at the model's line,
    Adam's two moments of each at the step's line, the gradients made on
    autograd's thread at the backward() line (on behalf of the thread that
    called it); the step's temporaries and the input freed."""
    rep = run_case("module_adam")
    weight, bias = 4 * MiB, 4 * 1024
    H.expect_eq("the parameters", leaks_at(rep, "model"), [(weight + bias, 2)])
    H.expect_eq("Adam's moments", leaks_at(rep, "adam_step"), 2 * [(weight + bias, 2)])
    line = H.marker_line(CASES, "adam_backward")
    H.expect_eq("the gradients, on behalf of the backward() line",
                sorted((lk["bytes"], lk["allocations"]) for lk in at_end(rep)
                       if lk["api"] == TENSOR and behalf_line(lk) == line),
                [(bias, 1), (weight, 1)])
    H.expect_eq("the tensors kept in all", H.summary(rep)["leaked_allocations"], 8)


MODEL_HELD = os.path.join(HERE, "python", "torch_model_held.py")


def model_held_run(*args, run_args=(), extra_env=None):
    """torch_model_held.py traced, its report and `vramtrace check`."""
    r = H.run_traced([torch_python(), MODEL_HELD, *args], run_args=run_args, extra_env=extra_env)
    H.expect_program_ok(r)
    H.expect_dump(r)
    check = subprocess.run([H.vramtrace_exe(), "check", r.dump], env=H.base_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return H.report(r.dump), check


def model_line(lk):
    for f in lk.get("frames") or []:
        if (f.get("file") or "").endswith("torch_model_held.py"):
            return f.get("line")
    return None


def check_model_held(api, **run):
    """The parameters (4 MiB + 4 KiB, 2 allocations) held at the model's
    line through API, nothing leaked or growing, check 0."""
    rep, check = model_held_run(**run)
    weight, bias = 4 * MiB, 4 * 1024
    H.expect_eq("nothing leaked, nothing growing",
                (H.summary(rep)["leaked_bytes"], H.leaks(rep),
                 [s for s in rep["sites"] if s["growing"]]), (0, [], []))
    H.expect_eq("the parameters held at the model's line",
                [(lk["bytes"], lk["allocations"]) for lk in rep["held"]
                 if lk["api"] == api and model_line(lk) == H.marker_line(MODEL_HELD, "model")],
                [(weight + bias, 2)])
    H.expect_eq("check: status", (check.returncode, check.stderr), (0, ""))


def case_model_held_check_passes():
    """A user's script, no flag, ending normally: the module-level model and
    its Adam state are still referenced when the script ended, so held, not
    leaked (the parameters even where the interpreter's shutdown does not
    free them), nothing grows over the 12 markers, and check passes."""
    check_model_held(TENSOR)


def case_model_held_every_allocator_mode():
    """The same verdict whichever way PyTorch allocates: each tensor its own
    cudaMalloc (PYTORCH_NO_CUDA_MEMORY_CACHING=1) or cudaMallocAsync
    (--pytorch-tensors): what PyTorch's objects still held when the script
    ended is held (a frame of PyTorch on its stack), not a leak."""
    check_model_held("cudaMalloc", extra_env={"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"})
    check_model_held("cudaMallocAsync", run_args=["--pytorch-tensors"])


def case_model_held_cache_grows():
    """The same script keeping a 1 MiB activation a step in a dict: the
    headline says it grows at the dict's line, 1 MiB a step, and check
    fails on that growth (23), while the model stays held."""
    rep, check = model_held_run("cache")
    grow = [(model_line(s), s["bytes_per_interval"], s["api"]) for s in rep["sites"]
            if s["growing"]]
    H.expect_eq("the growing site", grow,
                [(H.marker_line(MODEL_HELD, "cache"), 256 * 1024 * 4, TENSOR)])
    H.expect_eq("nothing leaked", H.summary(rep)["leaked_bytes"], 0)
    H.expect_eq("check: status", check.returncode, 23)
    H.expect("of growth at 1 growing call site" in check.stderr, check.stderr)



UNMARKED = os.path.join(HERE, "python", "torch_unmarked.py")


def unmarked_run(*args):
    """torch_unmarked.py under `vramtrace run`: its report, its text and
    `vramtrace check`."""
    r = H.run_traced([torch_python(), UNMARKED, *args])
    H.expect_program_ok(r)
    H.expect_dump(r)
    text = subprocess.run([H.vramtrace_exe(), "report", r.dump], env=H.base_env(),
                          stdout=subprocess.PIPE, universal_newlines=True).stdout
    check = subprocess.run([H.vramtrace_exe(), "check", r.dump], env=H.base_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return H.report(r.dump), text, check


def unmarked_line(entry):
    for f in entry.get("frames") or []:
        if (f.get("file") or "").endswith("torch_unmarked.py"):
            return f.get("line")
    return None


def case_unmarked_keeps():
    """`import torch` (seconds), then 30 fast steps keeping a 1 MiB
    activation a step in a dict, no marker: growth at the dict's line on
    allocation ticks, named first, and check fails on it (23); the model
    is held, not growing."""
    rep, text, check = unmarked_run("keep")
    line = H.marker_line(UNMARKED, "keep")
    H.expect_eq("the growing site", [(unmarked_line(s), s["api"]) for s in rep["sites"]
                                     if s["growing"]], [(line, TENSOR)])
    H.expect(re.match(r"vramtrace: growing: \S+ \S+ per tick at <module> "
                      r"\((?:\S*/)?tests/python/torch_unmarked\.py:%d\)\n" % line, text),
             "first line:\n" + text)
    g = rep["growth"]
    H.expect_eq("growth: interval, reliable", (g["interval"], g["reliable"]),
                ("allocations", True))
    H.expect_eq("check: status\n" + check.stderr, check.returncode, 23)
    H.expect("of growth at 1 growing call site" in check.stderr, check.stderr)


def case_unmarked_clean():
    """The same script keeping nothing: nothing grows on the allocation
    ticks, check passes."""
    rep, text, check = unmarked_run()
    g = rep["growth"]
    H.expect_eq("growth: interval, growing sites", (g["interval"], g["growing_sites"]),
                ("allocations", 0))
    H.expect(re.search(r"^vramtrace: growth judged on \d+ ticks of \d+ repeated allocations? "
                       r"each \(no markers\): nothing grows$", text, re.M), text)
    H.expect_eq("check: status, stderr", (check.returncode, check.stderr), (0, ""))

def since_run(extra_env=None):
    """The since case's output: the 1 MiB each checkpoint left, twice (a new
    segment of the cache, then room in it), then 0 for one made and dropped;
    each site a single allocation of those 1 MiB."""
    env = {"PYTHONPATH": os.path.join(H.source_root(), "python")}
    r = H.run_traced([torch_python(), CASES, "since"], extra_env=dict(env, **(extra_env or {})))
    H.expect_program_ok(r)
    H.expect_eq("what each checkpoint left", re.findall(r"^(kept|dropped) (\d+)$", r.stdout, re.M),
                [("kept", str(MiB)), ("kept", str(MiB)), ("dropped", "0")])
    H.expect_eq("each checkpoint's peak: the tensor, not a segment or nothing",
                re.findall(r"^peak (\d+)$", r.stdout, re.M), [str(MiB)] * 3)
    H.expect_eq("the sites", re.findall(r"^(\d+) bytes in (\d+) allocations? at ", r.stdout, re.M),
                [(str(MiB), "1")] * 2)


def case_since():
    """vramtrace.leaked_since, peak_since and leak_sites_since count the
    tensors kept since a checkpoint, not the caching allocator's segments
    that hold them (a whole 2 MiB segment for the first, nothing for the
    second and third)."""
    since_run()


def case_since_expandable_segments():
    """The same with expandable segments: their pages (cuMemCreate handles,
    mapped by SEGMENT_MAP) are not counted, the tensors are."""
    since_run({"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})


def case_pytest_since():
    """pytest --vramtrace over real torch, no flag: each run of test_keep
    left exactly its 1 MiB tensor (not the segment it landed in, nor nothing
    when it fit in room the cache had), test_clean nothing, and the model
    fixture its weight and bias (4 MiB + 4 KiB), not its segments; the kept
    tensor grows from test to test at test_keep's own line."""
    import test_api as A
    A.need_debian_python("pytest")
    try:
        site = torch_env.site_for(H.env_path("VT_BUILD_ROOT", "dir"), "3.11")
    except torch_env.Unavailable as e:
        raise H.Skip(str(e))
    toolkit = torch_env.toolkit_libraries()
    sample = os.path.join(HERE, "python", "torch_pytest_cases.py")
    build = os.path.dirname(H.vramtrace_exe())
    env = {"PYTHONPATH": ":".join([site, A.PYTHON_DIR]),
           "PATH": build + ":" + os.environ.get("PATH", ""),
           "LD_LIBRARY_PATH": ":".join([H.standin_dir()] + toolkit)}
    r = H.run_plain([A.DEBIAN_PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "-p",
                     "pytest_vramtrace", "--vramtrace", sample], extra_env=env)
    H.expect_eq("pytest status: " + r.describe(), r.status, 0)
    rows = re.findall(r"^ +([\d.]+ [KMG]?i?B)  (\S+)$", r.stdout, re.M)
    H.expect_eq("the tests that left memory", sorted((n.split("::")[-1], s) for s, n in rows),
                [("test_keep[0]", "1.0 MiB"), ("test_keep[1]", "1.0 MiB")])
    H.expect(re.search(r"^held by fixtures \(charged to their setup, not to a test\):\n +4\.0 MiB  "
                       r"fixture model \(module scope\)$", r.stdout, re.M), r.stdout)
    H.expect(re.search(r"^growing from test to test \(a marker after each test\):\n +1\.0 MiB per "
                       r"test  test_keep \(\S*torch_pytest_cases\.py:%d\) via torchTensorAlloc$"
                       % H.marker_line(sample, "kept"), r.stdout, re.M), r.stdout)


def case_expandable_segments():
    """expandable_segments:True: the tensors at their line as before; the
    segment's pages (cuMemCreate) are the device's view."""
    rep = run_case("dict_cache", extra_env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})
    check_dict_cache(rep)


def case_async_backend():
    """backend:cudaMallocAsync: every tensor is already a cudaMallocAsync
    (the backend refuses trackers, none is attached): counted once."""
    rep = run_case("dict_cache", extra_env={"PYTORCH_CUDA_ALLOC_CONF": "backend:cudaMallocAsync"})
    H.expect_eq("the tensors through cudaMallocAsync", leaks_at(rep, "cache", "cudaMallocAsync"),
                [(30 * 4 * MiB, 30)])
    H.expect_eq("no tensor traced twice", [lk for lk in at_end(rep) if lk["api"] == TENSOR], [])


def probe_values(python):
    """tests/torch_probe.cpp built against the venv's torch headers: what
    the release's own headers say of the slots and offsets."""
    site = subprocess.run([python, "-c", "import torch, os; print(os.path.dirname(torch.__file__))"],
                          stdout=subprocess.PIPE, universal_newlines=True, check=True,
                          env=H.base_env()).stdout.strip()
    exe = os.path.join(H.tmpdir(), "torch_probe")
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    if not os.path.exists(os.path.join(cuda, "include", "cuda_runtime_api.h")):
        raise H.Skip("no CUDA toolkit headers in %s" % cuda)
    subprocess.run(["g++", "-std=c++20", "-Wno-invalid-offsetof", "-I", os.path.join(site, "include"),
                    "-I", os.path.join(cuda, "include"), os.path.join(HERE, "torch_probe.cpp"),
                    "-o", exe], check=True)
    out = subprocess.run([exe], stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout
    version = subprocess.run([python, "-c", "import torch; print(torch.__version__)"],
                             stdout=subprocess.PIPE, universal_newlines=True, check=True,
                             env=H.base_env()).stdout.strip()
    return ".".join(version.split(".")[:2]), [int(v) for v in out.split()]


def table_rows():
    """The tracer's table of verified releases (src/hooks/torch_tensors.c)."""
    source = open(os.path.join(H.source_root(), "src", "hooks", "torch_tensors.c")).read()
    rows = re.findall(r'\{"(\d+\.\d+)", ([\d, ]+)\}', source)
    return {v: [int(x) for x in nums.split(",")] for v, nums in rows}


def check_probe(release):
    """The slots and TraceEntry offsets the tracer reads for RELEASE are
    those its own headers say (TraceEntry's actions and std::function's
    size too)."""
    version, values = probe_values(torch_python(release))
    H.expect_eq("the venv's torch release line", version, release)
    table = table_rows()
    H.expect(version in table, "torch %s is not in the tracer's table %s" % (version, table))
    H.expect_eq("slots and offsets of torch %s" % version, values[:7], table[version])
    H.expect_eq("ALLOC, FREE_REQUESTED, SEGMENT_ALLOC, SEGMENT_MAP, std::function's size",
                values[7:], [0, 1, 3, 5, 32])


def case_probe_table():
    """torch 2.15's headers against the tracer's table."""
    check_probe("2.15")


def case_probe_table_2_14():
    """torch 2.14's headers against the tracer's table."""
    check_probe("2.14")


FAKE_C10 = """
void *_ZN3c104cuda20CUDACachingAllocator9allocatorE; /* no allocator made yet */
"""
FAKE_PROGRAM = """
#include <dlfcn.h>
#include <stdio.h>
#include <stddef.h>
int cudaMalloc(void **p, size_t size);
int main(int argc, char **argv)
{
    void *p;
    (void)argc;
    if (!dlopen(argv[1], RTLD_NOW | RTLD_LOCAL))
        return 2;
    return cudaMalloc(&p, 1 << 20) ? 3 : 0;
}
"""


def case_not_verified():
    """A torch release the tracer has not verified (a libc10_cuda.so that
    exports the allocator's symbol, torch/version.py saying 9.9.0): its
    segments only, and the report's first line says so."""
    tmp = H.tmpdir()
    lib = os.path.join(tmp, "torch", "lib")
    os.makedirs(lib)
    with open(os.path.join(tmp, "torch", "version.py"), "w") as f:
        f.write("__version__ = '9.9.0+cu130'\n")
    cc = os.environ.get("VT_CC", "cc").split()
    for name, text, args in (("c10.c", FAKE_C10, ["-shared", "-fPIC", "-o",
                                                    os.path.join(lib, "libc10_cuda.so")]),
                             ("main.c", FAKE_PROGRAM, ["-o", os.path.join(tmp, "main"),
                                                       "-L", H.standin_dir(), "-lcudart", "-ldl"])):
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
        subprocess.run(cc + [os.path.join(tmp, name)] + args, check=True)
    r = H.run_traced([os.path.join(tmp, "main"), os.path.join(lib, "libc10_cuda.so")])
    H.expect_program_ok(r)
    H.expect_dump(r)
    text = subprocess.run([H.vramtrace_exe(), "report", r.dump], env=H.base_env(),
                          stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout
    H.expect_eq("the first line", text.splitlines()[0],
                "vramtrace: PyTorch 9.9 not verified: segments only (the tensors in its cache "
                "are not traced; vramtrace run --pytorch-tensors traces each one)")
    rep = H.report(r.dump)
    H.expect_eq("the segment", [(lk["bytes"], lk["api"]) for lk in at_end(rep)],
                [(1 << 20, "cudaMalloc")])
    H.expect_eq("format version: no tensor, every reader reads it", rep["format_version"], 1)


if __name__ == "__main__":
    H.main(globals())
