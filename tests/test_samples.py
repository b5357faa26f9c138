# SPDX-License-Identifier: MIT
"""Programs of our own in the shapes of NVIDIA's CUDA samples
(tests/samples/*.cu): real CUDA C++ built by nvcc (-cudart shared), run
over the stand-in CUDA libraries, traced. Each leaks known bytes at lines
marked LEAK:<tag> and frees the rest; the report must name exactly those
bytes, allocations, APIs, devices and lines, and nothing else (a texture
object, a graph's freed memory, a released VMM handle are no leaks).
Skipped where nvcc was not found when the build was configured. With
VRAMTRACE_TEST_REAL_CUDA=1 they run over the machine's CUDA instead, a
real GPU (tests/gpu/README.md); the samples that need two devices skip,
with one line, where fewer are present."""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

OUTPUTS = {
    "streams_events": "streams: 4, chunk 3145728 bytes\n",
    "graph_memory": "graphs launched 3 times\n",
    "pitched_texture": None,  # the pitches the runtime chose
    "managed_streams": "tasks: 3\n",
    "omp_devices": "devices: 2\n",
    "vmm_devices": None,  # the granularity
    "driver_module": "elements: 50000\n",
    "ipc_processes": "child: opened 3145728 bytes\nparent: saw the child's bytes\n",
    "zerocopy_p2p": "zero copy and peers done\n",
    "churn_shapes": "malloc done\n",  # argv_of's mode
    "graph_nodes": "graph nodes done\n",
    "driver_peers": "peers and modules done\n",
}


# The samples that use two devices (the stand-in machine has two GPUs).
TWO_DEVICES = {"omp_devices", "vmm_devices", "zerocopy_p2p", "driver_peers"}
DEVICE_COUNT = """
import ctypes
cuda = ctypes.CDLL("libcuda.so.1")
n = ctypes.c_int(0)
print(n.value if cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(n)) == 0 else 0)
"""
_devices = []


def devices():
    """How many devices the samples' CUDA driver shows them."""
    if not _devices:
        r = H.run_plain([sys.executable, "-c", DEVICE_COUNT])
        _devices.append(int(r.stdout.strip() or 0) if r.status == 0 else 0)
    return _devices[0]


def runnable(name):
    """Whether NAME has the devices it needs here."""
    return name not in TWO_DEVICES or devices() >= 2


def sample(name):
    path = os.path.join(os.environ.get("SAMPLES_DIR", ""), name)
    if not os.path.isfile(path):
        raise H.Skip("%s was not built (no nvcc at configure time)" % name)
    return path


def source(name):
    return os.path.join(H.source_root(), "tests", "samples", name + ".cu")


def argv_of(name):
    if name in ("driver_module", "driver_peers"):
        return [sample(name), sample("module_kernels.fatbin")]
    if name == "churn_shapes":
        return [sample(name), "malloc"]
    return [sample(name)]


def traced(name):
    """The report of NAME traced, its output checked; (report, stdout,
    the source's #defines)."""
    if not runnable(name):
        raise H.Skip("%s needs 2 GPUs, %d here" % (name, devices()))
    rep, r = H.traced_report(argv_of(name))
    if OUTPUTS[name] is not None:
        H.expect_eq(name + " output", r.stdout, OUTPUTS[name])
    H.check_frame_shape(rep)
    return rep, r.stdout, H.c_defines(source(name))


def printed(stdout, label):
    """The number a program printed after LABEL ("pitch 512")."""
    for line in stdout.splitlines():
        if line.startswith(label + " ") and line[len(label) + 1:].isdigit():
            return int(line[len(label) + 1:])
    H.fail("no %r line in the output:\n%s" % (label, stdout))


def clean(rep, **summary):
    H.check_summary(rep, failed_allocations=0, invalid_frees=0, untraced_frees=0, **summary)
    H.check_complete(rep)
    check_device_readings(rep)


def check_device_readings(rep):
    """Each device's readings come from that device: over the stand-ins
    (whose NVML figure for a process is what it allocated) the other
    processes never hold less than nothing, and the driver's used bytes
    hold what was traced."""
    if H.real_cuda():
        return
    for dev in rep["device_usage"]:
        for s in dev["samples"]:
            where = "device %d's %s reading" % (dev["device"], s["reason"])
            H.expect(s["other_processes_bytes"] >= 0, "%s: other processes' bytes %d" %
                     (where, s["other_processes_bytes"]))
            H.expect(s["driver_used_bytes"] >= s["traced_live_bytes"],
                     "%s: %d bytes used on the device, fewer than the %d traced live" %
                     (where, s["driver_used_bytes"], s["traced_live_bytes"]))


def case_untraced():
    """Every sample runs over the stand-ins untraced (as over a real GPU);
    over fewer than 2 GPUs the two-device ones are left out, said in one
    line."""
    left_out = sorted(name for name in OUTPUTS if not runnable(name))
    if left_out:
        print("left out, needing 2 GPUs (%d here): %s" % (devices(), ", ".join(left_out)))
    for name in (n for n in OUTPUTS if n not in left_out):
        r = H.run_plain(argv_of(name))
        H.expect(r.status == 0, "%s failed over the stand-ins:\n%s" % (name, r.describe()))
        if OUTPUTS[name] is not None:
            H.expect_eq(name + " output", r.stdout, OUTPUTS[name])


def case_streams_events():
    """Streams and events: the last stream's chunk (cudaMalloc) and one
    stream-ordered scratch buffer (cudaMallocAsync) leak; the other chunks,
    scratch buffers and the pinned buffer were freed."""
    rep, _, D = traced("streams_events")
    src = source("streams_events")
    H.check_leak(rep, function="stream_chunk()", source=src, tag="stream_chunk",
                 nbytes=D["CHUNK_BYTES"], api="cudaMalloc", kind="device")
    H.check_leak(rep, function="stream_scratch(CUstream_st*)", source=src, tag="stream_scratch",
                 nbytes=D["SCRATCH_BYTES"], api="cudaMallocAsync", kind="device")
    H.expect_eq("leak entries", len(H.leaks(rep)), 2)
    streams = D["STREAMS"]
    clean(rep, allocations=2 * streams + 1, frees=2 * streams - 1,
          leaked_bytes=D["CHUNK_BYTES"] + D["SCRATCH_BYTES"], leaked_allocations=2,
          host_leaked_bytes=0)


def case_graph_memory():
    """Graphs with memory nodes: the captured and the built graph free what
    they allocate at each launch, the pool is trimmed; the allocation node
    with no free node leaks at its line, under cudaGraphAddMemAllocNode."""
    rep, _, D = traced("graph_memory")
    src = source("graph_memory")
    H.check_leak(rep, function="build_kept(void**)", source=src, tag="graph_kept",
                 nbytes=D["KEPT_BYTES"], api="cudaGraphAddMemAllocNode", kind="device")
    H.expect_eq("leak entries", len(H.leaks(rep)), 1)
    for api, tag, nbytes in (("cudaMallocAsync", "captured", D["CAPTURED_BYTES"]),
                             ("cudaGraphAddMemAllocNode", "built", D["BUILT_BYTES"])):
        s = [x for x in rep["sites"] if x.get("api") == api and x.get("peak_live_bytes") == nbytes]
        H.expect_eq(tag + ": sites", len(s), 1)
        H.expect_eq(tag + ": line, live at exit", (s[0]["frames"][0].get("line"),
                                                   s[0].get("live_bytes")),
                    (H.call_line(src, tag), 0))
    launches = D["LAUNCHES"]
    clean(rep, allocations=2 * launches + 2, frees=2 * launches + 1,
          leaked_bytes=D["KEPT_BYTES"], leaked_allocations=1, host_leaked_bytes=0)


def case_pitched_texture():
    """Pitched memory, textures and 3D copies: the pitched image is pitch x
    height bytes (the pitch the runtime chose), the volume pitch x height x
    depth, the array width x height x 4, the 3D array the box of the
    volume copied into it (box width x box height x depth x 4); the texture
    object never destroyed holds no memory and is no leak. The copies in
    and out of the arrays and the volume (cudaMemcpyToArray, cudaMemcpy3D,
    cudaMemset3D) are neither allocations nor frees."""
    rep, out, D = traced("pitched_texture")
    src = source("pitched_texture")
    pitch, volume_pitch = printed(out, "pitch"), printed(out, "volume pitch")
    H.expect(pitch >= D["WIDTH"] * 4 and volume_pitch >= D["WIDTH"] * 4,
             "pitches narrower than a row: %d, %d" % (pitch, volume_pitch))
    H.check_leak(rep, function="pitched_image(unsigned long*)", source=src, tag="pitched",
                 nbytes=pitch * D["HEIGHT"], api="cudaMallocPitch", kind="device")
    H.check_leak(rep, function="array_image(cudaChannelFormatDesc const*)", source=src,
                 tag="array", nbytes=D["WIDTH"] * D["HEIGHT"] * 4, api="cudaMallocArray",
                 kind="device")
    H.check_leak(rep, function="volume()", source=src, tag="volume",
                 nbytes=volume_pitch * D["HEIGHT"] * D["DEPTH"], api="cudaMalloc3D",
                 kind="device")
    box = D["BOX_W"] * D["BOX_H"] * D["DEPTH"] * 4
    H.check_leak(rep, function="volume_array(cudaChannelFormatDesc const*)", source=src,
                 tag="volume_array", nbytes=box, api="cudaMalloc3DArray", kind="device")
    H.expect_eq("leak entries (a texture is none)", len(H.leaks(rep)), 4)
    leaked = (pitch + D["WIDTH"] * 4 + volume_pitch * D["DEPTH"]) * D["HEIGHT"] + box
    clean(rep, allocations=5, frees=1, leaked_bytes=leaked, leaked_allocations=4,
          host_leaked_bytes=0)


def case_managed_streams():
    """Managed memory attached to streams, advised and prefetched: the last
    task's data leaks (managed, cudaMallocManaged), called from run_task."""
    rep, _, D = traced("managed_streams")
    nbytes = D["TASK_BYTES"] + (D["TASKS"] - 1) * D["STEP_BYTES"]
    H.check_leak(rep, function="task_data(unsigned long)", source=source("managed_streams"),
                 tag="task_data", nbytes=nbytes, api="cudaMallocManaged", kind="managed",
                 caller="run_task(int, CUstream_st*)")
    H.expect_eq("leak entries", len(H.leaks(rep)), 1)
    clean(rep, allocations=D["TASKS"], frees=D["TASKS"] - 1, leaked_bytes=nbytes,
          leaked_allocations=1, host_leaked_bytes=0)


def case_omp_devices():
    """OpenMP over two devices: each thread's kept buffer leaks on its own
    device, (device + 1) x KEEP_BYTES, at the same line; each was made by
    a different thread."""
    rep, _, D = traced("omp_devices")
    src = source("omp_devices")
    line = H.marker_line(src, "kept_per_device")
    threads = set()
    for device in range(D["DEVICES"]):
        lk = H.leak_by_bytes(rep, (device + 1) * D["KEEP_BYTES"])
        H.expect_eq("device %d leak: api, kind, device, allocations" % device,
                    (lk.get("api"), lk.get("kind"), lk.get("device"), lk.get("allocations")),
                    ("cudaMalloc", "device", device, 1))
        fr = H.frames(lk)
        H.expect_eq("device %d leak: where" % device,
                    [(f.get("function"), os.path.basename(f.get("file") or ""), f.get("line"))
                     for f in fr[:2]],
                    [("keep_on(int)", "omp_devices.cu", line),
                     ("work_on(int, int*)", "omp_devices.cu", H.call_line(src, "keep"))])
        threads.update(t.get("tid") for t in lk.get("threads") or [])
    H.expect_eq("threads that leaked", len(threads), D["DEVICES"])
    H.expect_eq("leak entries", len(H.leaks(rep)), D["DEVICES"])
    keep = D["KEEP_BYTES"] * D["DEVICES"] * (D["DEVICES"] + 1) // 2
    clean(rep, allocations=2 * D["DEVICES"], frees=D["DEVICES"], leaked_bytes=keep,
          leaked_allocations=D["DEVICES"], host_leaked_bytes=0)


def case_vmm_devices():
    """VMM over two devices: the chunks of the shared range, released once
    mapped, are freed at the unmap; the kept range's memory on device 1
    leaks at its cuMemCreate (KEPT_CHUNKS chunks of the granularity)."""
    rep, out, D = traced("vmm_devices")
    src = source("vmm_devices")
    chunk = printed(out, "granularity")
    H.check_leak(rep, function="kept_on(int, unsigned long)", source=src, tag="vmm_kept",
                 nbytes=D["KEPT_CHUNKS"] * chunk, api="cuMemCreate", kind="device", device=1)
    H.expect_eq("leak entries", len(H.leaks(rep)), 1)
    spread = [x for x in rep["sites"] if x["frames"][0].get("line") == H.call_line(src, "spread")]
    H.expect_eq("the shared range's chunks: (device, bytes, live at exit)",
                sorted((x.get("device"), x.get("peak_live_bytes"), x.get("live_bytes"))
                       for x in spread),
                [(0, chunk, 0), (1, chunk, 0)])
    clean(rep, allocations=D["DEVICES"] + 1, frees=D["DEVICES"],
          leaked_bytes=D["KEPT_CHUNKS"] * chunk, leaked_allocations=1, host_leaked_bytes=0)
    if not H.real_cuda():  # no context on device 1: the driver cannot be asked about it
        H.expect_eq("devices read", [(d["device"], len(d["samples"]) > 0)
                                     for d in rep["device_usage"]], [(0, True), (1, False)])


def case_driver_module():
    """The driver API with a module and a launch: the result buffer
    (cuMemAlloc) and the page-locked staging buffer (cuMemAllocHost) leak;
    the two input buffers were freed."""
    rep, _, D = traced("driver_module")
    src = source("driver_module")
    H.check_leak(rep, function="result_buffer(unsigned long)", source=src, tag="drv_result",
                 nbytes=D["ELEMENTS"] * 4, api="cuMemAlloc", kind="device")
    H.check_leak(rep, function="staging()", source=src, tag="drv_staging",
                 nbytes=D["STAGING_BYTES"], api="cuMemAllocHost", kind="host")
    H.expect_eq("leak entries", len(H.leaks(rep)), 2)
    clean(rep, allocations=4, frees=2, leaked_bytes=D["ELEMENTS"] * 4, leaked_allocations=1,
          host_leaked_bytes=D["STAGING_BYTES"])


def case_zerocopy_p2p():
    """Mapped page-locked memory and peers: the mapped buffer leaks as host
    memory (cudaHostAlloc), device 1's buffer, filled by cudaMemcpyPeer,
    on device 1; the registration (a host range the tracer follows) was
    undone and device 0's buffer freed."""
    rep, _, D = traced("zerocopy_p2p")
    src = source("zerocopy_p2p")
    H.check_leak(rep, function="mapped_buffer()", source=src, tag="mapped",
                 nbytes=D["MAPPED_BYTES"], api="cudaHostAlloc", kind="host",
                 caller="zero_copy()")
    H.check_leak(rep, function="peer_buffer()", source=src, tag="peer", nbytes=D["PEER_BYTES"],
                 api="cudaMalloc", kind="device", device=1, caller="peer_to_peer()")
    H.expect_eq("leak entries", len(H.leaks(rep)), 2)
    clean(rep, allocations=4, frees=2, leaked_bytes=D["PEER_BYTES"], leaked_allocations=1,
          host_leaked_bytes=D["MAPPED_BYTES"])


def case_ipc_processes():
    """IPC between two processes: the parent's exported buffer leaks in the
    parent's dump, the second one it exported and freed does not; the
    child's mappings of them (cudaIpcOpenMemHandle, closed with
    cudaIpcCloseMemHandle) are neither allocations nor frees of the child,
    whose dump holds only its own buffer."""
    name = "ipc_processes"
    src = source(name)
    D = H.c_defines(src)
    where = H.tmpdir()
    r = H.run_traced(argv_of(name), mode="preload", output=False,
                     extra_env={"VRAMTRACE_OUTPUT": os.path.join(where, "trace.%p.vtr")})
    H.expect_program_ok(r)
    H.expect_eq(name + " output", r.stdout, OUTPUTS[name])
    dumps = sorted(os.path.join(where, f) for f in os.listdir(where) if f.endswith(".vtr"))
    H.expect_eq("dumps (parent and child)", len(dumps), 2)
    reports = [H.report(d) for d in dumps]
    parent = [x for x in reports if any(lk.get("bytes") == D["IPC_BYTES"] for lk in H.leaks(x))]
    H.expect_eq("dumps with the exported buffer's leak", len(parent), 1)
    child = [x for x in reports if x is not parent[0]][0]
    for rep, function, tag, nbytes, pairs in (
            (parent[0], "exported()", "ipc_exported", D["IPC_BYTES"], 1),
            (child, "child_own()", "ipc_child_own", D["CHILD_BYTES"], 0)):
        H.check_frame_shape(rep)
        H.check_leak(rep, function=function, source=src, tag=tag, nbytes=nbytes,
                     api="cudaMalloc", kind="device", caller=None)
        H.expect_eq(tag + ": leak entries", len(H.leaks(rep)), 1)
        clean(rep, allocations=1 + pairs, frees=pairs, leaked_bytes=nbytes, leaked_allocations=1,
              host_leaked_bytes=0)
    freed_line = H.call_line(src, "ipc_freed")
    freed = [x for x in parent[0]["sites"] if x["frames"][0].get("line") == freed_line]
    H.expect_eq("the second exported buffer, freed by the parent: (bytes, live at exit)",
                [(x.get("peak_live_bytes"), x.get("live_bytes")) for x in freed],
                [(D["FREED_BYTES"], 0)])


def case_graph_nodes():
    """A graph built node by node (memset, 1D and 3D memcpy, host, empty
    nodes, edges), cloned and launched; a capture forked to a second stream
    whose allocation is freed there; occupancy queries; a free of a graph
    allocation node's address before any launch, refused by the driver and
    named as the graph's allocation (issue 38). Only the kept buffer leaks."""
    rep, r = H.traced_report(argv_of("graph_nodes"))
    H.expect_eq("output", r.stdout, OUTPUTS["graph_nodes"])
    H.check_frame_shape(rep)
    src = source("graph_nodes")
    D = H.c_defines(src)
    H.check_leak(rep, function="kept_buffer()", source=src, tag="kept", nbytes=D["KEPT_BYTES"],
                 api="cudaMalloc", kind="device")
    H.expect_eq("leak entries", len(H.leaks(rep)), 1)
    launches = D["LAUNCHES"]
    H.check_summary(rep, allocations=5 + launches, frees=4 + launches, invalid_frees=1,
                    leaked_bytes=D["KEPT_BYTES"], leaked_allocations=1, failed_allocations=0,
                    untraced_frees=0, host_leaked_bytes=0)
    H.check_complete(rep)
    forked = [x for x in rep["sites"] if x["frames"][0].get("line") == H.call_line(src, "forked")]
    H.expect_eq("the forked capture's allocation: (api, bytes, live at exit, pairs)",
                [(x.get("api"), x.get("peak_live_bytes"), x.get("live_bytes"), x.get("pairs"))
                 for x in forked], [("cudaMallocAsync", D["FORKED_BYTES"], 0, launches)])
    bad = rep["invalid_frees"]
    H.expect_eq("the refused free", [(
        b["api"], b["error_name"], b.get("graph_allocation"), b["double_free"], b["allocated_bytes"],
        b["allocated_api"], b["frames"][0].get("line"), b["allocated_frames"][0].get("line"))
        for b in bad], [("cudaFree", "cudaErrorInvalidValue", True, False, D["NODE_BYTES"],
                         "cudaGraphAddMemAllocNode", H.call_line(src, "refused"),
                         H.call_line(src, "node"))])
    text = H._run([H.vramtrace_exe(), "report", r.dump], H.base_env(), H.tmpdir()).stdout
    lines = [re.sub(r"0x[0-9a-f]+", "ADDR", l) for l in text.splitlines()
             if "Invalid free" in l or "Address 0x" in l]
    H.expect_eq("the refused free's lines", lines, [
        "Invalid free of ADDR via cudaFree: cudaErrorInvalidValue (1), 1 time",
        "  Address ADDR is a CUDA graph's allocation of %d bytes (1.0 MiB) via "
        "cudaGraphAddMemAllocNode on device 0, not allocated at this free (a graph's allocation "
        "exists from the launch that runs its node until its free); the node was made at:"
        % D["NODE_BYTES"]])
    H.expect("no allocation the tracer saw" not in text, text)


def case_driver_peers():
    """The driver API over two devices: peer access between their contexts
    (cuCtxEnablePeerAccess), a module loaded from its file (cuModuleLoad)
    and from memory with JIT options (cuModuleLoadDataEx), occupancy
    queries (cuOccupancy*), a peer copy (cuMemcpyPeer): device 1's buffer
    leaks, device 0's was freed (issue 38)."""
    rep, _, D = traced("driver_peers")
    H.check_leak(rep, function="peer_buffer()", source=source("driver_peers"), tag="peer_buffer",
                 nbytes=D["PEER_BYTES"], api="cuMemAlloc", kind="device", device=1)
    H.expect_eq("leak entries", len(H.leaks(rep)), 1)
    clean(rep, allocations=2, frees=1, leaked_bytes=D["PEER_BYTES"], leaked_allocations=1,
          host_leaked_bytes=0)


SYNC_NS = 2000000  # STANDIN_CUDA_SYNC_NS: cuMemAlloc and cuMemFree take 2 ms, as a sync


def case_churn_hint():
    """The churn hint ("each X/Y pair synchronizes the device") only for a
    site that allocates and frees again and again through an API that
    synchronizes, worded for that API: not for cudaMallocAsync from a pool
    that keeps its memory, nor for managed buffers all live at once and
    freed once (issue 38)."""
    src = source("churn_shapes")
    D = H.c_defines(src)
    hint = ("vramtrace: %s(...) %s:%d allocates and frees again and again; each %s pair "
            "synchronizes the device: the caching allocator or a pool would avoid it")
    for mode, function, tag, pairs, apis in (
            ("pool", "pool_scratch", "pool_scratch", D["PAIRS"], None),
            ("managed", "managed_buffer", "managed_buffer", D["MANAGED_BUFFERS"], None),
            ("malloc", "temp_pairs", "temp_buffer", D["PAIRS"], "cudaMalloc/cudaFree"),
            ("hostmem", "host_pairs", "host_buffer", D["PAIRS"], "cudaMallocHost/cudaFreeHost")):
        r = H.run_traced([sample("churn_shapes"), mode],
                         extra_env={"STANDIN_CUDA_SYNC_NS": str(SYNC_NS)})
        H.expect_program_ok(r)
        H.expect_eq(mode + " output", r.stdout, "%s done\n" % mode)
        churn = H.report(r.dump)["churn"]
        H.expect_eq(mode + ": pairs, call sites", (churn["pairs"], churn["call_sites"]),
                    (pairs, 1))
        lines = [l for l in r.stderr.splitlines() if "again and again" in l]
        want = [] if apis is None else [hint % (function, src, H.marker_line(src, tag), apis)]
        if H.real_cuda() and apis is not None and not lines:
            continue  # a real GPU's calls may take less than 1% of the run: no hint, rightly
        H.expect_eq(mode + ": large", [c["large"] for c in churn["sites"]], [apis is not None])
        H.expect_eq(mode + ": hint lines", [l.replace("()", "(...)") for l in lines], want)


if __name__ == "__main__":
    H.main(globals())
