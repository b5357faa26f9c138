# SPDX-License-Identifier: MIT
"""Exports (vramtrace export, report --html), each read back by a parser of
its format and checked against the report and the programs' ground truth:
tests/programs/usage.c (a cache, a temporary and a leak per step, markers;
an out-of-memory error) and tests/programs/inline_leak.c (an inlined frame)."""
import gzip
import html.parser
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("usage.c")
D = H.c_defines(SRC)
STEPS, LEAK, CACHE, TEMP = D["STEPS"], D["LEAK_BYTES"], D["CACHE_BYTES"], D["TEMP_BYTES"]
PEAK = CACHE + TEMP + STEPS * LEAK
INLINE_SRC = H.program_source("inline_leak.c")
INLINE_BYTES = H.c_defines(INLINE_SRC)["INLINE_LEAK_BYTES"]


STANDIN_CAPACITY = {"STANDIN_CUDA_MEMORY": "64M"}   # the size usage.c's oom mode expects


def usage_dump(mode="grow"):
    r = H.run_traced([H.program("usage"), mode], extra_env=STANDIN_CAPACITY)
    H.expect_program_ok(r)
    H.expect_dump(r)
    return r.dump


def vramtrace(*args):
    return H._run([H.vramtrace_exe()] + list(args), H.base_env(), H.tmpdir())


def export(dump, fmt, *args):
    """`vramtrace export --format FMT ARGS DUMP -o FILE`: the file's bytes."""
    out = os.path.join(H.tmpdir(), "export." + fmt)
    r = vramtrace("export", "--format", fmt, "-o", out, *args, dump)
    H.expect_eq("export %s exit status (stderr: %s)" % (fmt, r.stderr.strip()), r.status, 0)
    H.expect_eq("export %s stderr" % fmt, r.stderr, "")
    with open(out, "rb") as f:
        return f.read()


# ---- folded stacks ----

def parse_folded(data, counts=1):
    """{stack tuple (root first): count or (base, count)}; every line is
    'frame;frame;... N' (or '... N M'), stacks unique."""
    out = {}
    for line in data.decode().splitlines():
        parts = line.rsplit(" ", counts)
        H.expect(len(parts) == counts + 1 and all(p.isdigit() for p in parts[1:]),
                 "bad folded line %r" % line)
        stack = tuple(parts[0].split(";"))
        H.expect(all(stack), "empty frame in %r" % line)
        H.expect(stack not in out, "stack repeated: %r" % line)
        nums = [int(p) for p in parts[1:]]
        out[stack] = nums[0] if counts == 1 else tuple(nums)
    return out


def by_leaf_function(folded, function):
    """The one stack whose frame before the API leaf is FUNCTION."""
    found = [s for s in folded if len(s) >= 2 and s[-2] == function]
    H.expect_eq("folded stacks through %s" % function, len(found), 1)
    return found[0]


def check_root_first(stack):
    H.expect_eq("leaf (the API called)", stack[-1], "cudaMalloc")
    H.expect(stack.index("main") < stack.index("run_steps"),
             "stack is not root first: %r" % (stack,))


def case_folded_leaked():
    dump = usage_dump()
    rep = H.report(dump)
    folded = parse_folded(export(dump, "folded"))
    H.expect_eq("sum of folded counts = report leaked_bytes", sum(folded.values()),
                H.summary(rep)["leaked_bytes"])
    stack = by_leaf_function(folded, "leak_step")
    check_root_first(stack)
    H.expect_eq("leak_step bytes", folded[stack], STEPS * LEAK)
    H.expect_eq("frames above leak_step", stack[-4:-2], ("run_steps", "step"))
    H.expect_eq("stacks (only the leak survives)", len(folded), 1)


def case_folded_python():
    """Python frames in a folded stack, py-spy's way: function (file:line),
    root first, between the native frames of the program (py_frames.py)."""
    src = H.program_source("py_frames.py")
    r = H.run_traced([sys.executable, src])
    H.expect_program_ok(r)
    folded = parse_folded(export(r.dump, "folded"))
    lines = {}
    with open(src, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            for tag in ("LEAK:nested", "CALL:middle", "CALL:outer"):
                if tag in line:
                    lines[tag] = n
    want = ["outer (py_frames.py:%d)" % lines["CALL:outer"],
            "middle (py_frames.py:%d)" % lines["CALL:middle"],
            "innermost (py_frames.py:%d)" % lines["LEAK:nested"]]
    nested = [st for st in folded if all(w in st for w in want)]
    H.expect(len(nested) == 1, "one folded stack through outer, middle, innermost; got:\n%s" %
             "\n".join(";".join(st) for st in folded))
    st = nested[0]
    H.expect_eq("Python frames, root first", [f for f in st if f in want], want)
    H.expect(st.index(want[0]) < st.index(want[2]) and st[-1] == "cudaMalloc",
             "the API last, Python frames in order: %r" % (st,))
    H.expect_eq("nested bytes", folded[st], 3100007)


def case_folded_peak():
    dump = usage_dump()
    rep = H.report(dump)
    folded = parse_folded(export(dump, "folded", "--what", "peak"))
    H.expect_eq("sum = device 0 peak", sum(folded.values()), rep["peaks"][0]["bytes"])
    H.expect_eq("sum = ground truth peak", sum(folded.values()), PEAK)
    for function, nbytes in (("leak_step", STEPS * LEAK), ("make_cache", CACHE),
                             ("make_temp", TEMP)):
        H.expect_eq("%s at the peak" % function, folded[by_leaf_function(folded, function)],
                    nbytes)


def case_folded_allocated():
    dump = usage_dump()
    folded = parse_folded(export(dump, "folded", "--what", "allocated"))
    for function, nbytes in (("leak_step", STEPS * LEAK), ("make_cache", CACHE),
                             ("make_temp", STEPS * TEMP)):
        H.expect_eq("%s allocated" % function, folded[by_leaf_function(folded, function)],
                    nbytes)
    H.expect_eq("sum allocated", sum(folded.values()), CACHE + STEPS * (TEMP + LEAK))


def case_folded_diff():
    grow, oom = usage_dump("grow"), usage_dump("oom")
    diff = parse_folded(export(grow, "folded", "--what", "allocated", "--diff", oom), counts=2)
    after = parse_folded(export(grow, "folded", "--what", "allocated"))
    before = parse_folded(export(oom, "folded", "--what", "allocated"))
    H.expect_eq("diff stacks = union of both", set(diff), set(after) | set(before))
    for stack, (b, a) in diff.items():
        H.expect_eq("base count of %s" % ";".join(stack), b, before.get(stack, 0))
        H.expect_eq("count of %s" % ";".join(stack), a, after.get(stack, 0))
    big = by_leaf_function(diff, "hold_big")
    H.expect_eq("hold_big: only in the base", diff[big], (D["OOM_BIG_BYTES"], 0))
    step = by_leaf_function(diff, "leak_step")
    H.expect_eq("leak_step: only in the new dump", diff[step], (0, STEPS * LEAK))


# ---- pprof: a protobuf reader ----

def varint(buf, i):
    v = shift = 0
    while True:
        H.expect(i < len(buf), "varint runs past the end")
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, i
        H.expect(shift < 70, "varint longer than 10 bytes")


def decode(buf):
    """A message as {field: [values]}: ints for varints, bytes for
    length-delimited fields (only wire types 0 and 2 are expected)."""
    fields, i = {}, 0
    while i < len(buf):
        key, i = varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(buf, i)
        elif wire == 2:
            n, i = varint(buf, i)
            H.expect(i + n <= len(buf), "field %d runs past the end" % field)
            v, i = bytes(buf[i:i + n]), i + n
        else:
            H.fail("unexpected wire type %d (field %d)" % (wire, field))
        fields.setdefault(field, []).append(v)
    return fields


def packed(values):
    out = []
    for v in values:
        if isinstance(v, int):
            out.append(v)
            continue
        i = 0
        while i < len(v):
            x, i = varint(v, i)
            out.append(x)
    return out


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def one(msg, field, default=0):
    return msg.get(field, [default])[-1]


class Profile:
    """profile.proto read back: strings, sample types, samples, locations,
    functions, mappings, with every reference checked."""

    def __init__(self, data):
        H.expect(data[:2] == b"\x1f\x8b", "pprof output is not gzip")
        p = decode(gzip.decompress(data))
        self.strings = [s.decode() for s in p.get(6, [])]
        H.expect(self.strings and self.strings[0] == "", "string_table[0] must be empty")
        H.expect_eq("string table entries unique", len(set(self.strings)), len(self.strings))
        self.sample_types = [(self.s(one(m, 1)), self.s(one(m, 2)))
                             for m in map(decode, p.get(1, []))]
        self.functions = self.by_id(p.get(5, []), "function")
        self.locations = self.by_id(p.get(4, []), "location")
        self.mappings = self.by_id(p.get(3, []), "mapping")
        self.samples = [decode(m) for m in p.get(2, [])]
        self.default = self.s(one(p, 14))
        self.period_type = [(self.s(one(m, 1)), self.s(one(m, 2))) for m in map(decode, p.get(11, []))]
        self.duration = one(p, 10)

    def s(self, index):
        H.expect(0 <= index < len(self.strings), "string index %d out of range" % index)
        return self.strings[index]

    @staticmethod
    def by_id(raw, what):
        out = {}
        for m in map(decode, raw):
            ident = one(m, 1)
            H.expect(ident != 0, "%s id 0" % what)
            H.expect(ident not in out, "%s id %d repeated" % (what, ident))
            out[ident] = m
        return out

    def lines(self, location_id):
        """[(function, file, line)] of a location, innermost (inlined) first."""
        H.expect(location_id in self.locations, "unknown location id %d" % location_id)
        loc = self.locations[location_id]
        mapping = one(loc, 2)
        H.expect(mapping == 0 or mapping in self.mappings, "unknown mapping id %d" % mapping)
        out = []
        for line in map(decode, loc.get(4, [])):
            fid = one(line, 1)
            H.expect(fid in self.functions, "unknown function id %d" % fid)
            f = self.functions[fid]
            out.append((self.s(one(f, 2)), self.s(one(f, 4)), signed(one(line, 2))))
        return out

    def sample(self, s):
        """(frames innermost first as (function, file, line), values, labels)."""
        frames = [fr for loc in packed(s.get(1, [])) for fr in self.lines(loc)]
        values = [signed(v) for v in packed(s.get(2, []))]
        H.expect_eq("values per sample", len(values), len(self.sample_types))
        labels = {}
        for lab in map(decode, s.get(3, [])):
            key = self.s(one(lab, 1))
            if 2 in lab:
                labels[key] = self.s(one(lab, 2))
            else:   # pprof drops a numeric label whose value and unit are both 0
                H.expect(self.s(one(lab, 4)) != "", "numeric label %s without a unit" % key)
                labels[key] = signed(one(lab, 3))
        return frames, values, labels


SAMPLE_TYPES = [("inuse_space", "bytes"), ("inuse_objects", "count"), ("alloc_space", "bytes"),
                ("alloc_objects", "count")]


def pprof_sample(prof, function):
    found = [prof.sample(s) for s in prof.samples if prof.sample(s)[0]
             and prof.sample(s)[0][0][0] == function]
    H.expect_eq("samples whose innermost function is %s" % function, len(found), 1)
    return found[0]


def case_pprof():
    dump = usage_dump()
    rep = H.report(dump)
    prof = Profile(export(dump, "pprof"))
    H.expect_eq("sample types", prof.sample_types, SAMPLE_TYPES)
    H.expect_eq("default sample type", prof.default, "inuse_space")
    H.expect_eq("period type", prof.period_type, [("space", "bytes")])
    H.expect_eq("samples (one per call site)", len(prof.samples), 3)
    inuse = sum(prof.sample(s)[1][0] for s in prof.samples if prof.sample(s)[2]["kind"] != "host")
    H.expect_eq("sum of inuse_space = report leaked_bytes", inuse, H.summary(rep)["leaked_bytes"])
    alloc = sum(prof.sample(s)[1][3] for s in prof.samples)
    H.expect_eq("sum of alloc_objects = report allocations", alloc, H.summary(rep)["allocations"])
    truth = {"leak_step": ([STEPS * LEAK, STEPS, STEPS * LEAK, STEPS], "step"),
             "make_temp": ([0, 0, STEPS * TEMP, STEPS], "temp"),
             "make_cache": ([0, 0, CACHE, 1], "cache")}
    for function, (values, tag) in truth.items():
        frames, got, labels = pprof_sample(prof, function)
        H.expect_eq("%s values" % function, got, values)
        H.expect_eq("%s labels" % function, labels,
                    {"device": 0, "kind": "device", "api": "cudaMalloc"})
        H.expect_eq("%s file" % function, os.path.basename(frames[0][1]), "usage.c")
        H.expect_eq("%s line" % function, frames[0][2], H.marker_line(SRC, tag))
        H.expect("main" in [f[0] for f in frames], "%s: no main frame: %r" % (function, frames))
    exe = [m for m in prof.mappings.values() if prof.s(one(m, 5)).endswith("/usage")]
    H.expect_eq("mappings of the usage program", len(exe), 1)
    build_id = prof.s(one(exe[0], 6))
    H.expect(len(build_id) >= 16 and all(c in "0123456789abcdef" for c in build_id),
             "build id of the usage program: %r" % build_id)
    H.expect_eq("build id", build_id, elf_build_id(H.program("usage")))
    H.expect(one(exe[0], 2) < one(exe[0], 3), "mapping start must be below its limit")
    H.expect(prof.duration > 0, "duration_nanos must be set")


def case_behalf_exports():
    """An allocation made on behalf of another thread (PyTorch's autograd
    engine for the thread that called backward()): its pprof sample and its
    torch-snapshot frames go on, past a marker, into that thread's Python
    frames, as the folded stacks do; the same native stack without them is
    a sample of its own."""
    dump = os.path.join(H.tmpdir(), "behalf.vtr")
    subprocess.run([os.environ["MKDUMP"], "behalf", dump], check=True, timeout=H.TIMEOUT)
    prof = Profile(export(dump, "pprof"))
    samples = sorted((values[0], [f[0] for f in frames]) for frames, values, _ in
                     map(prof.sample, prof.samples))
    H.expect_eq("samples (inuse bytes, functions innermost first)", [s[0] for s in samples],
                [1 << 20, 2 << 20])
    one_mib, two_mib = samples[0][1], samples[1][1]
    H.expect_eq("the frames after its own", one_mib[len(two_mib):],
                ["[on its behalf, another thread]", "train_step", "<module>"])
    H.expect_eq("its own frames", one_mib[:len(two_mib)], two_mib)
    H.expect("[on its behalf, another thread]" not in two_mib, two_mib)
    snap = torch_snapshot(dump)
    allocs = sorted((e["size"], [(f["name"], f["filename"], f["line"]) for f in e["frames"]])
                    for e in snap["device_traces"][0] if e["action"] == "alloc")
    H.expect_eq("snapshot allocations", [a[0] for a in allocs], [1 << 20, 2 << 20])
    H.expect_eq("snapshot: the frames after its own", allocs[0][1][len(allocs[1][1]):], [
        ("[on its behalf, another thread]", "??", 0), ("train_step", "train.py", 22),
        ("<module>", "train.py", 30)])


def elf_build_id(path):
    """The GNU build id note of an ELF file, in hex (64-bit little-endian)."""
    with open(path, "rb") as f:
        elf = f.read()
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    for k in range(shnum):
        sh = shoff + k * shentsize
        stype, = struct.unpack_from("<I", elf, sh + 4)
        off, size = struct.unpack_from("<QQ", elf, sh + 0x18)
        i = off
        while stype == 7 and i < off + size:   # SHT_NOTE
            namesz, descsz, ntype = struct.unpack_from("<III", elf, i)
            name_end = i + 12 + (namesz + 3) // 4 * 4
            if ntype == 3 and elf[i + 12:i + 12 + namesz] == b"GNU\0":
                return elf[name_end:name_end + descsz].hex()
            i = name_end + (descsz + 3) // 4 * 4
    H.fail("no build id in %s" % path)


def case_pprof_inline():
    r = H.run_traced([H.program("inline_leak")])
    H.expect_program_ok(r)
    prof = Profile(export(r.dump, "pprof"))
    H.expect_eq("samples", len(prof.samples), 1)
    s = prof.samples[0]
    frames, values, _ = prof.sample(s)
    H.expect_eq("values", values, [INLINE_BYTES, 1, INLINE_BYTES, 1])
    first = prof.lines(packed(s[1])[0])
    H.expect_eq("the innermost location's lines (inlined function, then its caller)",
                [(f, os.path.basename(file), line) for f, file, line in first[:2]],
                [("alloc_inline", "inline_leak.c", H.marker_line(INLINE_SRC, "inline")),
                 ("inline_caller", "inline_leak.c", H.call_line(INLINE_SRC, "inline_caller"))])
    H.expect_eq("lines in that location", len(first), 2)


# ---- Chrome trace ----

def chrome_events(data):
    trace = json.loads(data)
    H.expect(isinstance(trace.get("traceEvents"), list), "no traceEvents array")
    for e in trace["traceEvents"]:
        H.expect(e.get("ph") in ("M", "C", "i", "X", "B"), "unexpected event %r" % e)
        H.expect(isinstance(e.get("pid"), int), "event without pid %r" % e)
    return trace["traceEvents"]


def counter_at(events, name, ts):
    """The counter's value at TS (microseconds): the last event at or before it."""
    value = None
    for e in events:
        if e["ph"] == "C" and e["name"] == name and e["ts"] <= ts:
            value = e["args"]["bytes"]
    return value


def timeline_json(dump):
    r = vramtrace("timeline", "--json", dump)
    H.expect_eq("timeline exit status", r.status, 0)
    return json.loads(r.stdout)


def case_chrome():
    dump = usage_dump()
    rep = H.report(dump)
    events = chrome_events(export(dump, "chrome"))
    pid = rep["process"]["pid"]
    names = [e for e in events if e["ph"] == "M" and e["name"] == "process_name"]
    H.expect_eq("process_name events", [(e["pid"], e["args"]["name"]) for e in names],
                [(pid, "usage (pid %d)" % pid)])
    tl = timeline_json(dump)
    live = "device 0 live bytes"
    for sample in tl["devices"][0]["samples"]:
        H.expect_eq("live bytes at %d ns" % sample["time_ns"],
                    counter_at(events, live, sample["time_ns"] / 1000), sample["bytes"])
    H.expect_eq("live bytes at the start", counter_at(events, live, 0), 0)
    H.expect_eq("live bytes at the end", counter_at(events, live, 1e18), STEPS * LEAK)
    highest = max(e["args"]["bytes"] for e in events
                  if e["ph"] == "C" and e["name"] == "device 0 highest live bytes per bin")
    H.expect_eq("highest of the per-bin maxima", highest, PEAK)
    marks = [(e["ts"], e["args"]["marker"]) for e in events if e["ph"] == "i" and e["name"] == "step"]
    H.expect_eq("marker instants", marks,
                [(m["time_ns"] / 1000, i) for i, m in enumerate(tl["marks"])])
    H.expect_eq("markers", len(marks), STEPS)
    peaks = [e for e in events if e["ph"] == "i" and e["name"] == "device 0 peak"]
    H.expect_eq("peak instants", [(e["ts"], e["args"]["bytes"], e["s"]) for e in peaks],
                [(rep["peaks"][0]["time_ns"] / 1000, PEAK, "p")])


def case_chrome_oom_processes():
    grow, oom = usage_dump("grow"), usage_dump("oom")
    out = os.path.join(H.tmpdir(), "trace.json")
    r = vramtrace("export", "--format", "chrome", "-o", out, grow, oom)
    H.expect_eq("exit status (stderr: %s)" % r.stderr.strip(), r.status, 0)
    with open(out, "rb") as f:
        events = chrome_events(f.read())
    pids = [H.report(d)["process"]["pid"] for d in (grow, oom)]
    H.expect_eq("one process per dump", sorted({e["pid"] for e in events}), sorted(pids))
    ooms = [e for e in events if e["name"] == "out of memory"]
    H.expect_eq("out-of-memory instants", [(e["pid"], e["args"]["requested_bytes"],
                                            e["args"]["live_bytes"]) for e in ooms],
                [(pids[1], D["OOM_REQUEST_BYTES"], D["OOM_BIG_BYTES"] + D["OOM_SMALL_BYTES"])])


def perfetto_slices(events):
    """The slices the trace processor makes of the JSON, by its documented
    rules: on each thread track (pid, tid) an "X" is a slice of "dur"
    microseconds, a "B" opens one that its "E" closes (none: it did not end,
    dur -1), and the slices of a track nest. Returns {track name: [slice]}
    (track names from "thread_name" metadata), each slice a dict with ts,
    dur (None: did not end) and args."""
    names, tracks = {}, {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e["ph"] in ("X", "B"):
            H.expect(isinstance(e.get("tid"), int) and isinstance(e.get("ts"), (int, float)), e)
            tracks.setdefault((e["pid"], e["tid"]), []).append(
                dict(name=e["name"], ts=e["ts"], dur=e.get("dur") if e["ph"] == "X" else None,
                     args=e.get("args", {}), cat=e.get("cat")))
    out = {}
    for track, slices in tracks.items():
        slices.sort(key=lambda x: x["ts"])
        stack = []
        for sl in slices:
            end = sl["ts"] + sl["dur"] if sl["dur"] is not None else float("inf")
            while stack and stack[-1] <= sl["ts"]:
                stack.pop()
            H.expect(not stack or end <= stack[-1],
                     "slices of track %r cross (the trace processor would misplace them): %r"
                     % (names.get(track), sl))
            stack.append(end)
        H.expect(track in names, "track %r has no thread_name" % (track,))
        out[names[track]] = slices
    return out


def lifetime_tracks(slices, site):
    """The lanes of a call site, in order: [[slice...], ...]."""
    lanes = sorted((int(name.rsplit("#", 1)[1]), v) for name, v in slices.items()
                   if name.startswith("device 0: %s (" % site))
    H.expect_eq("lanes of %s" % site, [n for n, _ in lanes], list(range(1, len(lanes) + 1)))
    return [v for _, v in lanes]


def case_chrome_lifetimes():
    """One slice per allocation of usage.c (grow), from allocation to free, on
    a track per call site (lanes where they overlap); the leaks never end."""
    dump = usage_dump()
    rep = H.report(dump)
    events = chrome_events(export(dump, "chrome"))
    slices = perfetto_slices(events)
    marks = [m["time_ns"] / 1000 for m in timeline_json(dump)["marks"]]
    cache = lifetime_tracks(slices, "make_cache")
    temp = lifetime_tracks(slices, "make_temp")
    leak = lifetime_tracks(slices, "leak_step")
    H.expect_eq("track names", sorted(slices), sorted(
        ["device 0: make_cache (usage.c:%d) #1" % H.marker_line(SRC, "cache"),
         "device 0: make_temp (usage.c:%d) #1" % H.marker_line(SRC, "temp")] +
        ["device 0: leak_step (usage.c:%d) #%d" % (H.marker_line(SRC, "step"), i)
         for i in range(1, STEPS + 1)]))
    H.expect_eq("cache slices", [(len(cache[0]), cache[0][0]["args"]["bytes"])], [(1, CACHE)])
    c = cache[0][0]
    H.expect(c["dur"] is not None and c["ts"] < marks[0] and c["ts"] + c["dur"] > marks[-1],
             "the cache lives from before the first step to after the last: %r" % c)
    H.expect_eq("temporaries: one lane, one slice per step", [len(t) for t in temp], [STEPS])
    for i, t in enumerate(temp[0]):
        lo = marks[i - 1] if i else c["ts"]
        H.expect(t["dur"] is not None and lo < t["ts"] and t["ts"] + t["dur"] < marks[i],
                 "temporary %d lies within step %d: %r (marks %r)" % (i, i, t, marks[:i + 1]))
        H.expect_eq("temporary bytes", (t["args"]["bytes"], t["args"]["api"], t["cat"]),
                    (TEMP, "cudaMalloc", "allocation"))
    H.expect_eq("leaks: a lane each, one slice that never ends",
                [[(x["dur"], x["args"]["bytes"], x["args"].get("leaked")) for x in lane]
                 for lane in leak], [[(None, LEAK, True)]] * STEPS)
    for i, lane in enumerate(leak):
        H.expect(temp[0][i]["ts"] <= lane[0]["ts"] <= temp[0][i]["ts"] + temp[0][i]["dur"],
                 "leak %d allocated while temporary %d lived" % (i, i))
    total = sum(len(v) for v in slices.values())
    H.expect_eq("one slice per allocation", total, H.summary(rep)["allocations"])


def case_chrome_lifetimes_aggregate():
    """Aggregate mode: per call site, one slice while it holds memory."""
    r = H.run_traced([H.program("usage"), "grow"], extra_env=dict(STANDIN_CAPACITY,
                                                                 VRAMTRACE_MODE="aggregate"))
    H.expect_program_ok(r)
    slices = perfetto_slices(chrome_events(export(r.dump, "chrome")))
    leak = lifetime_tracks(slices, "leak_step")
    H.expect_eq("leak_step: one slice that never ends",
                [[(x["dur"], x["args"]["bytes"], x["args"]["allocations"], x["args"]["leaked"])
                  for x in lane] for lane in leak], [[(None, STEPS * LEAK, STEPS, True)]])
    cache = lifetime_tracks(slices, "make_cache")
    H.expect_eq("make_cache: one slice that ends",
                [[(x["dur"] is not None, x["args"]["bytes"], "leaked" in x["args"]) for x in lane]
                 for lane in cache], [[(True, CACHE, False)]])


# ---- JSON ----

def case_json():
    dump = usage_dump()
    H.expect_eq("export --format json = report --json", json.loads(export(dump, "json")),
                H.report(dump))


# ---- torch-snapshot (PyTorch's memory_viz) ----

# The opcodes memory_viz's JavaScript unpickler (torch/utils/viz/MemoryViz.js)
# reads; the export must use no other, and only protocol 2 ones.
MEMORY_VIZ_OPCODES = {"PROTO", "APPEND", "APPENDS", "LIST", "TUPLE", "NEWFALSE", "NEWTRUE",
                      "NONE", "BINGET", "BININT", "BININT1", "BININT2", "EMPTY_DICT", "EMPTY_LIST",
                      "FRAME", "LONG1", "LONG_BINGET", "MARK", "MEMOIZE", "BINPUT", "LONG_BINPUT",
                      "SETITEMS", "SETITEM", "DICT", "SHORT_BINUNICODE", "BINUNICODE", "STOP",
                      "EMPTY_TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "BINFLOAT"}


def torch_snapshot(dump):
    """The export decoded, after checking its opcodes."""
    import pickle
    import pickletools
    data = export(dump, "torch-snapshot")
    for op, _, pos in pickletools.genops(data):
        H.expect(op.name in MEMORY_VIZ_OPCODES and op.proto <= 2,
                 "opcode %s (protocol %d) at %d: memory_viz or protocol 2 does not have it" % (
                     op.name, op.proto, pos))
    snap = pickle.loads(data)
    H.expect_eq("top-level keys", sorted(snap), ["device_traces", "segments"])
    return snap


def memory_viz_timeline(snap, device):
    """What memory_viz's process_alloc_data (Active Memory Timeline) makes of
    the snapshot, redone from its rules: an "alloc" is an element; a "free"
    or "free_completed" at its address ends it (else the free is an element
    allocated before the trace); active_allocated blocks of the device's
    segments whose address no alloc left open are allocated before the trace.
    Returns (elements with their end action index or None, initially
    allocated, the highest total over the actions)."""
    elements, open_at, actions = [], {}, []
    for i, e in enumerate(snap["device_traces"][device]):
        if e["action"] == "alloc":
            elements.append(dict(e, freed=None))
            open_at[e["addr"]] = len(elements) - 1
            actions.append(len(elements) - 1)
        elif e["action"] in ("free", "free_completed"):
            if e["addr"] in open_at:
                elements[open_at.pop(e["addr"])]["freed"] = i
                actions.append(None)
            else:
                elements.append(dict(e, freed=i, before_trace=True))
    initially = [dict(action="alloc", addr=b["address"], size=b["requested_size"],
                      frames=b["frames"], before_trace=True)
                 for seg in snap["segments"] if seg["device"] == device
                 for b in seg["blocks"]
                 if b["state"] == "active_allocated" and b["address"] not in open_at]
    total = high = 0
    live = {}
    for e in snap["device_traces"][device]:
        if e["action"] == "alloc":
            live[e["addr"]] = e["size"]
            total += e["size"]
        elif e["action"] == "free_completed" and e["addr"] in live:
            total -= live.pop(e["addr"])
        high = max(high, total)
    return elements, initially, open_at, high


def site_name(frames):
    return (frames[0]["name"], os.path.basename(frames[0]["filename"]), frames[0]["line"],
            frames[1]["name"])


def case_torch_snapshot():
    """Every allocation and free of usage.c (grow) in order, with sizes,
    frames and times; what is live at the end as segments; the peak as
    memory_viz's timeline computes it."""
    dump = usage_dump()
    rep = H.report(dump)
    snap = torch_snapshot(dump)
    H.expect_eq("devices traced", len(snap["device_traces"]), 1)
    trace = snap["device_traces"][0]
    cache = ("make_cache", "usage.c", H.marker_line(SRC, "cache"), "run_steps")
    temp = ("make_temp", "usage.c", H.marker_line(SRC, "temp"), "step")
    leak = ("leak_step", "usage.c", H.marker_line(SRC, "step"), "step")
    want = [("segment_alloc", CACHE, cache), ("alloc", CACHE, cache)]
    for _ in range(STEPS):
        want += [("segment_alloc", TEMP, temp), ("alloc", TEMP, temp),
                 ("segment_alloc", LEAK, leak), ("alloc", LEAK, leak),
                 ("free_requested", TEMP, temp), ("free_completed", TEMP, temp),
                 ("segment_free", TEMP, temp)]
    want += [("free_requested", CACHE, cache), ("free_completed", CACHE, cache),
             ("segment_free", CACHE, cache)]
    H.expect_eq("trace events", [(e["action"], e["size"], site_name(e["frames"])) for e in trace],
                want)
    for e in trace:
        H.expect_eq("event keys", sorted(e), ["action", "addr", "frames", "size", "stream",
                                              "time_us"])
        H.expect(all(sorted(f) == ["filename", "line", "name"] for f in e["frames"]), e)
    times = [e["time_us"] for e in trace]
    start_us = rep["process"]["start_time_ns"] // 1000
    H.expect(times == sorted(times) and start_us <= times[0] and
             times[-1] <= start_us + rep["duration_ns"] // 1000 + 1,
             "times: %r (start %d, duration %d ns)" % (times[:3], start_us, rep["duration_ns"]))
    elements, initially, still_open, high = memory_viz_timeline(snap, 0)
    H.expect_eq("elements", [(e["size"], e["freed"] is None) for e in elements],
                [(CACHE, False)] + [(TEMP, False), (LEAK, True)] * STEPS)
    H.expect_eq("allocated before the trace", initially, [])
    H.expect_eq("peak on the timeline", high, PEAK)
    segs = snap["segments"]
    H.expect_eq("segments at the end", sorted(s["address"] for s in segs), sorted(still_open))
    for s in segs:
        H.expect_eq("segment", (s["device"], s["total_size"], s["allocated_size"], s["stream"],
                                s["segment_pool_id"], [b["state"] for b in s["blocks"]],
                                [b["size"] for b in s["blocks"]], site_name(s["blocks"][0]["frames"])),
                    (0, LEAK, LEAK, 0, (0, 0), ["active_allocated"], [LEAK], leak))
    leaked = [lk for lk in rep["leaks"] if lk["kind"] != "host"]
    H.expect_eq("held at the end = the report's leaks", sum(s["total_size"] for s in segs),
                sum(lk["bytes"] for lk in leaked))


def case_torch_snapshot_mode():
    """The snapshot holds the program's paths as its dump does: a new file is
    0600 like the dump, whatever the umask; folded stacks keep fopen's mode."""
    dump = usage_dump()
    d = H.tmpdir()
    snap, folded = os.path.join(d, "s.pickle"), os.path.join(d, "s.folded")
    old = os.umask(0o022)
    try:
        r1 = vramtrace("export", "--format", "torch-snapshot", "-o", snap, dump)
        r2 = vramtrace("export", "--format", "folded", "-o", folded, dump)
    finally:
        os.umask(old)
    H.expect_eq("exit statuses (stderr %r %r)" % (r1.stderr, r2.stderr),
                (r1.status, r2.status), (0, 0))
    H.expect_eq("dump's mode", stat.S_IMODE(os.stat(dump).st_mode), 0o600)
    H.expect_eq("snapshot's mode", stat.S_IMODE(os.stat(snap).st_mode), 0o600)
    H.expect_eq("folded stacks' mode", stat.S_IMODE(os.stat(folded).st_mode), 0o644)


def case_torch_snapshot_python():
    """Python frames (py_frames.py) as memory_viz shows them: file, line, function."""
    src = H.program_source("py_frames.py")
    r = H.run_traced([sys.executable, src])
    H.expect_program_ok(r)
    snap = torch_snapshot(r.dump)
    lines = {tag: H._marker(src, tag.split(":")[0], tag.split(":")[1])
             for tag in ("LEAK:nested", "CALL:middle", "CALL:outer")}
    want = [("innermost", "py_frames.py", lines["LEAK:nested"]),
            ("middle", "py_frames.py", lines["CALL:middle"]),
            ("outer", "py_frames.py", lines["CALL:outer"])]
    nested = [e for e in snap["device_traces"][0] if e["action"] == "alloc" and
              e["size"] == 3100007]
    H.expect_eq("allocations of 3100007 bytes", len(nested), 1)
    py = [(f["name"], os.path.basename(f["filename"]), f["line"]) for f in nested[0]["frames"]
          if f["filename"].endswith(".py")]
    H.expect_eq("Python frames, innermost first", [f for f in py if f in want], want)
    H.expect(any(f["name"] == "main" or not f["filename"].endswith(".py")
                 for f in nested[0]["frames"]), "native frames too: %r" % nested[0]["frames"])


def case_torch_snapshot_oom():
    """An out-of-memory error is an "oom" event with what the driver said was free."""
    dump = usage_dump("oom")
    rep = H.report(dump)
    snap = torch_snapshot(dump)
    ooms = [e for e in snap["device_traces"][0] if e["action"] == "oom"]
    failure = [f for f in rep["failed"] if f["bytes"] == D["OOM_REQUEST_BYTES"]]
    H.expect_eq("failures in the report", len(failure), 1)
    free = failure[0]["oom"]["driver_free_bytes"]
    H.expect(isinstance(free, int), "the stand-in driver tells free memory: %r" % failure[0])
    H.expect_eq("oom events", [(e["size"], e["device_free"], e["addr"], site_name(e["frames"])[0])
                               for e in ooms],
                [(D["OOM_REQUEST_BYTES"], free, free, "request_too_much")])
    elements, _, _, high = memory_viz_timeline(snap, 0)
    H.expect_eq("allocations", sorted(e["size"] for e in elements),
                sorted([D["OOM_SMALL_BYTES"], D["OOM_BIG_BYTES"]]))
    H.expect_eq("held at the oom", high, D["OOM_SMALL_BYTES"] + D["OOM_BIG_BYTES"])
    H.expect_eq("held at the end", [s["total_size"] for s in snap["segments"]],
                [lk["bytes"] for lk in rep["leaks"]])


def case_torch_snapshot_devices():
    """An allocation on device 1: device_traces[1] holds it, device 0's list
    is empty, the segment says device 1; the Perfetto track says device 1."""
    r = H.run_traced([H.program("usage"), "rank"], extra_env=dict(STANDIN_CAPACITY, RANK="1"))
    H.expect_program_ok(r)
    snap = torch_snapshot(r.dump)
    H.expect_eq("device traces", [[(e["action"], e["size"]) for e in t]
                                  for t in snap["device_traces"]],
                [[], [("segment_alloc", D["RANK_BYTES"]), ("alloc", D["RANK_BYTES"])]])
    H.expect_eq("segments", [(s["device"], s["total_size"]) for s in snap["segments"]],
                [(1, D["RANK_BYTES"])])
    slices = perfetto_slices(chrome_events(export(r.dump, "chrome")))
    H.expect_eq("tracks", sorted(slices),
                ["device 1: run_rank (usage.c:%d) #1" % H.marker_line(SRC, "rank")])


def case_torch_snapshot_viz():
    """torch.cuda._memory_viz itself, where torch is installed: trace_plot,
    segment_plot, and its text views (which assert their own invariants)."""
    try:
        from torch.cuda import _memory_viz as viz
    except ImportError as e:
        raise H.Skip("torch is not importable here (%s); tests/gpu runs this on the GPU machine" % e)
    snap = torch_snapshot(usage_dump())
    for plot in (viz.trace_plot, viz.segment_plot):
        html = plot(snap)
        H.expect("snapshot.pickle" in html and "base64" in html, html[:200])
    H.expect("TOTAL MEM" in viz.trace(snap), "trace() text")
    H.expect("total_allocated: 10.0MiB" in viz.segsum(snap), viz.segsum(snap))


def case_torch_snapshot_errors():
    d = H.tmpdir()
    r = H.run_traced([H.program("usage"), "grow"], extra_env=dict(STANDIN_CAPACITY,
                                                                 VRAMTRACE_MODE="aggregate"))
    H.expect_program_ok(r)
    out = os.path.join(d, "snap.pickle")
    v = vramtrace("export", "--format", "torch-snapshot", "-o", out, r.dump)
    H.expect_eq("aggregate dump: exit status", v.status, 1)
    H.expect_eq("aggregate dump: stderr", v.stderr,
                "vramtrace: %s: an aggregate-mode dump has no individual allocations for a "
                "memory_viz snapshot (trace in events mode, the default)\n" % r.dump)
    H.expect(not os.path.exists(out), "a half-written snapshot was left")


# ---- HTML ----

class Page(html.parser.HTMLParser):
    """Tags, text, and what would fetch anything."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.text, self.fetches, self.stack = [], [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a, list(self.stack)))
        if tag not in ("br", "meta", "path", "line", "circle", "input"):
            self.stack.append(tag)
        for k in ("src", "href", "xlink:href", "action"):
            if k in a:
                self.fetches.append((tag, k, a[k]))
        if tag == "link" or "url(" in a.get("style", ""):
            self.fetches.append((tag, "link", a))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        self.text.append((data, list(self.stack)))


def check_html(data):
    text = data.decode()
    page = Page()
    page.feed(text)
    page.close()
    H.expect(text.startswith("<!DOCTYPE html>"), "not an HTML5 document")
    H.expect_eq("anything fetched (must be self-contained)", page.fetches, [])
    H.expect("url(" not in text and "@import" not in text, "CSS fetches something")
    svgs = [t for t in page.tags if t[0] == "svg"]
    H.expect_eq("charts (per device: over time, and per marker)", [t[1].get("aria-label")
                                                                   for t in svgs],
                ["live bytes on device 0 over time", "live bytes on device 0 per marker"])
    in_svg = [t for t in page.tags if "svg" in t[2]]
    H.expect_eq("a point per marker", len([t for t in in_svg if t[1].get("class") == "step"]),
                STEPS)
    H.expect_eq("chart areas", len([t for t in in_svg if t[1].get("class") == "area"]), 1)
    H.expect_eq("marker lines", len([t for t in in_svg if t[1].get("class") == "mark"]), STEPS)
    H.expect_eq("peak points", len([t for t in in_svg if t[0] == "circle"]), 1)
    H.expect(any("peak 22.0 MiB" in d for d, st in page.text if "svg" in st),
             "the chart does not label the peak")
    summaries = [d for d, st in page.text if "summary" in st and "details" in st]
    H.expect(any(d.startswith("leak_step ") for d in summaries),
             "no <details> stack summarized by leak_step's label")
    stack_text = [d for d, st in page.text if "ol" in st and "details" in st]
    H.expect("run_steps" in stack_text, "the expanded stack lacks run_steps")
    headings = [d for d, st in page.text if "h2" in st]
    H.expect_eq("sections", headings, ["Usage over time", "Growing call sites", "Leaks at exit",
                                       "Peak breakdown", "Churn"])
    tables = [t for t in page.tags if t[0] == "table"]
    H.expect_eq("tables (growing, leaks, peak, churn)", len(tables), 4)
    return page


def case_html():
    dump = usage_dump()
    check_html(export(dump, "html"))


def case_report_html():
    dump = usage_dump()
    out = os.path.join(H.tmpdir(), "report.html")
    r = vramtrace("report", "--html", out, dump)
    H.expect_eq("report --html exit status (stderr: %s)" % r.stderr.strip(), r.status, 0)
    H.expect(r.stdout.startswith("vramtrace: growing: 1.0 MiB"), "the text report still goes to stdout:\n"
             + r.stdout)
    with open(out, "rb") as f:
        data = f.read()
    check_html(data)
    H.expect_eq("report --html = export --format html", data, export(dump, "html"))


def png_pixels(data):
    """(width, height, set of distinct pixels) of an 8-bit RGB/RGBA PNG."""
    H.expect(data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG")
    i, idat, ihdr = 8, b"", None
    while i < len(data):
        n, kind = struct.unpack_from(">I4s", data, i)
        body = data[i + 8:i + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        i += 12 + n
    w, h, depth, ctype = ihdr[:4]
    H.expect(depth == 8 and ctype in (2, 6), "unexpected PNG type %r" % (ihdr,))
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, pixels = zlib.decompress(idat), w * bpp, bytearray(w * bpp), set()
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            pixels.update(bytes(line[k:k + bpp]) for k in range(0, stride, bpp * 4))
        prev = line
    return w, h, pixels


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    raise H.Skip("no chromium (tests/run.sh installs it with VT_WITH_CHROMIUM=1)")


def headless(browser, *args):
    """Chromium in a fresh profile, in the environment the tests were given:
    not the sanitizer runtime nor the stand-in CUDA libraries (H.base_env)."""
    profile = H.tmpdir()
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "LD_LIBRARY_PATH")}
    return H._run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                   "--disable-background-networking", "--disable-component-update",
                   "--disable-sync", "--no-first-run", "--user-data-dir=" + profile,
                   "--window-size=1200,900"] + list(args), env, profile)


def case_html_chromium():
    browser = chromium()
    dump = usage_dump()
    page = os.path.join(H.tmpdir(), "report.html")
    with open(page, "wb") as f:
        f.write(export(dump, "html"))
    png = os.path.join(H.tmpdir(), "shot.png")
    r = headless(browser, "--screenshot=" + png, "file://" + page)
    H.expect(os.path.isfile(png), "no screenshot:\n" + r.describe())
    with open(png, "rb") as f:
        data = f.read()
    H.expect(len(data) > 20000, "screenshot of only %d bytes" % len(data))
    w, h, pixels = png_pixels(data)
    H.expect_eq("screenshot size", (w, h), (1200, 900))
    H.expect(len(pixels) > 50, "screenshot has only %d colours" % len(pixels))
    dom = headless(browser, "--dump-dom", "file://" + page)
    H.expect("<svg" in dom.stdout and 'class="area"' in dom.stdout,
             "rendered page has no chart:\n" + dom.describe())
    H.expect("leak_step" in dom.stdout, "rendered page lacks the leaking function")
    H.expect('id="toggle"' in dom.stdout and 'id="toggle" hidden' not in dom.stdout,
             "the script did not run (stack toggle still hidden)")


# ---- command line ----

def case_cli_errors():
    dump = usage_dump()
    cases = [
        (["export", dump], 2, "vramtrace export: --format is required"),
        (["export", "--format", "svg", dump], 2, "vramtrace export: unknown format 'svg'"),
        (["export", "--format", "folded", "--what", "most", dump], 2,
         "vramtrace export: --what is leaked, peak or allocated, not 'most'"),
        (["export", "--format", "pprof", "--what", "peak", dump], 2,
         "vramtrace export: --what only applies to --format folded"),
        (["export", "--format", "chrome", "--diff", dump, dump], 2,
         "vramtrace export: --diff only applies to --format folded"),
        (["export", "--format", "folded"], 2, "vramtrace export: no dump file given"),
        (["export", "--format", "json", dump, dump], 2,
         "vramtrace export: more than one dump given (only chrome takes several)"),
        (["export", "--format"], 2, "vramtrace export: --format needs a value"),
        (["export", "--bogus"], 2, "vramtrace export: unknown option '--bogus'"),
        (["export", "--format", "folded", "/nonexistent.vtr"], 1,
         "vramtrace: /nonexistent.vtr: No such file or directory"),
        (["export", "--format", "folded", "--diff", "/nonexistent.vtr", dump], 1,
         "vramtrace: /nonexistent.vtr: No such file or directory"),
        (["export", "--format", "html", "-o", "/nonexistent/x.html", dump], 1,
         "vramtrace: /nonexistent/x.html: No such file or directory"),
        (["report", "--html", "/nonexistent/x.html", dump], 1,
         "vramtrace: /nonexistent/x.html: No such file or directory"),
    ]
    for args, status, first in cases:
        r = vramtrace(*args)
        what = "vramtrace " + " ".join(args)
        H.expect_eq("%s: exit status" % what, r.status, status)
        lines = r.stderr.splitlines()
        H.expect(len(lines) == 1 and lines[0].startswith(first),
                 "%s: expected one line starting %r, got %r" % (what, first, r.stderr))
    out = os.path.join(H.tmpdir(), "gone.folded")
    r = vramtrace("export", "--format", "folded", "-o", out, "/nonexistent.vtr")
    H.expect(not os.path.exists(out), "a failed export left %s behind" % out)
    # what was not a file is left alone (as root, unlinking /dev/null removes it)
    fifo = os.path.join(H.tmpdir(), "export.fifo")
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        r = vramtrace("export", "--format", "folded", "-o", fifo, "/nonexistent.vtr")
    finally:
        os.close(reader)
    H.expect_eq("failed export to a pipe: exit status", r.status, 1)
    H.expect(os.path.exists(fifo) and stat.S_ISFIFO(os.stat(fifo).st_mode),
             "a failed export removed the pipe it was given as -o")
    r = vramtrace("export", "--help")
    H.expect(r.status == 0 and "--format FORMAT" in r.stdout, "export --help:\n" + r.describe())


def _snapshot(directory):
    """{name: (bytes, mode)} of every file in DIRECTORY."""
    out = {}
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        with open(path, "rb") as f:
            out[name] = (f.read(), stat.S_IMODE(os.stat(path).st_mode))
    return out


def case_never_destroys():
    """Outputs go to a temporary file renamed into place on success: a
    forgotten --html name, a failed export, a failed run leave every file as
    it was; a path holding a dump is refused unless --force."""
    d = H.tmpdir()
    a, b = os.path.join(d, "a.vtr"), os.path.join(d, "b.vtr")
    shutil.copy(usage_dump(), a)
    shutil.copy(a, b)
    old = os.path.join(d, "existing.vtr")
    shutil.copy(a, old)
    notes = os.path.join(d, "notes.txt")
    with open(notes, "w") as f:
        f.write("mine\n")
    os.chmod(notes, 0o640)
    before = _snapshot(d)
    tries = [
        # the HTML file name forgotten: the first dump is not overwritten
        (["report", "--html", a, b], 1,
         "vramtrace: %s: holds a vramtrace dump; not overwritten" % a),
        (["export", "--format", "html", "-o", old, a], 1,
         "vramtrace: %s: holds a vramtrace dump; not overwritten" % old),
        # the input cannot be read: the existing output stays
        (["export", "--format", "folded", "--force", "-o", old, os.path.join(d, "bad.vtr")], 1,
         "vramtrace: %s" % os.path.join(d, "bad.vtr")),
        (["export", "--format", "folded", "-o", notes, os.path.join(d, "bad.vtr")], 1,
         "vramtrace: %s" % os.path.join(d, "bad.vtr")),
        (["run", "--log-file", old, "--", "true"], 1,
         "vramtrace run: --log-file: %s: holds a vramtrace dump" % old),
        (["run", "--json-output", notes, "--", os.path.join(d, "no-such-program")], 127, ""),
    ]
    for args, status, first in tries:
        r = vramtrace(*args)
        what = "vramtrace " + " ".join(args)
        H.expect_eq("%s: exit status (stderr %r)" % (what, r.stderr), r.status, status)
        H.expect(r.stderr.startswith(first), "%s: stderr %r, expected %r" % (what, r.stderr, first))
        H.expect(_snapshot(d) == before, "%s changed the files of %s: %s -> %s"
                 % (what, d, sorted(before), sorted(_snapshot(d))))
    # forced, and over a file of one's own: replaced whole, its mode kept
    r = vramtrace("export", "--format", "folded", "--force", "-o", old, a)
    H.expect_eq("export --force over a dump (stderr %r)" % r.stderr, r.status, 0)
    r = vramtrace("export", "--format", "folded", "-o", notes, a)
    H.expect_eq("export over a file (stderr %r)" % r.stderr, r.status, 0)
    H.expect_eq("replaced file's mode", stat.S_IMODE(os.stat(notes).st_mode), 0o640)
    with open(old, "rb") as f, open(notes, "rb") as g:
        H.expect(f.read() == g.read() != before["notes.txt"][0], "the replaced files differ")
    H.expect_eq("files left", sorted(os.listdir(d)), ["a.vtr", "b.vtr", "existing.vtr",
                                                        "notes.txt"])


if __name__ == "__main__":
    H.main(globals())
