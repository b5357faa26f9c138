#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks vramtrace against a real GPU: examples/leaky.cu and a program leaking a
# 3D and a mipmapped array, built by nvcc with its default static runtime and
# with the shared runtime, (where PyTorch is
# installed) a PyTorch loop that leaks a known tensor, without PyTorch's cache
# and with run --pytorch-tensors (its cudaMallocAsync backend), NCCL's
# buffers of a one-rank NCCL process group named as NCCL's, cuBLAS handles
# and cuFFT plans made each step (growing), kept and destroyed, and
# `vramtrace gpus` and the report's device view against nvidia-smi
# --query-gpu and --query-compute-apps, and the nvcc-built samples of
# tests/samples against their exact ground truth (the suite `samples` with
# VRAMTRACE_TEST_REAL_CUDA=1: the machine's CUDA, not the stand-ins; the
# two-device samples skip where there is one GPU). Run from the repository
# root on a machine with a GPU, the CUDA toolkit, meson and ninja:
#     bash tests/gpu/check.sh [BUILD_DIR]
# BUILD_DIR defaults to build-gpu (configured here if missing). Prints one
# PASS/FAIL line per check and exits non-zero if any failed.
set -u
cd "$(dirname "$0")/../.."
build=${1:-build-gpu}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

if [ ! -x "$build/vramtrace" ]; then
    meson setup "$build" >/dev/null && meson compile -C "$build" >/dev/null ||
        { echo "FAIL build"; exit 1; }
fi
vramtrace="$build/vramtrace"

# check NAME DUMP PYTHON-ASSERTIONS: the assertions see the report as `r`.
check() {
    local name=$1 dump=$2 assertions=$3
    if "$vramtrace" report --json "$dump" >"$work/$name.json" 2>"$work/$name.err" &&
       python3 - "$work/$name.json" "$assertions" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def name(frame):  # C++ names come demangled, with their parameters
    return frame["function"].split("(")[0]
def leak_at(function):
    return [l for l in r["leaks"] if l["frames"] and name(l["frames"][0]) == function]
exec(sys.argv[2])
PY
    then
        echo "PASS $name"
    else
        echo "FAIL $name"; cat "$work/$name.err"; failures=$((failures + 1))
        "$vramtrace" report "$dump" | head -40
    fi
}

leaky_assertions='
s = leak_at("make_scratch")
assert len(s) == 1, r["leaks"]
assert s[0]["bytes"] == 5 * 1048576 and s[0]["allocations"] == 5, s
assert s[0]["api"] == "cudaMalloc" and s[0]["kind"] == "device", s
assert name(s[0]["frames"][1]) == "train_step", s
h = leak_at("make_staging")
assert len(h) == 1 and h[0]["bytes"] == 4096 and h[0]["kind"] == "host", h
assert r["summary"]["leaked_bytes"] >= 5 * 1048576
assert r["summary"]["host_leaked_bytes"] >= 4096
'

for runtime in static shared; do
    nvcc -g -O0 --cudart "$runtime" -o "$work/leaky_$runtime" examples/leaky.cu ||
        { echo "FAIL nvcc --cudart $runtime"; failures=$((failures + 1)); continue; }
    "$vramtrace" run -o "$work/leaky_$runtime.vtr" -- "$work/leaky_$runtime" >/dev/null 2>&1
    check "leaky_cudart_$runtime" "$work/leaky_$runtime.vtr" "$leaky_assertions"
done

# Arrays through NVIDIA's runtime: each leak under the runtime call that made
# it (the driver sees cuArray3DCreate / cuMipmappedArrayCreate), bytes as the
# descriptors say.
cat >"$work/arrays.cu" <<'CU'
#include <cuda_runtime.h>
__attribute__((noinline)) void leak_3d_array() {
    cudaChannelFormatDesc d = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a;
    if (cudaMalloc3DArray(&a, &d, make_cudaExtent(40, 6, 5), 0) != cudaSuccess) throw 1;
}
__attribute__((noinline)) void leak_mipmapped_array() {
    cudaChannelFormatDesc d = cudaCreateChannelDesc<uchar4>();
    cudaMipmappedArray_t m;
    if (cudaMallocMipmappedArray(&m, &d, make_cudaExtent(64, 32, 0), 3, 0) != cudaSuccess) throw 1;
}
int main() {
    leak_3d_array();
    leak_mipmapped_array();
    return 0;
}
CU
arrays_assertions='
a = leak_at("leak_3d_array")
assert len(a) == 1 and a[0]["api"] == "cudaMalloc3DArray" and a[0]["bytes"] == 40 * 6 * 5 * 4, a
m = leak_at("leak_mipmapped_array")
assert len(m) == 1 and m[0]["api"] == "cudaMallocMipmappedArray", m
assert m[0]["bytes"] == (64 * 32 + 32 * 16 + 16 * 8) * 4, m
'
for runtime in static shared; do
    nvcc -g -O0 --cudart "$runtime" -o "$work/arrays_$runtime" "$work/arrays.cu" ||
        { echo "FAIL nvcc arrays.cu --cudart $runtime"; failures=$((failures + 1)); continue; }
    "$vramtrace" run -o "$work/arrays_$runtime.vtr" -- "$work/arrays_$runtime" >/dev/null 2>&1
    check "arrays_cudart_$runtime" "$work/arrays_$runtime.vtr" "$arrays_assertions"
done

if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
    cat >"$work/torch_leak.py" <<'PY'
import torch
kept = []
def leak_tensor():
    kept.append(torch.empty(3 * 1024 * 1024, dtype=torch.uint8, device="cuda"))
for step in range(3):
    x = torch.ones(1024, 1024, device="cuda")
    y = x * 2
    del x, y
leak_tensor()
torch.cuda.synchronize()
PY
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 "$vramtrace" run -o "$work/torch.vtr" -- \
        python3 "$work/torch_leak.py" >/dev/null 2>&1
    # The tensor's own Python line, though torch.empty releases the GIL.
    torch_assertions='
big = [l for l in r["leaks"] if l["bytes"] == 3 * 1024 * 1024 and l["allocations"] == 1]
assert big, [(l["bytes"], l["api"]) for l in r["leaks"]]
assert big[0]["kind"] == "device"
py = [(f["function"], f["line"]) for f in big[0]["frames"] if f["module"] == "python"]
assert py[:1] == [("leak_tensor", 4)], py
'
    check torch_no_caching "$work/torch.vtr" "$torch_assertions"
    "$vramtrace" run --pytorch-tensors -o "$work/torch_async.vtr" -- \
        python3 "$work/torch_leak.py" >/dev/null 2>&1
    check torch_pytorch_tensors "$work/torch_async.vtr" "$torch_assertions"'
assert big[0]["api"] == "cudaMallocAsync", big[0]["api"]
'
    # NCCL's buffers: one rank of the NCCL backend, an all_reduce, no
    # destroy_process_group: what libnccl allocated is known as NCCL's.
    cat >"$work/torch_nccl.py" <<'PY'
import os, torch, torch.distributed as dist
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29533")
dist.init_process_group("nccl", rank=0, world_size=1)
t = torch.ones(1024, device="cuda")
dist.all_reduce(t)
torch.cuda.synchronize()
PY
    "$vramtrace" run -o "$work/nccl.vtr" -- python3 "$work/torch_nccl.py" >/dev/null 2>&1
    check torch_nccl_buffers "$work/nccl.vtr" '
nccl = [k for k in r["known"] if k["known"]["label"] == "NCCL'"'"'s buffers"]
assert nccl and sum(k["bytes"] for k in nccl) > 0, [(k["bytes"], k["known"]["label"]) for k in r["known"]]
assert not [l for l in r["leaks"] if any("libnccl" in (f.get("module") or "") for f in l["frames"])], r["leaks"]
'
else
    echo "SKIP torch (PyTorch with CUDA not available)"
fi

# `vramtrace gpus` against nvidia-smi, with a traced process holding 256 MiB.
cat >"$work/holder.cu" <<'CU'
#include <cstdio>
#include <unistd.h>
int main() {
    void *p;
    if (cudaMalloc(&p, 256 << 20) != cudaSuccess) return 1;
    printf("ready\n");
    fflush(stdout);
    char c;
    while (read(0, &c, 1) > 0) {}
    return 0;
}
CU
if nvcc -o "$work/holder" "$work/holder.cu" && mkfifo "$work/hold" && mkfifo "$work/ready"; then
    "$vramtrace" run -o "$work/holder.vtr" -- "$work/holder" <"$work/hold" >"$work/ready" 2>/dev/null &
    exec 7>"$work/hold"
    read -r _ <"$work/ready"
    holder=$(pgrep -n -f "^$work/holder\$")
    "$vramtrace" gpus --json "$work" >"$work/gpus.json" 2>"$work/gpus.err"
    nvidia-smi --query-gpu=uuid,pci.bus_id,memory.total,memory.free --format=csv,noheader,nounits \
        >"$work/smi_gpus.csv"
    nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory --format=csv,noheader,nounits \
        >"$work/smi_apps.csv"
    "$vramtrace" gpus --min-free 1000000GiB >/dev/null 2>&1; min_free_status=$?
    exec 7>&-
    wait
    if python3 - "$work" "$holder" "$min_free_status" <<'PY'
import json, sys
work, holder, min_free_status = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
MiB = 1 << 20
g = {x["uuid"]: x for x in json.load(open(work + "/gpus.json"))["gpus"]}
smi = [l.split(", ") for l in open(work + "/smi_gpus.csv").read().splitlines()]
assert sorted(g) == sorted(u for u, *_ in smi), (sorted(g), smi)
for uuid, bus, total, free in smi:
    assert abs(g[uuid]["total_bytes"] - int(total) * MiB) < MiB, (uuid, g[uuid], total)
    assert abs(g[uuid]["free_bytes"] - int(free) * MiB) < 64 * MiB, (uuid, g[uuid], free)
    assert g[uuid]["pci_bus_id"].lower() == bus.lower(), (g[uuid]["pci_bus_id"], bus)
for pid, uuid, used in (l.split(", ") for l in open(work + "/smi_apps.csv").read().splitlines()):
    p = [x for x in g[uuid]["processes"] if x["pid"] == int(pid)]
    assert p, ("nvidia-smi lists", pid, "on", uuid, "vramtrace gpus does not")
    assert abs(p[0]["used_bytes"] - int(used) * MiB) < MiB, (p[0], used)
mine = [x for gpu in g.values() for x in gpu["processes"] if x["pid"] == holder]
assert len(mine) == 1 and mine[0]["traced"] and mine[0]["state"] == "sleeping", mine
assert mine[0]["used_bytes"] >= 256 * MiB, mine
assert min_free_status == 3, min_free_status
PY
    then echo "PASS gpus_vs_nvidia_smi"; else echo "FAIL gpus_vs_nvidia_smi"; cat "$work/gpus.err"; failures=$((failures + 1)); fi
    check device_usage "$work/holder.vtr" '
d = r["devices"][0]
assert d["uuid"].startswith("GPU-") and len(d["uuid"]) == 40 and d["total_bytes"] > 0, d
u = r["device_usage"][0]
assert u["traced_live_bytes"] == 256 << 20, u
assert u["process_untraced_bytes"] > 0, u          # the context, at least
assert u["driver_used_bytes"] == u["traced_live_bytes"] + u["process_untraced_bytes"] + u["other_processes_bytes"], u
'
else
    echo "FAIL nvcc holder.cu"; failures=$((failures + 1))
fi

# CUDA's libraries' handles (tests/test_libraries.py over the real cuBLAS and
# cuFFT): a handle or plan made each step and never destroyed grows at the
# program's line, named as the library's, and fails check; one kept until
# exit is known memory; one destroyed each step leaves nothing growing.
cat >"$work/handles.cu" <<'CU'
#include <cstring>
#include <cublas_v2.h>
#include <cufft.h>
#include "vramtrace.h"
static float *d;
__attribute__((noinline)) void make_cublas(bool destroy) {
    cublasHandle_t h;
    float one = 1;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS ||
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &one, d, 64, d, 64, &one, d, 64) !=
            CUBLAS_STATUS_SUCCESS || cudaDeviceSynchronize() != cudaSuccess) throw 1;
    if (destroy && cublasDestroy(h) != CUBLAS_STATUS_SUCCESS) throw 1;
}
__attribute__((noinline)) void make_cufft(bool destroy) {
    cufftHandle p;  /* a prime length: a work area */
    if (cufftPlan1d(&p, 999983, CUFFT_C2C, 4) != CUFFT_SUCCESS) throw 1;
    if (destroy && cufftDestroy(p) != CUFFT_SUCCESS) throw 1;
}
int main(int argc, char **argv) {
    if (argc != 3 || cudaMalloc(&d, 64 * 64 * sizeof(float)) != cudaSuccess) return 2;
    void (*make)(bool) = strcmp(argv[1], "cublas") ? make_cufft : make_cublas;
    bool keep = !strcmp(argv[2], "keep"), grow = !strcmp(argv[2], "grow");
    if (keep) make(false);
    for (int i = 0; i < 5; i++) {
        if (!keep) make(!grow);
        vramtrace_mark("step");
    }
    return 0;
}
CU
if nvcc -g -O0 -I include -o "$work/handles" "$work/handles.cu" -lcublas -lcufft; then
    for lib in cublas cufft; do
        label=$([ $lib = cublas ] && echo "cuBLAS's handles and workspaces" || echo "cuFFT's plans")
        for mode in grow keep destroy; do
            "$vramtrace" run -o "$work/$lib-$mode.vtr" -- "$work/handles" $lib $mode >/dev/null 2>&1
            "$vramtrace" check "$work/$lib-$mode.vtr" >/dev/null 2>&1; status=$?
            check "${lib}_handles_$mode" "$work/$lib-$mode.vtr" "
label, mode, status = \"$label\", \"$mode\", $status
growing = [s for s in r['sites'] if s['growing']]
mine = [s for s in r['known'] if s['known']['label'] == label]
if mode == 'grow':
    assert growing and all((s['known'] or {}).get('label') == label for s in growing), growing
    assert all(name(s['frames'][0]) == 'make_$lib' for s in growing), [s['frames'][:2] for s in growing]
    assert status == 23, status
else:
    assert not growing and status == 0, (growing, status)
if mode == 'keep':
    assert mine and all(name(k['frames'][0]) == 'make_$lib' for k in mine), mine
assert not [l for l in r['leaks'] if any('lib$lib' in (f.get('module') or '') for f in l['frames'])], r['leaks']
"
        done
    done
else
    echo "FAIL nvcc handles.cu"; failures=$((failures + 1))
fi

# The samples' ground truth over this GPU (tests/test_samples.py).
if VRAMTRACE_TEST_REAL_CUDA=1 meson test -C "$build" --suite samples --print-errorlogs \
    >"$work/samples.log" 2>&1; then
    echo "PASS samples_real_cuda"
else
    echo "FAIL samples_real_cuda"; grep -E "FAIL|SKIP" "$work/samples.log"; failures=$((failures + 1))
fi

echo "gpu checks: $failures failed"
[ "$failures" -eq 0 ]
