# SPDX-License-Identifier: MIT
"""vramtrace watch's metrics for Prometheus (--openmetrics, --openmetrics-file,
--listen) and `vramtrace gpus --openmetrics`: the exposition is what
promtool accepts, its values are the report's, a real Prometheus scrapes it
(directly and through node_exporter's textfile collector), its series stay
bounded. The traced process is tests/programs/watch_steps.c (test_watch.py's
Stepper): what is live at each look is known exactly. Every server a case
starts (watch --listen, node_exporter, Prometheus) is stopped by the case."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402
from stepper import SRC, Stepper, line_of, vt  # noqa: E402

MiB = 1 << 20
FAMILIES = {  # name: type
    "vramtrace_running": "gauge",
    "vramtrace_device_live_bytes": "gauge",
    "vramtrace_device_peak_bytes": "gauge",
    "vramtrace_allocations_total": "counter",
    "vramtrace_frees_total": "counter",
    "vramtrace_failed_allocations_total": "counter",
    "vramtrace_invalid_frees_total": "counter",
    "vramtrace_site_live_bytes": "gauge",
    "vramtrace_site_growth_bytes_per_second": "gauge",
}
PROCESS_LABELS = ["host", "job", "process", "pid", "rank"]
DEVICE_LABELS = PROCESS_LABELS + ["device", "gpu_uuid"]
SITE_LABELS = DEVICE_LABELS + ["site", "api"]


def site_name(tag):
    """The site label of watch_steps.c's site_TAG: its function, file (as
    every view shows it: absolute, the tests run elsewhere) and line."""
    return "site_%s %s:%d" % (tag, os.path.normpath(SRC), line_of(tag))


def tool(name):
    path = shutil.which(name)
    if not path:
        raise H.Skip("no %s (Debian's prometheus / prometheus-node-exporter packages: "
                     "tools/install-deps.sh installs them)" % name)
    return path


def promtool_check(text):
    r = subprocess.run([tool("promtool"), "check", "metrics"], input=text, capture_output=True,
                       universal_newlines=True, timeout=H.TIMEOUT)
    H.expect_eq("promtool check metrics (output: %s%s)\n%s" % (r.stdout, r.stderr, text),
                r.returncode, 0)
    H.expect_eq("promtool's complaints", r.stdout + r.stderr, "")


LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """{family: (type, help)}, [(name, {label: value}, value)], checking the
    layout: each family's HELP and TYPE once, its samples right under them."""
    families, samples, current = {}, [], None
    lines = text.split("\n")
    H.expect_eq("the last lines", lines[-2:], ["# EOF", ""])
    for line in lines[:-2]:
        if line.startswith("# HELP "):
            name, help_ = line[7:].split(" ", 1)
            H.expect(name not in families, "family %s twice" % name)
            families[name] = [None, help_]
            current = name
        elif line.startswith("# TYPE "):
            name, type_ = line[7:].split(" ")
            H.expect_eq("TYPE after HELP", name, current)
            families[name][0] = type_
        else:
            m = re.fullmatch(r"([a-z_]+)\{(.*)\} (\S+)", line)
            H.expect(m, "not a sample line: %r" % line)
            H.expect_eq("sample of the family above", m.group(1), current)
            labels = dict(LABEL.findall(m.group(2)))
            samples.append((m.group(1), labels, float(m.group(3))))
    return {k: tuple(v) for k, v in families.items()}, samples


def series(samples, name, **match):
    return [(labels, v) for n, labels, v in samples
            if n == name and all(labels.get(k) == w for k, w in match.items())]


def the_value(samples, name, **match):
    found = series(samples, name, **match)
    H.expect_eq("series %s%r" % (name, match), len(found), 1)
    return found[0][1]


def exposition(*args, cwd=None):
    r = vt("watch", "--once", "--openmetrics", *[str(a) for a in args], cwd=cwd)
    H.expect_eq("watch --once --openmetrics exit status (stderr: %s)" % r.stderr.strip(),
                r.status, 0)
    H.expect_eq("stderr", r.stderr, "")
    return r.stdout


def check_against_report(text, dump, pid, running, job=""):
    """The exposition's values are the report's (live bytes, counts, the top site)."""
    promtool_check(text)
    families, samples = parse(text)
    H.expect_eq("families", {k: v[0] for k, v in families.items()}, FAMILIES)
    rep = H.report(dump)
    s = rep["summary"]
    who = {"pid": str(pid), "job": job, "process": "watch_steps"}
    H.expect_eq("running", the_value(samples, "vramtrace_running", **who), 1 if running else 0)
    for name, key in (("allocations", "allocations"), ("frees", "frees"),
                      ("failed_allocations", "failed_allocations"),
                      ("invalid_frees", "invalid_frees")):
        H.expect_eq(name, the_value(samples, "vramtrace_%s_total" % name, **who), s[key])
    live = series(samples, "vramtrace_device_live_bytes", **who)
    H.expect_eq("live bytes, all devices", sum(v for _, v in live), s["live_at_end_bytes"])
    H.expect_eq("peak", max(v for _, v in series(samples, "vramtrace_device_peak_bytes", **who)),
                s["peak_bytes"])
    for labels, _ in live:
        H.expect_eq("device labels", sorted(labels), sorted(DEVICE_LABELS))
        H.expect(re.fullmatch(r"GPU-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}",
                              labels["gpu_uuid"]), labels)
    top = (rep["live_at_end"] or rep["leaks"])[0]   # leaks: of a process that has ended
    f = top["frames"][0]
    sites = series(samples, "vramtrace_site_live_bytes", **who)
    H.expect(sites, "no site series")
    H.expect_eq("top site", (sites[0][0]["site"], sites[0][0]["api"], sites[0][1]),
                ("%s %s:%d" % (f["function"], f["file"], f["line"]), top["api"], top["bytes"]))
    H.expect_eq("the report's label of the top site", top["label"], sites[0][0]["site"])
    H.expect_eq("site labels", sorted(sites[0][0]), sorted(SITE_LABELS))
    return samples


# ---- one snapshot ----

def case_once():
    """--once --openmetrics of a running process, by dump and by pid, then
    of the finished dump: promtool accepts it, the values are the report's,
    job is the process's SLURM_JOB_ID."""
    st = Stepper({"SLURM_JOB_ID": "4242", "RANK": "3"})
    try:
        st.do("a a %d" % (3 * MiB), "a a %d" % MiB, "a b %d" % (MiB // 2), "f b",
              "a b %d" % (MiB // 4), "m step1", "oom")
        for target in (st.dump, st.p.pid):
            samples = check_against_report(exposition(target, cwd=st.dir), st.dump, st.p.pid,
                                           True, "4242")
            H.expect_eq("rank", {labels["rank"] for _, labels, _ in samples}, {"3"})
            H.expect_eq("sites", [(l["site"], v) for l, v in
                                  series(samples, "vramtrace_site_live_bytes")],
                        [(site_name("a"), 4 * MiB), (site_name("b"), MiB // 4)])
            H.expect_eq("failed", the_value(samples, "vramtrace_failed_allocations_total"), 1)
        st.quit()
    finally:
        st.kill()
    # the process has ended: its environment is gone, so is the job
    check_against_report(exposition(st.dump), st.dump, st.p.pid, False, "")


def case_job_label():
    """job: SLURM_JOB_ID first, then POD_NAME, then HOSTNAME where
    KUBERNETES_SERVICE_HOST is set (empty values count as unset), else
    empty: from the process's own environment, not the watch's."""
    cases = [
        ({"SLURM_JOB_ID": "12", "POD_NAME": "p", "KUBERNETES_SERVICE_HOST": "10.0.0.1"}, "12"),
        ({"POD_NAME": "train-0", "KUBERNETES_SERVICE_HOST": "10.0.0.1", "HOSTNAME": "h"},
         "train-0"),
        ({"KUBERNETES_SERVICE_HOST": "10.0.0.1", "HOSTNAME": "train-1-x7z"}, "train-1-x7z"),
        ({"HOSTNAME": "not-a-pod"}, ""),
    ]
    scheduler = ("SLURM_JOB_ID", "POD_NAME", "KUBERNETES_SERVICE_HOST", "HOSTNAME")
    for env, job in cases:
        st = Stepper(dict({k: "" for k in scheduler}, **env))   # empty: unset (the CI's own)
        try:
            st.do("a a 4096")
            watch_env = H.base_env({"SLURM_JOB_ID": "the watch's own"})
            r = vt("watch", "--once", "--openmetrics", st.dump, env=watch_env)
            H.expect_eq("exit status (stderr: %s)" % r.stderr, r.status, 0)
            _, samples = parse(r.stdout)
            H.expect_eq("job of %r" % env, {l["job"] for _, l, _ in samples}, {job})
            st.quit()
        finally:
            st.kill()


def case_top():
    """--top N: the N sites holding the most, most first."""
    st = Stepper()
    try:
        st.do("a a %d" % MiB, "a b %d" % (3 * MiB), "a c %d" % (2 * MiB))
        _, samples = parse(exposition("--top", "2", st.dump))
        H.expect_eq("sites", [(l["site"].split()[0], v) for l, v in
                              series(samples, "vramtrace_site_live_bytes")],
                    [("site_b", 3 * MiB), ("site_c", 2 * MiB)])
        st.quit()
    finally:
        st.kill()


def case_one_warning_per_module():
    """Three dumps of the same binaries, whose library is gone: the metrics
    and a combined report say so once, not once per dump."""
    d = H.tmpdir()
    dumps = [os.path.join(d, "d%d.vtr" % i) for i in range(3)]
    for dump in dumps:
        subprocess.run([os.environ["MKDUMP"], "sites", dump, "3"], check=True, timeout=H.TIMEOUT)
    warning = ("vramtrace: warning: /nonexistent/libfoo.so: No such file or directory; its "
               "frames show as module+offset\n")
    r = vt("watch", "--once", "--openmetrics", d)
    H.expect_eq("metrics (status, stderr)", (r.status, r.stderr), (0, warning))
    r = vt("report", *dumps)
    H.expect_eq("report of three (status, stderr)", (r.status, r.stderr), (0, warning))


def case_cardinality():
    """10,000 distinct call sites: N site series of each kind (the top N by
    live bytes, exact), one per device and counter; promtool accepts it."""
    n = 10000
    dump = os.path.join(H.tmpdir(), "sites.vtr")
    subprocess.run([os.environ["MKDUMP"], "sites", dump, str(n)], check=True, timeout=H.TIMEOUT)
    for top in (None, 5):
        args = ["--top", str(top)] if top else []
        r = vt("watch", "--once", "--openmetrics", *args, dump)
        H.expect_eq("exit status (stderr: %s)" % r.stderr, r.status, 0)
        H.expect_eq("stderr", r.stderr, "vramtrace: warning: /nonexistent/libfoo.so: No such file "
                    "or directory; its frames show as module+offset\n")
        promtool_check(r.stdout)
        _, samples = parse(r.stdout)
        want = top or 20
        expected = [("?? libfoo.so+0x%x" % (0x10 * i), 4096.0 * i) for i in range(n, n - want, -1)]
        for family in ("vramtrace_site_live_bytes", "vramtrace_site_growth_bytes_per_second"):
            got = series(samples, family)
            H.expect_eq("%s series" % family, len(got), want)
            H.expect_eq("%s sites" % family, [l["site"] for l, _ in got], [s for s, _ in expected])
        H.expect_eq("the top sites' live bytes",
                    [(l["site"], v) for l, v in series(samples, "vramtrace_site_live_bytes")],
                    expected)
        H.expect_eq("series in all", len(samples), 2 * want + 7)
        H.expect_eq("live bytes", the_value(samples, "vramtrace_device_live_bytes"),
                    4096 * n * (n + 1) // 2)


def case_directory():
    """A directory: every traced process in it in one exposition, one that
    starts later found at a later refresh, one that ended kept with running 0
    and its last values until its dump is removed, one whose header is not
    written yet found once it is; a file in it that is no dump is said once
    and left out (one line for the damaged ones); SIGTERM ends the watch with status 0."""
    d = H.tmpdir()
    out = os.path.join(H.tmpdir(), "vram.prom")
    with open(os.path.join(d, "junk.vtr"), "w") as f:
        f.write("not a dump at all\n")
    # a dump grown before its header is written (a process starting): not
    # said, looked at again until its header is there
    starting = os.path.join(d, "starting.vtr")
    with open(starting, "wb") as f:
        f.write(bytes(65536))
    first = Stepper({"SLURM_JOB_ID": "1"}, dump=os.path.join(d, "one.vtr"))
    second = None
    watch = subprocess.Popen([H.vramtrace_exe(), "watch", "--interval", "0.1",
                              "--openmetrics-file", out, d], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=H.base_env(), universal_newlines=True)
    deadline = time.monotonic() + H.TIMEOUT

    def live_by_pid():
        with open(out) as f:
            text = f.read()
        _, samples = parse(text)
        return {l["pid"]: (the_value(samples, "vramtrace_running", pid=l["pid"]), v)
                for l, v in series(samples, "vramtrace_device_live_bytes")}

    try:
        first.do("a a %d" % MiB)
        p1 = str(first.p.pid)
        wait_for("the first process", lambda: live_by_pid() == {p1: (1, MiB)}, deadline)
        second = Stepper({"SLURM_JOB_ID": "2"}, dump=os.path.join(d, "two.vtr"))
        second.do("a b %d" % (2 * MiB))
        p2 = str(second.p.pid)
        wait_for("both", lambda: live_by_pid() == {p1: (1, MiB), p2: (1, 2 * MiB)}, deadline)
        sites = os.path.join(H.tmpdir(), "sites.vtr")
        subprocess.run([os.environ["MKDUMP"], "sites", sites, "3"], check=True, timeout=H.TIMEOUT)
        with open(sites, "rb") as f, open(starting, "r+b") as g:
            g.write(f.read())   # in place, as its writer would
        p0, p0_live = "4242", 4096 * (1 + 2 + 3)   # mkdump's process, ended
        wait_for("the starting one", lambda: live_by_pid() == {
            p0: (0, p0_live), p1: (1, MiB), p2: (1, 2 * MiB)}, deadline)
        first.do("a c %d" % MiB)
        first.quit()
        wait_for("the first ended", lambda: live_by_pid() == {
            p0: (0, p0_live), p1: (0, 2 * MiB), p2: (1, 2 * MiB)}, deadline)
        with open(out) as f:
            text = f.read()
        promtool_check(text)
        _, samples = parse(text)
        H.expect_eq("jobs", {l["pid"]: l["job"] for _, l, _ in samples},
                    {p0: "", p1: "1", p2: "2"})   # the first's read while it ran
        os.remove(first.dump)
        wait_for("the removed dump's process left out",
                 lambda: live_by_pid() == {p0: (0, p0_live), p2: (1, 2 * MiB)}, deadline)
        second.quit()
        watch.send_signal(signal.SIGTERM)
        H.expect_eq("exit status after SIGTERM", watch.wait(timeout=H.TIMEOUT), 0)
        H.expect_eq("stderr", watch.stderr.read(),
                    "vramtrace watch: 1 damaged dump in the directories watched, left out or "
                    "read in part: %s (vramtrace report DUMP says what is wrong)\n"
                    "vramtrace: warning: /nonexistent/libfoo.so: No such file or directory; its "
                    "frames show as module+offset\n" % os.path.join(d, "junk.vtr"))
    finally:
        for st in (first, second):
            if st:
                st.kill()
        if watch.poll() is None:
            watch.kill()
            watch.wait()


# ---- servers: watch --listen, node_exporter, Prometheus ----

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Servers:
    """The servers a case starts, each stopped (SIGTERM, then SIGKILL) at the end."""

    def __init__(self):
        self.procs = []

    def start(self, argv, **kw):
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, **kw)
        self.procs.append(p)
        return p

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            p.stderr.close()


def get(url, timeout=H.TIMEOUT):  # a guard: a loaded machine answers late
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.headers.get("Content-Type"), r.read().decode()


def wait_for(what, probe, deadline):
    """PROBE() until it returns something true (errors count as not yet)."""
    last = None
    while time.monotonic() < deadline:
        try:
            got = probe()
            if got:
                return got
        except (OSError, ValueError, KeyError) as e:
            last = e
        time.sleep(0.2)
    H.fail("%s: not by the deadline (last error: %r)" % (what, last))


def query(prom, expr):
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (prom, urllib.parse.urlencode({"query": expr}))
    body = json.loads(get(url)[2])
    H.expect_eq("query %s: status" % expr, body["status"], "success")
    return body["data"]["result"]


PROMETHEUS_YML = """global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: direct
    honor_labels: true
    static_configs: [{targets: ['127.0.0.1:%d']}]
  - job_name: node
    honor_labels: true
    static_configs: [{targets: ['127.0.0.1:%d']}]
"""


def case_prometheus():
    """A real Prometheus (1 s scrapes) scrapes watch --listen and, through
    node_exporter's textfile collector, watch --openmetrics-file; both
    answer the query for the leaking site's live bytes with the ground
    truth, and the dashboard's queries run. Every server is stopped."""
    prometheus, node_exporter = tool("prometheus"), tool("prometheus-node-exporter")
    st = Stepper({"SLURM_JOB_ID": "777"})
    servers = Servers()
    textdir = H.tmpdir()
    try:
        st.do("a a %d" % (2 * MiB), "a a %d" % (3 * MiB), "a b %d" % MiB)
        watch = servers.start([H.vramtrace_exe(), "watch", "--interval", "0.2", "--listen",
                               "127.0.0.1:0", "--openmetrics-file",
                               os.path.join(textdir, "vramtrace.prom"), st.dump],
                              env=H.base_env())
        line = watch.stderr.readline().decode()
        m = re.fullmatch(r"vramtrace watch: serving http://127\.0\.0\.1:(\d+)/metrics\n", line)
        H.expect(m, "watch --listen's first line: %r" % line)
        port = int(m.group(1))
        status, ctype, text = get("http://127.0.0.1:%d/metrics" % port)
        H.expect_eq("/metrics", (status, ctype), (200, "text/plain; version=0.0.4; charset=utf-8"))
        check_against_report(text, st.dump, st.p.pid, True, "777")
        with open(os.path.join(textdir, "vramtrace.prom")) as f:
            H.expect_eq("the file is the served exposition", f.read(), text)
        H.expect_eq("the file's mode", os.stat(os.path.join(textdir, "vramtrace.prom")).st_mode
                    & 0o777, 0o644)
        try:
            get("http://127.0.0.1:%d/other" % port)
            H.fail("/other answered")
        except urllib.error.HTTPError as e:
            H.expect_eq("/other's status", e.code, 404)
        node_port, prom_port = free_port(), free_port()
        servers.start([node_exporter, "--web.listen-address=127.0.0.1:%d" % node_port,
                       "--collector.disable-defaults", "--collector.textfile",
                       "--collector.textfile.directory=" + textdir])
        cfg = os.path.join(textdir, "prometheus.yml.in")
        with open(cfg, "w") as f:
            f.write(PROMETHEUS_YML % (port, node_port))
        servers.start([prometheus, "--config.file=" + cfg, "--web.listen-address=127.0.0.1:%d"
                       % prom_port, "--storage.tsdb.path=" + os.path.join(textdir, "tsdb")],
                      cwd=textdir)
        site = site_name("a")
        expr = 'vramtrace_site_live_bytes{site="%s", job="777"}' % site
        deadline = time.monotonic() + H.TIMEOUT
        found = wait_for("both scrapes of the leaking site", lambda: (
            lambda r: r if len(r) == 2 else None)(query(prom_port, expr)), deadline)
        H.expect_eq("the scrapes", sorted(r["metric"]["instance"] for r in found),
                    sorted(["127.0.0.1:%d" % port, "127.0.0.1:%d" % node_port]))
        H.expect_eq("live bytes of the leaking site",
                    [float(r["value"][1]) for r in found], [5.0 * MiB] * 2)
        st.do("a a %d" % MiB)   # what is scraped follows the process
        wait_for("6 MiB scraped twice", lambda: [float(r["value"][1]) for r in
                                                 query(prom_port, expr)] == [6.0 * MiB] * 2,
                 deadline)
        with open(os.path.join(H.source_root(), "examples", "grafana-vramtrace.json")) as f:
            dashboard = json.load(f)
        for panel in dashboard["panels"]:
            for t in panel["targets"]:
                e = (t["expr"].replace("$job", ".*").replace("$host", ".*")
                     .replace("$__rate_interval", "1m"))
                query(prom_port, e)   # a query Prometheus accepts
        st.quit()
    finally:
        st.kill()
        servers.stop()
    H.expect_eq("every server stopped", [p.poll() is not None for p in servers.procs],
                [True] * 3)


# ---- bad input ----

def case_bad_input():
    """A dump that is not one, a port in use, a bad --listen, --json with the
    metrics: one line on stderr, a non-zero exit."""
    d, empty = H.tmpdir(), H.tmpdir()
    junk = os.path.join(d, "junk.vtr")
    with open(junk, "w") as f:
        f.write("not a dump at all\n")
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    try:
        cases = [
            (["--once", "--openmetrics", junk], 1, "vramtrace: %s: not a vramtrace dump\n" % junk),
            (["--openmetrics-file", os.path.join(d, "x.prom"), junk], 1,
             "vramtrace: %s: not a vramtrace dump\n" % junk),
            (["--listen", "127.0.0.1:%d" % port, junk], 1,
             "vramtrace watch: cannot listen on 127.0.0.1:%d: Address already in use\n" % port),
            (["--listen", "nowhere:x", junk], 2, "vramtrace watch: --listen needs ADDR:PORT or "
             "PORT, not 'nowhere:x' (see vramtrace watch --help)\n"),
            (["--json", "--openmetrics", junk], 2, "vramtrace watch: --json and --openmetrics "
             "do not go together (see vramtrace watch --help)\n"),
            (["--once", "--listen", "9400", junk], 2, "vramtrace watch: --once and --listen do "
             "not go together (--once --openmetrics prints one exposition) (see vramtrace watch "
             "--help)\n"),
            (["--openmetrics", "--top", "0", junk], 2, "vramtrace watch: --top needs a number "
             "above 0 with the metrics, not '0' (see vramtrace watch --help)\n"),
            (["--openmetrics-file", os.path.join(d, "no", "such", "dir", "x.prom"), empty], 1,
             "vramtrace watch: cannot write %s: No such file or directory\n"
             % os.path.join(d, "no", "such", "dir", "x.prom")),
        ]
        for args, status, err in cases:
            r = vt("watch", *args)
            H.expect_eq("stderr of watch %s" % " ".join(args), r.stderr, err)
            H.expect_eq("exit status of watch %s" % " ".join(args), r.status, status)
            H.expect_eq("stdout of watch %s" % " ".join(args), r.stdout, "")
    finally:
        busy.close()


if __name__ == "__main__":
    H.main(globals())
