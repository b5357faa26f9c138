#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A framework's own frames folded as runtime frames are: a library named
like PyTorch's (tests/programs/fake_torch.c, libtorch_standin.so) called by
a C program and, through a torch package under a site-packages folder
(tests/python/site-packages/torch), by a Python script. Text and HTML print
"... N PyTorch frames in CALL" and then the program's own line first; JSON
keeps every frame and marks the framework's; --max-frames keeps the
program's frames; peak holders on one line tell apart by the framework's
call."""
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402
import test_golden as G  # noqa: E402
import test_readable as R  # noqa: E402

C_SRC = H.program_source("framework_user.c")
D = H.c_defines(C_SRC)
PY_SRC = os.path.join(H.source_root(), "tests", "python", "framework_user.py")
SITE = os.path.join(H.source_root(), "tests", "python", "site-packages")
LIBRARY = "libtorch_standin.so"
C_FRAMES = ["torch_standin_allocate", "torch_standin_dispatch"]  # then empty or ones


def c_dump():
    r = H.run_traced([H.program("framework_user")])
    H.expect_program_ok(r)
    H.expect_dump(r)
    return r.dump


def py_dump():
    env = {"PYTHONPATH": SITE, "VT_TORCH_STANDIN": H.program(LIBRARY)}
    r = H.run_traced([sys.executable, PY_SRC], extra_env=env)
    H.expect_program_ok(r)
    H.expect_dump(r)
    return r.dump


def text(dump, *args):
    return R.text_report(dump, *args, cwd=H.source_root())


# The entries of what is still allocated at the end: leaked, or held (what
# the stand-in torch package's objects kept when the script ended).
HEADS = ("Leak of ", "Held at the end: ")
HELD_NOTE = "still referenced when the script ended: not leaked"


def entries(report):
    """{header line: [its frame lines]} of the leak and held entries."""
    out, current = {}, None
    for line in report.splitlines():
        if line.startswith(HEADS):
            current = out.setdefault(line, [])
        elif not line.startswith("    "):
            current = None
        elif current is not None and line.strip() != HELD_NOTE:
            current.append(line.strip())
    return out


def entry(report, nbytes):
    found = [v for k, v in entries(report).items()
             if any(k.startswith("%s%d bytes " % (head, nbytes)) for head in HEADS)]
    H.expect_eq("leak entries of %d bytes in\n%s" % (nbytes, report), len(found), 1)
    return found[0]


C_LEAKS = {  # bytes: (function, marker, the framework's call)
    D["WEIGHTS_BYTES"]: ("load_weights", "weights", "torch_standin_ones"),
    D["ACTIVATION_BYTES"]: ("train_step", "step", "torch_standin_empty"),
    D["GRADIENT_BYTES"]: ("train_step", "step", "torch_standin_ones"),
}


def c_line(tag):
    return H.marker_line(C_SRC, tag)


def case_c_folded():
    """Each leak opens with the folded library frames, then the program's
    own line as its first printed frame (#3: frames keep their numbers)."""
    report = text(c_dump())
    for nbytes, (function, tag, call) in C_LEAKS.items():
        lines = entry(report, nbytes)
        H.expect_eq("the first lines of the %d-byte leak" % nbytes, lines[:2], [
            "\u2026 3 PyTorch frames in %s" % call,
            "#3 %s tests/programs/framework_user.c:%d" % (function, c_line(tag))])
        H.expect(not any(n in report for n in C_FRAMES), "a folded frame is printed:\n" + report)


def case_c_golden():
    G.compare("framework_c", text(c_dump()))


def case_c_holders():
    """The two holders at one line tell apart by the framework's call."""
    report = text(c_dump())
    at = "tests/programs/framework_user.c:%d" % c_line("step")
    holders = re.findall(r"^ +\S+ \S+  cudaMalloc  (.*)$", report, re.M)
    H.expect_eq("peak holders", sorted(holders), sorted([
        "load_weights tests/programs/framework_user.c:%d" % c_line("weights"),
        "train_step %s via torch_standin_empty" % at,
        "train_step %s via torch_standin_ones" % at]))


def case_c_json_marks():
    """JSON keeps every frame and marks the library's as PyTorch's."""
    rep = H.report(c_dump())
    for nbytes, (function, _, call) in C_LEAKS.items():
        frames = H.frames(H.leak_by_bytes(rep, nbytes))
        marked = [f["function"] for f in frames if f.get("framework") == "pytorch"]
        H.expect_eq("frames marked pytorch", marked, C_FRAMES + [call])
        H.expect_eq("the first unmarked frame", frames[3]["function"], function)
        H.expect(all(f.get("framework") is None for f in frames[3:]),
                 "only the library's frames are marked: %r" % frames)


def case_c_max_frames():
    """--max-frames 1 keeps the program's first frame, not the library's."""
    report = text(c_dump(), "--max-frames", "1")
    lines = entry(report, D["WEIGHTS_BYTES"])
    H.expect_eq("the weights' leak with --max-frames 1", lines, [
        "\u2026 3 PyTorch frames in torch_standin_ones",
        "#3 load_weights tests/programs/framework_user.c:%d" % c_line("weights"),
        "\u2026 1 more frame (--max-frames 1)",
        "\u2026 3 runtime frames (--all-frames shows them)"])


def case_c_all_frames():
    """--all-frames shows the library's frames and folds nothing."""
    report = text(c_dump(), "--all-frames")
    lines = entry(report, D["WEIGHTS_BYTES"])
    H.expect_eq("the first frames with --all-frames", [l.split(" ")[1] for l in lines[:4]],
                C_FRAMES + ["torch_standin_ones", "load_weights"])
    H.expect("PyTorch frames" not in report, "folded with --all-frames:\n" + report)


def case_html():
    """The HTML report folds as the text does."""
    out = os.path.join(H.tmpdir(), "report.html")
    r = H._run([H.vramtrace_exe(), "export", "--format", "html", "-o", out, c_dump()],
               H.base_env(), H.source_root())
    H.expect_eq("export status", r.status, 0)
    with open(out, encoding="utf-8") as f:
        html = f.read()
    folds = re.findall(r"&hellip; 3 PyTorch frames in (torch_standin_\w+) \(folded\)", html)
    H.expect_eq("fold lines (each stack under leaks and under the peak)", sorted(folds),
                sorted(2 * ["torch_standin_empty", "torch_standin_ones", "torch_standin_ones"]))
    H.expect(">torch_standin_dispatch<" not in html, "a folded frame is shown in the HTML")


PY_LEAKS = {  # bytes: (function, marker, the framework's call)
    D["WEIGHTS_BYTES"]: ("load_weights", "weights", "ones (torch/__init__.py:%d)"),
    D["ACTIVATION_BYTES"]: ("train_step", "step", "empty (torch/__init__.py:%d)"),
    D["GRADIENT_BYTES"]: ("train_step", "step", "ones (torch/__init__.py:%d)"),
}


def torch_line(function):
    """The line of the stand-in package's call in FUNCTION."""
    with open(os.path.join(SITE, "torch", "__init__.py")) as f:
        lines = f.read().splitlines()
    start = lines.index("def %s(nbytes):" % function)
    return start + 2


def case_python_folded():
    """A script's leaks through the torch package: the package's Python
    frames and its library's native frames fold into one run, the script's
    line printed first (the held entries with their stacks: --top)."""
    report = text(py_dump(), "--top", "10")
    for nbytes, (function, tag, call) in PY_LEAKS.items():
        lines = entry(report, nbytes)
        call = call % torch_line(call.split(" ")[0])
        H.expect_eq("the first lines of the %d-byte leak" % nbytes, lines[:2], [
            "\u2026 5 PyTorch frames in %s" % call,
            "#5 %s (tests/python/framework_user.py:%d)" % (function,
                                                         H.marker_line(PY_SRC, tag))])
    holders = re.findall(r"^ +\S+ \S+  cudaMalloc  (.*)$", report, re.M)
    at = "train_step (tests/python/framework_user.py:%d)" % H.marker_line(PY_SRC, "step")
    H.expect_eq("peak holders", sorted(holders), sorted([
        "load_weights (tests/python/framework_user.py:%d)" % H.marker_line(PY_SRC, "weights"),
        "%s via empty (torch/__init__.py:%d)" % (at, torch_line("empty")),
        "%s via ones (torch/__init__.py:%d)" % (at, torch_line("ones"))]))


def case_python_json_marks():
    """The package's Python frames are marked PyTorch's, the script's not;
    what its objects kept when the script ended is held, not leaked."""
    rep = H.report(py_dump())
    H.expect_eq("leaked", H.leaks(rep), [])
    held = [lk for lk in rep["held"] if lk["bytes"] == D["WEIGHTS_BYTES"]]
    H.expect_eq("held entries of the weights", len(held), 1)
    frames = H.frames(held[0])
    marks = [(f.get("function"), f.get("framework")) for f in frames[:6]]
    H.expect_eq("the first frames and their marks", marks, [
        ("torch_standin_allocate", "pytorch"), ("torch_standin_dispatch", "pytorch"),
        ("torch_standin_ones", "pytorch"), ("_make", "pytorch"), ("ones", "pytorch"),
        ("load_weights", None)])


if __name__ == "__main__":
    H.main(globals())
