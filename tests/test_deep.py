# SPDX-License-Identifier: MIT
"""Deep stacks (tests/programs/deep_stack.c): a stack deeper than
VRAMTRACE_MAX_FRAMES keeps its innermost frames and its outermost ones
(main and the C library's start), and says how many it dropped and where,
in the text, JSON, HTML and folded outputs."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("deep_stack.c")
D = H.c_defines(SRC)
# the C library's start-up frames may be named by their symbol versions
OUTERMOST = ["main", "__libc_start_call_main", ("__libc_start_main_impl",
                                                 "__libc_start_main@@GLIBC_2.34"), "_start"]


def outermost_ok(frames):
    names = [f["function"] for f in frames[-4:]]
    return len(names) == 4 and all(n in w if isinstance(w, tuple) else n == w
                                   for n, w in zip(names, OUTERMOST))


def program_frames(depth):
    return depth + 5   # leaf_alloc, descend x depth, main and the three of libc


def traced(depth, limit=None):
    env = {"VRAMTRACE_MAX_FRAMES": str(limit)} if limit is not None else None
    r = H.run_traced([H.program("deep_stack"), str(depth)], extra_env=env)
    H.expect_program_ok(r)
    H.expect_dump(r)
    return r, H.report(r.dump)


def the_leak(rep):
    return H.check_leak(rep, function="leaf_alloc", source=SRC, tag="deep",
                        nbytes=D["DEEP_LEAK_BYTES"], api="cudaMalloc", kind="device",
                        caller="descend")


def check_whole(lk, depth):
    fr = H.frames(lk)
    H.expect_eq("frames kept + dropped", len(fr) + lk.get("frames_dropped", 0),
                program_frames(depth))
    H.expect(outermost_ok(fr), "outermost frames: expected %r, got %r" % (
        OUTERMOST, [f["function"] for f in fr[-4:]]))
    H.expect_eq("frames between leaf_alloc and main",
                {f["function"] for f in fr[1:-4]}, {"descend"})


def case_cut():
    """VRAMTRACE_MAX_FRAMES=64: 64 frames minus the tracer's, main kept,
    the count dropped given with its place."""
    r, rep = traced(200, limit=64)
    lk = the_leak(rep)
    check_whole(lk, 200)
    fr, dropped, at = H.frames(lk), lk.get("frames_dropped"), lk.get("frames_dropped_at")
    H.expect(isinstance(dropped, int) and dropped > 0, "frames_dropped: %r" % dropped)
    H.expect(isinstance(at, int) and 16 < at < len(fr) - 4 and
             fr[at - 1]["function"] == fr[at]["function"] == "descend",
             "frames_dropped_at %r: between two descend frames of %d" % (at, len(fr)))
    H.expect_eq("outermost frames kept after the cut", len(fr) - at, 16)
    text = H._run([H.vramtrace_exe(), "report", r.dump], H.base_env(), r.cwd).stdout
    lines = text.splitlines()
    mark = "    ... %d frames dropped (VRAMTRACE_MAX_FRAMES) ..." % dropped
    H.expect(mark in lines, "no dropped-frames line in the text report:\n" + text[:3000])
    H.expect_eq("the line after the mark", lines[lines.index(mark) + 1].split()[0], "#%d" % at)
    html = os.path.join(r.cwd, "report.html")
    H._run([H.vramtrace_exe(), "report", "--html", html, r.dump], H.base_env(), r.cwd)
    with open(html) as f:
        H.expect("%d frames dropped" % dropped in f.read(), "no dropped-frames line in the HTML")
    folded = H._run([H.vramtrace_exe(), "export", "--format", "folded", r.dump], H.base_env(),
                    r.cwd).stdout
    H.expect("descend;[frames dropped];descend" in folded,
             "no [frames dropped] in the folded stack:\n" + folded[:2000])


def case_default():
    """The default limit (512) keeps a 200-deep stack whole."""
    _, rep = traced(200)
    lk = the_leak(rep)
    H.expect_eq("frames_dropped", lk.get("frames_dropped"), 0)
    H.expect_eq("frames_dropped_at", lk.get("frames_dropped_at"), None)
    H.expect_eq("frames", len(H.frames(lk)), program_frames(200))


def case_default_cut():
    """A 700-deep stack is cut at the default limit, main still there."""
    _, rep = traced(700)
    lk = the_leak(rep)
    check_whole(lk, 700)
    H.expect(lk["frames_dropped"] > 0 and len(H.frames(lk)) < 512,
             "expected a cut at 512 frames: %d kept, %r dropped" % (len(H.frames(lk)),
                                                                   lk["frames_dropped"]))


def case_bad_limit():
    """A bad VRAMTRACE_MAX_FRAMES: one warning, the default applies."""
    for bad in ("abc", "3", "100000", "64x"):
        r, rep = traced(200, limit=bad)
        warnings = [l for l in r.stderr.splitlines() if "VRAMTRACE_MAX_FRAMES" in l]
        H.expect_eq("warnings for %r" % bad, warnings, [
            "vramtrace: VRAMTRACE_MAX_FRAMES=%s: not a number from 16 to 1024; using 512" % bad])
        H.expect_eq("frames_dropped with %r" % bad, the_leak(rep).get("frames_dropped"), 0)


if __name__ == "__main__":
    H.main(globals())
