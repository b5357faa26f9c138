#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One report for the ranks of a job (tests/programs/job_ranks.c, a fork
launcher in C, and real torchrun over the stand-ins): per rank its peak,
what it held at the end and what grows; what all ranks share said once;
what one rank does apart called out; which rank ran out of memory first;
dumps of several hosts in one directory."""
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("job_ranks.c")
D = H.c_defines(SRC)
STEPS, HOLD, EXTRA, KEEP, TEMP, OOM = (D["JOB_" + k] for k in (
    "STEPS", "HOLD_BYTES", "EXTRA_BYTES", "KEEP_BYTES", "TEMP_BYTES", "OOM_BYTES"))
MiB = 1 << 20
RANK_VARS = ("RANK", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID")


def label(function, tag):
    return "%s %s:%d" % (function, SRC, H.marker_line(SRC, tag))


def job_env(devices, extra=None):
    env = dict({k: "" for k in RANK_VARS}, STANDIN_CUDA_DEVICES=str(devices))
    env.update(extra or {})
    return env


def report_dir(d, *args):
    r = H._run([H.vramtrace_exe(), "report"] + list(args) + [d], H.base_env(), d)
    H.expect_eq("report DIR exit status", r.status, 0)
    return r.stdout


def job_of(d):
    """The job object of `report --json D`."""
    data = json.loads(report_dir(d, "--json"))
    H.expect(isinstance(data.get("job"), dict), "no job object in the JSON: %r" % data.get("job"))
    return data["job"]


def job_lines(text):
    """The job block: from its heading to the blank line before the next."""
    H.expect("\n== job: " in text, "no job block in\n" + text)
    return text.split("\n== job: ", 1)[1].split("\n\n", 1)[0].splitlines()


def rank_row(rank, pid, host, device, peak, held, leaked, grows):
    return "    %-5s %-8d %-16s %-6s %10s %10s %10s       %s" % (
        rank, pid, host, device, peak, held, leaked, grows)


HEADING = "    %-5s %-8s %-16s %-6s %10s %10s %10s       %s" % (
    "rank", "pid", "host", "device", "peak", "held", "leaked", "grows")


def expect_ranks(job, want):
    """(rank, host, device, peak, held, leaked, growing labels and bytes)."""
    H.expect_eq("job ranks", [(r["rank"], r["host"], r["device"], r["peak_bytes"], r["held_bytes"],
                               r["leaked_bytes"], r["interval"],
                               [(g["label"], g["bytes_per_interval"]) for g in r["growing"]])
                              for r in job["ranks"]], want)


def fork_job(d, mode, n, first, big, extra=None):
    """`job_ranks MODE N FIRST BIG` under vramtrace run, the dumps in D."""
    r = H.run_traced([H.program("job_ranks"), mode, str(n), str(first), str(big)],
                     output=False, run_args=["-o", os.path.join(d, "job.%r.vtr")],
                     extra_env=job_env(n, extra))
    H.expect_program_ok(r)
    return r


def rank_want(rank, host, device, big):
    peak = HOLD + (EXTRA if big else 0) + STEPS * KEEP + TEMP
    leaked = HOLD + (EXTRA + STEPS * KEEP if big else 0)
    return (str(rank), host, device, peak, 0, leaked, "step", [(label("keep", "keep"), KEEP)])


def outliers_want(rank):
    """Rank BIG: the extra bytes it holds at its peak, and what it kept
    per step, kept to the end."""
    return [{"rank": str(rank), "label": label("hold", "hold"), "bytes": HOLD + EXTRA,
             "median_bytes": HOLD, "at": "peak"},
            {"rank": str(rank), "label": label("keep", "keep"), "bytes": STEPS * KEEP,
             "median_bytes": 0, "at": "end"}]


def outlier_lines(rank):
    return ["vramtrace: rank %d: 6.0 MiB more than the median of the other ranks at %s "
            "(10.0 MiB there, median 4.0 MiB)" % (rank, label("hold", "hold")),
            "vramtrace: rank %d: 6.0 MiB more held at the end than the median of the other ranks "
            "at %s (6.0 MiB there, median 0 B)" % (rank, label("keep", "keep"))]


def case_fork_launcher():
    """A launcher in C (no CUDA call of its own) forks ranks 0-2 with RANK
    set; all keep 1 MiB a step at one line, rank 1 holds 6 MiB more at
    another: the job says the growth once for all and rank 1's excess with
    the median of the others; only rank 0's and rank 1's reports follow."""
    d = H.tmpdir()
    r = fork_job(d, "fork", 3, 0, 1)
    host = os.uname().nodename
    job = job_of(d)
    expect_ranks(job, [rank_want(i, host, i, i == 1) for i in range(3)])
    H.expect_eq("shared growth", [(g["label"], g["all_ranks"], g["ranks"],
                                   g["least_bytes_per_interval"], g["most_bytes_per_interval"])
                                  for g in job["growing"]],
                [(label("keep", "keep"), True, ["0", "1", "2"], KEEP, KEEP)])
    H.expect_eq("outliers", job["outliers"], outliers_want(1))
    H.expect_eq("first out of memory", job["first_oom"], None)
    pids = [x["pid"] for x in job["ranks"]]
    want = ["3 ranks on 1 host ==", HEADING]
    for i in range(3):
        peak = "%.1f MiB" % (rank_want(i, host, i, i == 1)[3] / MiB)
        want.append(rank_row(i, pids[i], host, i, peak, "0 B",
                             "%.1f MiB" % (rank_want(i, host, i, i == 1)[5] / MiB),
                             "1.0 MiB per step"))
    want += ["vramtrace: all 3 ranks: growing 1.0 MiB per step at %s" % label("keep", "keep")]
    want += outlier_lines(1)
    for text, what in ((r.stderr, "run's report"), (report_dir(d), "report DIR")):
        H.expect_eq("%s: the job block" % what, job_lines(text), want)
        H.expect_eq("%s: the reports printed" % what,
                    sorted(re.findall(r"^== (\S+): pid \d+, rank (\d+)", text, re.M)),
                    [(os.path.join(d, "job.0.vtr"), "0"), (os.path.join(d, "job.1.vtr"), "1")])
        H.expect("vramtrace: the report of rank 2 is not printed: like rank 0's, nothing in it is "
                 "called out in the job's lines (vramtrace report FILE prints one)\n" in text,
                 "%s: no line for rank 2's report left out:\n%s" % (what, text))
        H.expect(text.index("\n== job: ") < text.index("\n== combined: "),
                 "%s: the job does not open the report" % what)
        combined = text.split("\n== combined: ", 1)[1].split("\n== ", 1)[0]
        H.expect("vramtrace: growing in" not in combined and "\nDevice " not in combined and
                 "\nvramtrace: 3 GPUs used by one rank alone (the job's lines give each rank's "
                 "device)\n" in combined,
                 "%s: the combined block repeats the job's lines:\n%s" % (what, combined))


def case_growth_apart():
    """Three ranks, two of which keep 1 MiB a step: that growth names the
    rank it is not in; three ranks alike: said so."""
    d = H.tmpdir()
    fork_job(d, "lag", 3, 0, 1)
    said = [x for x in job_lines(report_dir(d)) if x.startswith("vramtrace: ")]
    H.expect_eq("the job's lines", said, [
        "vramtrace: ranks 0, 2: growing 1.0 MiB per step at %s (not rank 1)" % label("keep",
                                                                                    "keep")])
    H.expect_eq("growth", [(g["label"], g["all_ranks"], g["ranks"]) for g in job_of(d)["growing"]],
                [(label("keep", "keep"), False, ["0", "2"])])
    d = H.tmpdir()
    fork_job(d, "flat", 3, 0, -1)
    said = [x for x in job_lines(report_dir(d)) if x.startswith("vramtrace: ")]
    H.expect_eq("the job's lines, ranks alike", said, [
        "vramtrace: the 3 ranks are alike: none grows, none holds more than the others at a call "
        "site"])
    text = report_dir(d)
    H.expect_eq("ranks alike: one report", re.findall(r"^== \S+: pid \d+, rank (\d+)", text, re.M),
                ["0"])
    H.expect("vramtrace: the reports of ranks 1, 2 are not printed: like rank 0's, nothing in "
             "them is called out in the job's lines (vramtrace report FILE prints one)\n" in text,
             text)


def case_labels_apart():
    """Two call sites through one helper: where one frame would name both
    alike, the job names a site by its callers too."""
    d = H.tmpdir()
    fork_job(d, "twice", 3, 0, 2)
    again = "%s <- hold_again %s:%d <- rank_main %s:%d <- main %s:%d" % (
        label("hold", "hold"), SRC, H.marker_line(SRC, "hold_again"), SRC,
        H.marker_line(SRC, "twice_call"), SRC, H.marker_line(SRC, "rank_call"))
    H.expect_eq("outliers", [(o["rank"], o["label"], o["at"]) for o in job_of(d)["outliers"]],
                [("2", again, "peak")])


def case_rank_helper():
    """Each of two ranks forks a helper that allocates too, with the rank it
    inherited: four dumps, two ranks (the helpers are part of theirs, not
    ranks of their own); their reports are printed as any process's."""
    d = H.tmpdir()
    fork_job(d, "helper", 2, 0, -1)
    data = json.loads(report_dir(d, "--json"))
    ranks = {p["process"]["pid"]: (p["process"]["ppid"], p["process"]["rank"])
             for p in data["processes"]}
    H.expect_eq("dumps", len(ranks), 4)
    job = data["job"] or {}
    H.expect_eq("the ranks", [(x["rank"], ranks[x["pid"]][1]) for x in job.get("ranks", [])],
                [("0", "0"), ("1", "1")])
    helpers = sorted(pid for pid, (ppid, _) in ranks.items() if ppid in ranks)
    H.expect_eq("helpers: children of the ranks", len(helpers), 2)
    text = report_dir(d)
    printed = sorted(int(x) for x in re.findall(r"^== \S+: pid (\d+), rank \d+", text, re.M))
    H.expect_eq("reports printed: rank 0's (rank 1 is alike) and the helpers'", printed,
                sorted(helpers + [x["pid"] for x in job["ranks"] if x["rank"] == "0"]))


def case_html_charts():
    """report --html FILE DIR: the job's lines, the ranks' table, then one chart per rank, in
    rank order, every chart on the same byte scale (rank 1's peak, the
    highest, and a tenth more)."""
    d = H.tmpdir()
    fork_job(d, "fork", 3, 0, 1)
    page = os.path.join(H.tmpdir(), "job.html")
    r = H._run([H.vramtrace_exe(), "report", "--html", page, d], H.base_env(), d)
    H.expect_eq("report --html FILE DIR: exit status", r.status, 0)
    with open(page) as f:
        html = f.read()
    H.expect_eq("the job's lines", re.findall(r"<li>([^<]*)</li>", html), [
        x[len("vramtrace: "):] for x in
        ["vramtrace: all 3 ranks: growing 1.0 MiB per step at " + label("keep", "keep")] +
        outlier_lines(1)])
    rows = re.findall(r"<tr>(.*?)</tr>", html)
    H.expect_eq("the ranks' table", [re.findall(r"<td[^>]*>([^<]*)</td>", x)[:1] +
                                     re.findall(r"<td[^>]*>([^<]*)</td>", x)[3:]
                                     for x in rows[1:]],
                [[str(i), str(i), "%.1f MiB" % (rank_want(i, "", i, i == 1)[3] / MiB), "0 B",
                  "%.1f MiB" % (rank_want(i, "", i, i == 1)[5] / MiB), "1.0 MiB per step"]
                 for i in range(3)])
    charts = html.split("<svg ")[1:]
    H.expect_eq("charts", [re.search(r'aria-label="([^"]*)"', c).group(1) for c in charts],
                ["live bytes of rank %d over time" % i for i in range(3)])
    top = (HOLD + EXTRA + STEPS * KEEP + TEMP) * 11 // 10
    scale = ["%.1f MiB" % (top // 4 * k / MiB) for k in range(1, 5)]
    for i, c in enumerate(charts):
        H.expect_eq("rank %d: the byte scale" % i,
                    re.findall(r'text-anchor="end">([\d.]+ MiB)</text>', c)[:4], scale)


def case_oom_rank():
    """Three ranks on stand-in GPUs of 64 MiB: rank 2 asks for 96 MiB. The
    job names it as the first (and only) rank out of memory, with its dump."""
    d = H.tmpdir()
    fork_job(d, "oom", 3, 0, 2, {"STANDIN_CUDA_MEMORY": "64M"})
    job = job_of(d)
    oom = job["first_oom"]
    H.expect_eq("first out of memory", (oom["rank"], oom["bytes"], oom["device"], oom["dump"]),
                ("2", OOM, 2, os.path.join(d, "job.2.vtr")))
    text = report_dir(d)
    lines = [x for x in job_lines(text) if "out of memory" in x]
    H.expect_eq("the out-of-memory line", len(lines), 1)
    H.expect(re.fullmatch(r"vramtrace: rank 2 ran out of memory first: 96\.0 MiB refused on "
                          r"device 2, [\d.]+ m?s into its run; its autopsy: in its report below "
                          r"\(%s\)" % re.escape(oom["dump"]), lines[0]), lines[0])
    autopsy = text.split("== %s: pid " % oom["dump"], 1)
    H.expect(len(autopsy) == 2 and "    out of memory: requested 96.0 MiB" in
             autopsy[1].split("\n== ", 1)[0],
             "rank 2's report with its autopsy is not printed:\n" + text)


TRAIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python", "job_train.py")
TRAIN_STEPS = 3


def torchrun():
    """The torch venv's torchrun (tests/torch_env.py); skipped without it."""
    import torch_env
    try:
        python = torch_env.venv_python(H.env_path("VT_BUILD_ROOT", "dir"))
    except torch_env.Unavailable as e:
        raise H.Skip(str(e))
    return [python, "-m", "torch.distributed.run"]


def case_torchrun():
    """Real torchrun --nproc-per-node 4 (gloo, CUDA tensors on four stand-in
    GPUs) under vramtrace run: every rank keeps 1 MiB a step at one line,
    rank 2 also 8 MiB at another. The job names the shared growth once and
    rank 2's as its own; nothing else differs; rank 2's report and one for
    the other ranks follow."""
    d = H.tmpdir()
    r = H.run_traced(torchrun() + ["--standalone", "--nproc-per-node", "4", TRAIN,
                                   str(TRAIN_STEPS)],
                     output=False, run_args=["-o", os.path.join(d, "job.%r.%p.vtr")],
                     extra_env=job_env(4, {"OMP_NUM_THREADS": "1"}))
    H.expect_program_ok(r)
    H.expect_eq("the ranks' output", sorted(r.stdout.splitlines()),
                ["rank %d kept %d %d" % (i, TRAIN_STEPS, TRAIN_STEPS if i == 2 else 0)
                 for i in range(4)])
    common = "main (%s:%d)" % (TRAIN, H.marker_line(TRAIN, "common"))
    extra = "main (%s:%d)" % (TRAIN, H.marker_line(TRAIN, "extra"))
    job = job_of(d)
    H.expect_eq("ranks", [(x["rank"], x["device"], x["interval"],
                           [(g["label"], g["bytes_per_interval"]) for g in x["growing"]])
                          for x in job["ranks"]],
                [(str(i), i, "step", [(common, MiB)] + ([(extra, 8 * MiB)] if i == 2 else []))
                 for i in range(4)])
    H.expect_eq("held and leaked at the end", [(x["held_bytes"], x["leaked_bytes"])
                                               for x in job["ranks"]], 4 * [(0, 0)])
    # the peaks are segments': rank 2's 8 MiB tensors two to a 20 MiB
    # segment (PyTorch's for requests under 10 MiB), beside what every rank has
    peaks = [x["peak_bytes"] for x in job["ranks"]]
    H.expect_eq("peaks", peaks, [peaks[0], peaks[0], peaks[0] + 40 * MiB, peaks[0]])
    H.expect_eq("growth", [(g["label"], g["ranks"]) for g in job["growing"]],
                [(common, ["0", "1", "2", "3"]), (extra, ["2"])])
    H.expect_eq("outliers", job["outliers"], [])
    H.expect_eq("first out of memory", job["first_oom"], None)
    said = [x for x in job_lines(r.stderr) if x.startswith("vramtrace: ")]
    H.expect_eq("the job's lines", said, [
        "vramtrace: all 4 ranks: growing 1.0 MiB per step at " + common,
        "vramtrace: rank 2: growing 8.0 MiB per step at %s (no other rank)" % extra])
    H.expect_eq("the reports printed",
                sorted(re.findall(r"^== \S+: pid \d+, rank (\d+)", r.stderr, re.M)),
                ["0", "2"])


def in_namespace(argv, host, env, d):
    """ARGV as the only process tree of a host named HOST: a UTS namespace
    (its own host name) and a pid namespace (its pids repeat the other
    host's)."""
    prefix = ["unshare", "--uts", "--pid", "--fork", "--mount", "--mount-proc"]
    shell = ["sh", "-c", 'hostname "$0" && exec "$@"', host] + argv
    for p in (prefix, prefix[:1] + ["--user", "--map-root-user"] + prefix[1:]):
        r = H._run(p + shell, env, d)
        if not r.stderr.startswith("unshare: "):
            H.expect_program_ok(r)
            return
    raise H.Skip("cannot make UTS and pid namespaces here: " + r.stderr.strip())


def case_two_hosts():
    """Two hosts write into one directory (a shared filesystem): each runs
    the launcher in namespaces of its own, so both hosts' ranks have pids 3
    and 4. Four ranks on two hosts, none confused with another; the
    processes named with their hosts."""
    d = H.tmpdir()
    env = H.base_env(job_env(2, {"VRAMTRACE_OUTPUT": os.path.join(d, "job.%r.vtr")}))
    env["LD_PRELOAD"] = ":".join(filter(None, [env.get("LD_PRELOAD"), H.vramtrace_lib()]))
    for host, first in (("node-a", 0), ("node-b", 2)):
        in_namespace([H.program("job_ranks"), "fork", "2", str(first), "3"], host, env, d)
    job = job_of(d)
    H.expect_eq("ranks, pids, hosts", [(x["rank"], x["pid"], x["host"], x["device"])
                                       for x in job["ranks"]],
                [("0", 3, "node-a", 0), ("1", 4, "node-a", 1), ("2", 3, "node-b", 0),
                 ("3", 4, "node-b", 1)])
    H.expect_eq("hosts", job["hosts"], 2)
    H.expect_eq("outliers", job["outliers"], outliers_want(3))
    text = report_dir(d)
    H.expect_eq("heading", job_lines(text)[0], "4 ranks on 2 hosts ==")
    H.expect_eq("the reports printed, with their hosts",
                re.findall(r"^== \S+: pid (\d+), rank (\d+) on (\S+), ", text, re.M),
                [("3", "0", "node-a"), ("4", "3", "node-b")])
    processes = text.split("\nProcesses:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    H.expect_eq("processes with their hosts",
                [(x.split()[1], x.split()[3], x.split()[4]) for x in processes],
                [("3", "1", "node-a"), ("4", "1", "node-a"), ("3", "1", "node-b"),
                 ("4", "1", "node-b")])


if __name__ == "__main__":
    H.main(globals())
