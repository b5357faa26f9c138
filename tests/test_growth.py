#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Growth without markers (issue 38): a run whose steps are a small part of
its time is judged on ticks of the program's repeated allocations, not of
the clock, so the first run with no flag finds what grows, and a clean run
does not read as growing. Ground truth: tests/programs/slow_start.c."""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("slow_start.c")

T = H.c_defines(SRC)
STEPS, KEEP = T["STEPS"], T["KEEP_BYTES"]
LEAK_STATUS = 23
# two temporaries a step, each made again after the first step's free
REPEATS = 2 * (STEPS - 1)


def slow_start(mode):
    r = H.run_traced([H.program("slow_start"), mode])
    H.expect_program_ok(r)
    H.expect_dump(r)
    return r.dump


def text_report(dump):
    r = H._run([H.vramtrace_exe(), "report", dump], H.base_env(), os.path.dirname(dump))
    H.expect_eq("report status", r.status, 0)
    return r.stdout


def check(dump):
    return subprocess.run([H.vramtrace_exe(), "check", dump], env=H.base_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def growth_line(text):
    found = [l for l in text.splitlines() if l.startswith("vramtrace: growth ")]
    H.expect_eq("growth lines in\n" + text, len(found), 1)
    return found[0]


def expect_ticks(g):
    """The JSON's growth: allocation ticks, one per repeated allocation."""
    H.expect_eq("growth: interval, boundaries, tick_allocations, reliable, judged",
                (g["interval"], g["boundaries"], g["tick_allocations"], g["reliable"],
                 g["judged"]), ("allocations", REPEATS, 1, True, True))


def case_slow_start_keeps():
    """A slow start, then 30 fast steps each keeping 1 MiB (freed at the
    end): the first line names the growth at keep_step's line, check fails
    on it (23), and the model loaded first is not growing."""
    dump = slow_start("keep")
    text = text_report(dump)
    line = "%s:%d" % (SRC, H.marker_line(SRC, "keep"))
    H.expect(re.fullmatch(r"vramtrace: growing: \S+ \S+ per tick at keep_step %s" % re.escape(line),
                          text.splitlines()[0]), "first line:\n" + text)
    H.expect_eq("growth line", growth_line(text),
                "vramtrace: growth judged on %d ticks of 1 repeated allocation each (no markers): "
                "1 call site growing" % REPEATS)
    rep = H.report(dump)
    expect_ticks(rep["growth"])
    grow = [s for s in rep["sites"] if s["growing"]]
    H.expect_eq("the growing site", [(H._base(f["file"]), f["line"], f["function"])
                                     for f in [s["frames"][0] for s in grow]],
                [("slow_start.c", H.marker_line(SRC, "keep"), "keep_step")])
    H.expect_eq("growth bytes: the kept steps", grow[0]["live_bytes"], 0)
    H.expect_eq("nothing leaked", H.summary(rep)["leaked_bytes"], 0)
    c = check(dump)
    H.expect_eq("check: status\n" + c.stderr, c.returncode, LEAK_STATUS)
    H.expect("of growth at 1 growing call site (judged on %d ticks of 1 repeated allocation "
             "each, no markers)" % REPEATS in c.stderr, c.stderr)
    H.expect("keep_step %s" % line in c.stderr, c.stderr)


def case_slow_start_clean():
    """The same steps keeping nothing: nothing grows (the model, the
    temporaries), check passes."""
    dump = slow_start("clean")
    text = text_report(dump)
    H.expect(not text.startswith("vramtrace: growing"), text)
    H.expect_eq("growth line", growth_line(text),
                "vramtrace: growth judged on %d ticks of 1 repeated allocation each (no markers): "
                "nothing grows" % REPEATS)
    rep = H.report(dump)
    expect_ticks(rep["growth"])
    H.expect_eq("growing sites", [s for s in rep["sites"] if s["growing"]], [])
    c = check(dump)
    H.expect_eq("check: status, stderr", (c.returncode, c.stderr), (0, ""))


if __name__ == "__main__":
    H.main(globals())
