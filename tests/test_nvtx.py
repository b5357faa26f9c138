#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""NVTX ranges as step markers (`vramtrace run --mark-on-nvtx NAME`,
VRAMTRACE_NVTX_MARK): tests/programs/nvtx_steps.c, built with the toolkit's
header-only nvtx3 over the stand-in CUDA, keeps 1 MiB in each of 10 steps,
each a range named "step" with a "data" range inside; the program calls no
vramtrace_mark(). Skipped (exit 77) where nvtx3 is not installed."""
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402
import test_export as E  # noqa: E402

STEPS = 10
MiB = 1 << 20
SOURCE = "nvtx_steps.c"
TAKEN = "/nonexistent/libnsys-injection.so"


def program(name="nvtx_steps"):
    path = os.path.join(H.env_path("PROGRAMS_DIR", "dir"), name)
    if not os.path.isfile(path):
        raise H.Skip("%s is not built: no /usr/local/cuda/include/nvtx3" % name)
    return path


def traced(mode, run_args=("--mark-on-nvtx", "step"), extra_env=None, how="run"):
    r = H.run_traced([program(), mode], mode=how, run_args=run_args, extra_env=extra_env)
    H.expect_program_ok(r)
    H.expect("done %s" % mode in r.stdout, "the program did not finish:\n" + r.describe())
    H.expect_dump(r)
    return r


def timeline_marks(dump):
    p = subprocess.run([H.vramtrace_exe(), "timeline", "--json", dump], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, env=H.base_env())
    H.expect_eq("vramtrace timeline's exit status", p.returncode, 0)
    return json.loads(p.stdout)["marks"]


def growing_at_step(rep):
    """The one growing site: 1 MiB per marker interval at LEAK:step."""
    line = H.marker_line(H.program_source(SOURCE), "step")
    growing = [s for s in rep["sites"] if s["growing"]]
    H.expect_eq("growing sites", len(growing), 1)
    site = growing[0]
    top = site["frames"][0]
    H.expect_eq("the growing site's frame",
                (top.get("function"), os.path.basename(top.get("file") or ""), top.get("line")),
                ("keep", SOURCE, line))
    H.expect_eq("bytes per marker interval", site["bytes_per_interval"], MiB)


def check_steps(mode, **kw):
    r = traced(mode, **kw)
    rep = H.report(r.dump)
    H.expect_eq("markers (one per step range's end; none of 'data')", rep["growth"]["marks"], STEPS)
    H.expect_eq("growth judged per marker", rep["growth"]["interval"], "marker")
    growing_at_step(rep)
    H.expect_eq("marker labels", {m["label"] for m in timeline_marks(r.dump)}, {"step"})
    c = subprocess.run([H.vramtrace_exe(), "check", r.dump], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, env=H.base_env())
    H.expect_eq("vramtrace check's exit status", c.returncode, 23)
    return r, rep


def case_push_pop():
    """nvtxRangePushA("step") / nvtxRangePop: 10 markers, growth per step at keep()."""
    check_steps("push")


def case_domain_start_end():
    """A domain's nvtxDomainRangeStartEx / nvtxDomainRangeEnd with an event
    attribute's ASCII message."""
    check_steps("domain")


def case_unicode():
    """nvtxRangeStartW(L"step") / nvtxRangeEnd, nvtxRangePushW(L"data") inside."""
    check_steps("wide")


def case_registered_string():
    """A string registered in a domain names the pushed range; a range of the
    default domain opened inside it is popped after it (interleaved domains)."""
    check_steps("registered")


def case_threads():
    """4 threads push, pop, start and end other ranges ("data", "stepping")
    all along: only the main thread's 10 steps mark, and the phase of what
    it keeps is its own range, "step", never another thread's."""
    _, rep = check_steps("threads")
    H.expect_eq("the growing site's phase", [s["phase"] for s in rep["sites"] if s["growing"]],
                ["step"])


def case_plain_preload():
    """Plain LD_PRELOAD users set VRAMTRACE_NVTX_MARK and NVTX_INJECTION64_PATH."""
    check_steps("push", how="preload", extra_env={"VRAMTRACE_NVTX_MARK": "step",
                                                  "NVTX_INJECTION64_PATH": H.vramtrace_lib()})


def case_other_name():
    """--mark-on-nvtx data: the 10 inner ranges mark, never the steps (so
    the kept 1 MiB is sampled once per step all the same)."""
    r = traced("push", run_args=("--mark-on-nvtx", "data"))
    rep = H.report(r.dump)
    H.expect_eq("markers", rep["growth"]["marks"], STEPS)
    H.expect_eq("marker labels", {m["label"] for m in timeline_marks(r.dump)}, {"data"})


def case_without_option():
    """No option: no marker (the ranges are phases only)."""
    r = traced("push", run_args=())
    H.expect_eq("markers", H.report(r.dump)["growth"]["marks"], 0)


def case_injection_taken():
    """An NVTX_INJECTION64_PATH set before (nsys's) is left alone, and said
    once on stderr; no marker then."""
    r = traced("push", extra_env={"NVTX_INJECTION64_PATH": TAKEN})
    said = [l for l in r.stderr.splitlines() if "NVTX_INJECTION64_PATH" in l]
    H.expect_eq("lines about NVTX_INJECTION64_PATH", len(said), 1)
    H.expect(said[0].startswith("vramtrace: ") and TAKEN in said[0],
             "the line names the path: %r" % said[0])
    H.expect_eq("markers", H.report(r.dump)["growth"]["marks"], 0)


def case_injection_taken_phases():
    """Without --mark-on-nvtx too, an NVTX_INJECTION64_PATH set before is
    left alone and said once: the ranges are then no phases."""
    r = H.run_traced([program("nvtx_phases")], extra_env={"NVTX_INJECTION64_PATH": TAKEN})
    H.expect_program_ok(r)
    said = [l for l in r.stderr.splitlines() if "NVTX_INJECTION64_PATH" in l]
    H.expect_eq("lines about NVTX_INJECTION64_PATH", said,
                ["vramtrace: NVTX_INJECTION64_PATH is already set (%s, another NVTX tool's): left "
                 "as it is, so NVTX ranges are not phases" % TAKEN])
    H.expect_eq("phases", {s["phase"] for s in H.report(r.dump)["sites"]}, {None})


def case_not_preloaded():
    """The injection loaded by NVTX alone (no LD_PRELOAD): it declines and
    says why once; the program runs as without a tool, and writes no dump."""
    r = H.run_plain([program(), "push"], extra_env={"VRAMTRACE_NVTX_MARK": "step",
                                                   "NVTX_INJECTION64_PATH": H.vramtrace_lib(),
                                                   "VRAMTRACE_OUTPUT": "never.vtr"})
    H.expect_program_ok(r)
    said = [l for l in r.stderr.splitlines() if l.startswith("vramtrace: ")]
    H.expect_eq("vramtrace's lines", len(said), 1)
    H.expect("not preloaded" in said[0], "the line says why: %r" % said[0])
    H.expect(not os.path.exists(os.path.join(r.cwd, "never.vtr")), "a dump was written")


PHASES = "nvtx_phases.c"


def site_at(sites, tag):
    """The one site of SITES whose first frame is the line of LEAK:tag."""
    line = H.marker_line(H.program_source(PHASES), tag)
    found = [s for s in sites if s["frames"] and s["frames"][0].get("line") == line and
             os.path.basename(s["frames"][0].get("file") or "") == PHASES]
    H.expect_eq("sites at LEAK:%s" % tag, len(found), 1)
    return found[0]


def check_phases(r):
    rep = H.report(r.dump)
    growing = [s for s in rep["sites"] if s["growing"]]
    H.expect_eq("growing sites", len(growing), 1)
    H.expect_eq("the growing site", growing[0], site_at(rep["sites"], "forward"))
    H.expect_eq("the growing site's phase", growing[0]["phase"], "forward")
    H.expect_eq("bytes per interval", growing[0]["bytes_per_interval"], MiB)
    H.expect_eq("phases of the sites (registered in a domain, wide)",
                [site_at(rep["sites"], t)["phase"] for t in ("scratch", "load")],
                ["optimizer.step", "load"])
    holders = rep["peaks"][0]["holders"]
    H.expect_eq("the peak's holders: bytes and phase",
                [(h["bytes"], h["phase"]) for h in holders],
                [(STEPS * MiB, "forward"), (8 * MiB, "load"), (4096, "optimizer.step")])
    return rep


def case_phases():
    """Each allocation records the innermost range pushed on its thread: the
    growing site (1 MiB a step) says "forward", though a started range
    ("io") is open inside it; a registered string in a domain and a wide
    message name theirs; the peak's holders say theirs, in JSON and text."""
    r = H.run_traced([program("nvtx_phases")], run_args=("--mark-on-nvtx", "step"))
    H.expect_program_ok(r)
    H.expect("done phases" in r.stdout, "the program did not finish:\n" + r.describe())
    H.expect_dump(r)
    check_phases(r)
    text = H._run([H.vramtrace_exe(), "report", r.dump], H.base_env(), r.cwd).stdout
    H.expect(" [device]  during forward\n" in text, "the growing site's phase:\n" + text)
    H.expect(re.search(r"^vramtrace: growing: 1\.0 MiB per marker interval at forward \S+:%d "
                       r"during forward\n" % H.marker_line(H.program_source(PHASES), "forward"),
                       text, re.M), "the headline's phase:\n" + text)
    H.expect(" during load\n" in text and " during optimizer.step\n" in text,
             "the holders' phases:\n" + text)


def case_phases_oom():
    """An out-of-memory error's holders say their phases."""
    r = H.run_traced([program("nvtx_phases"), "oom"])
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    oom = [f["oom"] for f in rep["failed"] if f["oom"]]
    H.expect_eq("out-of-memory errors", len(oom), 1)
    H.expect_eq("its holders: bytes and phase",
                [(h["bytes"], h["phase"]) for h in oom[0]["holders"]],
                [(STEPS * MiB, "forward"), (8 * MiB, "load")])


def case_phases_without_marker():
    """`vramtrace run` with no option sets NVTX_INJECTION64_PATH: phases
    without markers (growth then judged on allocation ticks)."""
    r = H.run_traced([program("nvtx_phases")])
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    H.expect_eq("markers", rep["growth"]["marks"], 0)
    H.expect_eq("phases of the sites", [site_at(rep["sites"], t)["phase"]
                                        for t in ("forward", "scratch", "load")],
                ["forward", "optimizer.step", "load"])


def phases_dump(*args):
    r = H.run_traced([program("nvtx_phases")] + list(args), run_args=("--mark-on-nvtx", "step"))
    H.expect_program_ok(r)
    H.expect_dump(r)
    return r.dump


def case_phases_html():
    """The HTML report says each growing site's and peak holder's phase
    beside its call site, as the text report does, and nowhere else."""
    page = E.Page()
    page.feed(E.export(phases_dump(), "html").decode())
    page.close()
    said, section, site = [], None, None
    for d, st in page.text:
        if "h2" in st:
            section = d
        elif "summary" in st and "code" in st:
            site = d.split(" ")[0]
        elif "summary" in st and "span" in st and d.startswith("during "):
            said.append((section, site, d))
    H.expect_eq("(section, call site, phase) in the summaries", said,
                [("Growing call sites", "forward", "during forward"),
                 ("Peak breakdown", "forward", "during forward"),
                 ("Peak breakdown", "load", "during load"),
                 ("Peak breakdown", "optimizer_step", "during optimizer.step")])


def case_phases_chrome():
    """Each allocation's slice in the Perfetto/Chrome trace says its phase
    in args: 10 kept in "forward", 10 scratch in "optimizer.step" (a
    registered name in a domain), the buffer in the wide "load"."""
    events = E.chrome_events(E.export(phases_dump(), "chrome"))
    slices = {}
    for e in events:
        if e.get("cat") == "allocation":
            key = (e["name"].split(" ")[0], e["args"]["bytes"], e["args"].get("phase"))
            slices[key] = slices.get(key, 0) + 1
    H.expect_eq("allocation slices: (function, bytes, phase): count", slices,
                {("forward", MiB, "forward"): STEPS,
                 ("optimizer_step", 4096, "optimizer.step"): STEPS, ("load", 8 * MiB, "load"): 1})


def case_phases_pprof():
    """Each pprof sample carries a string label "phase": the range its call
    site made most of its bytes in."""
    prof = E.Profile(E.export(phases_dump(), "pprof"))
    labels = {prof.sample(s)[0][0][0]: prof.sample(s)[2].get("phase") for s in prof.samples}
    H.expect_eq("phase label per sample (by innermost function)", labels,
                {"forward": "forward", "optimizer_step": "optimizer.step", "load": "load"})


POOL = "nvtx_pool.c"
REGIONS = "nvtxMemRegionsRegister"


def own_line(entry, source):
    """The line of ENTRY's first frame in SOURCE."""
    for f in entry["frames"]:
        if os.path.basename(f.get("file") or "") == source:
            return f.get("line")
    return None


def case_memory_regions():
    """NVTX's memory API: regions are traced inside their heap at the line
    that registered them (their bytes count for their sites, not again for
    the device); unregistering by pointer or handle, a resize, a heap's
    reset and unregistering free them; the region left registered at exit
    is the one leak, the 64 MiB heap holding it known memory; a heap of
    host memory traces nothing."""
    r = H.run_traced([program("nvtx_pool")])
    H.expect_program_ok(r)
    H.expect("done pool" in r.stdout, "the program did not finish:\n" + r.describe())
    rep = H.report(r.dump)
    H.expect_eq("format version (regions inside a heap: 4)", rep["format_version"], 4)
    H.check_summary(rep, allocations=16, frees=14, untraced_frees=0, peak_bytes=72 * MiB,
                    leaked_bytes=3 * MiB, leaked_allocations=1, known_bytes=64 * MiB,
                    known_allocations=1)
    src = H.program_source(POOL)

    def line(tag):
        return H.marker_line(src, tag)

    H.expect_eq("the leak: the region left registered",
                [(lk["api"], lk["bytes"], own_line(lk, POOL)) for lk in rep["leaks"]],
                [(REGIONS, 3 * MiB, line("left"))])
    H.expect_eq("the heap: known memory, not a leak",
                [(k["api"], k["bytes"], k["known"]["label"], own_line(k, POOL))
                 for k in rep["known"]],
                [("cudaMalloc", 64 * MiB, "an NVTX memory heap", line("heap"))])
    H.expect_eq("the regions' sites: line, highest and final live bytes",
                sorted((own_line(s, POOL), s["peak_live_bytes"], s["live_bytes"])
                       for s in rep["sites"] if s["api"] == REGIONS),
                sorted([(line("one"), MiB, 0), (line("two"), 2 * MiB + 4096, 0),
                        (line("small"), 256 * 1024, 0), (line("resized"), 512 * 1024, 0),
                        (line("left"), 3 * MiB, 3 * MiB), (line("reset"), 4 * MiB, 0),
                        (line("unregistered"), 4 * MiB, 0)]))
    text = H._run([H.vramtrace_exe(), "report", r.dump], H.base_env(), r.cwd).stdout
    H.expect("64.0 MiB by an NVTX memory heap" in text, "the heap's line:\n" + text)


def case_bad_name():
    """An empty name is a usage error (exit 2)."""
    p = subprocess.run([H.vramtrace_exe(), "run", "--mark-on-nvtx", "", "--", "true"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                       env=H.base_env())
    H.expect_eq("exit status", p.returncode, 2)
    H.expect("--mark-on-nvtx needs a range name" in p.stderr, "stderr: %r" % p.stderr)


if __name__ == "__main__":
    H.main(globals())
