# SPDX-License-Identifier: MIT
"""The whole GPU (issue 14): which physical GPU each device was (identity in
the dump), the driver's and NVML's view next to the traced one (the
decomposition of what the device has in use), `vramtrace gpus` (processes,
their states, orphans, zombies, other namespaces, --min-free, no or bad
NVML), reports over several dumps grouped by (host, GPU UUID), and the
other processes in the out-of-memory autopsy.

Ground truth: the stand-in GPUs (tests/standin/standin_gpus.h) share their
memory between the processes of a test through the registry the harness
names, each context costs STANDIN_CUDA_CONTEXT_BYTES, and the stand-in
NVML answers from the same registry, so every figure is exact."""
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

MiB = 1 << 20
GiB = 1 << 30
CONTEXT = 16 * MiB
CAPACITY = GiB
USAGE = H.c_defines(H.program_source("usage.c"))
STEPS, LEAK, CACHE, TEMP = USAGE["STEPS"], USAGE["LEAK_BYTES"], USAGE["CACHE_BYTES"], \
    USAGE["TEMP_BYTES"]
ENV = {"STANDIN_CUDA_CONTEXT_BYTES": str(CONTEXT)}
UUID_RE = re.compile(r"^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
PROCESS_KEYS = {"pid", "used_bytes", "state", "orphaned", "traced", "command"}
GPU_KEYS = {"index", "uuid", "name", "total_bytes", "used_bytes", "free_bytes", "processes"}


def env(extra=None):
    e = dict(ENV)
    e.update(extra or {})
    return e


def gpus(*args, extra_env=None, status=0, cwd=None, prefix=()):
    """`vramtrace gpus ARGS`, its exit status checked; (run, JSON or None)."""
    cmd = list(prefix) + [H.vramtrace_exe(), "gpus"] + list(args)
    r = H._run(cmd, H.base_env(env(extra_env)), cwd or H.tmpdir())
    H.expect_eq("vramtrace gpus %s: exit status (stderr: %s)" % (" ".join(args), r.stderr.strip()),
                r.status, status)
    data = None
    if "--json" in args and status in (0, 3):
        try:
            data = json.loads(r.stdout)
        except ValueError as e:
            H.fail("vramtrace gpus --json printed no valid JSON (%s):\n%s" % (e, r.stdout))
        check_gpus_schema(data)
    return r, data


def check_gpus_schema(data):
    H.expect(isinstance(data.get("gpus"), list), "no gpus list: %r" % data)
    for g in data["gpus"]:
        H.expect(GPU_KEYS <= set(g), "GPU lacks %s" % (GPU_KEYS - set(g)))
        for p in g["processes"]:
            H.expect(PROCESS_KEYS <= set(p), "process lacks %s" % (PROCESS_KEYS - set(p)))
            H.expect_in("process state", p["state"], ("running", "sleeping", "stopped",
                                                      "uninterruptible", "zombie", "not visible"))


def gpu(data, index):
    found = [g for g in data["gpus"] if g["index"] == index]
    H.expect_eq("GPUs with index %d" % index, len(found), 1)
    return found[0]


def process(g, pid):
    found = [p for p in g["processes"] if p["pid"] == pid]
    H.expect_eq("GPU %d: processes with pid %d (listed: %s)" % (
        g["index"], pid, [p["pid"] for p in g["processes"]]), len(found), 1)
    return found[0]


class Holder:
    """A gpu_holder process (tests/programs/gpu_holder.c): holds its memory
    until closed; .pid is the process that holds it."""

    def __init__(self, mode, nbytes, extra_env=None, new_session=False, traced_dir=None):
        argv = [H.program("gpu_holder"), mode, str(nbytes)]
        e = H.base_env(env(extra_env))
        if traced_dir:
            e["LD_PRELOAD"] = ":".join(filter(None, [e.get("LD_PRELOAD"), H.vramtrace_lib()]))
            e["VRAMTRACE_OUTPUT"] = os.path.join(traced_dir, "holder.%p.vtr")
        self.proc = subprocess.Popen(argv, env=e, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     start_new_session=new_session, universal_newlines=True)
        line = self.proc.stdout.readline()
        H.expect(line.startswith("ready "), "gpu_holder %s: %r" % (mode, line))
        self.pid = int(line.split()[1])
        if mode == "orphan":
            self._wait_orphaned()
        if mode in ("hold", "orphan"):
            # "ready" comes just before the read that blocks: on a busy
            # machine the holder may still be running when a test looks
            wait_for_state(self.pid, "S")

    def _wait_orphaned(self):
        """The parent says "ready" just before it exits: the child is an
        orphan only once the parent is gone and the child re-parented."""
        self.proc.wait()
        deadline = time.time() + H.TIMEOUT
        while time.time() < deadline:
            with open("/proc/%d/stat" % self.pid) as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) != self.proc.pid:
                    return
            time.sleep(0.01)
        H.fail("gpu_holder orphan: pid %d never re-parented" % self.pid)

    def close(self):
        for sig in (signal.SIGCONT, signal.SIGKILL):
            try:
                os.kill(self.pid, sig)
            except OSError:
                pass
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        self.proc.wait()


def wait_for_state(pid, letter, timeout=H.TIMEOUT):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == letter:
                    return
        except OSError:
            pass
        time.sleep(0.02)
    H.fail("process %d never reached state %s" % (pid, letter))


def holders(*specs):
    """Starts Holders, closing them all if one fails."""
    started = []
    try:
        for spec in specs:
            started.append(Holder(*spec[0], **spec[1]))
    except BaseException:
        for h in started:
            h.close()
        raise
    return started


def stand_in_gpus():
    _, data = gpus("--json")
    return data["gpus"]


# ---- identity and the decomposition ----

def usage_report(mode="grow", extra_env=None):
    r = H.run_traced([H.program("usage"), mode], extra_env=env(extra_env))
    H.expect_program_ok(r)
    H.expect_dump(r)
    return H.report(r.dump), r


def device_usage(rep, device=0):
    found = [u for u in rep["device_usage"] if u["device"] == device]
    H.expect_eq("device_usage entries for device %d" % device, len(found), 1)
    return found[0]


def expect_split(what, u, used, traced, untraced, others):
    H.expect_eq(what + ": driver_used_bytes", u["driver_used_bytes"], used)
    H.expect_eq(what + ": traced_live_bytes", u["traced_live_bytes"], traced)
    H.expect_eq(what + ": process_untraced_bytes", u["process_untraced_bytes"], untraced)
    H.expect_eq(what + ": other_processes_bytes", u["other_processes_bytes"], others)
    H.expect_eq(what + ": the parts add up", traced + untraced + others, used)


def case_identity():
    """The dump says which GPU device 0 was: UUID as nvidia-smi prints it (the
    stand-in NVML's), PCI bus id as the driver gives it, name, memory, host."""
    rep, _ = usage_report()
    devices = rep["devices"]
    H.expect_eq("devices", [d["device"] for d in devices], [0])
    d = devices[0]
    H.expect(UUID_RE.match(d["uuid"] or ""), "uuid %r is not as nvidia-smi prints it" % d["uuid"])
    H.expect_eq("uuid: GPU 0's as NVML lists it", d["uuid"], stand_in_gpus()[0]["uuid"])
    H.expect_eq("pci_bus_id", d["pci_bus_id"], "0000:17:00.0")
    H.expect_eq("name", d["name"], "vramtrace stand-in GPU")
    H.expect_eq("total_bytes", d["total_bytes"], CAPACITY)
    H.expect_eq("host", d["host"], socket.gethostname())


def case_decomposition():
    """One process, a context of CONTEXT bytes: at the start, after each
    marker and at exit, used = traced live + the context + 0 of others."""
    rep, r = usage_report()
    u = device_usage(rep)
    expect_split("at exit", u, STEPS * LEAK + CONTEXT, STEPS * LEAK, CONTEXT, 0)
    H.expect_eq("reason of the last sample", u["reason"], "exit")
    H.expect_eq("other processes listed", u["other_processes_listed"], 0)
    H.expect_eq("uuid", u["uuid"], rep["devices"][0]["uuid"])
    samples = u["samples"]
    H.expect_eq("sample reasons", [s["reason"] for s in samples],
                ["start"] + ["marker"] * STEPS + ["exit"])
    expect_split("start", samples[0], CACHE + CONTEXT, CACHE, CONTEXT, 0)
    for i, s in enumerate(samples[1:1 + STEPS]):
        live = CACHE + (i + 1) * LEAK   # after each step: the cache and the leaks
        expect_split("marker %d" % i, s, live + CONTEXT, live, CONTEXT, 0)
    text = H._run([H.vramtrace_exe(), "report", r.dump], H.base_env(), r.cwd).stdout
    line = ("    26.0 MiB used on the device = 10.0 MiB traced live in this process + 16.0 MiB "
            "this process holds outside the traced calls (context, library workspaces) + 0 B "
            "other processes\n")
    H.expect(line in text, "no decomposition line %r in:\n%s" % (line, text))
    H.expect(re.search(r"\nDevice 0 \(vramtrace stand-in GPU, GPU-[0-9a-f-]{36}, PCI "
                       r"0000:17:00.0, 1.0 GiB\), at exit \([0-9.]+ ms\):\n", text),
             "no device line in:\n" + text)


def case_decomposition_exact_text():
    """A synthetic dump (tests/cli/mkdump.c devices): the issue's example
    numbers, the JSON the same, and what NVML listed."""
    d = H.tmpdir()
    dump = os.path.join(d, "devices.vtr")
    mkdump = H.env_path("MKDUMP")
    r = H._run([mkdump, "devices", dump], H.base_env(), d)
    H.expect_eq("mkdump", r.status, 0)
    rep = H.report(dump)
    expect_split("synthetic", device_usage(rep), 40 * GiB, 31 * GiB, 512 * MiB, 8 * GiB + 512 * MiB)
    H.expect_eq("devices", rep["devices"], [{
        "device": 0, "uuid": "GPU-00102030-4050-6070-8090-a0b0c0d0e0f0",
        "pci_bus_id": "0000:65:00.0", "name": "Test GPU 80GB", "total_bytes": 80 * GiB,
        "mig": False, "parent_uuid": None, "parent_name": None,
        "host": rep["process"]["hostname"]}])
    text = H._run([H.vramtrace_exe(), "report", dump], H.base_env(), d).stdout
    H.expect("    40.0 GiB used on the device = 31.0 GiB traced live in this process + 512.0 MiB "
             "this process holds outside the traced calls (context, library workspaces) + 8.5 GiB "
             "other processes (NVML lists 2 other processes with 8.0 GiB)\n" in text,
             "decomposition line:\n" + text)
    oom = rep["failed"][0]["oom"]
    H.expect_eq("oom.process_bytes", oom["process_bytes"], 31 * GiB + 512 * MiB)
    H.expect_eq("oom.other_processes", oom["other_processes"], [
        {"pid": 4242, "used_bytes": 8 * GiB, "state": "sleeping", "orphaned": True,
         "command": "python"},
        {"pid": 77, "used_bytes": None, "state": "not visible", "orphaned": False,
         "command": None}])
    H.expect("PID 4242 (python, orphaned, sleeping, 8.0 GiB), PID 77 (in another container or "
             "namespace, use unknown)" in text, "OOM autopsy:\n" + text)
    # a record disbelieved costs that record (or the value doubted), with
    # one warning: the rest of the report stands
    # (the offsets depend on the recorded program path: read from the dump)
    for variant, warning, uuid, usage in (
            ("bad-uuid", "DEVICE record at offset {device}: a UUID of 17 bytes; kept without its UUID",
             None, "exit"),
            ("bad-reason", "DEVICE_USAGE record at offset {usage}: unknown reason 5; dropped",
             "GPU-00102030-4050-6070-8090-a0b0c0d0e0f0", "start"),
            ("free-over-total", "DEVICE_USAGE record at offset {usage}: more free than total "
             "memory; dropped", "GPU-00102030-4050-6070-8090-a0b0c0d0e0f0", "start")):
        bad = os.path.join(d, variant + ".vtr")
        H._run([mkdump, "devices-" + variant, bad], H.base_env(), d)
        warning = warning.format(device=H.record_offset(bad, H.VT_REC_DEVICE),
                                 usage=H.record_offset(bad, H.VT_REC_DEVICE_USAGE, -1))
        r = H._run([H.vramtrace_exe(), "report", "--json", bad], H.base_env(), d)
        H.expect_eq(variant + ": exit status", r.status, 0)
        H.expect_eq(variant + ": stderr", r.stderr, "vramtrace: warning: %s: %s\n" % (bad, warning))
        rep = json.loads(r.stdout)
        H.expect_eq(variant + ": device 0's UUID", rep["devices"][0]["uuid"], uuid)
        H.expect_eq(variant + ": the latest usage", rep["device_usage"][0]["reason"], usage)
        H.expect_eq(variant + ": leaked bytes", rep["summary"]["leaked_bytes"], 31 * GiB)
    # a MIG device (appended flags and its GPU); its GPU's UUID doubted costs that UUID
    for variant, warning, parent in (
            ("mig", "", "GPU-f0e0d0c0-b0a0-9080-7060-504030201000"),
            ("bad-parent-uuid", "vramtrace: warning: %s: DEVICE record at offset %d: a parent "
             "GPU UUID of 15 bytes; kept without its GPU's UUID\n", None)):
        dump = os.path.join(d, variant + ".vtr")
        H._run([mkdump, "devices-" + variant, dump], H.base_env(), d)
        r = H._run([H.vramtrace_exe(), "report", "--json", dump], H.base_env(), d)
        H.expect_eq(variant + ": stderr", r.stderr,
                    warning % (dump, H.record_offset(dump, H.VT_REC_DEVICE)) if warning else "")
        dev = json.loads(r.stdout)["devices"][0]
        H.expect_eq(variant + ": device", (dev["uuid"], dev["name"], dev["mig"], dev["parent_uuid"],
                                           dev["parent_name"], dev["total_bytes"]),
                    ("MIG-00102030-4050-6070-8090-a0b0c0d0e0f0", "Test GPU 80GB MIG 3g.40gb", True,
                     parent, "Test GPU 80GB", 40 * GiB))
        text = H._run([H.vramtrace_exe(), "report", dump], H.base_env(), d).stdout
        line = ("Device 0 (Test GPU 80GB MIG 3g.40gb, MIG-00102030-4050-6070-8090-a0b0c0d0e0f0, "
                "a MIG device of %s (Test GPU 80GB), PCI 0000:65:00.0, 40.0 GiB)" %
                (parent or "its GPU"))
        H.expect(line in text, "no line %r in:\n%s" % (line, text))


def case_older_dump():
    """A dump without identity records (tests/cli/mkdump.c basic): devices
    and device_usage are there, with null where the dump cannot say."""
    d = H.tmpdir()
    dump = os.path.join(d, "old.vtr")
    mkdump = H.env_path("MKDUMP")
    H._run([mkdump, "basic", dump], H.base_env(), d)
    rep = H.report(dump)
    H.expect_eq("devices", [(x["device"], x["uuid"], x["pci_bus_id"], x["total_bytes"])
                            for x in rep["devices"]], [(0, None, None, None), (1, None, None, None)])
    u = device_usage(rep, 0)
    for k in ("driver_used_bytes", "process_untraced_bytes", "other_processes_bytes", "uuid"):
        H.expect_eq("older dump: device_usage." + k, u[k], None)
    H.expect(isinstance(u["traced_live_bytes"], int), "traced_live_bytes must stay known")


def case_two_processes():
    """A second process on the same stand-in GPU is "other processes" in the
    first one's report, to the byte: its allocation and its context."""
    held = 100 * MiB
    (h,) = holders((("hold", held), {}))
    try:
        rep, _ = usage_report()
        u = device_usage(rep)
        expect_split("with a holder", u, STEPS * LEAK + CONTEXT + held + CONTEXT, STEPS * LEAK,
                     CONTEXT, held + CONTEXT)
        H.expect_eq("other processes listed", u["other_processes_listed"], 1)
    finally:
        h.close()


def case_without_nvml_in_process():
    """No NVML where the traced program runs: the driver's view is kept, the
    split of the rest is null (not guessed), and the text says why."""
    libs = H.tmpdir()
    for name in ("libcuda.so.1", "libcudart.so.13"):
        os.symlink(os.path.join(H.standin_dir(), name), os.path.join(libs, name))
    if subprocess.run(["sh", "-c", "ldconfig -p | grep -q libnvidia-ml.so.1"]).returncode == 0:
        raise H.Skip("this machine has a real libnvidia-ml.so.1 the traced program would load")
    r = H.run_traced([H.program("usage"), "grow"], extra_env=env({"LD_LIBRARY_PATH": libs}))
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    u = device_usage(rep)
    H.expect_eq("driver_used_bytes", u["driver_used_bytes"], STEPS * LEAK + CONTEXT)
    H.expect_eq("process_untraced_bytes", u["process_untraced_bytes"], None)
    H.expect_eq("other_processes_bytes", u["other_processes_bytes"], None)
    text = H._run([H.vramtrace_exe(), "report", r.dump], H.base_env(), r.cwd).stdout
    H.expect("+ 16.0 MiB outside the traced calls, in this process or in others" in text, text)


def case_nvml_off():
    """VRAMTRACE_NVML=0: the tracer never loads NVML."""
    rep, _ = usage_report(extra_env={"VRAMTRACE_NVML": "0"})
    H.expect_eq("process_untraced_bytes", device_usage(rep)["process_untraced_bytes"], None)


def case_bad_nvml_in_process():
    """NVML answers with errors inside the traced process: no split, no crash."""
    for fail in ("nvmlInit_v2:9", "nvmlDeviceGetComputeRunningProcesses_v3:4",
                 "nvmlDeviceGetHandleByUUID:6,nvmlDeviceGetHandleByPciBusId_v2:6"):
        rep, _ = usage_report(extra_env={"STANDIN_NVML_FAIL": fail})
        u = device_usage(rep)
        H.expect_eq(fail + ": driver_used_bytes", u["driver_used_bytes"], STEPS * LEAK + CONTEXT)
        H.expect_eq(fail + ": process_untraced_bytes", u["process_untraced_bytes"], None)


def case_aggregate_mode():
    """Aggregate mode: samples after each marker and at exit, exact."""
    rep, _ = usage_report(extra_env={"VRAMTRACE_MODE": "aggregate"})
    u = device_usage(rep)
    expect_split("aggregate, at exit", u, STEPS * LEAK + CONTEXT, STEPS * LEAK, CONTEXT, 0)
    for s in u["samples"]:
        H.expect_eq("aggregate: untraced at %s" % s["reason"], s["process_untraced_bytes"],
                    CONTEXT)
    H.expect_eq("marker samples", [s["reason"] for s in u["samples"]].count("marker"), STEPS)


def case_signal_markers():
    """Markers from SIGUSR2 (the handler cannot call the driver): each gets
    its sample at the next traced call."""
    rep, _ = usage_report("signal")
    samples = device_usage(rep)["samples"]
    H.expect_eq("marker samples", [s["reason"] for s in samples].count("marker"), STEPS)
    for s in samples:
        H.expect_eq("untraced at %s" % s["reason"], s["process_untraced_bytes"], CONTEXT)


def case_oom_other_processes():
    """Out of memory with an orphaned holder on the GPU: the autopsy names it."""
    held = 30 * MiB
    extra = {"STANDIN_CUDA_MEMORY": "96M", "STANDIN_CUDA_CONTEXT_BYTES": "1M"}
    (h,) = holders((("orphan", held), {"extra_env": extra, "new_session": True}))
    try:
        r = H.run_traced([H.program("usage"), "oom"], extra_env=env(extra))
        H.expect_program_ok(r)
        rep = H.report(r.dump)
        oom = rep["failed"][0]["oom"]
        H.expect_eq("driver free", oom["driver_free_bytes"],
                    96 * MiB - (held + MiB) - (USAGE["OOM_BIG_BYTES"] + USAGE["OOM_SMALL_BYTES"] + MiB))
        H.expect_eq("process_bytes", oom["process_bytes"],
                    USAGE["OOM_BIG_BYTES"] + USAGE["OOM_SMALL_BYTES"] + MiB)
        H.expect_eq("other_processes", oom["other_processes"], [
            {"pid": h.pid, "used_bytes": held + MiB, "state": "sleeping", "orphaned": True,
             "command": "gpu_holder"}])
        text = H._run([H.vramtrace_exe(), "report", r.dump], H.base_env(), r.cwd).stdout
        H.expect("PID %d (gpu_holder, orphaned, sleeping, 31.0 MiB)" % h.pid in text, text)
    finally:
        h.close()


def case_html_band():
    """The HTML timeline shows the driver's view as a band behind the traced bytes."""
    _, r = usage_report()
    page = os.path.join(r.cwd, "report.html")
    rr = H._run([H.vramtrace_exe(), "report", "--html", page, r.dump], H.base_env(), r.cwd)
    H.expect_eq("report --html", rr.status, 0)
    html = open(page, encoding="utf-8").read()
    band = re.findall(r'<g><title>([^<]*)</title><rect class="untraced"', html)
    H.expect(band, "no band of this process's untraced memory")
    H.expect_eq("band tooltips", set(band),
                {"16.0 MiB this process outside the traced calls, 0 B other processes"})
    H.expect("The band on top of it is the driver's view" in html, "no legend of the band")
    # keys only for the bands that hold anything: no other process held memory here
    H.expect('<span class="key untraced">' in html and '<span class="key others">' not in html
             and '<span class="key outside">' not in html, "legend keys of empty bands")


# ---- MIG: a slice of a GPU named and measured as nvidia-smi and NVML do ----

MIG = {"STANDIN_CUDA_MIG": "2"}   # GPU 0 in MIG mode: two MIG devices of half its memory
MIG_UUID_RE = re.compile(r"^MIG-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def mig_gpus():
    """GPU 0 and its two MIG devices, as `vramtrace gpus --json` lists them."""
    _, data = gpus("--json", extra_env=MIG)
    gpu0 = gpu(data, 0)
    H.expect_eq("GPU 0 in MIG mode", gpu0["mig_mode"], True)
    H.expect_eq("GPU 1 in MIG mode", gpu(data, 1)["mig_mode"], False)
    H.expect_eq("MIG devices of GPU 0", [m["index"] for m in gpu0["mig_devices"]], [0, 1])
    for m in gpu0["mig_devices"]:
        H.expect(MIG_UUID_RE.match(m["uuid"] or ""), "MIG UUID %r" % m["uuid"])
    return gpu0


def case_mig_identity():
    """On a MIG device the driver's UUID is the MIG device's: the report
    writes it MIG-... as nvidia-smi does, with its GPU (UUID and name), the
    GPU's PCI bus id and the MIG device's own memory."""
    gpu0 = mig_gpus()
    rep, r = usage_report(extra_env=MIG)
    H.expect_eq("devices", rep["devices"], [{
        "device": 0, "uuid": gpu0["mig_devices"][0]["uuid"], "pci_bus_id": "0000:17:00.0",
        "name": "vramtrace stand-in GPU MIG 1g.512mb", "total_bytes": CAPACITY // 2, "mig": True,
        "parent_uuid": gpu0["uuid"], "parent_name": "vramtrace stand-in GPU",
        "host": socket.gethostname()}])
    H.expect_eq("device_usage uuid", device_usage(rep)["uuid"], gpu0["mig_devices"][0]["uuid"])
    text = H._run([H.vramtrace_exe(), "report", r.dump], H.base_env(), r.cwd).stdout
    line = ("\nDevice 0 (vramtrace stand-in GPU MIG 1g.512mb, %s, a MIG device of %s (vramtrace "
            "stand-in GPU), PCI 0000:17:00.0, 512.0 MiB), at exit (" %
            (gpu0["mig_devices"][0]["uuid"], gpu0["uuid"]))
    H.expect(line in text, "no MIG device line %r in:\n%s" % (line, text))
    # a dump of a MIG device read by `report DIR`: grouped by the MIG UUID
    data = report_dir(os.path.dirname(r.dump), True)
    H.expect_eq("combined devices", [d["uuid"] for d in data["combined"]["devices"]],
                [gpu0["mig_devices"][0]["uuid"]])


def case_mig_split():
    """The this-process / other-processes split of a MIG device is that MIG
    device's (NVML's MIG device handle), to the byte: a holder on the same
    MIG device is another process, one on the other MIG device is not;
    the same when NVML finds the MIG device only by index under its GPU."""
    gpu0 = mig_gpus()
    migs = [m["uuid"] for m in gpu0["mig_devices"]]
    same, other = 50 * MiB, 100 * MiB
    started = holders((("hold", same), {"extra_env": dict(MIG, CUDA_VISIBLE_DEVICES=migs[0])}),
                      (("hold", other), {"extra_env": dict(MIG, CUDA_VISIBLE_DEVICES=migs[1])}))
    try:
        for how, extra in (("by MIG UUID", {}),
                           ("by index under its GPU",
                            {"STANDIN_NVML_FAIL": "nvmlDeviceGetHandleByUUID:6"})):
            rep, _ = usage_report(extra_env=dict(MIG, **extra))
            u = device_usage(rep)
            expect_split(how, u, STEPS * LEAK + CONTEXT + same + CONTEXT, STEPS * LEAK, CONTEXT,
                         same + CONTEXT)
            H.expect_eq(how + ": other processes listed", u["other_processes_listed"], 1)
            H.expect_eq(how + ": parent", rep["devices"][0]["parent_uuid"], gpu0["uuid"])
        # `vramtrace gpus`: each MIG device with its own memory and processes
        _, data = gpus("--json", extra_env=MIG)
        gpu0 = gpu(data, 0)
        H.expect_eq("GPU 0's own processes (listed under its MIG devices)", gpu0["processes"], [])
        H.expect_eq("GPU 0 used", gpu0["used_bytes"], same + other + 2 * CONTEXT)
        for m, h, held in zip(gpu0["mig_devices"], started, (same, other)):
            H.expect_eq("MIG device %d: total" % m["index"], m["total_bytes"], CAPACITY // 2)
            H.expect_eq("MIG device %d: used" % m["index"], m["used_bytes"], held + CONTEXT)
            H.expect_eq("MIG device %d: processes" % m["index"],
                        [(p["pid"], p["used_bytes"]) for p in m["processes"]],
                        [(h.pid, held + CONTEXT)])
        metrics, _ = gpus("--openmetrics", extra_env=MIG)
        line = ('vramtrace_gpu_other_processes_bytes{host="%s",gpu="0",gpu_uuid="%s"} %d\n' %
                (socket.gethostname(), gpu0["uuid"], same + other + 2 * CONTEXT))
        H.expect(line in metrics.stdout, "no line %r in:\n%s" % (line, metrics.stdout))
        text, _ = gpus(extra_env=MIG)
        H.expect("    MIG mode: 2 MIG devices\n  MIG device 0 of GPU 0  vramtrace stand-in GPU "
                 "MIG 1g.512mb  %s\n    memory: 512.0 MiB total, 66.0 MiB used, 446.0 MiB free; "
                 "utilization unknown\n" % migs[0] in text.stdout, "gpus text:\n" + text.stdout)
    finally:
        for h in started:
            h.close()


# ---- CUDA_VISIBLE_DEVICES and reports over several dumps ----

def count_devices(visible):
    r = H.run_plain([H.program("gpu_holder"), "count"], env({"CUDA_VISIBLE_DEVICES": visible}))
    H.expect_program_ok(r)
    return int(r.stdout.split()[1])


def case_visible_devices():
    """CUDA_VISIBLE_DEVICES selects and orders the stand-in GPUs as the real
    driver does: indices, UUID prefixes, the list ending at a bad entry."""
    uuids = [g["uuid"] for g in stand_in_gpus()]
    H.expect_eq("GPUs", len(uuids), 2)
    for visible, n in (("0", 1), ("1,0", 2), ("", 0), ("1,7,0", 1), ("0,0", 1), (" 1 ", 1),
                       (uuids[1][:12], 1), ("GPU-", 0), ("MIG-", 0)):
        H.expect_eq("devices with CUDA_VISIBLE_DEVICES=%r" % visible, count_devices(visible), n)
    for visible, device, uuid in (("1", "0", uuids[1]), ("1,0", "1", uuids[0]),
                                  (uuids[1][:12] + ",0", "0", uuids[1])):
        rep, _ = usage_report("rank", {"CUDA_VISIBLE_DEVICES": visible, "USAGE_DEVICE": device,
                                       "RANK": ""})
        H.expect_eq("uuid of device %s with CUDA_VISIBLE_DEVICES=%s" % (device, visible),
                    [d["uuid"] for d in rep["devices"]], [uuid])


def run_rank(outdir, rank, extra):
    e = dict(env(extra), RANK=str(rank), VRAMTRACE_OUTPUT=os.path.join(outdir, "job.%r.vtr"))
    for k in ("LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"):
        e[k] = ""
    r = H.run_traced([H.program("usage"), "rank"], mode="preload", output=False, extra_env=e)
    H.expect_program_ok(r)


def report_dir(outdir, json_output):
    cmd = [H.vramtrace_exe(), "report"] + (["--json"] if json_output else []) + [outdir]
    r = H._run(cmd, H.base_env(), outdir)
    H.expect_eq("report DIR", r.status, 0)
    return json.loads(r.stdout) if json_output else r.stdout


def case_multi_rank():
    """One GPU per rank through CUDA_VISIBLE_DEVICES: both say "device 0",
    but they are two GPUs: no warning. Two ranks really on one GPU: the
    warning, also when they number it differently."""
    uuids = [g["uuid"] for g in stand_in_gpus()]
    own = H.tmpdir()
    for rank in (0, 1):
        run_rank(own, rank, {"CUDA_VISIBLE_DEVICES": str(rank), "USAGE_DEVICE": "0"})
    data = report_dir(own, True)
    H.expect_eq("per rank: devices", [[d["uuid"] for d in p["devices"]] for p in data["processes"]],
                [[uuids[0]], [uuids[1]]])
    H.expect_eq("combined devices", [(d["device"], d["uuid"], d["shared"],
                                      [(p["rank"], p["device"]) for p in d["processes"]])
                                     for d in data["combined"]["devices"]],
                [(0, uuids[0], False, [("0", 0)]), (0, uuids[1], False, [("1", 0)])])
    text = report_dir(own, False)
    H.expect("warning" not in text, "a false shared-GPU warning:\n" + text)

    shared = H.tmpdir()
    for rank in (0, 1):
        run_rank(shared, rank, {"CUDA_VISIBLE_DEVICES": "1", "USAGE_DEVICE": "0"})
    data = report_dir(shared, True)
    H.expect_eq("shared: combined devices", [(d["uuid"], d["shared"], len(d["processes"]))
                                             for d in data["combined"]["devices"]],
                [(uuids[1], True, 2)])
    text = report_dir(shared, False)
    H.expect("vramtrace: warning: device 0 is used by 2 processes, all on the same GPU (%s)" %
             uuids[1] in text, "no shared-GPU warning:\n" + text)

    renumbered = H.tmpdir()
    run_rank(renumbered, 0, {"CUDA_VISIBLE_DEVICES": "1", "USAGE_DEVICE": "0"})
    run_rank(renumbered, 1, {"USAGE_DEVICE": "1"})
    text = report_dir(renumbered, False)
    H.expect("vramtrace: warning: GPU %s is used by 2 processes (as different device numbers)" %
             uuids[1] in text, "no warning for one GPU under two numbers:\n" + text)


# ---- vramtrace gpus ----

def case_gpus_processes():
    """A stopped process, an orphaned one, a zombie that exited (freed, listed
    as such), a zombie whose thread holds on, and a traced one: states,
    memory, flags, and the commands to end them."""
    traced_dir = H.tmpdir()
    started = holders(
        (("hold", 10 * MiB), {}),
        (("orphan", 20 * MiB), {"new_session": True}),
        (("zombie", 30 * MiB), {}),
        (("zombie_threads", 40 * MiB), {}),
        (("hold", 50 * MiB), {"traced_dir": traced_dir}))
    stopped, orphan, zombie, zombie_threads, traced = started
    try:
        os.kill(stopped.pid, signal.SIGSTOP)
        wait_for_state(stopped.pid, "T")
        wait_for_state(zombie.pid, "Z")
        wait_for_state(zombie_threads.pid, "Z")
        r, data = gpus("--json", traced_dir)
        g0 = gpu(data, 0)
        H.expect_eq("GPU 0 used", g0["used_bytes"],
                    (10 + 20 + 40 + 50) * MiB + 4 * CONTEXT)
        H.expect_eq("GPU 0 free", g0["free_bytes"], CAPACITY - g0["used_bytes"])
        H.expect_eq("GPU 0 total", g0["total_bytes"], CAPACITY)
        H.expect_eq("GPU 1 processes", gpu(data, 1)["processes"], [])
        expected = {
            stopped.pid: (10 * MiB + CONTEXT, "stopped", False, False),
            orphan.pid: (20 * MiB + CONTEXT, "sleeping", True, False),
            zombie.pid: (0, "zombie", False, False),
            zombie_threads.pid: (40 * MiB + CONTEXT, "zombie", False, False),
            traced.pid: (50 * MiB + CONTEXT, "sleeping", False, True),
        }
        H.expect_eq("pids listed", sorted(p["pid"] for p in g0["processes"]), sorted(expected))
        for pid, (used, state, orphaned, is_traced) in expected.items():
            p = process(g0, pid)
            H.expect_eq("pid %d: used_bytes" % pid, p["used_bytes"], used)
            H.expect_eq("pid %d: state" % pid, p["state"], state)
            H.expect_eq("pid %d: orphaned" % pid, p["orphaned"], orphaned)
            H.expect_eq("pid %d: traced" % pid, p["traced"], is_traced)
            H.expect_eq("pid %d: user" % pid, p["user"], pwd.getpwuid(os.getuid()).pw_name)
            H.expect(p["run_time_s"] is not None and p["run_time_s"] < 600, "run time %r" % p)
        H.expect("gpu_holder hold %d" % (10 * MiB) in process(g0, stopped.pid)["command"],
                 "command line: %r" % process(g0, stopped.pid)["command"])
        H.expect_eq("traced: dump", os.path.basename(process(g0, traced.pid)["dump"]),
                    "holder.%d.vtr" % traced.pid)
        H.expect_eq("the exited zombie's parent", process(g0, zombie.pid)["ppid"], zombie.proc.pid)
        idle = sorted(p["pid"] for p in g0["processes"] if p["idle_holder"])
        H.expect_eq("idle holders", idle, sorted([stopped.pid, orphan.pid, zombie_threads.pid]))
        r, _ = gpus(traced_dir)
        for line in (
                "vramtrace: GPU 0: PID %d (gpu_holder) stopped: holds 26.0 MiB and runs nothing; "
                "resume it with: kill -CONT %d; or end it with: kill -TERM %d; kill -CONT %d" % (
                    stopped.pid, stopped.pid, stopped.pid, stopped.pid),
                "vramtrace: GPU 0: PID %d (gpu_holder) orphaned (its parent has exited: a finished "
                "job's leftover worker?), holds 36.0 MiB; end it with: kill %d" % (
                    orphan.pid, orphan.pid),
                "vramtrace: GPU 0: PID %d (gpu_holder) a zombie: its main thread has exited, 1 "
                "thread still holds 56.0 MiB; end it with: kill -KILL %d" % (
                    zombie_threads.pid, zombie_threads.pid)):
            H.expect(line + "\n" in r.stdout, "missing %r in:\n%s" % (line, r.stdout))
        H.expect("PID %d (gpu_holder) has exited" % zombie.pid not in r.stdout,
                 "an exited zombie holds nothing to end")
        H.expect(re.search(r"\n +%d +\S+ +zombie .* 0 B +\[gpu_holder\]\n" % zombie.pid, r.stdout),
                 "exited zombie row:\n" + r.stdout)
        for pid in expected:
            os.kill(pid, 0)   # it only looks: every process is still there
    finally:
        for h in started:
            h.close()


def case_gpus_openmetrics():
    """--openmetrics: per GPU its memory and the used split into what the
    traced process holds by its traced calls (its dump's live bytes), what
    it holds outside them (its context) and what the others hold; promtool
    accepts it."""
    traced_dir = H.tmpdir()
    started = holders((("hold", 10 * MiB), {}),
                      (("hold", 50 * MiB), {"traced_dir": traced_dir}))
    try:
        r, _ = gpus("--openmetrics", traced_dir)
    finally:
        for h in started:
            h.close()
    promtool = shutil.which("promtool")
    if promtool:
        p = subprocess.run([promtool, "check", "metrics"], input=r.stdout, capture_output=True,
                           universal_newlines=True, timeout=H.TIMEOUT)
        H.expect_eq("promtool check metrics: %s%s" % (p.stdout, p.stderr), p.returncode, 0)
    H.expect(r.stdout.endswith("\n# EOF\n"), r.stdout)
    uuid = {g["index"]: g["uuid"] for g in stand_in_gpus()}
    values = {}
    for m in re.finditer(r'^(vramtrace_gpu_[a-z_]+)\{host="([^"]*)",gpu="(\d+)",gpu_uuid="([^"]*)"\} '
                         r'(\d+)$', r.stdout, re.M):
        H.expect_eq("GPU %s's uuid" % m.group(3), m.group(4), uuid[int(m.group(3))])
        values[(m.group(1)[len("vramtrace_gpu_"):-len("_bytes")], int(m.group(3)))] = int(m.group(5))
    expected = {"total": (CAPACITY, CAPACITY), "used": (60 * MiB + 2 * CONTEXT, 0),
                "traced": (50 * MiB, 0), "untraced": (CONTEXT, 0),
                "other_processes": (10 * MiB + CONTEXT, 0)}
    H.expect_eq("the values", values, {(k, gpu): v[gpu] for k, v in expected.items()
                                       for gpu in (0, 1)})
    gpus("--json", "--openmetrics", status=2)


def pid_namespace():
    """The prefix that runs a command in its own pid namespace (as root, or
    in a user namespace of its own), or Skip."""
    prefix = ["unshare", "--pid", "--fork", "--mount", "--mount-proc"]
    for p in (prefix, ["unshare", "--user", "--map-root-user"] + prefix[1:]):
        if subprocess.run(p + ["true"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            return p
    raise H.Skip("cannot make a pid namespace here (unshare)")


def case_gpus_not_visible():
    """Processes NVML lists but this /proc does not show (gpus run in its own
    pid namespace): "not visible", their memory still counted."""
    prefix = pid_namespace()
    (h,) = holders((("hold", 10 * MiB), {}))
    try:
        _, data = gpus("--json", prefix=prefix)
        p = process(gpu(data, 0), h.pid)
        H.expect_eq("state", p["state"], "not visible")
        H.expect_eq("used_bytes", p["used_bytes"], 10 * MiB + CONTEXT)
        H.expect_eq("command", p["command"], None)
        r, _ = gpus(prefix=prefix)
        H.expect("(in another container or namespace)" in r.stdout, r.stdout)
    finally:
        h.close()


def free_pid():
    pid = 4000000
    while os.path.exists("/proc/%d" % pid):
        pid += 1
    return pid


def case_gpus_vanishing():
    """A process NVML lists that is gone before /proc is read, and no longer
    listed when asked again: left out, counted, not called "not visible"."""
    pid = free_pid()
    r, data = gpus("--json", extra_env={"STANDIN_NVML_VANISHING_PID": str(pid)})
    g0 = gpu(data, 0)
    H.expect_eq("listed pids", [p["pid"] for p in g0["processes"]], [])
    H.expect_eq("processes_vanished", g0["processes_vanished"], 1)
    r, _ = gpus(extra_env={"STANDIN_NVML_VANISHING_PID": str(pid)})
    H.expect("(1 more ended while being listed)" in r.stdout, r.stdout)


def case_gpus_min_free():
    """--min-free: met (exit 0), missed (exit 3, one line per GPU), for all
    GPUs or the one --device names."""
    (h,) = holders((("hold", 100 * MiB), {}))
    try:
        free0 = CAPACITY - 100 * MiB - CONTEXT
        gpus("--min-free", str(free0))
        r, _ = gpus("--min-free", str(free0 + 1), status=3)
        H.expect_eq("stderr", r.stderr, "vramtrace gpus: GPU 0 has %s free, less than --min-free "
                    "%s\n" % ("908.0 MiB", "908.0 MiB"))
        r, _ = gpus("--device", "1", "--min-free", "1GiB")
        # one GPU of two, not "1 GPU on HOST"
        H.expect(re.match(r"vramtrace gpus: GPU 1 of 2 on \S+", r.stdout), r.stdout)
        r, data = gpus("--json", "--device", "0", "--min-free", "1GiB", status=3)
        H.expect_eq("--device 0: GPUs shown", [g["index"] for g in data["gpus"]], [0])
        r, _ = gpus("--device", "2", status=1)
        H.expect_eq("no such GPU", r.stderr, "vramtrace gpus: there is no GPU 2 (NVML counts 2)\n")
    finally:
        h.close()


def case_gpus_no_nvml():
    """Without NVML: one line naming what is missing, exit 2; the rest of
    vramtrace (run, report) does not need it."""
    if subprocess.run(["sh", "-c", "ldconfig -p | grep -q libnvidia-ml.so.1"]).returncode == 0:
        raise H.Skip("this machine has a real libnvidia-ml.so.1")
    libs = H.tmpdir()
    for name in ("libcuda.so.1", "libcudart.so.13"):
        os.symlink(os.path.join(H.standin_dir(), name), os.path.join(libs, name))
    r, _ = gpus(extra_env={"LD_LIBRARY_PATH": libs}, status=2)
    H.expect_eq("stdout", r.stdout, "")
    lines = r.stderr.splitlines()
    H.expect(len(lines) == 1 and lines[0].startswith("vramtrace gpus: NVML (libnvidia-ml.so.1, "
                                                     "installed with the NVIDIA driver) cannot be "
                                                     "loaded: "), "stderr: %r" % r.stderr)
    t = H.run_traced([H.program("usage"), "grow"], extra_env=env({"LD_LIBRARY_PATH": libs}))
    H.expect_program_ok(t)
    H.expect_eq("leaked with no NVML", H.report(t.dump)["summary"]["leaked_bytes"], STEPS * LEAK)


def case_gpus_bad_nvml():
    """NVML's error answers: at start (exit 2), counting (exit 1), per GPU
    (the rest is shown, unknowns null), and --min-free with unknown memory."""
    r, _ = gpus(extra_env={"STANDIN_NVML_FAIL": "nvmlInit_v2:9"}, status=2)
    H.expect_eq("init", r.stderr, "vramtrace gpus: NVML cannot start: Driver Not Loaded "
                "(NVML error 9)\n")
    r, _ = gpus(extra_env={"STANDIN_NVML_FAIL": "nvmlDeviceGetCount_v2:999"}, status=1)
    H.expect_eq("count", r.stderr, "vramtrace gpus: NVML cannot count the GPUs: Unknown Error "
                "(NVML error 999)\n")
    (h,) = holders((("hold", 10 * MiB), {}))
    try:
        fail = ("nvmlDeviceGetUtilizationRates:3,nvmlDeviceGetMemoryInfo:15,"
                "nvmlDeviceGetComputeRunningProcesses_v3:4,nvmlDeviceGetName:3")
        _, data = gpus("--json", extra_env={"STANDIN_NVML_FAIL": fail})
        g0 = gpu(data, 0)
        for k in ("total_bytes", "used_bytes", "free_bytes", "utilization_percent", "name"):
            H.expect_eq("unknown " + k, g0[k], None)
        H.expect_eq("processes", g0["processes"], [])
        H.expect_eq("processes_error", g0["processes_error"],
                    "Insufficient Permissions (NVML error 4)")
        r, _ = gpus("--min-free", "1", extra_env={"STANDIN_NVML_FAIL": fail}, status=3)
        H.expect("its free memory is unknown" in r.stderr, r.stderr)
        r, _ = gpus(extra_env={"STANDIN_NVML_FAIL": fail})
        H.expect("memory: unknown (NVML did not say); utilization unknown" in r.stdout, r.stdout)
        H.expect("processes: NVML cannot list them: Insufficient Permissions" in r.stdout, r.stdout)
        _, data = gpus("--json", extra_env={"STANDIN_NVML_FAIL": "nvmlDeviceGetHandleByIndex_v2:15"})
        H.expect_eq("GPU lost", gpu(data, 0)["error"], "GPU is lost (NVML error 15)")
    finally:
        h.close()


def case_gpus_bad_arguments():
    for args, message in ((["--device", "x"], "--device needs a GPU index, not 'x'"),
                          (["--min-free", "lots"], "--min-free needs a size such as 20GiB, "
                                                   "not 'lots'"),
                          (["--frob"], "unknown option '--frob'"),
                          (["--device"], "--device needs a value")):
        r, _ = gpus(*args, status=2)
        H.expect_eq("stderr of %s" % args, r.stderr,
                    "vramtrace gpus: %s (see vramtrace gpus --help)\n" % message)
    r, _ = gpus("--help")
    H.expect("--min-free SIZE" in r.stdout, r.stdout)



# ---- the stand-in GPUs' registry: what has ended holds nothing ----

# a small GPU: a holder of all of it writes no gigabyte (MALLOC_PERTURB_)
SMALL = {"STANDIN_CUDA_MEMORY": "64M"}
FULL = 64 * MiB - CONTEXT  # with its context, the whole of GPU 0


def outer_pid(unshare_pid):
    """The pid, outside its namespace, of the process `unshare --fork` started."""
    with open("/proc/%d/task/%d/children" % (unshare_pid, unshare_pid)) as f:
        return int(f.read().split()[0])


def case_registry_killed_in_namespace():
    """A holder SIGKILLed in a pid namespace of its own (a container's
    process: its pid cannot be looked up here): the next process that
    opens the registry gets the whole GPU."""
    p = subprocess.Popen(pid_namespace() + [H.program("gpu_holder"), "hold", str(FULL)],
                         env=H.base_env(env(SMALL)), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         universal_newlines=True)
    try:
        H.expect_eq("the holder in its namespace", p.stdout.readline(), "ready 1\n")
        H.expect_eq("GPU 0 used while it holds",
                    gpu(gpus("--json", extra_env=SMALL)[1], 0)["used_bytes"], 64 * MiB)
        os.kill(outer_pid(p.pid), signal.SIGKILL)
        p.wait(timeout=H.TIMEOUT)  # unshare ends once it has reaped the holder
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    (h,) = holders((("hold", FULL), {"extra_env": SMALL}))
    try:
        g0 = gpu(gpus("--json", extra_env=SMALL)[1], 0)
        H.expect_eq("GPU 0 processes", [(q["pid"], q["used_bytes"]) for q in g0["processes"]],
                    [(h.pid, 64 * MiB)])
    finally:
        h.close()


def case_registry_of_the_test():
    """A process started with the test's own environment, not the harness's
    (os.environ as it is): it shares the test's registry all the same."""
    h = subprocess.Popen([H.program("gpu_holder"), "hold", str(10 * MiB)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, universal_newlines=True)
    try:
        pid = int(h.stdout.readline().split()[1])
        g0 = gpu(gpus("--json")[1], 0)
        H.expect_eq("GPU 0 processes", [(q["pid"], q["used_bytes"]) for q in g0["processes"]],
                    [(pid, 10 * MiB)])
    finally:
        h.kill()
        h.wait()


REUSE = r"""
import json, os, signal, subprocess, sys
holder, size = sys.argv[1:]
h = subprocess.Popen([holder, "hold", size], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
pid = int(h.stdout.readline().split()[1])
os.kill(pid, signal.SIGKILL)
h.wait()
with open("/proc/sys/kernel/ns_last_pid", "w") as f:
    f.write(str(pid - 1))
sleeper = subprocess.Popen(["sleep", "600"])
again = subprocess.run([holder, "hold", size], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
sleeper.kill()
print(json.dumps([sleeper.pid == pid, again.returncode, again.stderr]))
"""


def case_registry_reused_pid():
    """A holder SIGKILLed, its pid taken by a new process that never used
    the GPUs (ns_last_pid, in a pid namespace): the registry tells the two
    apart by their start times, and the next holder gets the whole GPU."""
    r = H._run(pid_namespace() + [sys.executable, "-c", REUSE, H.program("gpu_holder"), str(FULL)],
               H.base_env(env(SMALL)), H.tmpdir())
    if "ns_last_pid" in r.stderr:
        raise H.Skip("cannot set ns_last_pid here: %s" % r.stderr.strip().splitlines()[-1])
    H.expect_eq("status (stderr: %s)" % r.stderr, r.status, 0)
    H.expect_eq("[pid reused, the next holder's status and stderr]", json.loads(r.stdout),
                [True, 0, ""])


def case_registry_out_of_memory_named():
    """Out of memory because other processes hold the GPU: the stand-in says
    where they are counted, and how to start afresh."""
    (h,) = holders((("hold", 40 * MiB), {"extra_env": SMALL}))
    try:
        r = H.run_plain([H.program("gpu_holder"), "hold", str(40 * MiB)], env(SMALL))
    finally:
        h.close()
    H.expect("ready" not in r.stdout, "the second holder got its memory: %r" % r.stdout)
    H.expect_eq("the stand-in's line", [l for l in r.stderr.splitlines() if l.startswith("stand-in GPUs:")], [
        "stand-in GPUs: out of memory on GPU 0: other processes hold 56.0 MiB of its 64.0 MiB "
        "in the registry %s (STANDIN_GPU_REGISTRY; `vramtrace gpus` lists them); to reset it, "
        "end them or remove that file" % H.gpu_registry()])


if __name__ == "__main__":
    H.main(globals())
