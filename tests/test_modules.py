# SPDX-License-Identifier: MIT
"""Modules with a lifetime (tests/programs/reload.c): a plugin unloaded with
dlclose and another loaded at its addresses. Ground truth: each leak is
named after the library it came from, the dump records the loads and
unloads in order, and a dump without unload records reads as before."""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

PLUGIN = H.program_source("reload_plugin.c")
MAIN = H.program_source("reload.c")
D = H.c_defines(PLUGIN)
REC_MODULE, REC_STACK, REC_PYSTACK, REC_UNLOAD = 2, 3, 10, 20


def traced():
    r = H.run_traced([H.program("reload")])
    H.expect_program_ok(r)
    H.expect_dump(r)
    if "same address" not in r.stdout:
        raise H.Skip("libbravo.so was not loaded where libalpha.so was (nothing to tell apart)")
    return r


def check_plugin_leak(rep, lib, function, nbytes):
    lk = H.check_leak(rep, function=function, source=PLUGIN, tag="plugin_alloc", nbytes=nbytes,
                      api="cudaMalloc", kind="device", caller="plugin_entry")
    fr = H.frames(lk)
    H.expect_eq("%s: module of its frames" % function,
                [os.path.basename(f["module"]) for f in fr[:2]], [lib, lib])
    H.expect_eq("%s: caller in the loop" % function, (fr[2]["function"], fr[2]["line"]),
                ("main", H.call_line(MAIN, "reload_loop")))


def case_unload_names():
    """alpha_alloc's 1 MiB is not named bravo_alloc, and the loop's one call
    site does not merge the two."""
    rep = H.report(traced().dump)
    check_plugin_leak(rep, "libalpha.so", "alpha_alloc", D["RELOAD_ALPHA_BYTES"])
    check_plugin_leak(rep, "libbravo.so", "bravo_alloc", D["RELOAD_BRAVO_BYTES"])
    H.expect_eq("number of leak entries", len(H.leaks(rep)), 2)
    H.check_summary(rep, allocations=3, frees=1, leaked_bytes=D["RELOAD_ALPHA_BYTES"] +
                    D["RELOAD_BRAVO_BYTES"])


def module_events(path):
    """[("load", id, basename) / ("unload", id) / ("stack",)] in dump order."""
    data, records = H.dump_records(path)
    out = []
    for _, rtype, p, end in records:
        if rtype == REC_MODULE:
            mid, q = H.varint_at(data, p)
            for _ in range(3):            # bias, start, end
                q = H.varint_at(data, q)[1]
            n, q = H.varint_at(data, q)
            out.append(("load", mid, os.path.basename(data[q:q + n].decode())))
        elif rtype == REC_UNLOAD:
            out.append(("unload", H.varint_at(data, p)[0]))
        elif rtype in (REC_STACK, REC_PYSTACK):
            out.append(("stack",))
    return out


def case_unload_records():
    """MODULE alpha, a stack, MODULE_UNLOAD alpha, MODULE bravo, a stack,
    MODULE_UNLOAD bravo, then the stack of main's last allocation."""
    events = module_events(traced().dump)
    ids = {e[2]: e[1] for e in events if e[0] == "load"}
    H.expect("libalpha.so" in ids and "libbravo.so" in ids,
             "no MODULE records for the plugins: %r" % events)
    alpha, bravo = ids["libalpha.so"], ids["libbravo.so"]
    plugin = [e for e in events if e[0] == "stack" or e[1] in (alpha, bravo)]
    squeezed = [e for i, e in enumerate(plugin) if i == 0 or e != plugin[i - 1]]
    H.expect_eq("plugin module events from alpha's load on",
                squeezed[squeezed.index(("load", alpha, "libalpha.so")):],
                [("load", alpha, "libalpha.so"), ("stack",), ("unload", alpha),
                 ("load", bravo, "libbravo.so"), ("stack",), ("unload", bravo), ("stack",)])


def strip_unloads(path):
    """The same dump as a writer without MODULE_UNLOAD records would write."""
    data, records = H.dump_records(path)
    out = bytearray(data[:16])
    for start, rtype, _, end in records:
        if rtype != REC_UNLOAD:
            out += data[start:end]
    stripped = path + ".old.vtr"
    with open(stripped, "wb") as f:
        f.write(bytes(out))
    return stripped


def case_older_dump():
    """Without unload records (an older vramtrace) the dump reads as it did:
    the same leaks, the frames named after the module recorded last."""
    old = strip_unloads(traced().dump)
    rep = H.report(old)
    H.check_summary(rep, allocations=3, leaked_bytes=D["RELOAD_ALPHA_BYTES"] +
                    D["RELOAD_BRAVO_BYTES"])
    H.check_complete(rep)


def case_bad_unload():
    """An unload of a module never loaded costs that record: one warning
    naming it, and the same report as without it."""
    path = traced().dump
    data = open(path, "rb").read()
    _, records = H.dump_records(path)
    first = records[1][0]                 # after PROCESS
    bad = data[:first] + bytes([REC_UNLOAD, 1, 0x7f]) + data[first:]
    broken = path + ".bad.vtr"
    with open(broken, "wb") as f:
        f.write(bad)
    r = H._run([H.vramtrace_exe(), "report", "--json", broken], H.base_env(),
               os.path.dirname(path))
    H.expect_eq("status", r.status, 0)
    H.expect_eq("stderr", r.stderr, "vramtrace: warning: %s: MODULE_UNLOAD record at offset %d: "
                "module 127 is not loaded; dropped\n" % (broken, first))
    damaged, whole = json.loads(r.stdout), H.report(path)
    H.expect_eq("disbelieved_records", damaged.pop("disbelieved_records"), 1)
    whole.pop("disbelieved_records")
    for key in ("dump", "duration_ns"):
        damaged.pop(key), whole.pop(key)
    H.expect(damaged == whole, "the report without the bad record differs from the dump's own")


if __name__ == "__main__":
    H.main(globals())
