# SPDX-License-Identifier: MIT
"""Reports a person reads in ten seconds (tests/programs/report_shapes.c):
peaks per device, the growth verdict, several dumps, CUDA error names."""
import json
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("report_shapes.c")
D = H.c_defines(SRC)
MIB = 1 << 20


def shapes_run(*args, extra_env=None, status=0):
    r = H.run_traced([H.program("report_shapes"), *args], extra_env=extra_env)
    H.expect_program_ok(r, status)
    H.expect_dump(r)
    return r


SAMPLE = H.c_defines(H.program_source("sample_shapes.c"))


def sample_run(*args, status=0):
    r = H.run_traced([H.program("sample_shapes"), *args])
    H.expect_program_ok(r, status)
    H.expect_dump(r)
    return r


def text_report(dump, *args, cwd=None):
    r = H._run([H.vramtrace_exe(), "report", *args, dump], H.base_env(),
               cwd or os.path.dirname(dump))
    H.expect_eq("report status", r.status, 0)
    return r.stdout


def line_starting(text, prefix):
    found = [l for l in text.splitlines() if l.startswith(prefix)]
    H.expect_eq("lines starting %r in\n%s" % (prefix, text), len(found), 1)
    return found[0]


# ---- peaks: per device, never summed ----

def case_peak_two_devices():
    dump = shapes_run("two_devices").dump
    rep = H.report(dump)
    s = rep["summary"]
    # both devices held their memory at once: 56 MiB live, but no GPU held it
    H.expect_eq("summary.peak_bytes (device 0's own)", s["peak_bytes"], D["TWO_DEV0_BYTES"])
    H.expect_eq("summary.peak_device", s["peak_device"], 0)
    H.expect_eq("peaks per device", [(p["device"], p["bytes"]) for p in rep["peaks"]],
                [(0, D["TWO_DEV0_BYTES"]), (1, D["TWO_DEV1_BYTES"])])
    text = text_report(dump)
    H.expect("(peak 35.0 MiB on device 0, the highest of 2 devices, 2 allocations, 2 frees, "
             "0 failed, 0 invalid frees)" in text.splitlines()[0], text)


# ---- growth: always one line saying what was judged ----

def case_growth_judged():
    dump = shapes_run("steps", "5").dump
    text = text_report(dump)
    H.expect_eq("what grows, first", text.splitlines()[0],
                "vramtrace: growing: 1.0 MiB per marker interval at leak_step %s:%d"
                % (SRC, H.marker_line(SRC, "step")))
    H.expect_eq("growth line", text.splitlines()[2],
                "vramtrace: growth judged on 5 markers (0 skipped as warm-up): 1 call site growing")
    g = H.report(dump)["growth"]
    H.expect_eq("growth.judged", (g["judged"], g["growing_sites"]), (True, 1))


def case_growth_not_judged():
    dump = shapes_run("steps", "2").dump
    text = text_report(dump)
    H.expect_eq("growth line", text.splitlines()[1],
                "vramtrace: growth not judged: fewer than 3 markers (2)")
    g = H.report(dump)["growth"]
    H.expect_eq("growth.judged", (g["judged"], g["growing_sites"]), (False, 0))


def case_growth_skipped():
    dump = shapes_run("steps", "5").dump
    text = text_report(dump, "--skip", "3")
    H.expect_eq("growth line", text.splitlines()[1],
                "vramtrace: growth not judged: fewer than 3 markers after the warm-up (5, 3 skipped)")
    H.expect("Growing" not in text, "nothing can grow on two markers:\n" + text)


def case_growth_stopped():
    """A cache that filled in 4 of 6 steps, then stayed: not growing."""
    dump = shapes_run("cache").dump
    text = text_report(dump)
    H.expect_eq("growth line", text.splitlines()[1],
                "vramtrace: growth judged on 6 markers (0 skipped as warm-up): nothing grows")
    rep = H.report(dump)
    cache = [s for s in rep["sites"] if s["frames"][0]["function"] == "grow_cache"]
    H.expect_eq("cache site growing", [s["growing"] for s in cache], [False])


def case_growth_recent():
    """The figure is the last step's rise (5 MiB), not the average since
    the first marker ((15 - 1) / 4 MiB)."""
    dump = shapes_run("ramp").dump
    rep = H.report(dump)
    ramp = [s for s in rep["sites"] if s["frames"][0]["function"] == "ramp_leak"]
    H.expect_eq("ramp sites", len(ramp), 1)
    H.expect_eq("growing", ramp[0]["growing"], True)
    H.expect_eq("bytes_per_interval", ramp[0]["bytes_per_interval"],
                D["RAMP_STEPS"] * D["RAMP_BYTES"])
    H.expect_eq("growth_start.mark", ramp[0]["growth_start"]["mark"], 0)
    text = text_report(dump)
    H.expect(re.search(r"^Growing by 5\.0 MiB per marker interval \(the last\) since", text, re.M),
             text)
    # steps under 100 ms apart: no rate per second (it would read as GiB/s);
    # a busy machine can stretch them past it, and then the rate is shown
    interval = ramp[0]["rate_interval_ns"]
    shown = interval >= 100_000_000
    H.expect_eq("bytes_per_second shown over %d ns" % interval,
                ramp[0]["bytes_per_second"] is not None, shown)
    H.expect_eq("a rate per second in the text over %d ns:\n%s" % (interval, text),
                "/s" in text, shown)


# ---- several dumps: the combined verdict first; a dump given twice counts once ----

def two_dumps():
    out = H.tmpdir()
    paths = []
    for name, args in (("a", ("c_leak",)), ("b", ("steps", "3"))):
        r = H.run_traced([H.program("report_shapes"), *args], mode="preload", output=False,
                         extra_env={"VRAMTRACE_OUTPUT": os.path.join(out, name + ".vtr")})
        H.expect_program_ok(r)
        paths.append(os.path.join(out, name + ".vtr"))
    return out, paths


def case_many_combined_first():
    out, paths = two_dumps()
    r = H._run([H.vramtrace_exe(), "report", *paths], H.base_env(), out)
    H.expect_eq("status", r.status, 0)
    lines = r.stdout.splitlines()
    H.expect_eq("first lines", lines[:3], ["vramtrace: 2 dumps", "", "== combined: 2 processes =="])
    H.expect(lines[3].startswith("vramtrace: growing in 1 of 2 processes: pid "), lines[3])
    H.expect_eq("combined verdict", lines[4],
                "vramtrace: 5.9 MiB (6145728 bytes) of device memory leaked in 4 allocations, "
                "0 failed allocations, 0 invalid frees, over all processes")
    combined = r.stdout.index("== combined")
    each = [r.stdout.index("== %s: pid" % p) for p in paths]
    H.expect(combined < each[0] < each[1], "combined first, then each process:\n" + r.stdout)


def case_many_same_dump_twice():
    out, paths = two_dumps()
    for args in ([paths[0], paths[0], paths[1]], [paths[0], out]):
        r = H._run([H.vramtrace_exe(), "report", "--json", *args], H.base_env(), out)
        H.expect_eq("status", r.status, 0)
        data = json.loads(r.stdout)
        H.expect_eq("processes of %r" % args, len(data["processes"]), 2)
        H.expect_eq("combined.processes", data["combined"]["processes"], 2)
        H.expect_eq("combined leaked bytes", data["summary"]["leaked_bytes"],
                    D["C_LEAK_BYTES"] + 3 * D["STEP_LEAK_BYTES"])
        H.expect("is the same dump as %s: counted once" % paths[0] in r.stderr, r.stderr)
    r = H._run([H.vramtrace_exe(), "report", paths[0], paths[0]], H.base_env(), out)
    H.expect("== combined: 1 process ==" in r.stdout, r.stdout)


# ---- one naming of CUDA errors ----

def case_error_names():
    r = shapes_run("oom", extra_env={"STANDIN_CUDA_MEMORY": "16M"})
    text = text_report(r.dump)
    line = line_starting(text, "Failed allocation of")
    # a runtime call's error in the runtime's words (issue 38)
    H.expect(line.endswith("via cudaMalloc on device 0 [device]: cudaErrorMemoryAllocation (2), "
                           "1 time"), line)
    failed = H.report(r.dump)["failed"]
    H.expect_eq("json error", [(f["error"], f["error_name"]) for f in failed],
                [(2, "cudaErrorMemoryAllocation")])
    # labelled as the text's line and every other list's sites
    label = "request_too_much %s:%d" % (SRC, H.marker_line(SRC, "oom"))
    H.expect_eq("json failed site", [(f["label"], f["on_behalf"]) for f in failed], [(label, None)])
    H.expect(line.startswith("Failed allocation of 33554432 bytes"), line)
    H.expect("    #0 %s\n" % label in text, "the text's frame %r in\n%s" % (label, text))
    html = os.path.join(os.path.dirname(r.dump), "r.html")
    text_report(r.dump, "--html", html)
    with open(html) as f:
        page = f.read()
    H.expect("<td class=\"num\">cudaErrorMemoryAllocation (2)</td>" in page, "html error cell")
    H.expect("out of memory)" not in page, "another naming in the HTML")


# ---- runtime frames folded: C start-up, pytest and the interpreter's own ----

def case_fold_c_start():
    dump = shapes_run("c_leak").dump
    lines = text_report(dump, cwd=H.source_root()).splitlines()
    i = lines.index("Leak of 3000000 bytes (2.9 MiB) in 1 allocation via cudaMalloc on device 0 "
                    "[device]")
    H.expect_eq("the leak's stack", lines[i + 1:i + 5], [
        "    #0 scratch_buffer tests/programs/report_shapes.c:%d" % H.marker_line(SRC, "scratch"),
        "    #1 prepare_batch tests/programs/report_shapes.c:%d" % H.call_line(SRC, "prepare"),
        "    #2 main tests/programs/report_shapes.c:%d" % H.call_line(SRC, "main_c_leak"),
        "    \u2026 3 runtime frames (--all-frames shows them)"])
    H.expect("__libc_start" not in "\n".join(lines), "start-up frames shown")
    every = text_report(dump, "--all-frames")
    for name in ("__libc_start_call_main", "__libc_start_main", "_start"):
        H.expect(re.search(r"^    #\d %s" % name, every, re.M), "--all-frames: no %s" % name)
    H.expect("runtime frames" not in every, "--all-frames folds")
    frames = H.report(dump)["leaks"][0]["frames"]
    H.expect_eq("json frames, runtime marked",
                [(f["function"].split("@")[0], f["runtime"]) for f in frames],
                [("scratch_buffer", False), ("prepare_batch", False), ("main", False),
                 ("__libc_start_call_main", True), ("__libc_start_main", True),
                 ("_start", True)])


def case_max_frames():
    dump = shapes_run("c_leak").dump
    lines = text_report(dump, "--max-frames", "1").splitlines()
    i = [k for k, l in enumerate(lines) if l.startswith("Leak of")][0]
    H.expect_eq("cut stack", lines[i + 1:i + 4], [
        "    #0 scratch_buffer %s:%d" % (SRC, H.marker_line(SRC, "scratch")),
        "    \u2026 2 more frames (--max-frames 1)",
        "    \u2026 3 runtime frames (--all-frames shows them)"])
    r = H._run([H.vramtrace_exe(), "report", "--max-frames", "0", dump], H.base_env(), None)
    H.expect_eq("--max-frames 0: status", r.status, 2)


PYTEST_LEAK = """import ctypes

cudart = ctypes.CDLL("libcudart.so.13")


def allocate(nbytes):
    p = ctypes.c_void_p()
    assert cudart.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(nbytes)) == 0
    return p


def test_leaks():
    allocate(3000000)
"""


def pytest_leak_dump():
    """A leak in a test under Debian's pytest: its stack is the test's lines
    above some thirty frames of pytest, pluggy and runpy."""
    python = "/usr/bin/python3"
    if H.run_plain([python, "-c", "import pytest"]).status != 0:
        raise H.Skip("no pytest for %s" % python)
    work = H.tmpdir()
    with open(os.path.join(work, "test_leak.py"), "w") as f:
        f.write(PYTEST_LEAK)
    dump = os.path.join(work, "py.vtr")
    r = H._run([H.vramtrace_exe(), "run", "-o", dump, "--", python, "-m", "pytest", "-q",
                "-p", "no:cacheprovider", "test_leak.py"], H.base_env(), work)
    H.expect_eq("pytest under run: status", r.status, 0)
    return dump


def case_fold_pytest():
    dump = pytest_leak_dump()
    lines = text_report(dump).splitlines()
    i = [k for k, l in enumerate(lines) if l.startswith("Leak of")][0]
    H.expect_eq("the test's lines first, pytest folded", lines[i + 1:i + 3], [
        "    #0 allocate (test_leak.py:8)", "    #1 test_leaks (test_leak.py:13)"])
    H.expect(re.fullmatch(r"    \u2026 \d+ runtime frames \(--all-frames shows them\)", lines[i + 3]),
             lines[i + 3])
    H.expect(not lines[i + 4].startswith("    #"), "frames after the folded ones: %r" % lines[i + 4])
    frames = H.report(dump)["leaks"][0]["frames"]
    runtime = [f for f in frames if f["runtime"]]
    H.expect(any("/_pytest/" in (f["file"] or "") for f in runtime), "pytest frames not marked")
    H.expect(any("/pluggy/" in (f["file"] or "") for f in runtime), "pluggy frames not marked")
    H.expect_eq("own frames", [f["function"] for f in frames if not f["runtime"]],
                ["allocate", "test_leaks"])
    H.expect_eq("folded count = marked count", lines[i + 3].split()[1], str(len(runtime)))


def case_html_rows():
    dump = shapes_run("c_leak").dump
    html = os.path.join(os.path.dirname(dump), "r.html")
    text_report(dump, "--html", html)
    with open(html) as f:
        page = f.read()
    H.expect('<summary><code class="site">scratch_buffer %s:%d</code>'
             % (SRC, H.marker_line(SRC, "scratch")) in page, "row summary without file:line")
    # a page takes no command line: no option named in it
    H.expect("&hellip; 3 runtime frames (start-up, loader, test runner, interpreter: folded)"
             in page and "--all-frames" not in page, "html not folded")
    H.expect("__libc_start_call_main" not in page, "start-up frames in the html")



# ---- bounded length: 10 sites per section, then how many more ----

def case_bounded_sites():
    dump = shapes_run("sites").dump
    text = text_report(dump)
    sites, steps = D["SITES"], D["SITE_STEPS"]
    H.expect_eq("growing entries", text.count("\nGrowing by "), 10)
    H.expect_eq("leak entries (the growing leaks are listed as growing)", text.count("\nLeak of "), 0)
    holders = re.findall(r"^ +[\d.]+ [KMG]iB  cudaMalloc  leak_at_site ", text, re.M)
    H.expect_eq("peak holders: the first screen's five", len(holders), 5)
    H.expect("\n    \u2026 and %d more call sites (--top N shows N, --top 0 all)\n" % (sites - 5)
             in text, text)
    H.expect_eq("the hidden rest", text.splitlines()[-1],
                "vramtrace: not shown: %d more growing call sites "
                "(10 per section; vramtrace report --top N shows N, --top 0 all)"
                % (sites - 10))
    # the largest site first, with its leak in the same entry
    top = (sites * D["SITE_BYTES"])
    H.expect(re.search(r"^Growing by %s per marker interval .*; leaked at exit: %d bytes "
                       r"\(480\.0 KiB\) in %d allocations, via cudaMalloc on device 0 \[device\]$"
                       % (re.escape("160.0 KiB"), top * steps, steps), text, re.M), text)
    H.expect(len(text.splitlines()) < 100, "%d lines" % len(text.splitlines()))
    everything = text_report(dump, "--top", "0")
    H.expect_eq("--top 0: every site", everything.count("\nGrowing by "), sites)
    H.expect("not shown" not in everything, "--top 0 hides something")
    two = text_report(dump, "--top", "2")
    H.expect_eq("--top 2", (two.count("\nGrowing by "), two.splitlines()[-1]),
                (2, "vramtrace: not shown: %d more growing call sites "
                    "(2 per section; vramtrace report --top N shows N, --top 0 all)"
                 % (sites - 2)))
    # the JSON holds what the text shows, and says how many more
    shown = H.report(dump, "--top", "10")
    default = json.loads(H._run([H.vramtrace_exe(), "report", "--json", dump], H.base_env(),
                                H.tmpdir()).stdout)
    H.expect_eq("json by default as --top 10", default, shown)
    H.expect_eq("json lists 10 of each, says how many more",
                (len(shown["leaks"]), shown["leaks_omitted"], len(shown["sites"]),
                 shown["sites_omitted"], len(shown["peaks"][0]["holders"]),
                 shown["peaks"][0]["holders_omitted"], shown["summary"]["leaked_allocations"]),
                (10, sites - 10, 10, sites - 10, 10, sites - 10, sites * steps))
    everything = H.report(dump, "--top", "0")
    H.expect_eq("json --top 0 lists all",
                (len(everything["leaks"]), everything["leaks_omitted"], len(everything["sites"]),
                 everything["sites_omitted"], everything["peaks"][0]["holders_omitted"]),
                (sites, 0, sites, 0, 0))


def case_holders_apart():
    """Two stacks through one helper: the holder lines name the callers."""
    dump = shapes_run("two_callers").dump
    lines = text_report(dump, cwd=H.source_root()).splitlines()
    i = [k for k, l in enumerate(lines) if l.startswith("Peak on device 0")][0]
    src, line = "tests/programs/report_shapes.c", H.marker_line(SRC, "scratch")
    H.expect_eq("holders", lines[i + 1:i + 3], [
        "       2.9 MiB  cudaMalloc  scratch_buffer %s:%d <- prepare_batch %s:%d"
        % (src, line, src, H.call_line(SRC, "prepare")),
        "       1.4 MiB  cudaMalloc  scratch_buffer %s:%d <- prepare_eval %s:%d"
        % (src, line, src, H.call_line(SRC, "eval"))])



# ---- the stand-in headers: a program of one's own, with only the README's flags ----

OWN_PROGRAM = """#include <cuda_runtime.h>
#include <cuda.h>
#include <stdio.h>

int main(void)
{
    void *p;
    if (cudaMalloc(&p, 3000000) != cudaSuccess)
        return 1;
    puts("allocated");
    return 0;
}
"""


def case_standin_headers():
    work = H.tmpdir()
    src, exe = os.path.join(work, "my_program.c"), os.path.join(work, "my_program")
    with open(src, "w") as f:
        f.write(OWN_PROGRAM)
    cc = os.environ.get("VT_CC", "cc").split()
    include = os.path.join(H.source_root(), "tests", "standin", "include")
    # the README's command line: -I tests/standin/include, -L build/tests/standin -lcudart
    r = H._run(cc + ["-g", "-Wall", "-Wextra", "-Werror", "-I", include, src, "-L",
                     H.standin_dir(), "-lcudart", "-o", exe], H.base_env(), work)
    H.expect_eq("compile status (%s)" % r.stderr, r.status, 0)
    r = H._run([H.vramtrace_exe(), "run", "-o", os.path.join(work, "own.vtr"), "--", exe],
               H.base_env(), work)
    H.expect_eq("run status", (r.status, r.stdout), (0, "allocated\n"))
    H.expect("\nLeak of 3000000 bytes (2.9 MiB) in 1 allocation via cudaMalloc on device 0 "
             "[device]\n    #0 main my_program.c:8\n" in r.stderr, r.stderr)



# ---- the pytest plugin, installed the README's way: a fresh venv, no index ----

def case_pytest_venv():
    python = "/usr/bin/python3"
    for module in ("pytest", "setuptools", "venv", "pip"):
        if H.run_plain([python, "-c", "import " + module]).status != 0:
            raise H.Skip("%s has no %s" % (python, module))
    work = H.tmpdir()
    src = os.path.join(work, "python")   # a copy: pip builds in the source folder
    shutil.copytree(os.path.join(H.source_root(), "python"), src,
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    venv = os.path.join(work, "venv")
    r = H._run([python, "-m", "venv", "--system-site-packages", venv], H.base_env(), work)
    H.expect_eq("venv: " + r.stderr, r.status, 0)
    pip = [os.path.join(venv, "bin", "pip"), "install", "--no-index", "--no-build-isolation", src]
    env = H.base_env({"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1"})
    r = H._run(pip, env, work)
    H.expect_eq("pip install: " + r.stdout + r.stderr, r.status, 0)
    xml = os.path.join(work, "results.xml")
    sample = H.program_source("vram_pytest_sample.py")
    # no -p and no PYTHONPATH: pytest finds the installed plugin by its entry point
    r = H.run_traced([os.path.join(venv, "bin", "python"), "-m", "pytest", "-q",
                      "-p", "no:cacheprovider", "--junitxml", xml, sample], mode="preload",
                     extra_env={"VT_LEAKPLUGIN": H.program("libleakplugin.so")})
    H.expect_eq("pytest status: " + r.describe(), r.status, 1)
    outcomes = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        tags = [c.tag for c in case if c.tag in ("failure", "error", "skipped")]
        outcomes[case.get("name")] = tags[0] if tags else "passed"
    H.expect_eq("outcomes", (outcomes.get("test_leaks"), outcomes.get("test_clean")),
                ("failure", "passed"))


# ---- verdicts that say only what the evidence tells ----

def case_growth_unmarked():
    """A leak in a loop of 10 steps without markers: time ticks cannot tell
    growth, so never "nothing grows"; the repeated leak is named, with how
    to add markers."""
    dump = shapes_run("unmarked", "10").dump
    line = text_report(dump).splitlines()[1]
    H.expect("nothing grows" not in line, line)
    H.expect(re.fullmatch(r"vramtrace: growth not judged reliably: no markers \(\d+ time ticks show "
                          r"no call site growing, but 1 call site leaked again and again: 10 "
                          r"allocations never freed\); mark each step with vramtrace_mark\(\) or "
                          r"`kill -USR2 PID`", line), line)
    g = H.report(dump)["growth"]
    H.expect_eq("growth.reliable, growing_sites", (g["reliable"], g["growing_sites"]), (False, 0))
    H.expect_eq("growth.verdict", "vramtrace: " + g["verdict"], line)


def case_suppressed_not_freed():
    """Leaks hidden by a suppression are suppressed, not freed."""
    dump = shapes_run("c_leak").dump
    supp = os.path.join(os.path.dirname(dump), "vram.supp")
    with open(supp, "w") as f:
        f.write("leak:^scratch_buffer$\n")
    text = text_report(dump, "--suppressions", supp)
    H.expect(text.startswith("vramtrace: no unsuppressed leaks (2.9 MiB suppressed in 1 "
                             "allocation) (peak 2.9 MiB"), text)
    H.expect("all device memory was freed" not in text, text)


def case_gen_suppressions_apart():
    """Two sites leaking through one helper get a line each (their callers):
    with one line removed, check passes for one site and fails on the other."""
    dump = shapes_run("two_callers").dump
    r = H._run([H.vramtrace_exe(), "report", "--gen-suppressions", dump], H.base_env(),
               os.path.dirname(dump))
    H.expect_eq("gen status", (r.status, r.stderr), (0, ""))
    lines = [l for l in r.stdout.splitlines() if l.startswith("leak:")]
    H.expect_eq("generated lines", lines, ["leak:^prepare_batch$", "leak:^prepare_eval$"])
    supp = os.path.join(os.path.dirname(dump), "vram.supp")
    with open(supp, "w") as f:
        f.write(r.stdout)
    check = [H.vramtrace_exe(), "check", "--suppressions", supp, dump]
    H.expect_eq("check with both lines", H._run(check, H.base_env(), H.tmpdir()).status, 0)
    with open(supp, "w") as f:
        f.write(r.stdout.replace("leak:^prepare_eval$\n", ""))
    c = H._run(check, H.base_env(), H.tmpdir())
    H.expect_eq("check with prepare_eval's line removed", c.status, 23)
    H.expect("1.4 MiB" in c.stderr or "1500000" in c.stderr, c.describe())


def case_one_label_everywhere():
    """Two sites through one helper have one name each, the same in the text
    report, the HTML page, watch, check and the JSON (which the pytest plugin
    prints)."""
    dump = shapes_run("two_callers").dump
    src, line = "tests/programs/report_shapes.c", H.marker_line(SRC, "scratch")
    want = ["scratch_buffer %s:%d <- %s %s:%d" % (src, line, caller, src, H.call_line(SRC, tag))
            for caller, tag in (("prepare_batch", "prepare"), ("prepare_eval", "eval"))]
    root = H.source_root()

    def vt(*args):
        r = H._run([H.vramtrace_exe(), *args], H.base_env(), root)
        return r
    text = vt("report", dump).stdout
    for label in want:
        H.expect(re.search(r"^ +[\d.]+ MiB  cudaMalloc  %s$" % re.escape(label), text, re.M),
                 "text peak holder %r in\n%s" % (label, text))
    page = os.path.join(os.path.dirname(dump), "two.html")
    vt("report", "--html", page, dump)
    with open(page) as f:
        html_text = f.read()
    for label in want:
        cell = '<code class="site">%s</code>' % label.replace("<", "&lt;")
        H.expect_eq("html rows labelled %r (leaks, peak)" % label, html_text.count(cell), 2)
    watch = vt("watch", "--once", dump).stdout
    for label in want:
        H.expect(re.search(r"  %s$" % re.escape(label), watch, re.M),
                 "watch row %r in\n%s" % (label, watch))
    check = vt("check", "--max-leaked-per-site", "0", dump)
    H.expect_eq("check status", check.status, 23)
    over = [l.split("(0 B): ", 1)[1] for l in check.stderr.splitlines() if "at one call site" in l]
    H.expect_eq("check's sites", sorted(over), sorted("%s via cudaMalloc" % l for l in want))
    rep = json.loads(vt("report", "--json", dump).stdout)
    H.expect_eq("json leak labels", sorted(l["label"] for l in rep["leaks"]), sorted(want))
    H.expect_eq("json peak holder labels",
                sorted(h["label"] for h in rep["peaks"][0]["holders"]), sorted(want))


def case_newcomer_smalls():
    """A directory named with its slash names its dumps once-slashed; a
    mistyped command suggests the nearest; an unknown export format lists
    the known ones."""
    dump = shapes_run("c_leak").dump
    tree = os.path.join(H.tmpdir(), "tree")
    os.mkdir(tree)
    shutil.copy(dump, os.path.join(tree, "x.vtr"))
    r = H._run([H.vramtrace_exe(), "report", "tree/"], H.base_env(), os.path.dirname(tree))
    H.expect_eq("report tree/ status", r.status, 0)
    H.expect("tree/x.vtr" in r.stdout + r.stderr and "tree//" not in r.stdout + r.stderr,
             r.describe())
    r = H._run([H.vramtrace_exe(), "repot", dump], H.base_env(), H.tmpdir())
    H.expect_eq("repot", (r.status, r.stderr), (2, "vramtrace: unknown command 'repot'; did you "
                                                "mean 'report'? (see vramtrace --help)\n"))
    r = H._run([H.vramtrace_exe(), "export", "--format", "svg", dump], H.base_env(), H.tmpdir())
    H.expect_eq("svg", (r.status, r.stderr), (2, "vramtrace export: unknown format 'svg' (folded, "
                                              "pprof, chrome, json, torch-snapshot or html) (see "
                                              "vramtrace export --help)\n"))


def case_devices_in_order():
    """Devices are listed 0 before 1 when the program used 1 first."""
    dump = shapes_run("device1_first").dump
    text = text_report(dump)
    devices = [l.split()[1].rstrip(",:") for l in text.splitlines() if l.startswith("Device ")]
    H.expect_eq("devices listed (%s)" % text, devices, ["0", "1"])
    H.expect_eq("JSON devices", [d["device"] for d in H.report(dump)["devices"]], [0, 1])


def case_one_byte():
    """One byte is "1 byte", in the headline and the leak's line."""
    text = text_report(shapes_run("one_byte").dump)
    H.expect(text.startswith("vramtrace: 1 B (1 byte) of device memory leaked in 1 allocation "
                             "at 1 call site"), text)
    H.expect_eq("leak line", line_starting(text, "Leak of "),
                "Leak of 1 byte (1 B) in 1 allocation via cudaMalloc on device 0 [device]")
    H.expect("1 bytes" not in text, text)


def case_pinned_only():
    """Only mapped page-locked host memory (NVIDIA's simpleZeroCopy): the
    headline says no device memory was allocated and names the pinned peak."""
    n, size = SAMPLE["PINNED_BUFFERS"], SAMPLE["PINNED_BYTES"]
    dump = sample_run("pinned_only").dump
    s = H.report(dump)["summary"]
    H.expect_eq("summary", (s["peak_bytes"], s["host_peak_bytes"], s["host_leaked_bytes"],
                            s["allocations"], s["frees"]), (0, n * size, 0, n, n))
    H.expect_eq("headline", text_report(dump).splitlines()[0],
                "vramtrace: no device memory was allocated, only page-locked host memory "
                "(3 allocations, 3 frees, 0 failed, 0 invalid frees); page-locked host memory: "
                "peak 12.0 MiB, all freed")
    html = os.path.join(H.tmpdir(), "pinned.html")
    r = H._run([H.vramtrace_exe(), "export", "--format", "html", "-o", html, dump], H.base_env(),
               H.tmpdir())
    H.expect_eq("export status", r.status, 0)
    with open(html) as f:
        H.expect("12.0 MiB</b>pinned host memory peak</div>" in f.read(), "no pinned peak card")


def case_pinned_leak_headline():
    """A pinned leak is in the headline too, with the pinned peak."""
    n, size = SAMPLE["PINNED_BUFFERS"], SAMPLE["PINNED_BYTES"]
    dump = sample_run("pinned_only", "1").dump
    s = H.report(dump)["summary"]
    H.expect_eq("summary", (s["host_peak_bytes"], s["host_leaked_bytes"],
                            s["host_leaked_allocations"]), (n * size, size, 1))
    H.expect(s["host_peak_time_ns"] > 0, s)
    H.expect_eq("headline", text_report(dump).splitlines()[0],
                "vramtrace: no device memory was allocated, only page-locked host memory "
                "(3 allocations, 2 frees, 0 failed, 0 invalid frees); page-locked host memory: "
                "peak 12.0 MiB, 4.0 MiB (4194304 bytes) leaked in 1 allocation")


def case_device_line_at_end():
    """A process killed after freeing on two devices: each device's last
    sample is its first allocation's, and its line says what was traced
    live at the end (0 B), not only what it held then."""
    dump = sample_run("killed", status=128 + 9).dump
    text = text_report(dump)
    lines = text.splitlines()
    for device, held in ((0, "35.0 MiB"), (1, "2.0 MiB")):
        at = [i for i, l in enumerate(lines) if l.startswith("Device %d " % device)]
        H.expect_eq("Device %d lines (%s)" % (device, text), len(at), 1)
        H.expect(", at its first allocation (" in lines[at[0]], text)
        H.expect(lines[at[0] + 1].startswith("    %s used on the device = %s traced live"
                                             % (held, held)), text)
        H.expect_eq("line after", lines[at[0] + 2],
                    "    at the end of the dump: 0 B traced live in this process (the driver's "
                    "view of the device was not read again)")
    usage = {u["device"]: u for u in H.report(dump)["device_usage"]}
    H.expect_eq("JSON", [(usage[d]["reason"], usage[d]["traced_live_bytes"],
                          usage[d]["traced_live_at_end_bytes"]) for d in (0, 1)],
                [("start", SAMPLE["DEV0_BYTES"], 0), ("start", SAMPLE["DEV1_BYTES"], 0)])


def case_device_released():
    """Device 1's primary context, retained and released through the driver
    API, is destroyed by the release: the tracer asked the driver before it
    (its line: before its context was torn down, 0 B), not the first
    allocation's 2.0 MiB as the device's last word."""
    dump = sample_run("device1_released").dump
    usage = {u["device"]: u for u in H.report(dump)["device_usage"]}
    H.expect_eq("device 1's samples", [(s["reason"], s["traced_live_bytes"], s["driver_used_bytes"])
                                       for s in usage[1]["samples"]],
                [("start", SAMPLE["DEV1_BYTES"], SAMPLE["DEV1_BYTES"]), ("teardown", 0, 0)])
    H.expect_eq("device 0's last", usage[0]["reason"], "exit")


if __name__ == "__main__":
    H.main(globals())
