# SPDX-License-Identifier: MIT
"""The routes to the driver that bypass the exported names: a compiled-in
runtime, a runtime loaded RTLD_LOCAL, dlsym on a private libcuda handle,
cuGetProcAddress(_v2), cudaGetDriverEntryPoint(ByVersion), Python ctypes."""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

# ---- static runtime (tests/programs/static_rt.c) ----

STATIC_SRC = H.program_source("static_rt.c")
SD = H.c_defines(STATIC_SRC)
RUNTIME_SRC = re.compile(r"cudart_\w+\.c$")  # the stand-in runtime's sources (compiled in)


def check_static_leak(rep, nbytes, function, tag, apis, kind):
    """A compiled-in runtime exports nothing to interpose, so the tracer
    meets the allocation in the driver.  Accepted: the runtime api name or
    the driver one; frames inside the runtime (files cudart_*.c or a cuda*
    function) before the program's function, which must be there with the
    marker line, followed by main."""
    lk = H.leak_by_bytes(rep, nbytes)
    where = "leak in %s" % function
    H.expect_in(where + ": api", lk.get("api"), apis)
    H.expect_eq(where + ": kind", lk.get("kind"), kind)
    H.expect_eq(where + ": device", lk.get("device"), 0)
    H.expect_eq(where + ": allocations", lk.get("allocations"), 1)
    fr = H.frames(lk)
    idx = [i for i, f in enumerate(fr) if f.get("function") == function]
    H.expect(idx, "%s: no frame of %s in %r" % (where, function,
                                                [f.get("function") for f in fr]))
    i = idx[0]
    for f in fr[:i]:
        H.expect(RUNTIME_SRC.match(os.path.basename(f.get("file") or "")) or
                 (f.get("function") or "").startswith("cuda"),
                 "%s: frame inside %s is not the runtime's: %r" % (where, function, f))
    H.expect_eq(where + ": file", os.path.basename(fr[i].get("file") or ""), "static_rt.c")
    H.expect_eq(where + ": line", fr[i].get("line"), H.marker_line(STATIC_SRC, tag))
    H.expect(i + 1 < len(fr), where + ": no caller frame")
    H.expect_eq(where + ": next frame function", fr[i + 1].get("function"), "main")


def case_static_malloc():
    rep, _ = H.traced_report([H.program("static_rt")])
    check_static_leak(rep, SD["STATIC_MALLOC_BYTES"], "static_leak_malloc", "static_malloc",
                      ("cudaMalloc", "cuMemAlloc"), "device")


def case_static_managed():
    rep, _ = H.traced_report([H.program("static_rt")])
    check_static_leak(rep, SD["STATIC_MANAGED_BYTES"], "static_leak_managed", "static_managed",
                      ("cudaMallocManaged", "cuMemAllocManaged"), "managed")


def case_static_summary():
    rep, _ = H.traced_report([H.program("static_rt")])
    leaked = SD["STATIC_MALLOC_BYTES"] + SD["STATIC_MANAGED_BYTES"]
    H.check_summary(rep, allocations=SD["LOOP"] + 2, frees=SD["LOOP"], leaked_bytes=leaked,
                    leaked_allocations=2, host_leaked_bytes=0, peak_bytes=leaked,
                    failed_allocations=0, invalid_frees=0)
    H.expect_eq("number of leak entries", len(H.leaks(rep)), 2)
    H.check_frame_shape(rep)


# ---- runtime in a plugin loaded RTLD_LOCAL (dlopen_local + libleakplugin.so) ----

PLUGIN_SRC = H.program_source("leakplugin.c")
PD = H.c_defines(PLUGIN_SRC)


def case_dlopen_local():
    rep, _ = H.traced_report([H.program("dlopen_local")])
    H.check_leak(rep, function="plugin_leak", source=PLUGIN_SRC, tag="plugin",
                 nbytes=PD["PLUGIN_LEAK_BYTES"], api="cudaMalloc", kind="device")
    H.check_summary(rep, allocations=PD["LOOP"] + 1, frees=PD["LOOP"],
                    leaked_bytes=PD["PLUGIN_LEAK_BYTES"], leaked_allocations=1,
                    peak_bytes=PD["PLUGIN_LEAK_BYTES"], failed_allocations=0, invalid_frees=0)
    H.check_frame_shape(rep)


# ---- private libcuda handle: dlsym and cuGetProcAddress (dlsym_driver) ----

DLSYM_SRC = H.program_source("dlsym_driver.c")
DD = H.c_defines(DLSYM_SRC)


def dlsym_case(function, tag, nbytes):
    def case():
        rep, _ = H.traced_report([H.program("dlsym_driver")])
        H.check_leak(rep, function=function, source=DLSYM_SRC, tag=tag, nbytes=nbytes,
                     api="cuMemAlloc", kind="device")
    return case


case_dlsym = dlsym_case("leak_via_dlsym", "dlsym", DD["DLSYM_LEAK_BYTES"])
case_proc_address_v2 = dlsym_case("leak_via_proc_address", "proc_address_v2",
                                  DD["GPA_V2_LEAK_BYTES"])
case_proc_address_v1 = dlsym_case("leak_via_proc_address_v1", "proc_address_v1",
                                  DD["GPA_V1_LEAK_BYTES"])


def case_dlsym_summary():
    rep, _ = H.traced_report([H.program("dlsym_driver")])
    leaked = DD["DLSYM_LEAK_BYTES"] + DD["GPA_V2_LEAK_BYTES"] + DD["GPA_V1_LEAK_BYTES"]
    H.check_summary(rep, allocations=DD["LOOP"] + 3, frees=DD["LOOP"], leaked_bytes=leaked,
                    leaked_allocations=3, host_leaked_bytes=0, peak_bytes=leaked,
                    failed_allocations=0, invalid_frees=0)
    H.expect_eq("number of leak entries", len(H.leaks(rep)), 3)
    H.check_frame_shape(rep)


# ---- cudaGetDriverEntryPoint(ByVersion) (entry_point) ----

EP_SRC = H.program_source("entry_point.c")
ED = H.c_defines(EP_SRC)


def ep_case(function, tag, nbytes, api):
    def case():
        rep, _ = H.traced_report([H.program("entry_point")])
        H.check_leak(rep, function=function, source=EP_SRC, tag=tag, nbytes=nbytes, api=api,
                     kind="device")
    return case


case_entry_point = ep_case("leak_via_entry_point", "entry_point", ED["EP_LEAK_BYTES"],
                           "cuMemAlloc")
case_entry_point_by_version = ep_case("leak_via_entry_point_by_version",
                                      "entry_point_by_version", ED["EP_BYVERSION_LEAK_BYTES"],
                                      "cuMemAlloc")
case_entry_point_ptsz = ep_case("leak_via_entry_point_ptsz", "entry_point_ptsz",
                                ED["EP_PTSZ_LEAK_BYTES"], "cuMemAllocAsync")
case_entry_point_vmm = ep_case("leak_via_entry_point_vmm", "entry_point_vmm",
                               ED["EP_VMM_LEAK_BYTES"], "cuMemCreate")


def case_entry_point_summary():
    rep, _ = H.traced_report([H.program("entry_point")])
    leaked = (ED["EP_LEAK_BYTES"] + ED["EP_BYVERSION_LEAK_BYTES"] + ED["EP_PTSZ_LEAK_BYTES"] +
              ED["EP_VMM_LEAK_BYTES"])
    H.check_summary(rep, allocations=ED["LOOP"] + 4, frees=ED["LOOP"], leaked_bytes=leaked,
                    leaked_allocations=4, host_leaked_bytes=0, peak_bytes=leaked,
                    failed_allocations=0, invalid_frees=0)
    H.expect_eq("number of leak entries", len(H.leaks(rep)), 4)
    H.check_frame_shape(rep)


# ---- Python ctypes (tests/programs/ctypes_leak.py) ----

PY_SRC = H.program_source("ctypes_leak.py")


def py_defines():
    vals = {}
    with open(PY_SRC, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^([A-Z_][A-Z0-9_]*) = (\d+)\s*$", line)
            if m:
                vals[m.group(1)] = int(m.group(2))
    return vals


PYD = py_defines()


def traced_python(mode="run"):
    rep, _ = H.traced_report([sys.executable, PY_SRC], mode=mode)
    return rep


def case_ctypes():
    """The runtime loaded by ctypes with RTLD_LOCAL: both leaks are found
    (api cudaMalloc, or cuMemAlloc where only the driver route saw them).
    Without Python frames the two calls have the same native stack, so
    they may be one leak entry."""
    rep = traced_python()
    leaked = PYD["CTYPES_LEAK_BYTES"] + PYD["CTYPES_GIL_LEAK_BYTES"]
    for lk in H.leaks(rep):
        H.expect_in("api", lk.get("api"), ("cudaMalloc", "cuMemAlloc"))
        H.expect_eq("kind", lk.get("kind"), "device")
        H.expect_eq("device", lk.get("device"), 0)
    H.expect_eq("bytes over all leak entries", sum(lk.get("bytes") for lk in H.leaks(rep)),
                leaked)
    H.expect_eq("allocations over all leak entries",
                sum(lk.get("allocations") for lk in H.leaks(rep)), 2)
    H.check_summary(rep, allocations=3, frees=1, leaked_bytes=leaked, leaked_allocations=2,
                    host_leaked_bytes=0, failed_allocations=0, invalid_frees=0)
    H.check_frame_shape(rep)


def case_ctypes_python_frames():
    """With the GIL held during the call (ctypes.PyDLL) the Python frames
    are there: leak_with_gil at its marker line in ctypes_leak.py, and that
    leak is its own entry (its stack differs from the CDLL call's)."""
    rep = traced_python()
    line = H.marker_line(PY_SRC, "ctypes_gil")
    found = [lk for lk in H.leaks(rep)
             if any(os.path.basename(f.get("file") or "") == "ctypes_leak.py" and
                    f.get("function") == "leak_with_gil" for f in H.frames(lk))]
    H.expect(len(found) == 1, "expected one leak with the Python frame leak_with_gil "
             "(ctypes_leak.py), found %d; leaks:\n%s" % (len(found), H.describe_leaks(rep)))
    lk = found[0]
    H.expect_eq("leak_with_gil leak: bytes", lk.get("bytes"), PYD["CTYPES_GIL_LEAK_BYTES"])
    fr = [f for f in H.frames(lk) if f.get("function") == "leak_with_gil"][0]
    H.expect_eq("leak_with_gil frame line", fr.get("line"), line)


# Each route again with a driver whose cuGetProcAddress hands out entry
# points that no symbol table names: the requested name, version and flags
# must still decide which wrapper applies.
HIDDEN_ROUTES = ["static_malloc", "static_managed", "static_summary", "dlsym", "proc_address_v2",
                 "proc_address_v1", "dlsym_summary", "entry_point", "entry_point_by_version",
                 "entry_point_ptsz", "entry_point_vmm", "entry_point_summary"]


def _hidden(case):
    def run():
        os.environ["STANDIN_CUDA_HIDDEN_ENTRY_POINTS"] = "1"
        case()
    return run


for _name in HIDDEN_ROUTES:
    globals()["case_%s_hidden" % _name] = _hidden(globals()["case_" + _name])


# And with a driver whose allocation entry points the symbol table names
# otherwise (cuStandinAlloc...: several names at one address): the request,
# not the name dladdr finds, decides (issue 27, item 7).
ALIASED_ROUTES = ["proc_address_v2", "entry_point", "entry_point_by_version", "entry_point_ptsz",
                  "entry_point_summary"]


def _aliased(case):
    def run():
        os.environ["STANDIN_CUDA_ALIASED_ENTRY_POINTS"] = "1"
        case()
    return run


for _name in ALIASED_ROUTES:
    globals()["case_%s_aliased" % _name] = _aliased(globals()["case_" + _name])


# ---- per-thread default stream entry points, dlvsym (ptsz_routes) ----

PT_SRC = H.program_source("ptsz_routes.c")
PT = H.c_defines(PT_SRC)
PT_LEAKS = [  # function, marker tag, bytes, api
    ("leak_via_proc_address_ptsz", "gpa_ptsz", "PT_GPA_BYTES", "cuMemAllocAsync"),
    ("leak_via_entry_point_ptsz", "entry_ptsz", "PT_ENTRY_BYTES", "cuMemAllocAsync"),
    ("leak_via_entry_point_by_version_ptsz", "by_version_ptsz", "PT_BY_VERSION_BYTES",
     "cuMemAllocAsync"),
    ("leak_from_pool_ptsz", "pool_ptsz", "PT_POOL_BYTES", "cudaMallocFromPoolAsync"),
    ("leak_via_dlvsym", "dlvsym", "PT_DLVSYM_BYTES", "cudaMalloc"),
]


def case_ptsz_routes():
    """cuGetProcAddress_v2_ptsz (dlsym of libcuda), cudaGetDriverEntryPoint_ptsz,
    cudaGetDriverEntryPointByVersion_ptsz, cudaMallocFromPoolAsync_ptsz and
    cudaMallocAsync/FreeAsync_ptsz, and the runtime's cudaMalloc found by
    dlvsym(handle, name, "libcudart.so.13"): each leak seen once, where it was made."""
    rep, _ = H.traced_report([H.program("ptsz_routes")])
    for function, tag, size, api in PT_LEAKS:
        H.check_leak(rep, function=function, source=PT_SRC, tag=tag, nbytes=PT[size], api=api,
                     kind="device")
    leaked = sum(PT[size] for _, _, size, _ in PT_LEAKS)
    H.check_summary(rep, allocations=len(PT_LEAKS) + 1, frees=1, leaked_bytes=leaked,
                    leaked_allocations=len(PT_LEAKS), failed_allocations=0, invalid_frees=0,
                    untraced_frees=0)
    H.expect_eq("number of leak entries", len(H.leaks(rep)), len(PT_LEAKS))


if __name__ == "__main__":
    H.main(globals())
