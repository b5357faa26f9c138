# SPDX-License-Identifier: MIT
"""vramtrace watch: a live view of a traced process from its growing dump.
The process is tests/programs/watch_steps.c, paused after each command it
is given, so what is live at each watch is known exactly."""
import json
import os
import pty
import re
import select
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402
from stepper import Stepper, line_of, vt  # noqa: E402

MiB = 1 << 20


def watch_json(target, cwd=None):
    r = vt("watch", "--once", "--json", str(target), cwd=cwd)
    H.expect_eq("watch --once --json exit status (stderr: %s)" % r.stderr.strip(), r.status, 0)
    return json.loads(r.stdout)


def same_as_report(w, dump, running, pid):
    """watch's object is report --json's plus "running" and "pid"."""
    H.expect_eq('"running"', w.get("running"), running)
    H.expect_eq('"pid"', w.get("pid"), pid)
    rep = H.report(dump)
    rest = {k: v for k, v in w.items() if k not in ("running", "pid")}
    rest["dump"] = rep["dump"]   # the path as given
    if rest != rep:
        diff = sorted(k for k in set(rep) | set(rest) if rep.get(k) != rest.get(k))
        H.fail("watch --json differs from report --json in %s" % diff)


def site_of(entry):
    f = entry["frames"][0]
    return f["function"], os.path.basename(f["file"] or ""), f["line"]


def check_live(w, live_bytes, allocations, top):
    """Live bytes in all, allocations so far, and the top site (function, bytes)."""
    s = H.summary(w)
    H.expect_eq("live bytes", s["live_at_end_bytes"], live_bytes)
    H.expect_eq("allocations", s["allocations"], allocations)
    lv = w["live_at_end"]
    H.expect(lv, "nothing live: %r" % lv)
    H.expect_eq("top site", (site_of(lv[0]), lv[0]["bytes"]),
                ((top[0], "watch_steps.c", line_of(top[0][-1])), top[1]))


# ---- snapshots of a live process ----

def case_live_once():
    """--once --json at two known points of a running process, by dump and
    by pid; then the finished dump (exit: leaks judged)."""
    st = Stepper()
    try:
        st.do("a a %d" % (3 * MiB), "a a %d" % MiB, "a b %d" % (MiB // 2), "m step1", "oom")
        for target in (st.dump, st.p.pid):
            w = watch_json(target, cwd=st.dir)
            same_as_report(w, st.dump, True, st.p.pid)
            H.expect_eq("ending", w["ending"]["reason"], "running")
            check_live(w, 4 * MiB + MiB // 2, 3, ("site_a", 4 * MiB))
            H.expect_eq("failed allocations", w["summary"]["failed_allocations"], 1)
        st.do("f a", "a c %d" % (8 * MiB), "m step2")
        w = watch_json(st.dump)
        same_as_report(w, st.dump, True, st.p.pid)
        check_live(w, 3 * MiB + MiB // 2 + 8 * MiB, 4, ("site_c", 8 * MiB))
        text = vt("watch", "--once", st.dump).stdout
        H.expect(re.search(r"^ +8\.0 MiB .* site_c \S*watch_steps\.c:%d$" % line_of("c"),
                           text, re.M), text)
        H.expect("running" in text.splitlines()[0], text)
        H.expect("\033" not in text, "escape codes in --once's text: %r" % text)
        st.quit()
    finally:
        st.kill()
    w = watch_json(st.dump)
    same_as_report(w, st.dump, False, st.p.pid)
    H.expect_eq("ending", w["ending"]["reason"], "exit")
    H.expect_eq("leaked", w["summary"]["leaked_bytes"], 3 * MiB + MiB // 2 + 8 * MiB)


def case_growth():
    """The view's growth columns: 1 MiB per marker at a site that grows by
    1 MiB a step, none at one that holds still; the failed allocations."""
    st = Stepper()
    try:
        st.do("a b %d" % (8 * MiB))
        for _ in range(4):
            st.do("a a %d" % MiB, "m step")
        st.do("oom", "oom")
        text = vt("watch", "--once", st.dump).stdout
        st.quit()
    finally:
        st.kill()
    lines = text.splitlines()
    H.expect_eq("counts line", lines[2], "allocations 5  frees 0  failed allocations 2  markers 4")
    H.expect_eq("table header", lines[4].split(), ["live", "per", "marker", "per", "second",
                                                   "call", "site"])
    # sites named by their labels; a rate per second only over 100 ms or more
    H.expect(re.fullmatch(r" +8\.0 MiB +\+0 B +site_b \S*watch_steps\.c:%d"
                          % line_of("b"), lines[5]), lines[5])
    H.expect(re.fullmatch(r" +4\.0 MiB +\+1\.0 MiB +(\+[0-9.]+ [KMG]iB/s)? +site_a "
                          r"\S*watch_steps\.c:%d" % line_of("a"), lines[6]), lines[6])
    H.expect(re.match(r"device 0 +live +12\.0 MiB  peak +12\.0 MiB  [\u2581-\u2588 ]+$", lines[1]),
             lines[1])


def case_finished():
    """A finished dump, stdout not a terminal: one plain line, the verdict, exit 0."""
    st = Stepper()
    try:
        st.do("a a %d" % (2 * MiB), "a b 1000", "oom")
        st.quit()
    finally:
        st.kill()
    r = vt("watch", "--interval", "0.05", st.dump)
    H.expect_eq("exit status (stderr: %s)" % r.stderr, r.status, 0)
    lines = r.stdout.splitlines()
    H.expect_eq("lines", len(lines), 2)
    H.expect(re.fullmatch(r't=[0-9.]+ m?s state=exit device0_live=%d device0_peak=%d failed=1 '
                          r'top_live=%d top_site="site_a \S*watch_steps\.c:%d"'
                          % (2 * MiB + 1000, 2 * MiB + 1000, 2 * MiB, line_of("a")), lines[0]),
             lines[0])
    H.expect_eq("verdict", lines[1],
                "vramtrace watch: process %d exited; leaked 2.0 MiB in 2 allocations from 2 call "
                "sites: vramtrace report %s" % (st.p.pid, st.dump))
    same_as_report(watch_json(st.dump), st.dump, False, st.p.pid)


def case_aggregate():
    """Aggregate mode: what the last sample (taken right before each marker) says."""
    st = Stepper({"VRAMTRACE_MODE": "aggregate"})
    try:
        st.do("a a %d" % (3 * MiB), "a b %d" % MiB, "a b %d" % MiB, "m s1")
        w = watch_json(st.dump)
        H.expect_eq("mode", w["mode"], "aggregate")
        same_as_report(w, st.dump, True, st.p.pid)
        lv = w["live_at_end"]
        H.expect_eq("live sites", [(site_of(x)[0], x["bytes"], x["allocations"]) for x in lv],
                    [("site_a", 3 * MiB, 1), ("site_b", 2 * MiB, 2)])
        st.do("f b", "f b", "m s2")
        lv = watch_json(st.dump)["live_at_end"]
        H.expect_eq("live sites after the frees", [(site_of(x)[0], x["bytes"]) for x in lv],
                    [("site_a", 3 * MiB)])
        st.quit()
    finally:
        st.kill()
    w = watch_json(st.dump)
    same_as_report(w, st.dump, False, st.p.pid)
    H.expect_eq("leaked", w["summary"]["leaked_bytes"], 3 * MiB)


def case_partial_record():
    """A dump whose last record is cut in the middle (the writer was in it):
    read up to the record before, as report reads it, on the next refresh the rest."""
    st = Stepper()
    try:
        st.do("a a %d" % MiB, "a b %d" % (2 * MiB), "a c %d" % (4 * MiB))
        st.quit()
    finally:
        st.kill()
    data, records = H.dump_records(st.dump)
    allocs = [r for r in records if r[1] == 4]
    H.expect_eq("ALLOC records", len(allocs), 3)
    offset, _, start, end = allocs[-1]
    cut = os.path.join(os.path.dirname(st.dump), "cut.vtr")
    mid = start + (end - start) // 2
    cases = [
        # killed while writing it: its type byte (written last) still 0
        (data[:offset] + b"\0" + data[offset + 1:mid] + bytes(4096), 3 * MiB,
         "written data ends at offset %d but non-zero bytes follow" % offset),
        # the file ends in it
        (data[:mid], 3 * MiB,
         "truncated: the record at offset %d is cut off by the end of the file" % offset),
        (data[:end] + bytes(4096), 7 * MiB, "no footer"),
    ]
    for content, live, ending in cases:
        with open(cut, "wb") as f:
            f.write(content)
        w = watch_json(cut)
        same_as_report(w, cut, False, st.p.pid)
        H.expect_eq("live bytes", w["summary"]["live_at_end_bytes"], live)
        H.expect_eq("end", (w["end"], w["complete"]), (ending, False))


def write_over(path, data):
    """DATA written from the start of PATH in place (as a writer fills the
    file it mapped: never shorter than it was)."""
    with open(path, "r+b") as f:
        f.write(data)


def case_starting_dump():
    """A dump found before its writer wrote the header (an empty file), or
    the header without the process's record: looked at again, then read
    as report reads it (was: 'empty file', or an ended process)."""
    st = Stepper()
    try:
        st.do("a a %d" % MiB)
        st.quit()
    finally:
        st.kill()
    data, records = H.dump_records(st.dump)
    header_only = data[:records[0][0]] + bytes(4096)
    for first in (b"", header_only):
        path = os.path.join(os.path.dirname(st.dump), "starting.vtr")
        with open(path, "wb") as f:
            f.write(first)
        later = threading.Timer(0.3, write_over, (path, data))
        later.start()
        try:
            w = watch_json(path)
        finally:
            later.join()
        same_as_report(w, path, False, st.p.pid)
        H.expect_eq("live bytes", w["summary"]["live_at_end_bytes"], MiB)


# ---- refreshing ----

def read_until(fd, out, pattern, deadline):
    """Reads the pty into OUT until PATTERN is in it (False at the deadline or EOF)."""
    while not re.search(pattern, out[0], re.S):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return False
        try:
            data = os.read(fd, 65536)
        except OSError:   # EIO: the other side is closed
            return False
        if not data:
            return False
        out[0] += data.decode("utf-8", "replace")
    return True


def case_pty():
    """On a terminal: redrawn in place (cursor up over the last view, clear
    below), the live values of each step, then a clean exit with the verdict."""
    st = Stepper()
    master, slave = pty.openpty()
    watcher = None
    try:
        st.do("a a %d" % (3 * MiB))
        watcher = subprocess.Popen(H.emulated([H.vramtrace_exe(), "watch", "--interval", "0.05",
                                               str(st.p.pid)]), stdin=slave, stdout=slave,
                                   stderr=subprocess.PIPE, cwd=st.dir, env=H.base_env())
        os.close(slave)
        out = [""]
        deadline = time.monotonic() + H.TIMEOUT
        H.expect(read_until(master, out, r"live +3\.0 MiB.*site_a", deadline), out[0])
        st.do("a b %d" % (5 * MiB))
        H.expect(read_until(master, out, r"live +8\.0 MiB.*5\.0 MiB .*site_b", deadline), out[0])
        st.quit()
        H.expect(read_until(master, out, r"vramtrace watch: process %d exited; leaked 8\.0 MiB"
                            % st.p.pid, deadline), out[0])
        H.expect_eq("watch's exit status", watcher.wait(timeout=H.TIMEOUT), 0)
        H.expect_eq("watch's stderr", watcher.stderr.read(), b"")
        text = out[0].replace("\r\n", "\n")
        frames = text.split("vramtrace watch  watch_steps")
        H.expect(len(frames) >= 3, "expected several views, got %d:\n%r" % (len(frames) - 1, text))
        for prev, frame in zip(frames[1:], frames[2:]):
            n = prev.count("\n")   # each view goes back over the one before it
            H.expect(prev.endswith("\033[J\033[%dA\r" % n),
                     "a view does not end by going back over its %d lines: %r" % (n, prev[-80:]))
        H.expect("state=" not in text, "plain lines on a terminal")
    finally:
        if watcher and watcher.poll() is None:
            watcher.kill()
        os.close(master)
        st.kill()


def objects(text):
    """The JSON objects printed one after another."""
    dec, out, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return out
        obj, i = dec.raw_decode(text, i)
        out.append(obj)


def case_growing():
    """A dump growing by a million events while watched: every event counted
    at each pause (nothing missed), the watch's memory bounded (it grows far
    less than the dump: only what was appended is mapped, 1 MiB at a time)."""
    pairs, bursts, size = 100000, 5, 4096
    st = Stepper()
    try:
        st.do("a a %d" % MiB)
        log = os.path.join(st.dir, "watch.json")
        base = subprocess.Popen(H.emulated([H.vramtrace_exe(), "watch", "--once", st.dump]),
                                stdout=subprocess.DEVNULL, env=H.base_env())
        base_rss = os.wait4(base.pid, 0)[2].ru_maxrss
        size0 = os.path.getsize(st.dump)
        with open(log, "w") as f:
            watcher = subprocess.Popen(H.emulated([H.vramtrace_exe(), "watch", "--json", "--interval",
                                                    "0.02", st.dump]), stdout=f, env=H.base_env())
        for k in range(1, bursts + 1):
            st.do("burst %d %d" % (pairs, size), "m burst%d" % k)
            want = 1 + k * pairs
            deadline = time.monotonic() + H.TIMEOUT
            while True:
                with open(log) as f:
                    text = f.read()
                counts = [o["summary"]["allocations"] for o in objects(text[:text.rfind("\n}\n") + 3])]
                if counts and counts[-1] == want:
                    break
                H.expect(not counts or counts[-1] <= want, "counted %d of %d" % (counts[-1], want))
                H.expect(time.monotonic() < deadline, "the watch never counted %d: %r" % (
                    want, counts[-5:]))
                time.sleep(0.02)
        st.do("f a")
        st.quit()
        _, status, usage = os.wait4(watcher.pid, 0)
        H.expect_eq("watch's exit status", os.waitstatus_to_exitcode(status), 0)
        watcher.returncode = 0
    finally:
        st.kill()
    with open(log) as f:
        objs = objects(f.read())
    last = objs[-1]
    H.expect_eq("final running", last["running"], False)
    H.expect_eq("final counts", (last["summary"]["allocations"], last["summary"]["frees"]),
                (1 + bursts * pairs, 1 + bursts * pairs))
    H.expect_eq("leaked", last["summary"]["leaked_bytes"], 0)
    counts = [o["summary"]["allocations"] for o in objs]
    H.expect(counts == sorted(counts) and len(set(counts)) > bursts,
             "the refreshes did not follow the growth step by step: %r" % counts)
    grown = os.path.getsize(st.dump) - size0
    H.expect(grown > 8 * MiB, "the dump grew by %d bytes only" % grown)
    rss_growth = (usage.ru_maxrss - base_rss) * 1024
    H.expect(rss_growth < grown // 3, "watch's resident memory grew by %d bytes while the dump "
             "grew by %d (baseline %d KiB)" % (rss_growth, grown, base_rss))
    sys.stderr.write("dump grew %d bytes; watch max RSS %d KiB (baseline %d KiB); %d refreshes\n"
                     % (grown, usage.ru_maxrss, base_rss, len(objs)))


# ---- finding processes, bad input ----

def case_list():
    """No argument: the running traced processes with a dump in the working
    directory or VRAMTRACE_OUTPUT's directory; none once they have ended."""
    st = Stepper()
    other = H.tmpdir()
    try:
        st.do("a a 4096")
        r = vt("watch", cwd=st.dir)
        H.expect_eq("exit status", r.status, 0)
        lines = r.stdout.splitlines()
        H.expect_eq("header", lines[0].split(), ["PID", "DUMP", "BYTES", "DUMP", "COMMAND"])
        H.expect_eq("listed", [[l.split()[i] for i in (0, 2, 3)] for l in lines[1:]],
                    [[str(st.p.pid), "./t.vtr", H.program("watch_steps")]])
        env = H.base_env({"VRAMTRACE_OUTPUT": os.path.join(st.dir, "x.%p.vtr")})
        r = vt("watch", cwd=other, env=env)
        H.expect_eq("listed through VRAMTRACE_OUTPUT", [l.split()[0] for l in r.stdout.splitlines()[1:]],
                    [str(st.p.pid)])
        st.quit()
    finally:
        st.kill()
    r = vt("watch", cwd=st.dir)
    H.expect_eq("exit status with none running", r.status, 1)
    H.expect_eq("stdout", r.stdout, "")
    H.expect_eq("stderr", r.stderr, "vramtrace watch: no running traced process has a dump in .\n")


class RunStepper(Stepper):
    """watch_steps under the `vramtrace run` wrapper (self.p), into DIR/t.PID.vtr."""

    def __init__(self):
        self.dir = H.tmpdir()
        self.err = open(os.path.join(self.dir, "run.err"), "w")
        self.p = subprocess.Popen(H.emulated([H.vramtrace_exe(), "run", "-o", "t.%p.vtr", "--",
                                              H.program("watch_steps")]), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.err, cwd=self.dir,
                                  env=H.base_env(), universal_newlines=True)


def case_run_wrapper():
    """watch PID of a `vramtrace run` wrapper (which writes no dump) follows
    the traced process it runs, saying so; the metrics follow every one."""
    st = RunStepper()
    try:
        st.do("a a 4096")
        w = watch_json(st.p.pid, cwd=st.dir)
        child = w["pid"]
        H.expect(child != st.p.pid, "watch followed the wrapper itself: %r" % child)
        H.expect_eq("the dump", os.path.basename(w["dump"]), "t.%d.vtr" % child)
        check_live(w, 4096, 1, ("site_a", 4096))
        r = vt("watch", "--once", str(st.p.pid), cwd=st.dir)
        H.expect_eq("watch PID: exit status", r.status, 0)
        H.expect_eq("watch PID: stderr", r.stderr,
                    "vramtrace watch: process %d writes no dump itself: following its "
                    "descendant %d, the nearest traced one\n" % (st.p.pid, child))
        r = vt("watch", "--once", "--openmetrics", str(st.p.pid), cwd=st.dir)
        H.expect_eq("watch --openmetrics PID: exit status", r.status, 0)
        H.expect_eq("watch --openmetrics PID: stderr", r.stderr,
                    "vramtrace watch: process %d writes no dump itself: following the dumps of "
                    "its 1 traced descendant\n" % st.p.pid)
        H.expect('pid="%d"' % child in r.stdout, r.stdout)
        st.quit()
    finally:
        st.kill()
        st.err.close()


def case_damaged_dir():
    """Old dumps that cannot be read (here: of a newer format version) in the
    directory watched cost one line together, not a warning each."""
    st = Stepper()
    try:
        st.do("a a 4096")
        for i in range(10):
            with open(os.path.join(st.dir, "old%d.vtr" % i), "wb") as f:
                f.write(b"VRAMTRC\0" + (99).to_bytes(4, "little") + bytes(4) + bytes(64))
        r = vt("watch", cwd=st.dir)
        H.expect_eq("exit status", r.status, 0)
        H.expect_eq("listed", [l.split()[0] for l in r.stdout.splitlines()[1:]], [str(st.p.pid)])
        H.expect_eq("stderr", r.stderr, "vramtrace watch: 10 damaged dumps in . left out or read "
                    "in part: ./old0.vtr and 9 more (vramtrace report DUMP says what is wrong)\n")
        r = vt("watch", "--once", "--openmetrics", ".", cwd=st.dir)
        H.expect_eq("--openmetrics exit status", r.status, 0)
        H.expect_eq("--openmetrics stderr", r.stderr,
                    "vramtrace watch: 10 damaged dumps in the directories watched, left out or "
                    "read in part: ./old0.vtr and 9 more (vramtrace report DUMP says what is "
                    "wrong)\n")
        H.expect('pid="%d"' % st.p.pid in r.stdout, r.stdout)
        st.quit()
    finally:
        st.kill()


def case_cli_errors():
    d = H.tmpdir()
    junk = os.path.join(d, "junk.vtr")
    with open(junk, "w") as f:
        f.write("not a dump at all\n")
    empty = os.path.join(d, "empty.vtr")
    open(empty, "w").close()
    cases = [
        (["--interval", "0", junk], 2, "vramtrace watch: --interval needs seconds above 0 "
         "(at most 3600), not '0' (see vramtrace watch --help)\n"),
        (["--top", "x", junk], 2, "vramtrace watch: --top needs a number, not 'x' "
         "(see vramtrace watch --help)\n"),
        (["--bogus"], 2, "vramtrace watch: unknown option '--bogus' (see vramtrace watch --help)\n"),
        ([junk, junk], 2, "vramtrace watch: one PID or DUMP at a time, not '%s' too "
         "(see vramtrace watch --help)\n" % junk),
        ([os.path.join(d, "missing.vtr")], 1, "vramtrace: %s: No such file or directory\n"
         % os.path.join(d, "missing.vtr")),
        ([junk], 1, "vramtrace: %s: not a vramtrace dump\n" % junk),
        ([empty], 1, "vramtrace: %s: empty file\n" % empty),
        (["999999999"], 1, "vramtrace watch: no process 999999999 is running\n"),
        ([str(os.getpid())], 1, "vramtrace watch: process %d writes no dump that can be found "
         "(not among its open files or its descendants', nor in .): is it traced, and has it "
         "made a CUDA call yet?\n" % os.getpid()),
    ]
    for args, status, err in cases:
        r = vt("watch", "--once", *args, cwd=d)
        H.expect_eq("watch %s: exit status" % args, r.status, status)
        H.expect_eq("watch %s: stderr" % args, r.stderr, err)
        H.expect_eq("watch %s: stdout" % args, r.stdout, "")


H.main(globals())
