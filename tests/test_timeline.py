# SPDX-License-Identifier: MIT
"""Usage over time ground truth (tests/programs/usage.c): growth per call
site, warm-up skipping, peak holders, the marker signal, the out-of-memory
autopsy, `vramtrace timeline`, and %r in VRAMTRACE_OUTPUT."""
import json
import os
import signal
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("usage.c")
D = H.c_defines(SRC)
STEPS, LEAK, CACHE, TEMP = D["STEPS"], D["LEAK_BYTES"], D["CACHE_BYTES"], D["TEMP_BYTES"]
PEAK = CACHE + TEMP + STEPS * LEAK                                       # 22 MiB
STANDIN_CAPACITY = 64 << 20


def usage_run(mode, extra_env=None, status=0):
    r = H.run_traced([H.program("usage"), mode], extra_env=extra_env)
    H.expect_program_ok(r, status)
    H.expect_dump(r)
    return r


def sites(rep):
    s = rep.get("sites")
    H.expect(isinstance(s, list), 'report has no "sites" list')
    return s


def site(rep, function):
    """The one site whose innermost frame is FUNCTION."""
    found = [s for s in sites(rep) if s.get("frames") and s["frames"][0].get("function") == function]
    H.expect_eq("sites with innermost frame %s" % function, len(found), 1)
    s = found[0]
    for k in ("frames", "api", "live_bytes", "peak_live_bytes", "growing", "bytes_per_interval",
              "bytes_per_second", "growth_start"):
        H.expect(k in s, "site %s lacks %r" % (function, k))
    return s


def check_site_line(s, function, tag):
    H.expect_eq("%s: innermost line" % function, s["frames"][0].get("line"),
                H.marker_line(SRC, tag))


def check_steps(rep, marks, label):
    """The three sites of the step loop, judged on MARKS markers."""
    H.expect_eq("growth.interval", rep["growth"]["interval"], "marker")
    H.expect_eq("growth.marks", rep["growth"]["marks"], marks)
    leak = site(rep, "leak_step")
    check_site_line(leak, "leak_step", "step")
    H.expect_eq("leak_step: growing", leak["growing"], True)
    H.expect_eq("leak_step: bytes_per_interval", leak["bytes_per_interval"], LEAK)
    H.expect_eq("leak_step: live_bytes", leak["live_bytes"], STEPS * LEAK)
    H.expect_eq("leak_step: peak_live_bytes", leak["peak_live_bytes"], STEPS * LEAK)
    H.expect_eq("leak_step: api", leak["api"], "cudaMalloc")
    # a rate per second only over 100 ms at least (steps here are milliseconds apart)
    interval = leak["rate_interval_ns"]
    H.expect(interval > 0, "leak_step: rate_interval_ns must be positive")
    H.expect_eq("leak_step: bytes_per_second", leak["bytes_per_second"],
                int(LEAK * 1e9 / interval) if interval >= 100_000_000 else None)
    H.expect_eq("leak_step: growth_start.mark", leak["growth_start"]["mark"], 0)
    H.expect_eq("leak_step: growth_start.label", leak["growth_start"]["label"], label)
    cache = site(rep, "make_cache")
    H.expect_eq("make_cache: growing", cache["growing"], False)
    H.expect_eq("make_cache: peak_live_bytes", cache["peak_live_bytes"], CACHE)
    H.expect_eq("make_cache: live_bytes (freed before exit)", cache["live_bytes"], 0)
    H.expect_eq("make_cache: growth_start", cache["growth_start"], None)
    temp = site(rep, "make_temp")
    H.expect_eq("make_temp: growing", temp["growing"], False)
    H.expect_eq("make_temp: peak_live_bytes", temp["peak_live_bytes"], TEMP)
    H.expect_eq("number of sites", len(sites(rep)), 3)
    H.expect_eq("the growing site comes first", sites(rep)[0]["frames"][0]["function"],
                "leak_step")


def case_growth():
    rep = H.report(usage_run("grow").dump)
    check_steps(rep, STEPS, "step")
    H.expect_eq("growth.boundaries", rep["growth"]["boundaries"], STEPS)


def case_skip():
    dump = usage_run("grow").dump
    rep = H.report(dump, "--skip", "3")
    H.expect_eq("growth.skip", rep["growth"]["skip"], 3)
    leak = site(rep, "leak_step")
    H.expect_eq("leak_step: growing after 3 warm-up markers", leak["growing"], True)
    H.expect_eq("leak_step: growth_start.mark", leak["growth_start"]["mark"], 3)
    H.expect_eq("leak_step: bytes_per_interval", leak["bytes_per_interval"], LEAK)
    # with all but one marker skipped nothing can be judged growing
    rep = H.report(dump, "--skip", str(STEPS - 1))
    H.expect_eq("growing sites with one marker left", [s for s in sites(rep) if s["growing"]], [])


def case_text_order():
    r = usage_run("grow")
    out = H._run([H.vramtrace_exe(), "report", r.dump], H.base_env(), r.cwd)
    H.expect_eq("report exit status", out.status, 0)
    text = out.stdout
    grow = text.find("\nGrowing by 1.0 MiB per marker interval")
    # the growing site is listed once, with its leak (the cache is freed at the end)
    grown = "; leaked at exit: %d bytes (10.0 MiB) in %d allocations," % (STEPS * LEAK, STEPS)
    peak = text.find("\nPeak on device 0: 22.0 MiB (%d bytes)" % PEAK)
    H.expect(grow >= 0 and peak >= 0, "report lacks the growing / peak sections:\n" + text)
    H.expect(grow < peak, "order must be growing, peak:\n" + text)
    H.expect_eq("the growing leak, once", (text.count(grown), text.find(grown) > grow,
                text.count("Leak of ")), (1, True, 0))
    H.expect('since marker 0 "step"' in text, "growth start not shown:\n" + text)


def case_peak():
    rep = H.report(usage_run("grow").dump)
    H.check_summary(rep, peak_bytes=PEAK)
    peaks = rep.get("peaks")
    H.expect_eq("number of device peaks", len(peaks), 1)
    p = peaks[0]
    H.expect_eq("peak device", p["device"], 0)
    H.expect_eq("peak bytes", p["bytes"], PEAK)
    held = [(h["frames"][0]["function"], h["bytes"]) for h in p["holders"]]
    H.expect_eq("holders at the peak", held,
                [("leak_step", STEPS * LEAK), ("make_cache", CACHE), ("make_temp", TEMP)])
    H.expect_eq("bytes_at_device_peak of make_temp", site(rep, "make_temp")["bytes_at_device_peak"],
                TEMP)


def signal_marks(rep, label):
    rep_marks = rep["growth"]["marks"]
    H.expect_eq("markers written by the signal", rep_marks, STEPS)
    check_steps(rep, STEPS, label)


def case_signal():
    signal_marks(H.report(usage_run("signal").dump), "SIGUSR2")


def case_signal_configured():
    env = {"VRAMTRACE_MARK_SIGNAL": "USR1", "USAGE_SIGNAL": str(int(signal.SIGUSR1))}
    signal_marks(H.report(usage_run("signal", env).dump), "SIGUSR1")


def case_signal_spellings():
    """VRAMTRACE_MARK_SIGNAL names a signal with or without SIG, or by its
    number; anything else (no such signal, SIGKILL, out of range) gets one
    warning and no marker signal (SIGUSR2 then kills the program)."""
    usr1 = str(int(signal.SIGUSR1))
    for spec in ("SIGUSR1", "USR1", usr1):
        rep = H.report(usage_run("signal", {"VRAMTRACE_MARK_SIGNAL": spec,
                                            "USAGE_SIGNAL": usr1}).dump)
        H.expect_eq("markers with VRAMTRACE_MARK_SIGNAL=%s" % spec, rep["growth"]["marks"], STEPS)
        check_steps(rep, STEPS, "SIGUSR1")
    rt = int(signal.SIGRTMIN) + 2
    rep = H.report(usage_run("signal", {"VRAMTRACE_MARK_SIGNAL": str(rt),
                                        "USAGE_SIGNAL": str(rt)}).dump)
    check_steps(rep, STEPS, "signal %d" % rt)
    for bad in ("bogus", "SIGKILL", str(int(signal.SIGKILL)), "-3", "200", ""):
        r = H.run_traced([H.program("usage"), "signal"], mode="preload",
                         extra_env={"VRAMTRACE_MARK_SIGNAL": bad})
        warnings = [l for l in r.stderr.splitlines() if l.startswith("vramtrace:")]
        if bad == "":   # unset in effect: the default SIGUSR2
            H.expect_program_ok(r)
            H.expect_eq("warnings with an empty VRAMTRACE_MARK_SIGNAL", warnings, [])
            continue
        H.expect_eq("warnings with VRAMTRACE_MARK_SIGNAL=%s" % bad, warnings,
                    ["vramtrace: VRAMTRACE_MARK_SIGNAL=%s names no signal; no marker signal" % bad])
        H.expect_eq("status with VRAMTRACE_MARK_SIGNAL=%s (SIGUSR2's default action)" % bad,
                    r.status, -int(signal.SIGUSR2))


def case_signal_before_cuda():
    """Signals after the first CUDA call but before the first allocation (no
    dump yet) are markers too, written once the dump is made, before the
    steps' markers."""
    rep = H.report(usage_run("early").dump)
    H.expect_eq("markers", rep["growth"]["marks"], D["EARLY_MARKS"] + STEPS)


def case_signal_busy():
    """A queued signal sent again and again to a thread that allocates: the
    ones that arrive while the tracer is busy on that thread are kept and
    written after; none is lost, none doubled."""
    rt = str(int(signal.SIGRTMIN) + 3)
    r = usage_run("busy", {"VRAMTRACE_MARK_SIGNAL": rt, "USAGE_SIGNAL": rt})
    rep = H.report(r.dump)
    H.expect_eq("markers", rep["growth"]["marks"], D["BUSY_MARKS"])


def case_signal_off():
    # not installed: SIGUSR2 keeps its default action and kills the program
    r = H.run_traced([H.program("usage"), "signal"], mode="preload",
                     extra_env={"VRAMTRACE_MARK_SIGNAL": "off"})
    H.expect_eq("status of a program killed by SIGUSR2", r.status, -int(signal.SIGUSR2))


def case_signal_handled():
    # the program's own handler runs every time (usage.c checks) and no mark is written
    rep = H.report(usage_run("handled").dump)
    H.expect_eq("markers", rep["growth"]["marks"], 0)


def case_signal_ignored():
    # an inherited "ignore" stays: no handler installed, no marks, the program lives
    r = H.run_traced(["/bin/sh", "-c", 'trap "" USR2; exec "$0" signal', H.program("usage")],
                     mode="preload")
    H.expect_program_ok(r)
    H.expect_eq("markers", H.report(r.dump)["growth"]["marks"], 0)


def case_oom():
    rep = H.report(usage_run("oom", {"STANDIN_CUDA_MEMORY": "64M"}).dump)
    failed = rep.get("failed")
    H.expect_eq("failed entries", len(failed), 1)
    f = failed[0]
    H.expect_eq("failed bytes", f["bytes"], D["OOM_REQUEST_BYTES"])
    H.expect_eq("failed error", f["error"], 2)
    o = f.get("oom")
    H.expect(isinstance(o, dict), "failed entry lacks the oom autopsy: %r" % f)
    held = D["OOM_BIG_BYTES"] + D["OOM_SMALL_BYTES"]
    H.expect_eq("oom.requested_bytes", o["requested_bytes"], D["OOM_REQUEST_BYTES"])
    H.expect_eq("oom.live_bytes", o["live_bytes"], held)
    H.expect_eq("oom.driver_total_bytes", o["driver_total_bytes"], STANDIN_CAPACITY)
    H.expect_eq("oom.driver_free_bytes", o["driver_free_bytes"], STANDIN_CAPACITY - held)
    holders = [(h["frames"][0]["function"], h["bytes"]) for h in o["holders"]]
    H.expect_eq("oom holders", holders,
                [("hold_big", D["OOM_BIG_BYTES"]), ("hold_small", D["OOM_SMALL_BYTES"])])
    H.expect_eq("oom holder line", o["holders"][0]["frames"][0]["line"], H.marker_line(SRC, "big"))


def timeline(dump, *args):
    r = H._run([H.vramtrace_exe(), "timeline"] + list(args) + [dump], H.base_env(),
               os.path.dirname(dump))
    H.expect_eq("vramtrace timeline exit status", r.status, 0)
    return r.stdout


def case_timeline_json():
    data = json.loads(timeline(usage_run("grow").dump, "--json"))
    H.expect_eq("marks", [m["label"] for m in data["marks"]], ["step"] * STEPS)
    H.expect_eq("devices", [d["device"] for d in data["devices"]], [0])
    d = data["devices"][0]
    H.expect_eq("peak_bytes", d["peak_bytes"], PEAK)
    H.expect_eq("end_bytes", d["end_bytes"], STEPS * LEAK)
    samples = d["samples"]
    H.expect_eq("highest sample", max(s["max_bytes"] for s in samples), PEAK)
    H.expect_eq("last sample", samples[-1]["bytes"], STEPS * LEAK)
    H.expect_eq("last sample time", samples[-1]["time_ns"], data["duration_ns"])
    times = [s["time_ns"] for s in samples]
    H.expect_eq("sample times ascend", times, sorted(times))


def case_timeline_text():
    text = timeline(usage_run("grow").dump)
    lines = text.splitlines()
    too_wide = [ln for ln in lines if len(ln) > 80 and "trace.vtr" not in ln]
    H.expect_eq("lines wider than 80 columns", too_wide, [])
    H.expect(any(ln.startswith("device 0: peak 22.0 MiB (%d bytes)" % PEAK) for ln in lines),
             "no device 0 peak line:\n" + text)
    axis = [i for i, ln in enumerate(lines) if ln.strip().startswith("0 B +")]
    H.expect_eq("axes", len(axis), 1)
    below = lines[axis[0] + 1]
    H.expect_eq("peak marks under the axis", below.count("^"), 1)
    H.expect("|" in below, "no marker under the axis:\n" + text)
    H.expect("#" in lines[axis[0] - 12], "the top row must reach the peak:\n" + text)


RANK_VARS = ("RANK", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMI_RANK")


def rank_dump_names(env):
    extra = dict({k: "" for k in RANK_VARS}, VRAMTRACE_OUTPUT="trace.%r.vtr")
    extra.update(env)
    r = H.run_traced([H.program("usage"), "grow"], mode="preload", output=False, extra_env=extra)
    H.expect_program_ok(r)
    return sorted(n for n in os.listdir(r.cwd) if n.endswith(".vtr"))


def case_rank_output():
    H.expect_eq("dump for RANK=3", rank_dump_names({"RANK": "3", "LOCAL_RANK": "1"}),
                ["trace.3.vtr"])
    H.expect_eq("dump for LOCAL_RANK=1", rank_dump_names({"LOCAL_RANK": "1"}), ["trace.1.vtr"])
    H.expect_eq("dump for OMPI_COMM_WORLD_RANK=5", rank_dump_names({"OMPI_COMM_WORLD_RANK": "5"}),
                ["trace.5.vtr"])
    H.expect_eq("dump for SLURM_PROCID=7", rank_dump_names({"SLURM_PROCID": "7"}),
                ["trace.7.vtr"])
    H.expect_eq("dump for PMI_RANK=6", rank_dump_names({"PMI_RANK": "6"}), ["trace.6.vtr"])
    # the job-wide rank before the node-local one, whichever launcher set it
    H.expect_eq("dump for LOCAL_RANK=1, SLURM_PROCID=9",
                rank_dump_names({"LOCAL_RANK": "1", "SLURM_PROCID": "9"}), ["trace.9.vtr"])
    H.expect_eq("dump for SLURM_PROCID=0 (the batch step), OMPI_COMM_WORLD_RANK=5",
                rank_dump_names({"SLURM_PROCID": "0", "OMPI_COMM_WORLD_RANK": "5"}),
                ["trace.5.vtr"])
    H.expect_eq("dump without a rank", rank_dump_names({}), ["trace.norank.vtr"])


def case_run_rank_output():
    # `vramtrace run -o` expands %r as the library does, and finds the dump
    extra = dict({k: "" for k in RANK_VARS}, RANK="1")
    r = H.run_traced([H.program("usage"), "rank"], output=False, extra_env=extra,
                     run_args=("-o", "job.%r.%p.vtr"))
    H.expect_program_ok(r)
    names = [n for n in os.listdir(r.cwd) if n.endswith(".vtr")]
    H.expect_eq("dumps written", len(names), 1)
    H.expect(names[0].startswith("job.1.") and names[0] != "job.1.vtr",
             "dump name %r: expected job.1.<pid>.vtr" % names[0])
    H.expect("vramtrace: dump written to %s\n" % os.path.join(r.cwd, names[0]) in r.stderr,
             "run did not find it:\n" + r.stderr)


def run_ranks(outdir, ranks):
    """One `usage rank` process per rank, each writing OUTDIR/job.<rank>.vtr."""
    for rank in ranks:
        extra = dict({k: "" for k in RANK_VARS}, RANK=str(rank),
                     VRAMTRACE_OUTPUT=os.path.join(outdir, "job.%r.vtr"))
        r = H.run_traced([H.program("usage"), "rank"], mode="preload", output=False,
                         extra_env=extra)
        H.expect_program_ok(r)


def report_many(args, json_output=True):
    cmd = [H.vramtrace_exe(), "report"] + (["--json"] if json_output else []) + args
    return H._run(cmd, H.base_env(), os.path.dirname(args[0]))


def check_combined(data, outdir):
    H.expect_eq("process ranks", [p["process"]["rank"] for p in data["processes"]],
                ["0", "1", "2"])
    c = data["combined"]
    H.expect_eq("combined.processes", c["processes"], 3)
    H.expect_eq("combined.leaked_bytes", c["leaked_bytes"], 3 * D["RANK_BYTES"])
    devices = [(d["device"], d["shared"], [p["rank"] for p in d["processes"]])
               for d in c["devices"]]
    # rank 2 allocated on device 0 (the classic bug): device 0 is shared
    H.expect_eq("devices and their ranks", devices,
                [(0, True, ["0", "2"]), (1, False, ["1"])])
    dumps = [os.path.basename(p["dump"]) for d in c["devices"] for p in d["processes"]]
    H.expect_eq("dumps per device", dumps, ["job.0.vtr", "job.2.vtr", "job.1.vtr"])


def case_multi_process():
    outdir = H.tmpdir()
    run_ranks(outdir, (0, 1, 2))
    r = report_many([outdir])
    H.expect_eq("report DIR exit status", r.status, 0)
    check_combined(json.loads(r.stdout), outdir)
    files = [os.path.join(outdir, "job.%d.vtr" % i) for i in (0, 1, 2)]
    r = report_many(files)
    H.expect_eq("report FILE... exit status", r.status, 0)
    check_combined(json.loads(r.stdout), outdir)
    text = report_many([outdir], json_output=False).stdout
    H.expect("vramtrace: warning: device 0 is used by 2 processes" in text,
             "no shared-device warning:\n" + text)
    H.expect("device 1 is used by" not in text, "device 1 is not shared:\n" + text)


def case_multi_process_errors():
    outdir = H.tmpdir()
    run_ranks(outdir, (0, 1))
    missing = os.path.join(outdir, "missing.vtr")
    r = report_many([os.path.join(outdir, "job.0.vtr"), missing, os.path.join(outdir, "job.1.vtr")])
    H.expect_eq("exit status with an unreadable dump", r.status, 1)
    H.expect_eq("processes still reported", len(json.loads(r.stdout)["processes"]), 2)
    H.expect("missing.vtr: No such file or directory" in r.stderr, "error line: " + r.stderr)
    empty = H.tmpdir()
    r = report_many([empty])
    H.expect_eq("exit status for a directory without dumps", r.status, 1)
    H.expect_eq("error for a directory without dumps", r.stderr.strip(),
                "vramtrace: %s: no .vtr dumps in this directory" % empty)


SYNC_NS = 2000000   # STANDIN_CUDA_SYNC_NS: each cuMemAlloc and cuMemFree takes 2 ms at least


def case_churn():
    """Allocate/free pairs per call site and the time inside those calls:
    make_temp allocates and frees once per step (STEPS pairs), make_cache
    once (1 pair), leak_step never frees (0 pairs; its allocations' time is
    its own). Each real call takes SYNC_NS at least, so the times have exact
    lower bounds; text, JSON, HTML and watch say the same, with the hint
    for make_temp only."""
    r = usage_run("grow", extra_env={"STANDIN_CUDA_SYNC_NS": str(SYNC_NS)})
    rep = H.report(r.dump)
    churn = rep["churn"]
    H.expect_eq("pairs, call sites", (churn["pairs"], churn["call_sites"]), (STEPS + 1, 2))
    by_fn = {c["frames"][0]["function"]: c for c in churn["sites"]}
    H.expect_eq("churn sites", sorted(by_fn), ["make_cache", "make_temp"])
    H.expect_eq("pairs per site", (by_fn["make_temp"]["pairs"], by_fn["make_cache"]["pairs"]),
                (STEPS, 1))
    H.expect(by_fn["make_temp"]["call_ns"] >= 2 * STEPS * SYNC_NS, by_fn["make_temp"])
    H.expect(by_fn["make_cache"]["call_ns"] >= 2 * SYNC_NS, by_fn["make_cache"])
    H.expect_eq("the total is the sites' sum", churn["call_ns"],
                by_fn["make_temp"]["call_ns"] + by_fn["make_cache"]["call_ns"])
    H.expect_eq("large", (by_fn["make_temp"]["large"], by_fn["make_cache"]["large"]),
                (True, False))
    leak = site(rep, "leak_step")
    H.expect_eq("leak_step pairs", leak["pairs"], 0)
    H.expect(leak["call_ns"] >= STEPS * SYNC_NS, leak)
    H.expect_eq("make_temp's site", site(rep, "make_temp")["pairs"], STEPS)
    text = H._run([H.vramtrace_exe(), "report", r.dump], H.base_env(), H.tmpdir()).stdout
    label = by_fn["make_temp"]["label"]
    H.expect("\nChurn: %d allocate/free pairs at 2 call sites, " % (STEPS + 1) in text, text)
    H.expect("\nvramtrace: %s allocates and frees again and again; each cudaMalloc/cudaFree "
             "pair synchronizes the device: the caching allocator or a pool would avoid it\n"
             % label in text, text)
    H.expect_eq("hint lines", text.count("allocates and frees again and again"), 1)
    html = os.path.join(H.tmpdir(), "r.html")
    H._run([H.vramtrace_exe(), "report", "--html", html, r.dump], H.base_env(), H.tmpdir())
    with open(html) as f:
        page = f.read()
    H.expect('<h2 id="churn">Churn</h2>' in page and "a pool would avoid it" in page, "html churn")
    watch = H._run([H.vramtrace_exe(), "watch", "--once", r.dump], H.base_env(), H.tmpdir()).stdout
    H.expect(any(l.startswith("churn %d allocate/free pairs, " % (STEPS + 1)) and
                 l.endswith("; most: %s (a pool would avoid it)" % label)
                 for l in watch.splitlines()), watch)


if __name__ == "__main__":
    H.main(globals())
