# SPDX-License-Identifier: MIT
"""CUDA graph memory (tests/programs/graphs.c): allocations made by graph
nodes, built explicitly and captured from a stream, live while a launch has
them allocated; what the device's graph memory pool keeps after the graphs'
frees counts until it is trimmed; a captured allocation never freed is a
leak at its capture site."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("graphs.c")
D = H.c_defines(SRC)


def traced():
    r = H.run_traced([H.program("graphs")])
    H.expect_program_ok(r)
    return r, H.report(r.dump)


def case_live_bytes():
    """Live bytes after each step as the program saw them through the
    public API: nothing when the graphs are built, the pool's memory (the
    larger graph's allocation: the pool reuses its memory) after each of
    the launches, nothing after the trim, the leaked capture at the end."""
    r, _ = traced()
    live = dict(line.split()[1:] for line in r.stdout.splitlines() if line.startswith("live "))
    pool = max(D["EXPLICIT_BYTES"], D["CAPTURED_BYTES"])
    expected = {"built": 0, "trim": 0, "leak": D["LEAK_BYTES"]}
    expected.update({"launch%d" % i: pool for i in range(1, D["LAUNCHES"] + 1)})
    H.expect_eq("live bytes per step", {k: int(v) for k, v in live.items()}, expected)


def case_leak():
    """The captured allocation never freed: leaked at exit, at its capture
    site, under the API the program called there; nothing else leaks."""
    _, rep = traced()
    H.check_leak(rep, function="captured_leak", source=SRC, tag="captured_leak",
                 nbytes=D["LEAK_BYTES"], api="cudaMallocAsync", kind="device", device=0,
                 caller="capture")
    H.expect_eq("leak entries", len(H.leaks(rep)), 1)
    H.check_summary(rep, allocations=2 * D["LAUNCHES"] + 1, frees=2 * D["LAUNCHES"],
                    leaked_bytes=D["LEAK_BYTES"], leaked_allocations=1, peak_bytes=D["LEAK_BYTES"],
                    failed_allocations=0, invalid_frees=0, untraced_frees=0)
    H.check_complete(rep)


def case_sites():
    """Each node's allocation is a site where its node was made (built with
    cudaGraphAddMemAllocNode, captured cudaMallocAsync), held LAUNCHES
    times; the pool's kept memory is of kind graph pool, at the launch that
    last changed it, and the trim emptied it."""
    _, rep = traced()
    for api, tag, nbytes in (("cudaGraphAddMemAllocNode", "explicit", D["EXPLICIT_BYTES"]),
                             ("cudaMallocAsync", "captured", D["CAPTURED_BYTES"])):
        s = [x for x in rep["sites"] if x.get("api") == api and x.get("peak_live_bytes") == nbytes]
        H.expect(len(s) == 1, "no %s site of %d bytes: %r" % (api, nbytes, rep["sites"]))
        top = s[0]["frames"][0]
        H.expect_eq(tag + ": where the node was made", (top.get("line"), s[0].get("live_bytes")),
                    (H.marker_line(SRC, tag), 0))
    pools = [x for x in rep["sites"] if x.get("kind") == "graph pool"]
    H.expect_eq("graph pool sites: api, where, kept at exit",
                sorted({(x.get("api"), x["frames"][0].get("function"), x["frames"][0].get("line"),
                         x.get("live_bytes")) for x in pools}),
                sorted({("cudaGraphLaunch", "main", H.call_line(SRC, tag), 0)
                        for tag in ("launch_explicit", "launch_captured")}))
    H.expect_eq("graph pool: the most it kept", max(x.get("peak_live_bytes") for x in pools),
                max(D["EXPLICIT_BYTES"], D["CAPTURED_BYTES"]))


# ---- memory nodes made by the generic node API (cudaGraphAddNode,
# cuGraphAddNode): tests/programs/graph_nodes.c (runtime), drv_graph_nodes.c
# (driver) ----

def node_api_case(program, api):
    """PROGRAM's allocation node (made by API) allocated at each of its
    LAUNCHES and freed by the free node of another graph; the third graph's
    allocation, launched once, leaked at its node's call site under API;
    nothing else leaks, nothing is untraced or invalid."""
    src = H.program_source(program + ".c")
    d = H.c_defines(src)
    r = H.run_traced([H.program(program)])
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    H.check_leak(rep, function="build_leak", source=src, tag="node_leak", nbytes=d["LEAK_BYTES"],
                 api=api, kind="device", device=0, caller="main")
    H.expect_eq("leak entries", len(H.leaks(rep)), 1)
    H.check_summary(rep, allocations=d["LAUNCHES"] + 1, frees=d["LAUNCHES"],
                    leaked_bytes=d["LEAK_BYTES"], leaked_allocations=1,
                    peak_bytes=max(d["NODE_BYTES"], d["LEAK_BYTES"]), failed_allocations=0,
                    invalid_frees=0, untraced_frees=0)
    s = [x for x in rep["sites"] if x.get("api") == api and x.get("peak_live_bytes") == d["NODE_BYTES"]]
    H.expect(len(s) == 1, "no %s site of %d bytes: %r" % (api, d["NODE_BYTES"], rep["sites"]))
    top = s[0]["frames"][0]
    H.expect_eq("the freed node's site: function, line, pairs freed, live at exit",
                (top.get("function"), top.get("line"), s[0].get("pairs"), s[0].get("live_bytes")),
                ("build_alloc", H.marker_line(src, "node_alloc"), d["LAUNCHES"], 0))
    H.check_complete(rep)


def case_node_api_runtime():
    node_api_case("graph_nodes", "cudaGraphAddNode")


def case_node_api_driver():
    node_api_case("drv_graph_nodes", "cuGraphAddNode")


if __name__ == "__main__":
    H.main(globals())
