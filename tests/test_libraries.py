# SPDX-License-Identifier: MIT
"""CUDA's libraries' memory (tools/analyze/known_memory.c): what cuBLAS,
cuFFT, cuDNN, cuSPARSE and cuSOLVER allocate for a handle or plan and keep
until it is destroyed is known memory, named, never left out: one handle
kept until exit is not a leak; a handle made each step and never destroyed
grows at the program's line that called the library, and check and run
--fail-on-leak fail on it as on any growth; a buffer the program asked the
library for (cublasAlloc, cufftXtMalloc) is its own. Ground truth:
tests/libs/handles_user.c over the stand-ins of tests/libs (and
tests/standin's cuBLAS), five steps, a marker after each."""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

LIBS = os.path.join(H.source_root(), "tests", "libs")
SRC = os.path.join(LIBS, "handles_user.c")
T = H.c_defines(SRC)
STEPS = T["STEPS"]
LEAK_STATUS = 23


SIZES = H.c_defines(os.path.join(LIBS, "handle_sizes.h"))


# library: (bytes a handle or plan holds, label, pattern)
HELD = {
    "cublas": (H.c_defines(os.path.join(H.source_root(), "tests", "standin", "cublas.c"))[
        "DEFAULT_WORKSPACE"], "cuBLAS's handles and workspaces", "libcublas"),
    # the stand-in's rule: a complex float per point of each batch
    "cufft": (T["FFT_POINTS"] * T["FFT_BATCH"] * 8, "cuFFT's plans", "libcufft"),
    "cudnn": (SIZES["CUDNN_HANDLE_BYTES"], "cuDNN's handles", "libcudnn"),
    "cusparse": (SIZES["CUSPARSE_HANDLE_BYTES"], "cuSPARSE's handles", "libcusparse"),
    "cusolver": (SIZES["CUSOLVER_HANDLE_BYTES"], "cuSOLVER's handles", "libcusolver"),
}


# library: the function and the CALL tag of the line that calls it
CALLER = {"cublas": ("make_cublas", "cublas"), "cufft": ("make_cufft", "cufft")}


def caller(library):
    return CALLER.get(library, ("make_handle", "handle"))


def traced(library, mode, run_args=()):
    prog = os.path.join(H.env_path("LIBRARIES_DIR", "dir"), "handles_user")
    return H.run_traced([prog, library, mode], run_args=run_args)


def cli(*args):
    return subprocess.run([H.vramtrace_exe()] + list(args), env=H.base_env(),
                          capture_output=True, text=True)


def own_lines(entry):
    """The innermost and the outermost line of handles_user.c in ENTRY's
    frames: where the library was called, and main's line."""
    lines = [f.get("line") for f in H.frames(entry)
             if H._base(f.get("file")) == "handles_user.c"]
    return lines[:1] + lines[-1:]


def known_of(entry):
    """(label, pattern) of ENTRY's known memory, or None."""
    return (entry["known"]["label"], entry["known"]["pattern"]) if entry["known"] else None


def expect_grows(library):
    """A handle made each step, never destroyed: one growing site, at the
    program's line that called the library (its first frame the program's,
    none of the library's), by a handle's bytes a step, named as the
    library's; nothing leaked at exit (known), yet check and run
    --fail-on-leak fail on the growth."""
    held, label, pattern = HELD[library]
    function, tag = caller(library)
    line = H.call_line(SRC, tag)
    r = traced(library, "grow")
    H.expect_program_ok(r)
    c = cli("check", r.dump)
    H.expect_eq("%s: check's status\n%s" % (library, c.stderr), c.returncode, LEAK_STATUS)
    H.expect("%d bytes (" % ((STEPS - 1) * held) in c.stderr and
             "of growth at 1 growing call site" in c.stderr and
             "%s %s:%d" % (function, SRC, line) in c.stderr, c.stderr)
    run = traced(library, "grow", run_args=["--fail-on-leak"])
    H.expect_eq("%s: run --fail-on-leak" % library, H.run_status(run), LEAK_STATUS)
    rep = H.report(r.dump)
    grow = [s for s in rep["sites"] if s["growing"]]
    H.expect_eq("%s: the growing sites" % library, [
        (s["frames"][0]["function"], H._base(s["frames"][0]["file"]), s["frames"][0]["line"],
         s["bytes_per_interval"], s["live_bytes"], known_of(s)) for s in grow],
        [(function, "handles_user.c", line, held, STEPS * held, (label, pattern))])
    s = H.summary(rep)
    H.expect_eq("%s: leaked, known" % library, (s["leaked_bytes"], s["known_bytes"],
                                                s["known_allocations"]),
                (0, STEPS * held, STEPS))
    text = cli("report", r.dump).stdout.splitlines()
    H.expect(re.fullmatch(r"vramtrace: growing: \S+ \S+ per marker interval at %s %s:%d"
                          % (function, re.escape(SRC), line), text[0]), "\n".join(text[:3]))


def expect_kept_or_destroyed(library):
    """One handle kept until exit: the library's memory, known, named with
    its bytes at the line that made it, not a leak, nothing grows, check
    passes. A handle made and destroyed each step: nothing held at all."""
    held, label, pattern = HELD[library]
    r = traced(library, "keep")
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    H.expect_eq("%s kept: known" % library, [
        (k["bytes"], k["allocations"], k["known"]["label"], k["known"]["pattern"], own_lines(k))
        for k in rep["known"]], [(held, 1, label, pattern, [H.call_line(SRC, caller(library)[1]),
                                                             H.call_line(SRC, "main_keep")])])
    H.expect_eq("%s kept: leaks, growing" % library,
                (H.leaks(rep), [s for s in rep["sites"] if s["growing"]]), ([], []))
    first = cli("report", r.dump).stdout.splitlines()[0]
    H.expect(first.startswith("vramtrace: no leaks; known framework memory held at the end: "
                              "%s by %s (peak" % (human(held), label)), first)
    c = cli("check", r.dump)
    H.expect_eq("%s kept: check" % library, (c.returncode, c.stderr), (0, ""))
    r = traced(library, "destroy")
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    H.expect_eq("%s destroyed: leaks, known, growing" % library,
                (H.leaks(rep), rep["known"], [s for s in rep["sites"] if s["growing"]]),
                ([], [], []))
    H.expect_eq("%s destroyed: allocations, frees" % library,
                (H.summary(rep)["allocations"], H.summary(rep)["frees"]), (STEPS, STEPS))
    c = cli("check", r.dump)
    H.expect_eq("%s destroyed: check" % library, (c.returncode, c.stderr), (0, ""))


def human(n):
    """Bytes as the report's headline says them (whole KiB or MiB here)."""
    return "%.1f MiB" % (n / (1 << 20)) if n >= 1 << 20 else "%.1f KiB" % (n / 1024)


def case_cublas_grows():
    expect_grows("cublas")


def case_cublas_kept_or_destroyed():
    expect_kept_or_destroyed("cublas")


def case_cufft_grows():
    expect_grows("cufft")


def case_cufft_kept_or_destroyed():
    expect_kept_or_destroyed("cufft")


def case_other_libraries():
    """cuDNN, cuSPARSE and cuSOLVER by the same rules."""
    for library in ("cudnn", "cusparse", "cusolver"):
        expect_grows(library)
        expect_kept_or_destroyed(library)


def case_programs_own():
    """A buffer the program asked cuBLAS (cublasAlloc) or cuFFT
    (cufftXtMalloc) for and never freed is its own leak at its line; the
    one it freed is gone; the handle kept beside it is the library's."""
    own = {"cublas": T["OWN_FLOATS"] * 4, "cufft": HELD["cufft"][0]}
    for library, nbytes in own.items():
        r = traced(library, "own")
        H.expect_program_ok(r)
        rep = H.report(r.dump)
        H.expect_eq("%s: the program's leak" % library, [
            (lk["bytes"], lk["allocations"], lk["known"], own_lines(lk)) for lk in H.leaks(rep)],
            [(nbytes, 1, None, [H.call_line(SRC, library + "_own"), H.call_line(SRC, "main_own")])])
        H.expect_eq("%s: the library's" % library,
                    [(k["bytes"], k["known"]["label"]) for k in rep["known"]],
                    [(HELD[library][0], HELD[library][1])])
        c = cli("check", r.dump)
        H.expect_eq("%s: check" % library, c.returncode, LEAK_STATUS)


if __name__ == "__main__":
    H.main(globals())
