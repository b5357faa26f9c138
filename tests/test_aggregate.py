# SPDX-License-Identifier: MIT
"""Aggregate mode (VRAMTRACE_MODE=aggregate, `vramtrace run --aggregate`):
the same answers as events mode where it claims them (tests/programs/
aggregate.c), a dump whose size does not grow with the number of calls,
sample intervals that double, a dump without exit totals, a bad mode."""
import json
import math
import os
import signal
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("aggregate.c")
D = H.c_defines(SRC)
STEPS = D["STEPS"]
LEAKED = STEPS * D["STEP_BYTES"] + D["MANAGED_BYTES"]
PEAK = D["WEIGHTS_BYTES"] + LEAKED + D["TEMP_BYTES"]
AGGREGATE = {"VRAMTRACE_MODE": "aggregate"}
# Only the samples that markers force: what a test expects must not depend
# on how fast a loaded machine runs.
NO_TIMED_SAMPLES = dict(AGGREGATE, VRAMTRACE_SAMPLE_INTERVAL_MS="86400000")

# Record types (src/format.h) and which of them start with a time delta.
SAMPLE, SITES = 11, 12
TIMED = {4, 5, 6, 7, 8, 11, 12, 13}


def traced(args, env=None, status=0, mode="preload"):
    r = H.run_traced([H.program("aggregate")] + list(args), mode=mode, extra_env=env)
    H.expect_program_ok(r, status)
    H.expect_dump(r)
    return r


def cli(*args):
    p = subprocess.run([H.vramtrace_exe()] + list(args), env=H.base_env(), capture_output=True,
                       text=True, timeout=H.TIMEOUT)
    return p


def leak_keys(rep):
    """Each leak as what identifies and measures it, in report order."""
    return [(lk["bytes"], lk["allocations"], lk["api"], lk["kind"], lk["device"],
             tuple((f.get("function"), f.get("line")) for f in H.frames(lk)))
            for lk in H.leaks(rep)]


def peaks(rep):
    return [(p["device"], p["bytes"]) for p in rep["peaks"]]


def check_ground_truth(rep):
    H.check_summary(rep, leaked_bytes=LEAKED, leaked_allocations=STEPS + 1,
                    host_leaked_bytes=D["HOST_BYTES"], peak_bytes=PEAK,
                    allocations=2 * STEPS + 3, frees=STEPS + 1, invalid_frees=0)
    H.check_leak(rep, function="leak_step", source=SRC, tag="step", nbytes=STEPS * D["STEP_BYTES"],
                 api="cudaMalloc", kind="device", allocations=STEPS, caller="sites")
    H.check_leak(rep, function="leak_managed", source=SRC, tag="managed",
                 nbytes=D["MANAGED_BYTES"], api="cudaMallocManaged", kind="managed",
                 caller="sites")
    H.expect_eq("peaks", peaks(rep), [(0, PEAK)])


def aggregate_info(rep):
    H.expect_eq("mode", rep.get("mode"), "aggregate")
    info = rep.get("aggregate")
    H.expect(isinstance(info, dict), '"aggregate" must be an object: %r' % info)
    return info


def case_same_as_events():
    """Leaks per call site, counts, peaks and growth: exactly as events mode."""
    events = H.report(traced(["sites"]).dump)
    H.expect_eq("events-mode dump: mode", events.get("mode"), "events")
    H.expect_eq("events-mode dump: aggregate", events.get("aggregate"), None)
    check_ground_truth(events)
    agg = H.report(traced(["sites"], AGGREGATE).dump)
    check_ground_truth(agg)
    info = aggregate_info(agg)
    H.expect_eq("aggregate.exit_totals", info["exit_totals"], True)
    H.expect_eq("aggregate.exact_peaks", info["exact_peaks"], True)
    H.expect_eq("leaks", leak_keys(agg), leak_keys(events))
    for k in H.SUMMARY_KEYS:
        H.expect_eq("summary.%s" % k, agg["summary"][k], events["summary"][k])
    H.expect_eq("peaks", peaks(agg), peaks(events))
    H.expect(agg["peaks"][0]["holders_time_ns"] is not None, "holders_time_ns must be set")
    grow = [s for s in agg["sites"] if s["growing"]]
    H.expect_eq("growing sites", [s["frames"][0]["function"] for s in grow], ["leak_step"])
    H.expect_eq("leak_step bytes_per_interval", grow[0]["bytes_per_interval"], D["STEP_BYTES"])
    H.expect_eq("growth.marks", agg["growth"]["marks"], events["growth"]["marks"])


def case_same_as_events_other():
    """The other programs' ground truth too: teardown (freed at teardown, of
    arrays and pool memory), rejected and untraced frees, failures."""
    for name in ("teardown", "teardown_arrays", "pools", "errors"):
        runs = {}
        for mode, env in (("events", None), ("aggregate", AGGREGATE)):
            r = H.run_traced([H.program(name)], mode="preload", extra_env=env)
            H.expect_program_ok(r)
            runs[mode] = H.report(r.dump)
        events, agg = runs["events"], runs["aggregate"]
        H.expect_eq("%s: leaks" % name, leak_keys(agg), leak_keys(events))
        for k in H.SUMMARY_KEYS + ("teardown_freed_allocations", "teardown_freed_bytes",
                                   "untraced_frees"):
            H.expect_eq("%s: summary.%s" % (name, k), agg["summary"][k], events["summary"][k])
        H.expect_eq("%s: peaks" % name, peaks(agg), peaks(events))


def case_run_option():
    """`vramtrace run --aggregate`: the text report says what it cannot tell."""
    r = H.run_traced([H.program("aggregate"), "sites"], run_args=["--aggregate"])
    H.expect_program_ok(r)
    H.expect_dump(r)
    H.expect("aggregate-mode dump" in r.stderr, "run's report lacks the aggregate note:\n"
             + r.stderr)
    H.expect("the sample with the most" in r.stderr, "the peak's holders must say they are "
             "a sample's:\n" + r.stderr)
    check_ground_truth(H.report(r.dump))


def case_check():
    """check's limits and suppressions, and run --fail-on-leak: status 23."""
    dump = traced(["sites"], AGGREGATE).dump
    H.expect_eq("check status", cli("check", dump).returncode, 23)
    H.expect_eq("check --max-leaked exact", cli("check", "--max-leaked", str(LEAKED),
                                                dump).returncode, 0)
    H.expect_eq("check --max-leaked-per-site", cli("check", "--max-leaked-per-site",
                                                   str(D["STEP_BYTES"]), dump).returncode, 23)
    supp = os.path.join(os.path.dirname(dump), "vram.supp")
    with open(supp, "w") as f:
        f.write("leak:^leak_step$\nleak:^leak_managed$\n")
    H.expect_eq("check with suppressions", cli("check", "--suppressions", supp,
                                               dump).returncode, 0)
    r = H.run_traced([H.program("aggregate"), "sites"], run_args=["--aggregate", "--fail-on-leak"])
    H.expect_eq("run --aggregate --fail-on-leak status", H.run_status(r), 23)


def read_records(path):
    """(offset, type, payload start, payload end, time ns) of each record."""
    data, records = H.dump_records(path)
    out, time = [], 0
    for start, rtype, p, end in records:
        if rtype in TIMED:
            time += H.varint_at(data, p)[0]
        out.append((start, rtype, p, end, time))
    return data, out


def case_bounded_size():
    """10x the alloc/free pairs, about the same dump (events mode: 10x)."""
    sizes = {}
    for n in (100000, 1000000):
        dump = traced(["pairs", str(n)], AGGREGATE).dump
        sizes[n] = os.path.getsize(dump)
        rep = H.report(dump)
        H.check_summary(rep, allocations=n + 2 * STEPS + 3, frees=n + STEPS + 1,
                        leaked_bytes=LEAKED)
    H.expect(sizes[1000000] < 256 * 1024, "dump of 1M pairs: %d bytes" % sizes[1000000])
    H.expect(sizes[1000000] - sizes[100000] < 32 * 1024,
             "dump sizes grow with the calls: %r" % sizes)


def case_interval_doubling():
    """Samples every 1 ms at first, the interval doubling every 512."""
    first_ns = 1000000
    per = 512
    # a loaded machine wakes the sampler late: run longer until the
    # interval has doubled at least once
    for run_ms in (2500, 10000):
        dump = traced(["busy", str(run_ms)], dict(AGGREGATE, VRAMTRACE_SAMPLE_INTERVAL_MS="1")).dump
        _, records = read_records(dump)
        times = [t for _, rtype, _, _, t in records if rtype == SAMPLE]
        if len(times) > per:
            break
    H.expect(len(times) > per, "only %d samples in a run of %d ms at 1 ms" % (len(times), run_ms))
    for i in range(1, len(times)):
        interval = first_ns << (i // per)
        H.expect(times[i] - times[i - 1] >= interval,
                 "samples %d and %d are %d ns apart, under the interval %d ns"
                 % (i - 1, i, times[i] - times[i - 1], interval))
    span = records[-1][4]
    levels = int(math.log2(span / (per * first_ns) + 1))
    H.expect(len(times) <= per * (levels + 1),
             "%d samples over %d ns: more than %d" % (len(times), span, per * (levels + 1)))


def cut_before_sites(dump):
    data, records = read_records(dump)
    sites = [start for start, rtype, _, _, _ in records if rtype == SITES]
    H.expect_eq("SITES records", len(sites), 1)
    with open(dump, "wb") as f:
        f.write(data[:sites[0]])


def case_no_footer():
    """Without exit totals: the leaks of the last sample, and a note."""
    dump = traced(["sites"], NO_TIMED_SAMPLES).dump
    cut_before_sites(dump)
    rep = H.report(dump)
    info = aggregate_info(rep)
    H.expect_eq("aggregate.exit_totals", info["exit_totals"], False)
    H.expect_eq("aggregate.samples (one per marker)", info["samples"], STEPS)
    # no footer, the writer gone: live at the end of the dump, not leaked
    rep = H.live_view(rep, "unknown")
    # the last sample came before the last marker, with the weights still live
    H.check_summary(rep, leaked_bytes=LEAKED + D["WEIGHTS_BYTES"],
                    leaked_allocations=STEPS + 2, allocations=2 * STEPS + 3, frees=STEPS)
    H.expect_eq("host memory live at the end",
                sum(lk["bytes"] for lk in H.leaks(rep) if lk["kind"] == "host"), D["HOST_BYTES"])
    H.check_leak(rep, function="sites", source=SRC, tag="weights", nbytes=D["WEIGHTS_BYTES"],
                 api="cudaMalloc", kind="device")
    text = cli("report", dump)
    H.expect_eq("report status", text.returncode, 0)
    H.expect("no exit totals in the dump: leaks and counts are those of the last sample"
             in text.stdout, "the text report lacks the note:\n" + text.stdout)


def case_corrupt():
    """A SITES record whose count overruns it costs that record, not the
    report: one warning naming it, and the leaks of the last sample (as
    without exit totals), judged since the process exited."""
    dump = traced(["sites"], NO_TIMED_SAMPLES).dump
    data, records = read_records(dump)
    start, _, payload, _, _ = [r for r in records if r[1] == SITES][0]
    p = payload
    while data[p] & 0x80:   # the time delta
        p += 1
    p += 1
    H.expect(data[p] < 0x80, "site count is one byte")
    with open(dump, "wb") as f:
        f.write(data[:p] + bytes([0x7f]) + data[p + 1:])
    r = cli("report", "--json", dump)
    H.expect_eq("report status", r.returncode, 0)
    H.expect_eq("stderr", r.stderr, "vramtrace: warning: %s: SITES record at offset %d: site "
                "count 127 exceeds the record; dropped\n" % (dump, start))
    rep = json.loads(r.stdout)
    H.expect_eq("disbelieved_records", rep["disbelieved_records"], 1)
    H.expect_eq("aggregate.exit_totals", aggregate_info(rep)["exit_totals"], False)
    H.expect_eq("ending", rep["ending"]["reason"], "exit")
    H.check_summary(rep, leaked_bytes=LEAKED + D["WEIGHTS_BYTES"], leaked_allocations=STEPS + 2)
    H.check_leak(rep, function="leak_step", source=SRC, tag="step", nbytes=STEPS * D["STEP_BYTES"],
                 api="cudaMalloc", kind="device", allocations=STEPS, caller="sites")


def case_format_version():
    """An aggregated dump is format version 2 with flag bit 0 (an events dump
    stays version 1): a reader from before aggregate mode refuses it rather
    than report a run without events; version 1 with the flag is refused."""
    events = traced(["sites"]).dump
    with open(events, "rb") as f:
        H.expect_eq("events dump: version, flags", f.read(16)[8:16], bytes([1, 0, 0, 0] + [0] * 4))
    dump = traced(["sites"], AGGREGATE).dump
    with open(dump, "rb") as f:
        data = f.read()
    H.expect_eq("aggregated dump: version, flags", data[8:16], bytes([2, 0, 0, 0, 1, 0, 0, 0]))
    H.expect_eq("report's format_version", H.report(dump).get("format_version"), 2)
    with open(dump, "wb") as f:
        f.write(data[:8] + bytes([1]) + data[9:])
    r = cli("report", dump)
    H.expect_eq("report status", r.returncode, 1)
    H.expect_eq("error", r.stderr, "vramtrace: %s: aggregate-mode flag in a version 1 dump "
                "at offset 8\n" % dump)


def case_bad_mode():
    """An unknown VRAMTRACE_MODE: one warning, then events mode."""
    r = traced(["sites"], {"VRAMTRACE_MODE": "bogus"})
    warned = [l for l in r.stderr.splitlines() if "VRAMTRACE_MODE" in l]
    H.expect_eq("warnings", warned, ["vramtrace: VRAMTRACE_MODE=bogus is neither events nor "
                                     "aggregate; recording every event"])
    rep = H.report(r.dump)
    H.expect_eq("mode", rep.get("mode"), "events")
    check_ground_truth(rep)
    r = traced(["sites"], dict(AGGREGATE, VRAMTRACE_SAMPLE_INTERVAL_MS="soon"))
    warned = [l for l in r.stderr.splitlines() if l.startswith("vramtrace:")]
    H.expect_eq("interval warnings", len(warned), 1)
    H.expect("VRAMTRACE_SAMPLE_INTERVAL_MS=soon" in warned[0], warned[0])
    check_ground_truth(H.report(r.dump))


def case_exports():
    """folded (leaked, allocated) as in events mode; pprof and timeline work."""
    events = traced(["sites"]).dump
    agg = traced(["sites"], AGGREGATE).dump
    for what in ("leaked", "allocated"):
        e, a = (cli("export", "--format", "folded", "--what", what, d) for d in (events, agg))
        H.expect_eq("folded --what %s status" % what, (e.returncode, a.returncode), (0, 0))
        H.expect(a.stdout.strip(), "folded --what %s is empty" % what)
        H.expect_eq("folded --what %s" % what, a.stdout, e.stdout)
    out = os.path.join(os.path.dirname(agg), "t.pb.gz")
    p = cli("export", "--format", "pprof", "-o", out, agg)
    H.expect_eq("pprof status", p.returncode, 0)
    H.expect(os.path.getsize(out) > 0, "empty pprof profile")
    t = cli("timeline", "--json", agg)
    H.expect_eq("timeline status", t.returncode, 0)
    H.expect_eq("timeline peak", [d["peak_bytes"] for d in json.loads(t.stdout)["devices"]],
                [PEAK])


def case_crash_footer():
    """A fatal signal still writes the exit totals."""
    crasher = os.path.join(H.env_path("RELIABILITY_DIR", "dir"), "crasher")
    crash = H.c_defines(os.path.join(H.source_root(), "tests", "reliability", "crasher.c"))
    env = dict(AGGREGATE)
    if os.environ.get("ASAN_OPTIONS"):
        env["ASAN_OPTIONS"] = os.environ["ASAN_OPTIONS"] + ":handle_segv=0"
    r = H.run_traced([crasher, "segv"], mode="preload", extra_env=env)
    H.expect_eq("crasher status", H.run_status(r), 128 + signal.SIGSEGV)
    H.expect_dump(r)
    rep = H.report(r.dump)
    H.expect_eq("signal", rep.get("signal"), signal.SIGSEGV)
    H.expect_eq("aggregate.exit_totals", aggregate_info(rep)["exit_totals"], True)
    rep = H.live_view(rep, "signal")   # live at the crash, not leaked
    n = crash["CRASH_LEAKS"]
    H.check_summary(rep, leaked_allocations=n,
                    leaked_bytes=sum(crash["CRASH_BASE"] + i * 1000 for i in range(n)),
                    allocations=n + crash["CRASH_PAIRS"], frees=crash["CRASH_PAIRS"])


if __name__ == "__main__":
    H.main(globals())
