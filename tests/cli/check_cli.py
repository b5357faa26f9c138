#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CLI tests for vramtrace: check_cli.py CASE VRAMTRACE MKDUMP

Each case builds dumps with mkdump (known contents) in a fresh temporary
directory, runs the vramtrace executable on them and checks its output
exactly. Exit 0 = pass; anything else prints why."""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import harness as H  # noqa: E402  (tests/harness.py: reading dumps)

MiB = 1024 * 1024
VT_REC_ALLOC, VT_REC_PHASE = 4, 25  # format.h's record types
GiB = 1024 * MiB

VRAMTRACE = MKDUMP = WORK = None

# Ground truth of mkdump's "basic" scenario (see scenario_basic in mkdump.c).
BASIC_SUMMARY = {
    # the peak of device 0 (1 + 4 + 16 MiB managed); device 1's is 8 MiB, and
    # the 29 MiB both held at once is no device's peak
    "allocations": 8, "frees": 2, "peak_bytes": 21 * MiB, "peak_time_ns": 60, "peak_device": 0,
    "leaked_bytes": 15 * MiB, "leaked_allocations": 4,
    "host_leaked_bytes": 2 * MiB, "host_leaked_allocations": 1,
    "failed_allocations": 3, "invalid_frees": 2, "untraced_frees": 2,
    "teardown_freed_bytes": 3 * MiB, "teardown_freed_allocations": 1,
}
# (bytes, allocations, api, kind, device, stack id), in report order
BASIC_LEAKS = [
    (8 * MiB, 1, "cuMemAlloc", "device", 1, 2),
    (5 * MiB, 2, "cudaMalloc", "device", 0, 1),
    (2 * MiB, 1, "cuMemCreate", "device", 0, 0),
    (2 * MiB, 1, "cudaMallocHost", "host", -1, 3),
]


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def run(args, env=None, timeout=60, cwd=None):
    p = subprocess.run(args, capture_output=True, timeout=timeout, env=env, cwd=cwd or WORK)
    if p.returncode < 0:
        raise Failure("%s crashed with signal %d\nstderr: %s"
                      % (args, -p.returncode, p.stderr.decode(errors="replace")))
    return p


def mkdump(scenario, name=None, extra=()):
    path = os.path.join(WORK, name or scenario + ".vtr")
    p = subprocess.run([MKDUMP, scenario, path, *extra], capture_output=True, cwd=WORK)
    check(p.returncode == 0, "mkdump %s failed: %s" % (scenario, p.stderr))
    expect_file = path + ".expect.json"
    with open(expect_file) as f:
        return path, json.load(f)


def report_json(path, *opts):
    p = run([VRAMTRACE, "report", "--json", *opts, path])
    check(p.returncode == 0, "report --json %s: status %d, stderr %s"
          % (path, p.returncode, p.stderr))
    return json.loads(p.stdout.decode()), p


def report_text(path, *opts):
    p = run([VRAMTRACE, "report", *opts, path])
    check(p.returncode == 0, "report %s: status %d" % (path, p.returncode))
    return p.stdout.decode(), p


def expect_error(path, *fragments):
    """An unreadable dump: status 1, one line on stderr naming the file."""
    p = run([VRAMTRACE, "report", path])
    err = p.stderr.decode(errors="replace")
    check(p.returncode == 1, "%s: status %d, expected 1 (stderr %r)" % (path, p.returncode, err))
    check(err.count("\n") == 1 and err.startswith("vramtrace: %s: " % path),
          "%s: expected one error line naming the file, got %r" % (path, err))
    for fragment in fragments:
        check(fragment in err, "%s: %r not in %r" % (path, fragment, err))
    check(p.stdout == b"", "no report expected on stdout")
    return err


def frame_keys_ok(report):
    for group in report["leaks"] + report["failed"]:
        for f in group["frames"]:
            for key in ("function", "file", "line", "module"):
                check(key in f, "frame without %r: %r" % (key, f))
            if f["function"] is not None:
                check("+" not in f["function"], "function with offset: %r" % f)


def check_frame(frame, site, inlined=False):
    check(frame["function"] == site["function"], "function %r, expected %r"
          % (frame["function"], site["function"]))
    check(frame["file"] and frame["file"].endswith("mkdump.c"), "file %r" % frame["file"])
    check(frame["line"] == site["line"], "line %r of %s, expected %r"
          % (frame["line"], site["function"], site["line"]))
    check(frame.get("inlined", False) == inlined, "inlined flag of %r" % frame)


# ---- help and flags ----

def case_help():
    for args in (["--help"], ["-h"], ["report", "--help"], ["report", "-h"], ["run", "--help"],
                 ["run", "-h"]):
        p = run([VRAMTRACE, *args])
        out = p.stdout.decode()
        check(p.returncode == 0, "%s: status %d" % (args, p.returncode))
        check(out.startswith("Usage: vramtrace") and "Exit status" in out, "%s: %r" % (args, out))
    p = run([VRAMTRACE])
    check(p.returncode == 2 and b"Usage" in p.stderr, "no arguments: usage on stderr, status 2")


def case_version():
    p = run([VRAMTRACE, "--version"])
    check(p.returncode == 0 and re.match(rb"vramtrace \d+\.\d+", p.stdout), p.stdout)


def case_unknown_flags():
    for args in (["--bogus"], ["bogus"], ["report", "--bogus", "x.vtr"], ["report", "-x", "x"],
                 ["report"], ["report", "--top", "lots", "x"], ["report", "--skip", "-1", "x"],
                 ["report", "--top"], ["run", "--bogus", "--", "true"], ["run"], ["run", "-o"]):
        p = run([VRAMTRACE, *args])
        err = p.stderr.decode()
        check(p.returncode == 2, "%s: status %d, expected 2" % (args, p.returncode))
        check(err.count("\n") == 1 and err.startswith("vramtrace"), "%s: %r" % (args, err))


# ---- reading and analysis ----

def case_basic_json():
    path, expect = mkdump("basic")
    r, p = report_json(path)
    frame_keys_ok(r)
    check(r["complete"] is True and r["end"] == "exit", "complete/end: %r %r"
          % (r["complete"], r["end"]))
    check(r["format_version"] == 1 and r["dump"] == path, "format_version/dump")
    check(r["duration_ns"] == 210, "duration_ns %r (21 timed records, 10 ns apart)"
          % r["duration_ns"])
    check(isinstance(r["vramtrace_version"], str), "vramtrace_version")
    check(r["process"] == {"pid": 4242, "ppid": 1, "exe": "/usr/bin/fake",
                           "argv": ["fake", "--flag"], "hostname": "testhost", "rank": None,
                           "start_time_ns": 1700000000000000000}, "process %r" % r["process"])
    for key, value in BASIC_SUMMARY.items():
        check(r["summary"].get(key) == value, "summary.%s = %r, expected %r"
              % (key, r["summary"].get(key), value))
    got = [(g["bytes"], g["allocations"], g["api"], g["kind"], g["device"], g["stack_id"])
           for g in r["leaks"]]
    check(got == BASIC_LEAKS, "leaks %r\nexpected %r" % (got, BASIC_LEAKS))
    # stack 1: leak_site_a called from main
    frames = r["leaks"][1]["frames"]
    check(len(frames) == 2, "stack 1 frames: %r" % frames)
    check_frame(frames[0], expect["site_a"])
    check_frame(frames[1], expect["main"])
    check(frames[0]["module"] == expect["module"], "module path %r" % frames[0]["module"])
    check(r["leaks"][2]["frames"] == [], "no stack: no frames")
    # failures: grouped by site and size, in order of first occurrence
    failed = [(f["bytes"], f["count"], f["api"], f["device"], f["error"]) for f in r["failed"]]
    check(failed == [(64 * GiB, 2, "cudaMalloc", 0, 2), (1 * GiB, 1, "cuMemAlloc", 1, 2)],
          "failed %r" % failed)
    check(r["failed"][0]["frames"][0]["function"] == "leak_site_a", "failure frames")
    check(p.stderr == b"", "no warnings expected: %r" % p.stderr)


def case_basic_text():
    path, expect = mkdump("basic")
    out, _ = report_text(path)
    lines = out.splitlines()
    check(lines[0] == "vramtrace: 15.0 MiB (15728640 bytes) of device memory leaked in 4 "
          "allocations at 3 call sites (peak 21.0 MiB on device 0, the highest of 2 devices, "
          "8 allocations, 2 frees, 3 failed, 2 invalid frees); page-locked host memory: "
          "peak 2.0 MiB, 2.0 MiB (2097152 bytes) leaked in 1 allocation",
          "summary line %r" % lines[0])
    leaks = [l for l in lines if l.startswith("Leak of")]
    check(leaks == [
        "Leak of 8388608 bytes (8.0 MiB) in 1 allocation via cuMemAlloc on device 1 [device]",
        "Leak of 5242880 bytes (5.0 MiB) in 2 allocations via cudaMalloc on device 0 [device]",
        "Leak of 2097152 bytes (2.0 MiB) in 1 allocation via cuMemCreate on device 0 [device]",
    ], "leak lines %r" % leaks)
    check("Host leak of 2097152 bytes (2.0 MiB) in 1 allocation via cudaMallocHost [host]" in lines,
          "host leak line")
    check("vramtrace: 2.0 MiB (2097152 bytes) of page-locked host memory leaked in 1 allocation"
          in lines, "host summary")
    i = lines.index(leaks[1])
    check(re.fullmatch(r"    #0 leak_site_a \S*mkdump\.c:%d" % expect["site_a"]["line"],
                       lines[i + 1]), "frame line %r" % lines[i + 1])
    check(re.fullmatch(r"    #1 main \S*mkdump\.c:%d" % expect["main"]["line"], lines[i + 2]),
          "frame line %r" % lines[i + 2])
    check(any(l.startswith("Failed allocation of 68719476736 bytes (64.0 GiB) via cudaMalloc on "
                           "device 0 [device]: cudaErrorMemoryAllocation (2), 2 times") for l in lines), "failed line")
    check(any("freed by context teardown" in l and "3145728 bytes" in l for l in lines),
          "teardown note")
    check(not any("partial dump" in l for l in lines), "complete dump called partial")


def case_noleak():
    path, _ = mkdump("noleak")
    out, _ = report_text(path)
    check(out.splitlines()[0].startswith("vramtrace: no leaks"), out)
    r, _ = report_json(path)
    check(r["leaks"] == [] and r["summary"]["leaked_bytes"] == 0 and
          r["summary"]["peak_bytes"] == 3 * MiB and r["summary"]["frees"] == 2, r["summary"])


def case_top():
    path, _ = mkdump("basic")
    r, _ = report_json(path, "--top", "1")
    check(len(r["leaks"]) == 1 and r["leaks_omitted"] == 3, "leaks %r" % r["leaks"])
    check(r["summary"]["leaked_bytes"] == 15 * MiB, "--top changes only what is listed")
    out, _ = report_text(path, "--top", "2")
    check(out.count("Leak of") == 2 and "vramtrace: not shown: 2 more leaking call sites (2 per "
          "section; vramtrace report --top N shows N, --top 0 all)" in out, out)


def case_inlined():
    path, expect = mkdump("basic")
    r, _ = report_json(path)
    frames = r["leaks"][0]["frames"]   # stack 2: inlined_helper inside inlining_site
    check(len(frames) == 3, "frames %r" % frames)
    check_frame(frames[0], expect["inline_helper"], inlined=True)
    check_frame(frames[1], expect["inlining_site"])
    check_frame(frames[2], expect["main"])
    out, _ = report_text(path)
    check(re.search(r"#0 inlined_helper \S*mkdump\.c:\d+ \(inlined\)\n", out), out)


def case_trim():
    path, expect = mkdump("trim")
    r, p = report_json(path)
    frame_keys_ok(r)
    for leak in r["leaks"]:
        check(leak["api"] == "cudaMalloc", "api %r" % leak["api"])
        check_frame(leak["frames"][0], expect["user_alloc"])
        check_frame(leak["frames"][1], expect["main"])
        check(len(leak["frames"]) == 2, "frames %r" % leak["frames"])
    err = p.stderr.decode()
    check(err.count("libcudart.so.13") == 1, "one warning for the missing module: %r" % err)


def case_badmodules():
    path, expect = mkdump("badmodules")
    r, p = report_json(path)
    frame_keys_ok(r)
    frames = r["leaks"][0]["frames"]
    check(len(frames) == 4, "frames %r" % frames)
    f0 = frames[0]
    check(f0["function"] is None and f0["file"] is None and f0["line"] is None and
          f0["module"] == expect["module"] and
          f0["offset"] == expect["site_a"]["address"] - expect["bias"], "frame 0 %r" % f0)
    check(frames[1]["module"] == "/nonexistent/libfoo.so" and frames[1]["offset"] == 0x1000,
          "frame 1 %r" % frames[1])
    check(frames[3]["module"] is None and frames[3]["function"] is None, "frame 3 %r" % frames[3])
    err = p.stderr.decode()
    check(err.count("build id") == 1 and err.count("/nonexistent/libfoo.so") == 1,
          "one warning per module: %r" % err)
    out, _ = report_text(path)
    check(re.search(r"#0 mkdump\+0x[0-9a-f]+\n", out) and "#1 libfoo.so+0x1000" in out and
          "#3 0x10" in out, out)


def case_badmodules_folded():
    """Frames that cannot be symbolized in a folded stack: module+offset,
    or the bare address."""
    path, expect = mkdump("badmodules")
    p = run([VRAMTRACE, "export", "--format", "folded", path])
    check(p.returncode == 0, "export: status %d %s" % (p.returncode, p.stderr))
    lines = p.stdout.decode().splitlines()
    check(len(lines) == 1, "one folded stack: %r" % lines)
    frames = lines[0].rsplit(" ", 1)[0].split(";")
    offset = expect["site_a"]["address"] - expect["bias"]
    check(frames[0] == "0x10" and frames[2] == "libfoo.so+0x1000" and
          frames[3] == "mkdump+0x%x" % offset, "root first, unsymbolized: %r" % frames)


def case_diff_equal_stacks():
    """Two dumps with the same stacks: one line per stack with both counts."""
    path, _ = mkdump("basic")
    other, _ = mkdump("basic", name="basic-again.vtr")
    p = run([VRAMTRACE, "export", "--format", "folded", "--diff", other, path])
    check(p.returncode == 0, "export --diff: status %d %s" % (p.returncode, p.stderr))
    lines = p.stdout.decode().splitlines()
    plain = run([VRAMTRACE, "export", "--format", "folded", path]).stdout.decode().splitlines()
    check(len(lines) == len(plain) and lines, "as many lines as stacks: %r vs %r" % (lines, plain))
    for line, single in zip(lines, plain):
        stack, old, new = line.rsplit(" ", 2)
        check(old == new and single == "%s %s" % (stack, new), "equal counts: %r / %r" %
              (line, single))


def case_check_json():
    """`check --json`: the report as JSON on stdout, the verdict in the status."""
    path, _ = mkdump("basic")
    p = run([VRAMTRACE, "check", "--json", path])
    check(p.returncode == 23, "status %d (expected 23: leaks)" % p.returncode)
    r = json.loads(p.stdout.decode())
    check(r["summary"] == {**r["summary"], **BASIC_SUMMARY}, "summary %r" % r["summary"])
    p = run([VRAMTRACE, "check", "--json", "--max-leaked", "1GiB", "--max-invalid-frees", "2",
             path])
    check(p.returncode == 0 and json.loads(p.stdout.decode())["summary"]["leaked_bytes"] ==
          BASIC_SUMMARY["leaked_bytes"], "within the limit: status %d" % p.returncode)
    # --top: the JSON lists as many sites as the text; the verdict counts all
    p = run([VRAMTRACE, "check", "--json", "--top", "1", path])
    r = json.loads(p.stdout.decode())
    check(p.returncode == 23 and len(r["leaks"]) == 1 and r["leaks_omitted"] == 3 and
          r["summary"]["leaked_bytes"] == BASIC_SUMMARY["leaked_bytes"], "--top 1: %r" % r)
    p = run([VRAMTRACE, "check", "--top", "-1", path])
    check(p.returncode == 2 and b"vramtrace check: --top needs a number, not '-1'" in p.stderr,
          p.stderr)


def usage_error(args, fragment):
    p = run([VRAMTRACE, *args])
    err = p.stderr.decode()
    check(p.returncode == 2 and fragment in err and len(err.strip().splitlines()) <= 2,
          "%r: status %d, stderr %r (expected 2 and %r)" % (args, p.returncode, err, fragment))


def case_check_usage():
    path, _ = mkdump("basic")
    usage_error(["check"], "no dump file given")
    usage_error(["check", "--bogus", path], "unknown option '--bogus'")
    usage_error(["check", "--max-leaked"], "needs a value")
    usage_error(["check", "--max-leaked", "lots", path], "lots")


def case_timeline_usage():
    path, _ = mkdump("basic")
    usage_error(["timeline"], "no dump file given")
    usage_error(["timeline", path, path], "more than one dump file given")
    usage_error(["timeline", "--bogus", path], "unknown option '--bogus'")


def case_strings():
    path, _ = mkdump("strings")
    r, _ = report_json(path)   # json.loads succeeded: valid JSON
    argv = r["process"]["argv"]
    check(argv[0] == 'q"uote\\back' and argv[1] == "ctl\x01\x1f\x7f\ttab\nnl", argv)
    check(argv[2] == "bad\ufffd\ufffdutf8\ufffd" and argv[3] == "ok-\u00e9\u20ac", argv)
    check(r["process"]["exe"] == "/tmp/\ufffd\ufffdweird exe", r["process"]["exe"])


def case_noend():
    # no footer, and no writer identity to check (an older writer's dump):
    # what was allocated is live, not leaked, and the report says why
    path, _ = mkdump("noend")
    r, _ = report_json(path)
    check(r["complete"] is False and r["end"] == "no footer", r["end"])
    check(r["ending"] == {"reason": "unknown", "signal": None, "status": None,
                          "stop_cause": None, "dump_reopened": 0, "leaks_judged": False},
          r["ending"])
    live = dict(BASIC_SUMMARY, leaked_bytes=0, leaked_allocations=0, host_leaked_bytes=0,
                host_leaked_allocations=0, live_at_end_bytes=15 * MiB, live_at_end_allocations=4)
    check(r["summary"] == {**r["summary"], **live}, "summary of a partial dump: %r" % r["summary"])
    check(r["leaks"] == [] and len(r["live_at_end"]) == len(BASIC_LEAKS), r["live_at_end"])
    out, _ = report_text(path)
    check("vramtrace: no footer, and this dump cannot tell whether its process still runs" in out,
          out)
    check("\nLive at the end of the dump: 8388608 bytes (8.0 MiB) in 1 allocation via cuMemAlloc"
          in out, out)


def same_as_basic(scenario):
    path, _ = mkdump(scenario)
    r, _ = report_json(path)
    check(r["complete"] is True, "%s: complete %r (%s)" % (scenario, r["complete"], r["end"]))
    check(r["summary"] == {**r["summary"], **BASIC_SUMMARY}, "%s summary" % scenario)
    check(len(r["leaks"]) == 4, "%s leaks" % scenario)


def case_padded():
    same_as_basic("padded")


def case_unknown_records():
    same_as_basic("unknown-records")


# ---- bad input ----

def case_missing_file():
    expect_error(os.path.join(WORK, "nope.vtr"), "No such file")
    # a directory is read as the set of its *.vtr dumps (several processes)
    expect_error(WORK, "no .vtr dumps in this directory")


def write(name, data):
    path = os.path.join(WORK, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def case_empty_file():
    """A zero-length dump (a process killed in its first moments) is
    reported as such, never refused nor called a kill."""
    path = write("empty.vtr", b"")
    r, _ = report_json(path)
    check(r["ending"]["reason"] == "empty" and r["summary"]["allocations"] == 0, r["ending"])
    check("the process ended before its first record" in report_text(path)[0], "text")


def case_garbage():
    rng = random.Random(7)
    expect_error(write("garbage.vtr", bytes(rng.randrange(256) for _ in range(4096))),
                 "not a vramtrace dump")
    expect_error(write("short.vtr", b"VRA"), "not a vramtrace dump")
    expect_error(write("shorthdr.vtr", b"VRAMTRC\0\1\0"), "truncated header at offset 10")


def case_bad_magic():
    path, _ = mkdump("badmagic")
    expect_error(path, "not a vramtrace dump")


def case_future_version():
    path, _ = mkdump("future")
    expect_error(path, "is newer than this vramtrace reads", "at offset 8")


def case_header_only():
    path, _ = mkdump("header-only")
    r, _ = report_json(path)
    check(r["complete"] is False and r["end"] == "no footer", r)
    check(r["ending"]["reason"] == "empty", r["ending"])
    check(r["process"]["pid"] is None, "no PROCESS record: null pid")


def expect_warned(path, warning, *report_args):
    """A damaged dump is still reported (status 0), with one warning on
    stderr: the record, its offset, what was disbelieved and what was done.
    Returns the JSON report."""
    p = run([VRAMTRACE, "report", "--json", *report_args, path])
    err = p.stderr.decode(errors="replace")
    check(p.returncode == 0, "%s: status %d, expected 0 (stderr %r)" % (path, p.returncode, err))
    expected = "vramtrace: warning: %s: %s\n" % (path, warning)
    check(err == expected, "%s: expected the one warning %r, got %r" % (path, expected, err))
    r = json.loads(p.stdout.decode())
    check(r["disbelieved_records"] == 1, "disbelieved_records %r" % r["disbelieved_records"])
    text = run([VRAMTRACE, "report", path]).stdout.decode()
    check("vramtrace: damaged dump: 1 record disbelieved (dropped or clamped: the warnings say "
          "which); the report is built from the rest" in text, text)
    return r


def case_lying_lengths():
    # a count or length is checked against the record before anything is
    # allocated for it (a huge allocation would say "out of memory"), and
    # costs only its record
    path, _ = mkdump("lying-frames")
    expect_warned(path, "STACK record at offset 16: frame count 4611686018427387904 exceeds the "
                  "record; kept without its frames")
    path, _ = mkdump("lying-string")
    r = expect_warned(path, "PROCESS record at offset 16: exe path 1099511627776 exceeds the "
                      "record; dropped")
    check(r["process"]["pid"] is None, "a dropped PROCESS record: %r" % r["process"])
    path, _ = mkdump("lying-argc")
    r = expect_warned(path, "PROCESS record at offset 16: argc 1125899906842624 exceeds the "
                      "record; kept without the rest of its command line and tail")
    check(r["process"]["pid"] == 1 and r["process"]["exe"] == "/x" and
          r["process"]["argv"] == [], "the PROCESS record's head kept: %r" % r["process"])
    # a record length that is no varint: no record after it can be found
    path, _ = mkdump("lying-varint")
    r = expect_warned(path, "the record at offset 16: corrupt record length; the rest of the "
                      "file is not read")
    check(r["complete"] is False and r["end"] == "the record at offset 16 has a corrupt length: "
          "the rest is not read", r["end"])
    path, _ = mkdump("lying-record")   # a length past the end: cut off, not corrupt
    r, p = report_json(path)
    check(r["complete"] is False and "offset 16" in r["end"] and p.stderr == b"" and
          r["disbelieved_records"] == 0, (r["end"], p.stderr))


def case_undefined_stack():
    # the allocation stands (1 byte leaked), without the stack it named
    path, _ = mkdump("lying-stackref")
    r = expect_warned(path, "ALLOC record at offset 16: undefined stack 9; kept without that "
                      "stack")
    check([(lk["bytes"], lk["frames"]) for lk in r["leaks"]] == [(1, [])], r["leaks"])
    path, _ = mkdump("lying-badfree")
    r = expect_warned(path, "BAD_FREE record at offset 16: undefined stack 7; kept without that "
                      "stack")
    check(r["summary"]["invalid_frees"] == 0 and len(r["invalid_frees"]) == 1,
          (r["summary"], r["invalid_frees"]))


def case_damaged_verdicts():
    """`check` on a damaged dump: what it holds still breaks a limit (23);
    a pass resting on it is no pass (1); either way one line says so."""
    path, _ = mkdump("lying-stackref")
    p = run([VRAMTRACE, "check", path])
    err = p.stderr.decode()
    check(p.returncode == 23, "leak in a damaged dump: status %d (%r)" % (p.returncode, err))
    check("vramtrace: %s: the verdict rests on a damaged dump: 1 record disbelieved (the "
          "warnings say which)\n" % path in err, err)
    p = run([VRAMTRACE, "check", "--max-leaked", "1KiB", path])
    err = p.stderr.decode()
    check(p.returncode == 1, "a pass on a damaged dump: status %d (%r)" % (p.returncode, err))
    check("vramtrace: %s: the verdict rests on a damaged dump: 1 record disbelieved (the "
          "warnings say which): not a pass\n" % path in err, err)
    good, _ = mkdump("noleak")
    p = run([VRAMTRACE, "check", "--max-leaked", "1KiB", good, path])
    check(p.returncode == 1, "with a whole dump beside it: status %d" % p.returncode)
    p = run([VRAMTRACE, "check", good])
    check(p.returncode == 0 and b"damaged" not in p.stderr, (p.returncode, p.stderr))


def case_impossible_time():
    """A time the process's clock never reached (an exit view an hour after
    the END record) is clamped to the next record's, with one warning."""
    path, _ = mkdump("devices-future-usage")
    offset = H.record_offset(path, H.VT_REC_DEVICE_USAGE, -1)  # the exit view
    r = expect_warned(path, "DEVICE_USAGE record at offset %d: time 3600000000000 ns is later "
                      "than the next timed record's (30 ns); time clamped to the next record's"
                      % offset)
    usage = [(u["reason"], u["time_ns"]) for u in r["device_usage"]]
    check(usage == [("exit", 30)], usage)


def case_idle_tail():
    """A process idle for 2 s before it exits: its exit view is 2 s after
    the previous event, on the same clock as the END after it: no doubt."""
    path, _ = mkdump("devices-idle")
    r, p = report_json(path)
    check(p.stderr == b"" and r["disbelieved_records"] == 0, p.stderr)
    usage = [(u["reason"], u["time_ns"]) for u in r["device_usage"]]
    check(usage == [("exit", 2000000020)], usage)
    check(r["summary"]["leaked_bytes"] == 31 * GiB, r["summary"])


def check_every_cut(path):
    """PATH cut after each of its bytes past the header reads as a damaged dump."""
    data = open(path, "rb").read()
    cut = os.path.join(WORK, "cut.vtr")
    for n in range(16, len(data)):
        with open(cut, "wb") as f:
            f.write(data[:n])
        check_damaged(cut, "cut at %d" % n)


def check_damaged(path, what):
    """A damaged dump: a report (exit 0, valid JSON) or one error line (exit 1).
    Returns the report, or None."""
    p = run([VRAMTRACE, "report", "--json", path], timeout=20)
    if p.returncode == 0:
        return json.loads(p.stdout.decode())
    err = p.stderr.decode(errors="replace")
    check(p.returncode == 1, "%s: status %d, stderr %r" % (what, p.returncode, err))
    lines = [l for l in err.splitlines() if not l.startswith("vramtrace: warning:")]
    check(len(lines) == 1 and path in lines[0], "%s: %r" % (what, err))
    return None


def case_behalf():
    """A thread without Python frames of its own allocating for another
    thread (PyTorch's autograd engine for the thread that called
    backward()): that thread's frames in JSON (on_behalf) and text; the
    same native stack without them is another call site. A frame id never
    defined costs that frame, a list shorter than it says costs the list:
    one warning each, the stack and its leak kept. Cut anywhere, the dump
    reads up to its last whole record. (A reader from before on-behalf
    frames skips them: appended fields, like any it does not know.)"""
    path, _ = mkdump("behalf")
    r, _ = report_json(path)
    leaks = {lk["bytes"]: lk for lk in r["leaks"]}
    frames = [("train_step", "train.py", 22), ("<module>", "train.py", 30)]
    behalf = leaks[1 << 20]["on_behalf"]
    check(behalf["label"] == "train_step (train.py:22)", behalf)
    check([(f["function"], f["file"], f["line"]) for f in behalf["frames"]] == frames, behalf)
    check(behalf["python_frames_truncated"] is False, behalf)
    check(leaks[2 << 20]["on_behalf"] is None, leaks[2 << 20])
    text, _ = report_text(path)
    check("    on behalf of the thread that called backward() and waited for it:\n"
          "    #0 train_step (train.py:22)\n    #1 <module> (train.py:30)\n" in text, text)
    folded = run([VRAMTRACE, "export", "--format", "folded", path]).stdout.decode()
    check("<module> (train.py:30);train_step (train.py:22);[on its behalf, another thread];"
          in folded, folded)
    html_path = os.path.join(WORK, "behalf.html")
    run([VRAMTRACE, "report", "--html", html_path, path])
    html = open(html_path, encoding="utf-8").read()
    check('<span class="loc">on behalf of</span> <code class="site">train_step (train.py:22)'
          "</code>" in html and "on behalf of the thread that called backward()" in html, html)
    path, _ = mkdump("behalf-undefined")
    r = expect_warned(path, "PYSTACK record at offset %d: Python frame 9 is not defined"
                      "; that Python frame left out" % H.record_offset(path, H.VT_REC_PYSTACK))
    behalf = {lk["bytes"]: lk for lk in r["leaks"]}[1 << 20]["on_behalf"]
    check([(f["function"], f["file"], f["line"]) for f in behalf["frames"]] == frames[:1], behalf)
    path, _ = mkdump("behalf-short")
    r = expect_warned(path, "PYSTACK record at offset %d: on-behalf Python frame count 3 exceeds "
                      "the record; kept without the frames of the thread it worked for"
                      % H.record_offset(path, H.VT_REC_PYSTACK))
    # without its on-behalf frames, stack 1 shows what stack 2 does: one call site
    check([(lk["bytes"], lk["allocations"], lk["on_behalf"]) for lk in r["leaks"]]
          == [(3 << 20, 2, None)], r["leaks"])
    check_every_cut(path)


def case_truncated_every_offset():
    path, _ = mkdump("basic")
    data = open(path, "rb").read()
    cut = os.path.join(WORK, "cut.vtr")
    for n in range(len(data)):
        with open(cut, "wb") as f:
            f.write(data[:n])
        r = check_damaged(cut, "cut at %d" % n)
        if r:
            check(r["complete"] is False, "cut at %d of %d called complete" % (n, len(data)))
        else:
            check(n < 16, "cut at %d: a whole-record prefix must read" % n)


def case_bit_flips():
    path, _ = mkdump("basic")
    data = bytearray(open(path, "rb").read())
    rng = random.Random(12345)
    flipped = os.path.join(WORK, "flipped.vtr")
    # A fixed, seeded set (the fuzzer in tests/fuzz explores further).
    for n in range(500):
        damaged = bytearray(data)
        for _ in range(rng.choice((1, 1, 2, 3))):
            damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
        with open(flipped, "wb") as f:
            f.write(damaged)
        check_damaged(flipped, "flip #%d" % n)


def case_big_dump():
    n = 1000000
    path, _ = mkdump("big", extra=[str(n)])
    r, _ = report_json(path)
    s = r["summary"]
    check(s["allocations"] == n and s["frees"] == n - n // 10, s)
    check(s["leaked_allocations"] == n // 10 and s["leaked_bytes"] == 4096 * (n // 10), s)


def case_tensors():
    """Tensors inside a segment (torchTensorAlloc): the segment is the
    device's view (peak 20 MiB, not 28), the tensor still live is a leak of
    its own, the one freed is gone (its address the segment's: a key space
    of its own, the segment stays)."""
    path, _ = mkdump("tensors")
    r, _ = report_json(path)
    check(r["summary"]["peak_bytes"] == 20 * MiB, "peak %r" % r["summary"]["peak_bytes"])
    leaks = sorted((lk["bytes"], lk["allocations"], lk["api"]) for lk in r["leaks"])
    check(leaks == [(4 * MiB, 1, "torchTensorAlloc"), (20 * MiB, 1, "cudaMalloc")],
          "leaks %r" % leaks)
    check(r["frameworks"] == [{"name": "PyTorch", "version": "2.15", "tensors_traced": True}],
          "frameworks %r" % r["frameworks"])
    text, _ = report_text(path)
    check("not verified" not in text, text)


def case_cache_segments_named():
    """A segment the framework's allocator named (CACHE_SEGMENT) is its
    cache: the growth is said once, at the tensors kept in it (1 MiB a
    step), not again at the segments (2 MiB a step); segments no record
    names grow as what they are (segments only: a torch not verified)."""
    def growing(scenario):
        r, _ = report_json(mkdump(scenario)[0])
        return sorted((s["api"], s["bytes_per_interval"]) for s in r["sites"] if s["growing"])
    check(growing("cache-grows") == [("torchTensorAlloc", 1 * MiB)], growing("cache-grows"))
    check(growing("cache-grows-unnamed") == [("cudaMalloc", 2 * MiB), ("torchTensorAlloc", 1 * MiB)],
          growing("cache-grows-unnamed"))


def case_attached():
    """A dump begun by vramtrace attach: what was held before (the driver's
    view) is said and attributed to no site; the route not reached is
    listed; the free of memory from before is one of memory allocated
    before attach; detached, what is held is live, not leaked. Cut at
    every offset, it reads up to its last whole record."""
    path, _ = mkdump("attached")
    r, _ = report_json(path)
    check(r["attach"] == {"time_ns": r["attach"]["time_ns"], "held_before": [
        {"device": 0, "bytes": 3 * MiB, "source": "driver", "free_bytes": 1021 * MiB,
         "total_bytes": 1024 * MiB}], "not_seen": ["the driver functions libcudart.so.13 fetched"]},
          "attach %r" % r["attach"])
    check(r["ending"]["reason"] == "detached" and r["leaks"] == [], r["ending"])
    check([lk["bytes"] for lk in r["live_at_end"]] == [1 * MiB], r["live_at_end"])
    text, _ = report_text(path)
    for line in ("3.0 MiB (3145728 bytes) held on device 0 before attach (the driver: used on "
                 "the device)",
                 "vramtrace: allocations through the driver functions libcudart.so.13 fetched are "
                 "not seen after attach",
                 "vramtrace: note: 1 free of memory allocated before attach"):
        check(line in text, "%r not in:\n%s" % (line, text))
    check_every_cut(path)


def case_attached_short():
    """An ATTACH record whose device list is shorter than it says: dropped,
    one warning; the report goes on without it."""
    path, _ = mkdump("attached-short")
    r = expect_warned(path, "ATTACH record at offset %d: bad device; dropped"
                      % H.record_offset(path, 24))
    check(r["attach"] is None, r["attach"])


def case_phases():
    """PHASE records name the NVTX range of the ALLOCs that give its id: the
    growing site says "forward", the one made outside any range none; a
    phase never defined, or of id 0, costs its record one warning; a cut
    dump reads up to its last whole record."""
    path, _ = mkdump("phases")
    r, _ = report_json(path)
    phases = sorted((s["growing"], s["peak_live_bytes"], s["phase"]) for s in r["sites"])
    check(phases == [(False, 4 * MiB, None), (True, 10 * MiB, "forward")], phases)
    text, _ = report_text(path)
    check("[device]  during forward\n" in text, text)
    undefined, _ = mkdump("phases-undefined")
    offset = H.record_offset(undefined, VT_REC_ALLOC, 1)
    r = expect_warned(undefined, "ALLOC record at offset %d: undefined phase 2; kept without that "
                      "phase" % offset)
    check([s["phase"] for s in r["sites"] if s["growing"]] == ["forward"], r["sites"])
    zero, _ = mkdump("phases-zero")
    expect_warned(zero, "PHASE record at offset %d: phase id 0; dropped"
                  % H.record_offset(zero, VT_REC_PHASE))
    check_every_cut(path)


def case_framework_unverified():
    """A torch release the tracer did not verify: the report's first line."""
    path, _ = mkdump("tensors-unverified")
    text, _ = report_text(path)
    first = text.splitlines()[0]
    check(first == "vramtrace: PyTorch 9.9 not verified: segments only (the tensors in its cache "
          "are not traced; vramtrace run --pytorch-tensors traces each one)", first)
    r, _ = report_json(path)
    check(r["frameworks"] == [{"name": "PyTorch", "version": "9.9", "tensors_traced": False}],
          "frameworks %r" % r["frameworks"])


def case_framework_bad_state():
    """A FRAMEWORK record of a state this version does not know: dropped,
    one warning."""
    path, _ = mkdump("tensors-badstate")
    r = expect_warned(path, "FRAMEWORK record at offset %d: unknown framework state 7; dropped"
                      % H.record_offset(path, 22))
    check(r["summary"]["peak_bytes"] == 20 * MiB, "peak %r" % r["summary"]["peak_bytes"])


def report_on_terminal(path, delay):
    """vramtrace report PATH with stderr on a pseudo-terminal (stdout a pipe):
    (status, what the terminal showed)."""
    import pty
    master, slave = pty.openpty()
    env = dict(os.environ, VRAMTRACE_PROGRESS_DELAY=delay)
    p = subprocess.Popen([VRAMTRACE, "report", path], stdout=subprocess.DEVNULL,
                         stderr=slave, env=env)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the last writer closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return p.wait(timeout=300), shown.decode(errors="replace")


def case_progress_terminal():
    """Reading a dump shows "vramtrace: reading PATH: N%" on a terminal once
    VRAMTRACE_PROGRESS_DELAY has passed, then clears the line."""
    path, _ = mkdump("big", extra=["1000000"])
    status, shown = report_on_terminal(path, "0")
    check(status == 0, "report status %d: %r" % (status, shown))
    check(re.search(r"\rvramtrace: reading %s: +\d+%%" % re.escape(path), shown),
          "no progress line on the terminal: %r" % shown[:300])
    check(shown.endswith("\r\x1b[K"), "the progress line was not cleared: %r" % shown[-40:])


def case_progress_quiet():
    """No progress line when stderr is not a terminal, nor on a terminal
    before the delay has passed."""
    path, _ = mkdump("big", extra=["1000000"])
    p = run([VRAMTRACE, "report", path], env=dict(os.environ, VRAMTRACE_PROGRESS_DELAY="0"))
    check(p.returncode == 0 and p.stderr == b"", "stderr not a terminal: %r" % p.stderr[:200])
    status, shown = report_on_terminal(path, "3600")
    check(status == 0 and shown == "", "terminal, delay not reached: %r" % shown[:200])


# ---- run ----

def run_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "VRAMTRACE_OUTPUT")}
    env.update(extra)
    return env


def case_run_exit_status():
    p = run([VRAMTRACE, "run", "--", "sh", "-c", "exit 7"], env=run_env())
    check(p.returncode == 7, "status %d: %r" % (p.returncode, p.stderr))
    p = run([VRAMTRACE, "run", "true"], env=run_env())
    check(p.returncode == 0, "status %d: %r" % (p.returncode, p.stderr))


def case_run_signal():
    p = run([VRAMTRACE, "run", "--", "sh", "-c", "kill -TERM $$"], env=run_env())
    check(p.returncode == 128 + 15, "status %d" % p.returncode)
    p = run([VRAMTRACE, "run", "--", "sh", "-c", "kill -INT $$"], env=run_env())
    check(p.returncode == 128 + 2, "status %d" % p.returncode)


def case_run_exec_failure():
    p = run([VRAMTRACE, "run", "--", "/nonexistent/program", "x"], env=run_env())
    err = p.stderr.decode()
    check(p.returncode == 127, "status %d" % p.returncode)
    check(err == "vramtrace: /nonexistent/program: No such file or directory\n", err)


def case_run_double_preload():
    p = run([VRAMTRACE, "run", "--", "true"], env=run_env(LD_PRELOAD="/x/libvramtrace.so"))
    # ld.so complains that it cannot preload the made-up path: not ours
    err = "".join(l for l in p.stderr.decode().splitlines(True) if "ld.so" not in l)
    check(p.returncode == 2 and err.count("\n") == 1 and "LD_PRELOAD" in err, err)


def case_run_report():
    out = os.path.join(WORK, "out.%p.vtr")
    p = run([VRAMTRACE, "run", "-o", out, "--fail-on-leak", "--", MKDUMP, "--atomic", "basic",
             out], env=run_env())
    err = p.stderr.decode()
    check(p.returncode == 23, "status %d with --fail-on-leak: %r" % (p.returncode, err))
    m = re.search(r"^vramtrace: dump written to (.*)$", err, re.M)
    check(m and re.fullmatch(re.escape(WORK) + r"/out\.\d+\.vtr", m.group(1)), err)
    check("Leak of 8388608 bytes (8.0 MiB) in 1 allocation via cuMemAlloc" in err, err)
    # the file at -o is replaced, and without --fail-on-leak the status is the command's
    fixed = os.path.join(WORK, "fixed.vtr")
    write("fixed.vtr", b"old contents")
    p = run([VRAMTRACE, "run", "-o", fixed, "--", MKDUMP, "--atomic", "noleak", fixed],
            env=run_env())
    check(p.returncode == 0 and b"vramtrace: no leaks" in p.stderr, p.stderr)
    p = run([VRAMTRACE, "run", "-o", fixed, "--fail-on-leak", "--", MKDUMP, "--atomic", "noleak",
             fixed], env=run_env())
    check(p.returncode == 0, "no leak: status %d" % p.returncode)


def case_run_json():
    # the JSON alone on stdout (the program printed nothing there)
    out = os.path.join(WORK, "j.vtr")
    p = run([VRAMTRACE, "run", "--json", "-o", out, "--", MKDUMP, "--atomic", "basic", out],
            env=run_env())
    check(p.returncode == 0, "status %d" % p.returncode)
    r = json.loads(p.stdout.decode())
    check(r["summary"]["leaked_bytes"] == 15 * MiB and r["dump"] == out, r["summary"])
    check(len(r["leaks"]) == 4 and r["leaks_omitted"] == 0, "leaks %r" % r["leaks"])
    # --top: as many sites in the JSON (stdout and --json-output) as in the text
    listing = os.path.join(WORK, "j.json")
    p = run([VRAMTRACE, "run", "--json", "--json-output", listing, "--top", "1", "-o", out, "--",
             MKDUMP, "--atomic", "basic", out], env=run_env())
    with open(listing) as f:
        written = json.load(f)
    for r in (json.loads(p.stdout.decode()), written):
        check(p.returncode == 0 and len(r["leaks"]) == 1 and r["leaks_omitted"] == 3 and
              r["summary"]["leaked_bytes"] == 15 * MiB, "--top 1: %r" % r["leaks"])
    p = run([VRAMTRACE, "run", "--top", "x", "--", "true"])
    check(p.returncode == 2 and b"vramtrace run: --top needs a number, not 'x'" in p.stderr,
          p.stderr)


def case_run_default_name():
    # the library's default name: vramtrace.<exe>.<pid>.vtr in the working directory
    sub = os.path.join(WORK, "cwd")
    os.mkdir(sub)
    p = run([VRAMTRACE, "run", "--", MKDUMP, "--atomic", "basic", "vramtrace.mkdump.%p.vtr"],
            env=run_env(), cwd=sub)
    err = p.stderr.decode()
    m = re.search(r"^vramtrace: dump written to %s/(vramtrace\.mkdump\.(\d+)(\.\d+)?\.vtr)$"
                  % re.escape(sub), err, re.M)
    check(p.returncode == 0 and m, err)
    check("Leak of" in err or "no leaks" in err, err)


def case_run_env_output():
    out = os.path.join(WORK, "env.%p.vtr")
    p = run([VRAMTRACE, "run", "--", MKDUMP, "--atomic", "noleak", out],
            env=run_env(VRAMTRACE_OUTPUT=out))
    err = p.stderr.decode()
    m = re.search(r"^vramtrace: dump written to (.*)$", err, re.M)
    check(p.returncode == 0 and m and re.fullmatch(re.escape(WORK) + r"/env\.\d+\.vtr",
                                                   m.group(1)), err)
    check("vramtrace: no leaks" in err, err)


def main():
    global VRAMTRACE, MKDUMP, WORK
    if sys.argv[1:] == ["--list"]:   # the cases meson registers (tests/list_cases.py)
        print("\n".join(name[5:].replace("_", "-") for name, func in globals().items()
                        if name.startswith("case_") and callable(func)))
        return
    if len(sys.argv) != 4:
        sys.exit("usage: check_cli.py CASE VRAMTRACE MKDUMP")
    case, VRAMTRACE, MKDUMP = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    func = globals().get("case_" + case.replace("-", "_"))
    if not func:
        sys.exit("unknown case %s" % case)
    with tempfile.TemporaryDirectory(prefix="vramtrace-cli-") as work:
        WORK = os.path.realpath(work)
        try:
            func()
        except Failure as e:
            print("FAIL %s: %s" % (case, e))
            sys.exit(1)
    print("ok %s" % case)


if __name__ == "__main__":
    main()
