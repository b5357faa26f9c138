#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Real PyTorch over the stand-in CUDA libraries: the torch wheel from the
package index (tests/torch_env.py makes its venv in the build folder), its
CUDA runtime the stand-in libcudart.so.13, traced in PyTorch's three
allocator modes. Skipped (exit 77, one line) where torch cannot be had."""
import os
import pickle
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402
import torch_env  # noqa: E402
from test_python import constants  # noqa: E402

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


def linked_from(lib, version):
    """The functions libtorch's libraries link at VERSION (libcudart.so.13...)."""
    wanted = set()
    for name in sorted(os.listdir(lib)):
        if ".so" in name:
            wanted |= {s.split("@")[0] for s in dynamic_symbols(os.path.join(lib, name), True)
                       if s.endswith("@" + version)}
    return wanted


def check_exports(version, least):
    """Every function libtorch links from VERSION is exported by the stand-in
    of that soname, at the same symbol version."""
    wanted = linked_from(torch_lib(torch_python()), version)
    H.expect(len(wanted) >= least, "libtorch links %d functions of %s, expected %d or more" %
             (len(wanted), version, least))
    have = {s.split("@")[0] for s in dynamic_symbols(os.path.join(H.standin_dir(), version), False)
            if s.endswith("@@" + version)}
    missing = sorted(wanted - have)
    H.expect(not missing, "libtorch links %d functions of %s the stand-in lacks: %s" %
             (len(missing), version, " ".join(missing)))


def case_cudart_symbols():
    check_exports("libcudart.so.13", 100)


def case_cublas_symbols():
    check_exports("libcublas.so.13", 150)
    check_exports("libcublasLt.so.13", 15)


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


def at_end(rep):
    """What was still allocated at the end, per site, whatever its verdict:
    leaked, held when the script ended, or known framework memory (a site
    in two lists merged: its bytes and allocations summed)."""
    merged = {}
    for lk in H.leaks(rep) + rep["held"] + rep["known"]:
        key = (lk["stack_id"], lk["api"], lk["kind"], lk["device"])
        if key in merged:
            merged[key] = dict(merged[key], bytes=merged[key]["bytes"] + lk["bytes"],
                               allocations=merged[key]["allocations"] + lk["allocations"])
        else:
            merged[key] = lk
    return list(merged.values())


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
        H.expect_eq("%s: a tensor, not known framework memory" % tag, site["known"], None)


def case_loop_pytorch_tensors():
    """--pytorch-tensors (backend:cudaMallocAsync): each kept tensor is one
    cudaMallocAsync at its line."""
    check_per_tensor(loop_sites(run_args=["--pytorch-tensors"]), "cudaMallocAsync")


def case_loop_no_caching():
    """PYTORCH_NO_CUDA_MEMORY_CACHING=1: each kept tensor is one cudaMalloc."""
    check_per_tensor(loop_sites(extra_env={"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}), "cudaMalloc")


def case_loop_python_3_14():
    """The loop on CPython 3.14 (Debian unstable's, in the root of
    tests/python/sid_root.sh; the cp314 torch wheel from the package index):
    each kept tensor one cudaMalloc (PYTORCH_NO_CUDA_MEMORY_CACHING=1) at
    its line, through step, main and the module, exactly."""
    import test_pyversions as V
    python = V.interpreter("3.14")
    try:
        site = torch_env.site_for(H.env_path("VT_BUILD_ROOT", "dir"), "3.14")
    except torch_env.Unavailable as e:
        raise H.Skip(str(e))
    toolkit = torch_env.toolkit_libraries()
    os.environ["VT_ROOT_BINDS"] += "".join(":" + d for d in [site] + toolkit)
    r = H.run_traced([python, LOOP, str(STEPS)], extra_env={
        "PYTHONPATH": site, "PYTORCH_NO_CUDA_MEMORY_CACHING": "1",
        "LD_LIBRARY_PATH": ":".join([H.standin_dir()] + toolkit)})
    H.expect_program_ok(r)
    H.expect_dump(r)
    H.expect_eq("the loop's output", r.stdout.strip(),
                "kept %d activations, %d losses" % (STEPS, STEPS))
    rep = H.report(r.dump)
    outer = [("main", LOOP, H.call_line(LOOP, "step")),
             ("<module>", LOOP, H.call_line(LOOP, "main"))]
    for tag, nbytes in (("activation", ACTIVATION), ("loss", LOSS)):
        held = [lk for lk in rep["held"] if lk["bytes"] == STEPS * nbytes]
        H.expect_eq("%s: held at the end (freed by the interpreter's shutdown)" % tag,
                    len(held), 1)
        lk = held[0]
        H.expect_eq("%s: allocations, api, Python frames" % tag,
                    (lk["allocations"], lk["api"], V.python_frames(lk)),
                    (STEPS, "cudaMalloc", [("step", LOOP, H.marker_line(LOOP, tag))] + outer))


def case_loop_caching_allocator():
    """The default caching allocator, no flag: each kept tensor at its line
    (PyTorch's trace tracker, inside the segments); the segments stay the
    device's view: 20 MiB ones for tensors over 1 MiB (kLargeBuffer), a
    2 MiB one for the small losses (kSmallBuffer), each at the line whose
    tensor grew the cache, kept to the end and known: the first by the
    inputs, the second by the activations' temporaries, the small one by
    the first loss."""
    rep = loop_sites()
    check_per_tensor(rep, "torchTensorAlloc")
    segments = [s for s in rep["sites"] if s["api"] != "torchTensorAlloc"]
    live = sorted((loop_line(s), s["live_bytes"]) for s in segments if s["live_bytes"])
    H.expect_eq("segments live at exit", live, sorted([
        (("main", H.marker_line(LOOP, "inputs")), 20 << 20),
        (("step", H.marker_line(LOOP, "loss")), 20 << 20),
        (("step", H.marker_line(LOOP, "loss")), 2 << 20)]))
    H.expect(all(s["api"] == "cudaMalloc" for s in segments), "every segment by cudaMalloc")
    H.expect_eq("the segments: known, not leaked, the peak theirs alone",
                (rep["summary"]["known_bytes"], rep["summary"]["peak_bytes"],
                 sorted({lk["known"]["label"] for lk in rep["known"]})),
                (42 << 20, 42 << 20, ["PyTorch's cache"]))


def loop_dump(run_args=(), extra_env=None, steps=STEPS):
    r = H.run_traced([torch_python(), LOOP, str(steps)], run_args=run_args, extra_env=extra_env)
    H.expect_program_ok(r)
    H.expect_dump(r)
    return r.dump


def loop_text(dump, *args):
    import test_readable as R
    return R.text_report(dump, *args, cwd=H.source_root())


def first_printed_frames(text):
    """The first frame line printed in each entry (leak, growing site,
    failure) of a text report: {header: first frame line}."""
    out, header = {}, None
    for line in text.splitlines():
        if re.match(r"(Leak|Growing|Failed|Live|Known) ", line):
            header = line
        elif header and re.match(r"    #\d+ ", line):
            out[header], header = line.strip(), None
    return out


def holder_labels(text):
    return re.findall(r"^ +\S+ \S+  (?:cudaMalloc(?:Async)?|torchTensorAlloc)  (.*)$", text, re.M)


def check_users_lines_first(text):
    """PyTorch's frames folded: each entry's first printed frame and each
    peak holder is the loop's own line."""
    first = first_printed_frames(text)
    H.expect(first, "no entries in\n" + text)
    for header, line in first.items():
        H.expect(re.match(r"#\d+ (step|main) \(tests/python/torch_loop\.py:\d+\)$", line),
                 "the first printed frame of %r is %r, not the loop's line:\n%s" % (
                     header, line, text))
    for label in holder_labels(text):
        H.expect(re.match(r"(step|main) \(tests/python/torch_loop\.py:\d+\)", label),
                 "a peak holder does not open with the loop's line: %r\n%s" % (label, text))


def loop_golden(name, run_args=(), extra_env=None, steps=STEPS):
    import test_golden as G
    text = loop_text(loop_dump(run_args, extra_env, steps))
    check_users_lines_first(text)
    # whether a rate per second is shown depends on how fast the steps ran
    G.compare(name, re.sub(r"\(the last; [^)]*\)", "(the last)", text))


def case_loop_report_pytorch_tensors():
    """The text report of the loop with --pytorch-tensors (golden)."""
    loop_golden("torch_loop_pytorch_tensors", run_args=["--pytorch-tensors"])


def case_loop_report_no_caching():
    """The text report of the loop without PyTorch's cache (golden)."""
    loop_golden("torch_loop_no_caching", extra_env={"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"})


STAIRCASE_STEPS = 30


def case_loop_report_caching_allocator():
    """The text report of the loop with the caching allocator (golden), 30
    steps: the 4 MiB a step kept fill a 20 MiB segment every fifth step, a
    staircase that reads growing."""
    loop_golden("torch_loop_caching_allocator", steps=STAIRCASE_STEPS)


def case_loop_staircase_caching_allocator():
    """The default caching allocator, no flag, 30 steps: the cache adds a
    20 MiB segment every fifth step for the 4 MiB kept a step, but the
    tensors inside are traced, so the growth is said at the kept tensors'
    own lines, exactly a step's bytes per step (the activation and the
    loss), the segments PyTorch's cache and not judged again; check fails
    on it by default while nothing leaked."""
    dump = loop_dump(steps=STAIRCASE_STEPS)
    rep = H.report(dump)
    grow = [s for s in rep["sites"] if s["growing"]]
    H.expect_eq("the growing sites: line, rate, over, what", sorted(
        (loop_line(s), s["bytes_per_interval"], s["rate_intervals"], s["api"], s["known"])
        for s in grow), sorted([
            (("step", H.marker_line(LOOP, "activation")), ACTIVATION, 1, "torchTensorAlloc", None),
            (("step", H.marker_line(LOOP, "loss")), LOSS, 1, "torchTensorAlloc", None)]))
    H.expect_eq("nothing leaked", rep["summary"]["leaked_bytes"], 0)
    r = subprocess.run([H.vramtrace_exe(), "check", dump], env=H.base_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    H.expect_eq("check of the staircase: status", r.returncode, 23)
    H.expect("of growth at 2 growing call sites" in r.stderr, r.stderr)


def entry_lines(text, header_start):
    """The indented lines of the one entry whose header starts so."""
    found, lines = 0, []
    for line in text.splitlines():
        if line.startswith(header_start):
            found += 1
            lines = []
        elif line.startswith("    ") and found and lines is not None:
            lines.append(line.strip())
        elif found:
            break
    H.expect_eq("entries starting %r in\n%s" % (header_start, text), found, 1)
    return lines


def case_loop_max_frames():
    """--max-frames 3 keeps the loop's three frames of each growing site,
    after PyTorch's folded ones."""
    text = loop_text(loop_dump(run_args=["--pytorch-tensors"]), "--max-frames", "3")
    check_users_lines_first(text)
    for tag, grows in (("activation", "4.0 MiB"), ("loss", "4 B")):
        lines = entry_lines(text, "Growing by %s per marker interval" % grows)
        H.expect(len(lines) == 4 and re.fullmatch(r"\u2026 \d+ PyTorch frames in .*", lines[0]),
                 "%s: PyTorch's frames folded into one line, then three: %r" % (tag, lines))
        H.expect_eq("%s: the frames shown" % tag, [re.sub(r"^#\d+ ", "", l) for l in lines[1:]], [
            "step (tests/python/torch_loop.py:%d)" % H.marker_line(LOOP, tag),
            "main (tests/python/torch_loop.py:%d)" % H.call_line(LOOP, "step"),
            "<module> (tests/python/torch_loop.py:%d)" % H.call_line(LOOP, "main")])


CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python", "torch_cases.py")


def cases_report(case, run_args=(), extra_env=None):
    """tests/python/torch_cases.py CASE run traced; its report."""
    r = H.run_traced([torch_python(), CASES, case], run_args=run_args, extra_env=extra_env)
    H.expect_program_ok(r)
    H.expect_dump(r)
    H.expect("done %s True" % case in r.stdout, "the case did not finish:\n" + r.describe())
    return H.report(r.dump), r


def script_line(entry):
    """The line of the case script in ENTRY's frames, or None."""
    for f in entry.get("frames") or []:
        if (f.get("file") or "").endswith("torch_cases.py"):
            return f.get("line")
    return None


def leaks_by_line(rep):
    """{line or None: [(bytes, allocations, api, kind)]} of the leaks."""
    out = {}
    for lk in at_end(rep):
        out.setdefault(script_line(lk), []).append(
            (lk["bytes"], lk["allocations"], lk["api"], lk["kind"]))
    return {k: sorted(v) for k, v in out.items()}


def case_linear_forward_backward():
    """nn.Linear(1024, 1024), forward and backward, per tensor: the weight
    and bias at the line that moved the model to the GPU, the input at its
    line, their gradients (same sizes) made by autograd's device thread,
    which runs no Python."""
    rep, _ = cases_report("linear", run_args=["--pytorch-tensors"])
    weight, bias = 1024 * 1024 * 4, 1024 * 4
    H.expect_eq("leaks by line", leaks_by_line(rep), {
        H.marker_line(CASES, "model"): [(weight + bias, 2, "cudaMallocAsync", "device")],
        H.marker_line(CASES, "input"): [(256 * 1024 * 4, 1, "cudaMallocAsync", "device")],
        None: [(bias, 1, "cudaMallocAsync", "device"), (weight, 1, "cudaMallocAsync", "device")]})


def case_linear_cublas_workspace():
    """With the caching allocator, the backward's matrix product takes
    PyTorch's cuBLAS workspace (32 MiB on a compute capability 9.0 GPU) from
    the cache: a segment made at at::cuda::allocateCUDABlasWorkspace, which
    may hold any tensor once the workspace is freed, so PyTorch's cache, not
    the workspace (a label covers only the memory of that allocation); the
    tensors the case keeps, inside the segments, at their lines."""
    rep, _ = cases_report("linear")
    found = [lk for lk in at_end(rep) if any(
        "allocateCUDABlasWorkspace" in (f.get("function") or "") for f in lk.get("frames") or [])]
    segments = [lk for lk in found if lk["api"] == "cudaMalloc"]
    H.expect_eq("the segment made for the cuBLAS workspace",
                [(lk["bytes"], lk["api"], lk["known"]["label"]) for lk in segments],
                [(32 << 20, "cudaMalloc", "PyTorch's cache")])
    H.expect_eq("every segment PyTorch's cache",
                sorted({lk["known"]["label"] for lk in rep["known"] if lk["api"] == "cudaMalloc"}),
                ["PyTorch's cache"])
    weight, bias = 1024 * 1024 * 4, 1024 * 4
    H.expect_eq("the tensors kept, at their lines (the gradients on autograd's thread)",
                {k: [x for x in v if x[2] == "torchTensorAlloc"] for k, v in leaks_by_line(rep).items()
                 if any(x[2] == "torchTensorAlloc" for x in v)}, {
                    H.marker_line(CASES, "model"): [(weight + bias, 2, "torchTensorAlloc", "device")],
                    H.marker_line(CASES, "input"): [(256 * 1024 * 4, 1, "torchTensorAlloc", "device")],
                    None: [(bias, 1, "torchTensorAlloc", "device"),
                           (weight, 1, "torchTensorAlloc", "device")]})


def case_conv2d_native():
    """nn.Conv2d(16, 32, 3) forward, twice, over PyTorch's own kernels (cuDNN
    off: the stand-ins have no cuDNN, and the toolkit's does not start over
    the stand-in driver), per tensor: the weight and bias at the line that
    moved the layer to the GPU, the two kept 4 x 32 x 30 x 30 outputs at
    theirs; the input and each forward's im2col buffer (16 x 3 x 3 rows of
    30 x 30 floats) freed, at their lines."""
    rep, _ = cases_report("conv2d", run_args=["--pytorch-tensors"])
    weight, bias, output = 32 * 16 * 3 * 3 * 4, 32 * 4, 4 * 32 * 30 * 30 * 4
    layer, out = H.marker_line(CASES, "conv_layer"), H.marker_line(CASES, "conv_output")
    H.expect_eq("leaks by line", leaks_by_line(rep), {
        layer: [(weight + bias, 2, "cudaMallocAsync", "device")],
        out: [(2 * output, 2, "cudaMallocAsync", "device")]})
    freed = sorted((script_line(x), x.get("peak_live_bytes")) for x in rep["sites"]
                   if x.get("live_bytes") == 0 and script_line(x) is not None and
                   not any("BlasWorkspace" in (f.get("function") or "") for f in x["frames"]))
    H.expect_eq("freed: (line, bytes) of the input and the im2col buffer", freed,
                [(H.marker_line(CASES, "conv_input"), 4 * 16 * 32 * 32 * 4),
                 (out, 16 * 3 * 3 * 30 * 30 * 4)])


def case_backward_growth():
    """The default caching allocator, no flag: each kept gradient (1 MiB a
    step, made on autograd's device thread, which runs no Python) is a
    tensor at the line that called backward(); the 2 MiB segments the cache
    adds every other step for them are its cache, known, not growing."""
    rep, r = cases_report("backward_growth")
    check_backward_growth(rep, r.dump)
    segments = [s for s in rep["sites"] if s["api"] == "cudaMalloc"]
    H.expect_eq("the segments: the cache's, none growing", [s["growing"] for s in segments],
                len(segments) * [False])
    H.expect_eq("the cache held at the end", rep["summary"]["known_bytes"], 8 << 20)


def expect_on_behalf(site, function, line):
    """SITE (a site or leak of the JSON report) was allocated on behalf of the
    thread that called backward(): torch's entry innermost, then FUNCTION of
    the case script at LINE, the first frame of the script's own."""
    behalf = site.get("on_behalf") or {}
    frames = [(f.get("function"), os.path.basename(f.get("file") or ""), f.get("framework"))
              for f in behalf.get("frames", [])]
    H.expect_eq("innermost on-behalf frame", frames[:1],
                [("_engine_run_backward", "graph.py", "pytorch")])
    H.expect_eq("the script's first on-behalf frame",
                [(f["function"], f["line"]) for f in behalf.get("frames", [])
                 if (f.get("file") or "").endswith("torch_cases.py")][:1], [(function, line)])
    H.expect(re.fullmatch(r"%s \(\S*torch_cases.py:%d\)" % (function, line),
                          behalf.get("label") or ""), "on-behalf label: %r" % behalf.get("label"))


def check_backward_growth(rep, dump):
    """One growing site: the gradients, 1 MiB a step on autograd's thread,
    not known memory, said when and where they were made."""
    grow = [s for s in rep["sites"] if s["growing"]]
    H.expect_eq("one growing site", [
        (s["bytes_per_interval"], s["rate_intervals"], s["live_bytes"], s["known"], s["during"])
        for s in grow], [(1 << 20, 1, 5 << 20, None, "during backward")])
    text = subprocess.run([H.vramtrace_exe(), "report", dump], env=H.base_env(),
                          stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout
    line = H.marker_line(CASES, "backward_growth")
    expect_on_behalf(grow[0], "backward_growth", line)
    H.expect(re.search(r"\n    allocated during backward \(on thread pt_autograd_0\), on behalf of "
                       r"backward_growth \(\S*torch_cases.py:%d\)\n" % line, text), text)


def case_backward_growth_per_tensor():
    """The same loop with --pytorch-tensors: each kept gradient is one
    cudaMallocAsync of 1 MiB a step on autograd's thread."""
    rep, r = cases_report("backward_growth", run_args=["--pytorch-tensors"])
    check_backward_growth(rep, r.dump)


def case_backward_two_threads():
    """Two threads in backward() at once (--pytorch-tensors): the gradient
    made while both wait has no on-behalf frames; the other thread's, made
    for it while the first may still be returning, has none or its own,
    never the first thread's."""
    check_backward_two_threads(["--pytorch-tensors"])


def case_backward_two_threads_default():
    """The same with PyTorch's caching allocator, no flag: the gradients are
    tensors inside its segments, each said for the right thread or none."""
    check_backward_two_threads([])


def check_backward_two_threads(run_args):
    rep, _ = cases_report("backward_two_threads", run_args=run_args)
    c = constants(CASES)
    main_bytes, other_bytes = (c["TWO_THREADS_MAIN_ELEMENTS"] * 4,
                               c["TWO_THREADS_OTHER_ELEMENTS"] * 4)
    grads = sorted(((lk["bytes"], lk["allocations"], (lk.get("on_behalf") or {}).get("label"))
                    for lk in at_end(rep)
                    if [t["name"] for t in lk["threads"]] == ["pt_autograd_0"]),
                   key=lambda g: g[0])
    other = [lk for lk in at_end(rep) if lk["bytes"] == other_bytes and lk.get("on_behalf")]
    if other:
        expect_on_behalf(other[0], "other_backward", H.marker_line(CASES, "other_backward"))
        H.expect_eq("the gradients", [g for g in grads if g[0] == main_bytes],
                    [(main_bytes, 1, None)])
    else:
        H.expect_eq("the gradients, one call site", grads, [(main_bytes + other_bytes, 2, None)])


def case_expandable_segments():
    """expandable_segments:True: the kept tensors (5 x 4 MiB) map 2 MiB
    pages of one segment with cuMemCreate/cuMemMap, at the line that made
    them: 20 MiB in all."""
    rep, _ = cases_report("expandable",
                          extra_env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})
    H.expect_eq("leaks by line", leaks_by_line(rep), {
        H.marker_line(CASES, "expandable"): [(20 << 20, 1, "cuMemCreate", "device"),
                                             (20 << 20, 5, "torchTensorAlloc", "device")]})


def case_out_of_memory():
    """768 MiB asked of the 1 GiB stand-in GPU holding 512 MiB: PyTorch's
    cudaMalloc fails twice (again after emptying its cache), torch raises
    OutOfMemoryError; the autopsy names the 512 MiB holder's line."""
    rep, r = cases_report("oom")
    H.expect("out of memory" in r.stdout, "torch did not raise OutOfMemoryError")
    failed = rep.get("failed") or []
    H.expect_eq("failed allocations", [(f["bytes"], f["count"], f["api"], f["error_name"],
                                        script_line(f)) for f in failed],
                [(768 << 20, 2, "cudaMalloc", "cudaErrorMemoryAllocation",
                  H.marker_line(CASES, "oom"))])
    oom = failed[0]["oom"]
    H.expect_eq("autopsy", (oom["requested_bytes"], oom["live_bytes"], oom["driver_free_bytes"]),
                (768 << 20, 512 << 20, 512 << 20))
    H.expect_eq("holders", [(h["bytes"], script_line(h)) for h in oom["holders"]],
                [(512 << 20, H.marker_line(CASES, "before_oom"))])
    text = loop_text(r.dump)
    H.expect_eq("the first printed frames", sorted(first_printed_frames(text).values()), [
        "#14 oom (tests/python/torch_cases.py:%d)" % H.marker_line(CASES, "oom"),
        "#15 oom (tests/python/torch_cases.py:%d)" % H.marker_line(CASES, "before_oom")])
    H.expect_eq("the holders at the peak and at the out-of-memory, in text", holder_labels(text),
                2 * ["oom (tests/python/torch_cases.py:%d)" % H.marker_line(CASES, "before_oom")])


def case_cuda_graph():
    """torch.cuda.graph capture and replay: the captured kernel is a node
    of the graph (torch warns of an empty graph otherwise); the static
    input's segment at its line, and the graph's private memory pool's
    segment at the captured line (PyTorch gives each graph a pool of its
    own)."""
    rep, r = cases_report("graph")
    H.expect("CUDA Graph is empty" not in r.stderr,
             "torch found no node in the captured graph (its kernels):\n" + r.describe())
    H.expect_eq("leaks by line", leaks_by_line(rep), {
        H.marker_line(CASES, "static_input"): [(4 << 20, 1, "torchTensorAlloc", "device"),
                                               (20 << 20, 1, "cudaMalloc", "device")],
        H.marker_line(CASES, "captured"): [(4 << 20, 1, "torchTensorAlloc", "device"),
                                           (20 << 20, 1, "cudaMalloc", "device")]})


def case_pinned_memory():
    """pin_memory(): 4 MiB of page-locked host memory (cudaHostAlloc) at its
    line; the non-blocking copy to the GPU: a 20 MiB segment at its line."""
    rep, _ = cases_report("pinned")
    H.expect_eq("leaks by line", leaks_by_line(rep), {
        H.marker_line(CASES, "pinned"): [(4 << 20, 1, "cudaHostAlloc", "host")],
        H.marker_line(CASES, "copied"): [(4 << 20, 1, "torchTensorAlloc", "device"),
                                         (20 << 20, 1, "cudaMalloc", "device")]})


def case_item_pinned_known():
    """.item()'s small page-locked block is known framework host memory, at
    the line that called .item(), not a host leak; a pinned tensor of the
    program's own (pin_memory(): case_pinned_memory) stays a leak."""
    rep, r = cases_report("item")
    host = [(lk["bytes"], lk["kind"], lk["known"]["label"], script_line(lk))
            for lk in rep["known"] if lk["kind"] == "host"]
    H.expect_eq("the pinned buffer", host,
                [(4, "host", "PyTorch's pinned buffer for .item()", H.marker_line(CASES, "item"))])
    H.expect_eq("host leaked, known", (rep["summary"]["host_leaked_bytes"],
                                       rep["summary"]["host_known_bytes"]), (0, 4))
    text = subprocess.run([H.vramtrace_exe(), "report", r.dump], env=H.base_env(),
                          stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout
    H.expect("Host leak" not in text and "known framework memory held at the end: 4 B by "
             "PyTorch's pinned buffer for .item()" in text.splitlines()[0], text)


def segment_events(snapshot):
    """(action, address, size, the case script's line) of each segment
    event of device 0 in a torch snapshot; the line for allocations only
    (vramtrace's frees carry the stack of the allocation they free)."""
    out = []
    for e in snapshot["device_traces"][0]:
        if e["action"] in ("segment_alloc", "segment_free"):
            lines = [f.get("line") for f in e.get("frames") or []
                     if (f.get("filename") or "").endswith("torch_cases.py")]
            out.append((e["action"], e["addr"], e["size"],
                        lines[:1] if e["action"] == "segment_alloc" else None))
    return out


def case_snapshot_matches_torch():
    """vramtrace's torch-snapshot export of a run and PyTorch's own
    _record_memory_history snapshot of the same run hold the same segments,
    event by event (address, size, the script's line), and the same
    segments at the end: ground truth from PyTorch itself."""
    ours = os.path.join(H.tmpdir(), "vramtrace.pickle")
    theirs = os.path.join(H.tmpdir(), "torch.pickle")
    r = H.run_traced([torch_python(), CASES, "snapshot", theirs])
    H.expect_program_ok(r)
    H.expect_dump(r)
    p = subprocess.run([H.vramtrace_exe(), "export", "--format", "torch-snapshot", "-o", ours,
                        r.dump], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    H.expect(p.returncode == 0, "vramtrace export failed: %s" % p.stderr)
    with open(ours, "rb") as f:
        mine = pickle.load(f)
    with open(theirs, "rb") as f:
        torchs = pickle.load(f)
    events = segment_events(torchs)
    H.expect(len(events) == 4 and events[2][0] == "segment_free",
             "torch's history: two segments, one given back, one more; got %r" % events)
    H.expect_eq("segment events", segment_events(mine), events)
    H.expect_eq("segments at the end",
                sorted((s["address"], s["total_size"]) for s in mine["segments"]),
                sorted((s["address"], s["total_size"]) for s in torchs["segments"]))


def case_dataloader_workers():
    """A DataLoader with two worker processes (forked, no CUDA of their own)
    and pinned batches: per tensor, the 4 batches of 256 KiB kept on the GPU
    at the line that moved them, in this process's report."""
    rep, _ = cases_report("dataloader", run_args=["--pytorch-tensors"])
    device = {line: v for line, v in leaks_by_line(rep).items()
              if any(kind == "device" for *_, kind in v)}
    H.expect_eq("device leaks by line", device, {
        H.marker_line(CASES, "batches"): [(4 * 64 * 1024 * 4, 4, "cudaMallocAsync", "device")]})


H.main(globals())
