/* SPDX-License-Identifier: MIT */
/* The vramtrace dump format (.vtr): the one definition shared by the
 * library (writer) and the CLI (reader).
 *
 * File = header, then records, append-only.
 *   header: 8 bytes magic "VRAMTRC\0", u32 LE version (1, or 2 with
 *   VT_FLAG_AGGREGATED), u32 LE flags (VT_FLAG_AGGREGATED; other bits 0).
 *   record: u8 type (never 0), varint payload length, payload.
 * A zero byte where a record type is expected means "nothing more was
 * written": the writer grows the file in zero-filled chunks, so a process
 * killed mid-run leaves zero padding after its last whole record.
 * Unknown record types are skipped by length (forward compatibility).
 *
 * Payload encodings:
 *   varint  unsigned LEB128, at most 10 bytes
 *   svarint zigzag-encoded signed varint
 *   str     varint byte length, then the bytes (no NUL)
 *   u8      one byte
 *
 * Every timed record starts with varint dt: nanoseconds of CLOCK_MONOTONIC
 * since the previous timed record (the first one: since PROCESS.start_mono).
 * Addresses in ALLOC and FREE are svarint deltas from the address of the
 * previous ALLOC or FREE record (the first one: from 0).
 *
 * Aggregate mode (VT_FLAG_AGGREGATED, for long runs): the dump holds no
 * ALLOC or FREE records, only SAMPLE records (live bytes per call site, at
 * intervals that double as the run goes on), and at exit SITES and TOTALS
 * before END. A site is (stack id, api, kind, device), as the CLI groups
 * allocations. Individual allocations (address, size, lifetime, order) are
 * not in such a dump.
 */
#ifndef VRAMTRACE_FORMAT_H
#define VRAMTRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define VT_MAGIC "VRAMTRC" /* 7 chars + NUL = 8 bytes */
#define VT_MAGIC_LEN 8
#define VT_VERSION 4u        /* the newest version this code reads */
#define VT_VERSION_EVENTS 1u /* written in events mode: every vramtrace reads it */
/* Written in aggregate mode: a reader from before aggregate mode, which
 * would see a dump without events, refuses it instead. */
#define VT_VERSION_AGGREGATED 2u
/* The header says so once a framework's tensors are traced inside its
 * segments (the first tensor's ALLOC, or FRAMEWORK with its tensors): a
 * reader from before them, which would count their bytes twice (the
 * segment's and the tensor's), refuses the dump instead. */
#define VT_VERSION_TENSORS 3u
/* ... and once the regions of an NVTX memory heap are traced inside it (the
 * first region's ALLOC): a reader from before them would count them twice. */
#define VT_VERSION_REGIONS 4u
#define VT_HEADER_LEN 16
#define VT_FLAG_AGGREGATED 0x1u /* header flags: aggregate mode */
#define VT_VARINT_MAX 10

/* The records; each one's fields are its layout below (VT_REC_<TYPE>_FIELDS
 * and the layouts of its lists), what they mean is said here. */
enum vt_record_type {
    VT_REC_PAD = 0, /* not a record: end of written data */
    /* The process: start_real_ns since the epoch, start_mono_ns on
     * CLOCK_MONOTONIC (the origin of every time); the appended rank is
     * RANK / OMPI_COMM_WORLD_RANK / PMI_RANK / SLURM_PROCID / LOCAL_RANK
     * (the first set; empty when none is), start ticks field 22 of /proc/PID/stat (clock ticks since
     * boot) and the boot id /proc/sys/kernel/random/boot_id: with the pid
     * and hostname they tell whether the writer still runs. */
    VT_REC_PROCESS = 1,
    /* A loaded object: start and end are its lowest and one past its
     * highest PT_LOAD address, bias included; the build id is raw bytes
     * (may be empty). */
    VT_REC_MODULE = 2,
    /* A stack, ids 1, 2, ...: innermost frame first, each a delta from the
     * frame before (the first from 0); tracer frames already dropped; every
     * frame is a return address (symbolize at address - 1). STACK_CUT only
     * for a stack deeper than the tracer's frame limit: how many frames it
     * dropped, right before the frame cut_at. */
    VT_REC_STACK = 3,
    /* An allocation: stack 0 = none, kind|flags (VT_KIND_*, VT_ALLOC_*,
     * VT_ADDR_HANDLE), device -1 unknown, stream 0 = none. */
    VT_REC_ALLOC = 4,
    /* A free: status|flags (enum vt_free_status, VT_ADDR_HANDLE). */
    VT_REC_FREE = 5,
    /* A failed allocation; error is the CUresult. Appended only for an
     * out-of-memory error when the driver answered cuMemGetInfo for that
     * device: its free and total bytes, then (absent in older dumps) NVML's
     * view of that GPU: this process's used bytes + 1 (0: NVML did not
     * say) and the other processes: used bytes + 1 (0: unknown), state
     * (their /proc state letter; 0: not in this process's /proc), flags
     * (VT_PROCESS_*), command name. */
    VT_REC_FAILED = 6,
    VT_REC_MARK = 7,
    /* reason: enum vt_end_reason; live: allocations the tracer still held;
     * appended signal (VT_END_SIGNAL: its number; else 0; absent in dumps
     * written before it) and exit status (VT_END_UNDERSCORE_EXIT: _exit's
     * argument; else 0), then (absent in older dumps) how many times the
     * program took the dump's descriptor and the tracer found the file again
     * by its path, tracing on in it. */
    VT_REC_END = 8,
    /* A Python source location, ids 1, 2, ...: function is the qualified
     * name where the interpreter has one; line 0 = unknown. */
    VT_REC_PYFRAME = 9,
    /* A stack with Python frames: the native part as in STACK, then PYFRAME
     * ids, innermost first, then flags (VT_PYSTACK_TRUNCATED), then the cut
     * as in STACK (dropped 0 when not cut), then (absent in dumps written
     * before it) the interpreter entries, innermost first: how many of the
     * Python frames each holds, in all as many as there are (0: an entry
     * whose frames were not recorded). An entry is one call of the
     * evaluation loop from C: the CLI puts each entry's frames where its
     * evaluation frame stands in the native stack (without entries, all of
     * them at the innermost one). Then (absent in older dumps, and when no
     * other thread's frames were read) the Python frames of the thread this
     * one worked for, innermost first, with their flags
     * (VT_PYSTACK_TRUNCATED): a thread that runs no Python of its own
     * (PyTorch's autograd engine) allocating while the one thread that
     * called backward() waits for it. The entries are written (0) then. */
    VT_REC_PYSTACK = 10,
    /* Aggregate mode: live memory now. Allocations and frees so far (both
     * as the summary counts them), each device's live bytes (device +
     * managed), and each site whose live bytes or count changed since the
     * previous SAMPLE. Written at the first event after each sample time
     * (the interval doubles every VT_SAMPLES_PER_INTERVAL samples) and right
     * before each MARK. */
    VT_REC_SAMPLE = 11,
    /* Aggregate mode, at exit: every site's totals. Frees count free calls,
     * not context teardown; a site's live count is allocations - frees -
     * what teardown freed or a reused address replaced. */
    VT_REC_SITES = 12,
    /* Aggregate mode, at exit, after SITES: invalid and untraced frees,
     * what context teardown freed, the peak live bytes of all devices
     * together and each device's, with their times (ns since
     * PROCESS.start_mono). */
    VT_REC_TOTALS = 13,
    /* A thread's name (pthread_getname_np), written before its first
     * ALLOC or FAILED record. */
    VT_REC_THREAD = 14,
    /* 15, 17: not used yet */
    /* A free the driver refused, with what is known of it (the FREE or
     * ALLOC record, or in aggregate mode TOTALS, still counts it; this one
     * only tells where). address is absolute; flags VT_ADDR_HANDLE,
     * VT_BAD_FREE_*; error the CUresult; stack that of the refused free (0
     * none); the alloc_* fields are the allocation's (VT_BAD_FREE_ALLOC_KNOWN,
     * or a graph's allocation node's: VT_BAD_FREE_GRAPH_NODE; else zeros), the first_free_* ones the first free of a double free
     * (VT_BAD_FREE_DOUBLE, else zeros; its time in ns since
     * PROCESS.start_mono, its stack 0 unless VRAMTRACE_FREE_STACKS). */
    VT_REC_BAD_FREE = 16,
    /* A device this process used, once, before its first DEVICE_USAGE: its
     * CUDA ordinal here, the UUID (16 raw bytes as cuDeviceGetUuid_v2 gives
     * them), cuDeviceGetPCIBusId's text, the name, cuDeviceTotalMem_v2
     * (empty or 0: unknown); appended, flags (VT_DEVICE_MIG: a MIG device,
     * its UUID the MIG device's, its PCI bus id its GPU's, as NVML said),
     * and a MIG device's GPU: its UUID (16 raw bytes) and name (empty:
     * unknown or not a MIG device). Older dumps: a GPU, as far as known. */
    VT_REC_DEVICE = 18,
    /* The driver's view of a device: time in ns since PROCESS.start_mono
     * (not a dt, so readers that skip this record keep the times of the
     * others), reason (enum vt_usage_reason), cuMemGetInfo_v2 in a context
     * on it, NVML's used bytes of this process and of the others + 1 (0:
     * NVML did not say) and the others' count; appended, the live bytes
     * (device + managed) traced on it + 1 (0: not written; in events mode
     * the replay knows them; aggregate mode writes them, its samples being
     * older). Taken outside the tracer's lock: allocations of other threads
     * may fall between the reading and the record. */
    VT_REC_DEVICE_USAGE = 19,
    /* A module was unloaded (dlclose): the id of a MODULE record before it.
     * Stacks after it are symbolized without that module (another one may
     * be loaded at its addresses); stacks before it with it. Absent in
     * dumps written before it was added (no module unloads). */
    VT_REC_MODULE_UNLOAD = 20,
    /* The Python script of this process ended: its main module returned,
     * raised or called sys.exit, before threading's shutdown joined the
     * non-daemon threads and before the atexit handlers ran (the name
     * is older: dumps written before that point was read marked the
     * interpreter's finalizing flag, set after those handlers). What is
     * live here is what the script held when it ended; what is freed
     * after, the interpreter (its handlers, threads and module clearing)
     * freed at shutdown. Written once, at the first event that finds the
     * script ended, after a SAMPLE in aggregate mode (as before a MARK);
     * only when the program is the interpreter. Absent in older dumps. */
    VT_REC_PY_FINALIZING = 21,
    /* A framework's allocator the tracer looked into, once: its name
     * ("PyTorch"), release (major.minor; empty: unknown) and state (enum
     * vt_framework_state). Absent in older dumps. */
    VT_REC_FRAMEWORK = 22,
    /* The live allocation at address (in the key space flags say: handle
     * with VT_ADDR_HANDLE) is a segment of a framework's cache whose
     * tensors are traced, as the framework's allocator said: its bytes are
     * its tensors', its growth theirs. Written after the allocation, once
     * per segment (an expandable segment: each handle mapped into it).
     * With VT_SEGMENT_NVTX_HEAP, a heap the program registered with NVTX's
     * memory API (nvtxMemHeapRegister), its regions the "tensors". Absent
     * in older dumps. */
    VT_REC_CACHE_SEGMENT = 23,
    /* Tracing began in a process that ran
     * untraced until then (vramtrace attach), once, right after the module
     * list: what was allocated before is not in the dump. The time; per
     * device with a live context then, cuMemGetInfo_v2's free and total
     * bytes and NVML's used bytes of this process + 1 (0: NVML did not say):
     * the memory held before attach, never attributed to a line; then the
     * routes to the driver that attaching could not reach (each a sentence
     * naming the object, e.g. driver functions a runtime fetched before).
     * Absent in dumps of processes traced from their start. */
    VT_REC_ATTACH = 24,
    /* An NVTX range's name, once per name before the first ALLOC that
     * refers to its id (1, 2, ...): ALLOC's appended phase is the innermost
     * range pushed (push/pop, any domain) and not yet popped on the
     * allocating thread when it allocated, 0 none. Absent in older dumps. */
    VT_REC_PHASE = 25,
    VT_REC_MAX_KNOWN = 25,
};

/* ---- record layouts: one definition for the writer (src/dump/records.c),
 * the reader (tools/read/dump_reader.c) and the test encoder
 * (tests/cli/mkdump.c) ----
 * VT_REC_<LAYOUT>_FIELDS(F) lists fields in order as F(kind, name, label),
 * the label naming the field in the reader's errors;
 * VT_REC_<LAYOUT>_APPENDED(F) the fields appended later, absent in older
 * dumps (a reader takes each one only while bytes remain). Kinds:
 *   VARINT, SVARINT, U8, STR;
 *   BYTES raw bytes (struct vt_bytes), coded as a str;
 *   COUNT a varint: how many items of a list come next;
 *   DT    the time (CLOCK_MONOTONIC ns), written as the varint dt;
 *   ADDR  an address, written as the svarint delta of ALLOC/FREE addresses;
 *   WIDE  a varint always VT_WIDE_BYTES long (continuation bits on all but
 *         the last), so that the writer can fill it in after the record is
 *         written (FREE's call_ns: the real free runs after its record).
 * A record is one layout; those with lists are a sequence of layouts, each
 * COUNT followed by that many items (a tail layout has appended fields only):
 *   PROCESS  PROCESS, argc x PROCESS_ARG, PROCESS_TAIL
 *   STACK    STACK, frames x STACK_FRAME, STACK_CUT
 *   PYSTACK  STACK, frames x STACK_FRAME, PYSTACK_PYTHON, count x PYSTACK_PYFRAME,
 *            PYSTACK_TAIL, STACK_CUT, PYSTACK_ENTRIES, entries x PYSTACK_ENTRY,
 *            PYSTACK_BEHALF, behalf x PYSTACK_BEHALF_FRAME
 *   FAILED   FAILED (its appended fields end in the count), others x FAILED_PROCESS
 *   SAMPLE   SAMPLE, devices x SAMPLE_DEVICE, SAMPLE_SITES, sites x SAMPLE_SITE
 *   SITES    SITES, sites x SITES_SITE
 *   TOTALS   TOTALS, devices x TOTALS_DEVICE
 *   ATTACH   ATTACH, devices x ATTACH_DEVICE, ATTACH_ROUTES, routes x ATTACH_ROUTE
 * (clang-format would reflow the lists and not settle.) */
/* clang-format off */
#define VT_REC_PROCESS_FIELDS(F) \
    F(VARINT, pid, "pid") F(VARINT, ppid, "ppid") F(VARINT, start_real_ns, "start time") \
    F(VARINT, start_mono_ns, "monotonic start time") F(STR, exe, "exe path") \
    F(STR, hostname, "hostname") F(COUNT, argc, "argc")
#define VT_REC_PROCESS_APPENDED(F)
#define VT_REC_PROCESS_ARG_FIELDS(F) F(STR, arg, "argv")
#define VT_REC_PROCESS_ARG_APPENDED(F)
#define VT_REC_PROCESS_TAIL_FIELDS(F)
#define VT_REC_PROCESS_TAIL_APPENDED(F) \
    F(STR, rank, "rank") F(VARINT, start_ticks, "start ticks") F(STR, boot_id, "boot id")
#define VT_REC_MODULE_FIELDS(F) \
    F(VARINT, id, "module id") F(VARINT, bias, "load bias") F(VARINT, start, "start") \
    F(VARINT, end, "end") F(STR, path, "path") F(BYTES, build_id, "build id")
#define VT_REC_MODULE_APPENDED(F)
#define VT_REC_STACK_FIELDS(F) F(VARINT, id, "stack id") F(COUNT, frames, "frame count")
#define VT_REC_STACK_APPENDED(F)
#define VT_REC_STACK_FRAME_FIELDS(F) F(SVARINT, delta, "frame")
#define VT_REC_STACK_FRAME_APPENDED(F)
#define VT_REC_STACK_CUT_FIELDS(F)
#define VT_REC_STACK_CUT_APPENDED(F) F(VARINT, dropped, "frames dropped") F(VARINT, cut_at, "cut")
#define VT_REC_ALLOC_FIELDS(F) \
    F(DT, time_ns, "time delta") F(ADDR, address, "address delta") F(VARINT, size, "size") \
    F(VARINT, stack, "stack id") F(U8, api, "api") F(U8, kind_flags, "kind") \
    F(SVARINT, device, "device") F(VARINT, tid, "tid") F(VARINT, stream, "stream")
/* phase: the last field, left out when 0 (older readers skip it) */
#define VT_REC_ALLOC_APPENDED(F) \
    F(VARINT, call_ns, "time in the call") F(VARINT, phase, "phase id")
#define VT_REC_FREE_FIELDS(F) \
    F(DT, time_ns, "time delta") F(ADDR, address, "address delta") F(U8, api, "api") \
    F(U8, status_flags, "status") F(VARINT, tid, "tid") F(VARINT, stream, "stream")
#define VT_REC_FREE_APPENDED(F) F(WIDE, call_ns, "time in the call")
#define VT_REC_FAILED_FIELDS(F) \
    F(DT, time_ns, "time delta") F(VARINT, size, "size") F(VARINT, stack, "stack id") \
    F(U8, api, "api") F(U8, kind, "kind") F(SVARINT, device, "device") F(VARINT, tid, "tid") \
    F(VARINT, error, "error code")
#define VT_REC_FAILED_APPENDED(F) \
    F(VARINT, mem_free, "free memory") F(VARINT, mem_total, "total memory") \
    F(VARINT, own_plus1, "own used bytes") F(COUNT, others, "process count")
#define VT_REC_FAILED_PROCESS_FIELDS(F) \
    F(VARINT, pid, "pid") F(VARINT, used_plus1, "used bytes") F(U8, state, "state") \
    F(U8, flags, "flags") F(BYTES, comm, "command name")
#define VT_REC_FAILED_PROCESS_APPENDED(F)
#define VT_REC_MARK_FIELDS(F) F(DT, time_ns, "time delta") F(VARINT, tid, "tid") F(STR, label, "label")
#define VT_REC_MARK_APPENDED(F)
#define VT_REC_END_FIELDS(F) \
    F(DT, time_ns, "time delta") F(U8, reason, "reason") F(VARINT, live, "live count")
#define VT_REC_END_APPENDED(F) \
    F(VARINT, signal, "signal") F(VARINT, status, "exit status") F(VARINT, reopened, "reopened")
#define VT_REC_PYFRAME_FIELDS(F) \
    F(VARINT, id, "Python frame id") F(STR, function, "function") F(STR, file, "file") \
    F(VARINT, line, "line")
#define VT_REC_PYFRAME_APPENDED(F)
#define VT_REC_PYSTACK_PYTHON_FIELDS(F) F(COUNT, count, "Python frame count")
#define VT_REC_PYSTACK_PYTHON_APPENDED(F)
#define VT_REC_PYSTACK_PYFRAME_FIELDS(F) F(VARINT, id, "Python frame id")
#define VT_REC_PYSTACK_PYFRAME_APPENDED(F)
#define VT_REC_PYSTACK_TAIL_FIELDS(F)
#define VT_REC_PYSTACK_TAIL_APPENDED(F) F(VARINT, flags, "Python stack flags")
#define VT_REC_PYSTACK_ENTRIES_FIELDS(F)
#define VT_REC_PYSTACK_ENTRIES_APPENDED(F) F(COUNT, entries, "interpreter entry count")
#define VT_REC_PYSTACK_ENTRY_FIELDS(F) F(VARINT, frames, "Python frames of an entry")
#define VT_REC_PYSTACK_ENTRY_APPENDED(F)
#define VT_REC_PYSTACK_BEHALF_FIELDS(F)
#define VT_REC_PYSTACK_BEHALF_APPENDED(F) \
    F(VARINT, flags, "on-behalf stack flags") F(COUNT, behalf, "on-behalf Python frame count")
#define VT_REC_PYSTACK_BEHALF_FRAME_FIELDS(F) F(VARINT, id, "on-behalf Python frame id")
#define VT_REC_PYSTACK_BEHALF_FRAME_APPENDED(F)
#define VT_SITE_KEY_FIELDS(F) \
    F(VARINT, stack_id, "stack id") F(U8, api, "api") F(U8, kind, "kind") F(SVARINT, device, "device")
#define VT_REC_SAMPLE_FIELDS(F) \
    F(DT, time_ns, "time delta") F(VARINT, allocations, "allocations") F(VARINT, frees, "frees") \
    F(COUNT, devices, "device count")
#define VT_REC_SAMPLE_APPENDED(F)
#define VT_REC_SAMPLE_DEVICE_FIELDS(F) F(SVARINT, device, "device") F(VARINT, bytes, "bytes")
#define VT_REC_SAMPLE_DEVICE_APPENDED(F)
#define VT_REC_SAMPLE_SITES_FIELDS(F) F(COUNT, sites, "site count")
#define VT_REC_SAMPLE_SITES_APPENDED(F)
#define VT_REC_SAMPLE_SITE_FIELDS(F) \
    VT_SITE_KEY_FIELDS(F) F(VARINT, live_bytes, "live bytes") F(VARINT, live_count, "live count")
#define VT_REC_SAMPLE_SITE_APPENDED(F)
#define VT_REC_SITES_FIELDS(F) F(DT, time_ns, "time delta") F(COUNT, sites, "site count")
#define VT_REC_SITES_APPENDED(F)
#define VT_REC_SITES_SITE_FIELDS(F) \
    VT_SITE_KEY_FIELDS(F) F(VARINT, allocations, "allocations") \
    F(VARINT, bytes_allocated, "bytes allocated") F(VARINT, frees, "frees") \
    F(VARINT, live_count, "live count") F(VARINT, live_bytes, "live bytes")
#define VT_REC_SITES_SITE_APPENDED(F)
#define VT_REC_TOTALS_FIELDS(F) \
    F(DT, time_ns, "time delta") F(VARINT, invalid_frees, "invalid frees") \
    F(VARINT, untraced_frees, "untraced frees") \
    F(VARINT, teardown_allocations, "teardown allocations") \
    F(VARINT, teardown_bytes, "teardown bytes") F(VARINT, peak_bytes, "peak bytes") \
    F(VARINT, peak_time_ns, "peak time") F(COUNT, devices, "device count")
#define VT_REC_TOTALS_APPENDED(F)
#define VT_REC_TOTALS_DEVICE_FIELDS(F) \
    F(SVARINT, device, "device") F(VARINT, bytes, "bytes") F(VARINT, time_ns, "peak time")
#define VT_REC_TOTALS_DEVICE_APPENDED(F)
#define VT_REC_THREAD_FIELDS(F) F(VARINT, tid, "tid") F(STR, name, "thread name")
#define VT_REC_THREAD_APPENDED(F)
#define VT_REC_DEVICE_FIELDS(F) \
    F(SVARINT, device, "device") F(BYTES, uuid, "UUID") F(STR, pci_bus_id, "PCI bus id") \
    F(STR, name, "name") F(VARINT, total_bytes, "total memory")
#define VT_REC_DEVICE_APPENDED(F) \
    F(U8, flags, "flags") F(BYTES, parent_uuid, "parent GPU UUID") \
    F(STR, parent_name, "parent GPU name")
#define VT_REC_MODULE_UNLOAD_FIELDS(F) F(VARINT, module, "module id")
#define VT_REC_MODULE_UNLOAD_APPENDED(F)
#define VT_REC_PY_FINALIZING_FIELDS(F) F(DT, time_ns, "time delta") F(VARINT, tid, "tid")
#define VT_REC_PY_FINALIZING_APPENDED(F)
#define VT_REC_FRAMEWORK_FIELDS(F) \
    F(STR, name, "framework") F(STR, version, "framework version") F(U8, state, "framework state")
#define VT_REC_FRAMEWORK_APPENDED(F)
#define VT_REC_CACHE_SEGMENT_FIELDS(F) F(VARINT, address, "address") F(U8, flags, "flags")
#define VT_REC_CACHE_SEGMENT_APPENDED(F)
#define VT_REC_ATTACH_FIELDS(F) \
    F(DT, time_ns, "time delta") F(VARINT, tid, "tid") F(COUNT, devices, "device count")
#define VT_REC_ATTACH_APPENDED(F)
#define VT_REC_ATTACH_DEVICE_FIELDS(F) \
    F(SVARINT, device, "device") F(VARINT, free_bytes, "free bytes") \
    F(VARINT, total_bytes, "total bytes") F(VARINT, own_plus1, "own used bytes")
#define VT_REC_ATTACH_DEVICE_APPENDED(F)
#define VT_REC_ATTACH_ROUTES_FIELDS(F) F(COUNT, routes, "route count")
#define VT_REC_ATTACH_ROUTES_APPENDED(F)
#define VT_REC_ATTACH_ROUTE_FIELDS(F) F(STR, what, "route")
#define VT_REC_ATTACH_ROUTE_APPENDED(F)
#define VT_REC_PHASE_FIELDS(F) F(VARINT, id, "phase id") F(STR, name, "phase name")
#define VT_REC_PHASE_APPENDED(F)
#define VT_REC_DEVICE_USAGE_FIELDS(F) \
    F(VARINT, time_ns, "time") F(U8, reason, "reason") F(SVARINT, device, "device") \
    F(VARINT, free_bytes, "free bytes") F(VARINT, total_bytes, "total bytes") \
    F(VARINT, own_plus1, "own used bytes") F(VARINT, others_plus1, "other processes' bytes") \
    F(VARINT, others, "other process count")
#define VT_REC_DEVICE_USAGE_APPENDED(F) F(VARINT, traced_plus1, "traced live bytes")
#define VT_REC_BAD_FREE_FIELDS(F) \
    F(DT, time_ns, "time delta") F(VARINT, address, "address") F(U8, api, "api") \
    F(U8, flags, "flags") F(VARINT, tid, "tid") F(VARINT, error, "error") \
    F(VARINT, stack, "stack id") F(VARINT, alloc_stack, "allocation stack id") \
    F(U8, alloc_api, "allocation api") F(U8, alloc_kind, "allocation kind") \
    F(SVARINT, alloc_device, "allocation device") F(VARINT, alloc_size, "allocation size") \
    F(VARINT, first_free_ns, "first free time") F(U8, first_free_api, "first free api") \
    F(VARINT, first_free_tid, "first free tid") F(VARINT, first_free_stack, "first free stack id")
#define VT_REC_BAD_FREE_APPENDED(F)
#define VT_RECORD_LAYOUTS(X) \
    X(PROCESS) X(PROCESS_ARG) X(PROCESS_TAIL) X(MODULE) X(STACK) X(STACK_FRAME) X(STACK_CUT) \
    X(ALLOC) X(FREE) X(FAILED) X(FAILED_PROCESS) X(MARK) X(END) X(PYFRAME) X(PYSTACK_PYTHON) \
    X(PYSTACK_PYFRAME) X(PYSTACK_TAIL) X(PYSTACK_ENTRIES) X(PYSTACK_ENTRY) X(PYSTACK_BEHALF) \
    X(PYSTACK_BEHALF_FRAME) X(SAMPLE) \
    X(SAMPLE_DEVICE) X(SAMPLE_SITES) X(SAMPLE_SITE) X(SITES) X(SITES_SITE) X(TOTALS) \
    X(TOTALS_DEVICE) X(THREAD) X(DEVICE) X(MODULE_UNLOAD) X(DEVICE_USAGE) X(BAD_FREE) \
    X(PY_FINALIZING) X(FRAMEWORK) X(CACHE_SEGMENT) X(ATTACH) X(ATTACH_DEVICE) X(ATTACH_ROUTES) \
    X(ATTACH_ROUTE) X(PHASE)
/* clang-format on */

/* BYTES: raw bytes with their length. */
struct vt_bytes {
    const uint8_t *data;
    uint64_t len;
};

/* struct vt_rec_<LAYOUT>: the values of its fields. */
#define VT_FIELD_TYPE_VARINT uint64_t
#define VT_FIELD_TYPE_SVARINT int64_t
#define VT_FIELD_TYPE_U8 unsigned
#define VT_FIELD_TYPE_STR const char *
#define VT_FIELD_TYPE_BYTES struct vt_bytes
#define VT_FIELD_TYPE_COUNT uint64_t
#define VT_FIELD_TYPE_DT uint64_t
#define VT_FIELD_TYPE_ADDR uint64_t
#define VT_FIELD_TYPE_WIDE uint64_t
#define VT_FIELD_MEMBER(kind, name, label) VT_FIELD_TYPE_##kind name;
#define VT_RECORD_STRUCT(TYPE)                                                            \
    struct vt_rec_##TYPE {                                                                \
        VT_REC_##TYPE##_FIELDS(VT_FIELD_MEMBER) VT_REC_##TYPE##_APPENDED(VT_FIELD_MEMBER) \
    };
VT_RECORD_LAYOUTS(VT_RECORD_STRUCT)
#undef VT_RECORD_STRUCT

/* The fewest bytes a layout's fields take (a byte each): what a reader
 * checks a COUNT against before it makes room for the items. */
#define VT_FIELD_BYTE(kind, name, label) +1
#define VT_MIN_BYTES(TYPE) (0 VT_REC_##TYPE##_FIELDS(VT_FIELD_BYTE))

/* VT_DEFINE_ENCODER(TYPE, OUT): static void vt_encode_<TYPE>(OUT *out,
 * const struct vt_rec_<TYPE> *rec, int appended) puts the fields in order
 * (APPENDED: with the appended ones) through the including side's
 * vt_put_<kind>(OUT *out, value). */
#define VT_ENCODE_FIELD(kind, name, label) vt_put_##kind(out, rec->name);
#define VT_DEFINE_ENCODER(TYPE, OUT)                             \
    __attribute__((unused)) static void vt_encode_##TYPE(        \
        OUT *out, const struct vt_rec_##TYPE *rec, int appended) \
    {                                                            \
        (void)out;                                               \
        (void)rec;                                               \
        VT_REC_##TYPE##_FIELDS(VT_ENCODE_FIELD) if (appended)    \
        {                                                        \
            VT_REC_##TYPE##_APPENDED(VT_ENCODE_FIELD)            \
        }                                                        \
    }

/* VT_DEFINE_DECODER(TYPE, IN): static bool vt_decode_<TYPE>(IN *in,
 * struct vt_rec_<TYPE> *rec, struct vt_at_<TYPE> *at) takes the fields in
 * order through the including side's bool vt_get_<kind>(IN *in, const char
 * *label, <type> *value) (false: it said why), the appended ones only while
 * vt_get_more(in); AT holds where each field began (for errors). Fields
 * not present keep the values REC had. */
#define VT_FIELD_AT(kind, name, label) const uint8_t *name;
#define VT_DECODE_FIELD(kind, name, label)     \
    at->name = vt_get_position(in);            \
    if (!vt_get_##kind(in, label, &rec->name)) \
        return false;
#define VT_DECODE_APPENDED(kind, name, label)                     \
    at->name = vt_get_position(in);                               \
    if (vt_get_more(in) && !vt_get_##kind(in, label, &rec->name)) \
        return false;
#define VT_DEFINE_DECODER(TYPE, IN)                                                         \
    struct vt_at_##TYPE {                                                                   \
        VT_REC_##TYPE##_FIELDS(VT_FIELD_AT) VT_REC_##TYPE##_APPENDED(VT_FIELD_AT)           \
    };                                                                                      \
    __attribute__((unused)) static bool vt_decode_##TYPE(IN *in, struct vt_rec_##TYPE *rec, \
                                                         struct vt_at_##TYPE *at)           \
    {                                                                                       \
        (void)rec;                                                                          \
        VT_REC_##TYPE##_FIELDS(VT_DECODE_FIELD)                                             \
            VT_REC_##TYPE##_APPENDED(VT_DECODE_APPENDED) return true;                       \
    }

/* BAD_FREE flags. */
#define VT_BAD_FREE_ALLOC_KNOWN 0x01 /* the allocation it tried to free is known */
#define VT_BAD_FREE_DOUBLE 0x02      /* it had been freed already: a double free */
/* the address is a CUDA graph's allocation node's, not allocated by a
 * launch at that moment; the alloc_* fields are the node's */
#define VT_BAD_FREE_GRAPH_NODE 0x04

/* DEVICE flags. */
#define VT_DEVICE_MIG 0x01 /* a MIG device (a slice of its parent GPU) */

/* DEVICE_USAGE: when the driver was asked. */
enum vt_usage_reason {
    VT_USAGE_START = 0,    /* the first allocation on the device */
    VT_USAGE_MARK = 1,     /* right after a marker */
    VT_USAGE_SAMPLE = 2,   /* after an aggregate-mode sample */
    VT_USAGE_TEARDOWN = 3, /* right before a context reset or destroy */
    VT_USAGE_EXIT = 4,     /* at exit, before the runtime tears down */
    VT_USAGE_REASON_COUNT = 5,
};

/* FRAMEWORK: what the tracer traced of the framework's allocator. */
enum vt_framework_state {
    VT_FRAMEWORK_TENSORS = 0,      /* its tensors, inside its segments */
    VT_FRAMEWORK_NOT_VERIFIED = 1, /* a release not verified: its segments only */
    VT_FRAMEWORK_STATE_COUNT = 2,
};

/* FAILED, other processes: flags */
#define VT_PROCESS_ORPHANED 0x1 /* its parent is gone (adopted by init or a subreaper) */

/* PYSTACK flags: the Python stack was deeper than the frames recorded. */
#define VT_PYSTACK_TRUNCATED 0x1u

/* Aggregate mode: the sample interval doubles after this many samples. */
#define VT_SAMPLES_PER_INTERVAL 512

enum vt_end_reason {
    VT_END_EXIT = 0,            /* normal exit: library destructor ran */
    VT_END_SIGNAL = 1,          /* a fatal signal: written by the tracer's handler */
    VT_END_EXEC = 2,            /* exec replaced the program */
    VT_END_UNDERSCORE_EXIT = 3, /* _exit / _Exit: no destructors ran */
    /* Tracing stopped while the process ran on (status: enum vt_stop_cause);
     * what was live then may have been freed after. Absent in older dumps. */
    VT_END_STOPPED = 4,
    /* vramtrace detach: tracing stopped, the process ran on; what was live
     * then may have been freed after. Absent in older dumps. */
    VT_END_DETACHED = 5,
};

/* Why tracing stopped early (END status with VT_END_STOPPED). */
enum vt_stop_cause {
    VT_STOP_DISK_FULL = 1,   /* the dump's filesystem was down to its margin */
    VT_STOP_DUMP_LOST = 2,   /* the program took the dump's descriptor; the file was gone */
    VT_STOP_SIZE_LIMIT = 3,  /* RLIMIT_FSIZE */
    VT_STOP_WRITE_ERROR = 4, /* another error growing or mapping the dump */
};

/* ALLOC kind|flags byte: low 4 bits kind, then flags. */
/* GRAPH_POOL: device memory a device's graph memory pool keeps beyond
 * what the graphs' live allocations use (their frees gave it back; it
 * goes at cuDeviceGraphMemTrim or the primary context's teardown). */
enum vt_kind {
    VT_KIND_DEVICE = 0,
    VT_KIND_MANAGED = 1,
    VT_KIND_HOST = 2,
    VT_KIND_GRAPH_POOL = 3,
    VT_KIND_COUNT = 4
};
#define VT_KIND_MASK 0x0f

/* What counts as VRAM (live bytes, leaks, growth, usage over time): device
 * and managed memory; page-locked host memory is reported apart. */
static inline int vt_kind_counts_as_vram(unsigned kind)
{
    return kind == VT_KIND_DEVICE || kind == VT_KIND_MANAGED || kind == VT_KIND_GRAPH_POOL;
}
#define VT_ALLOC_RESTORED 0x10 /* a failed free put this back: not a new allocation */
#define VT_ADDR_HANDLE 0x20    /* "address" is a cuMemCreate handle, a key space of its own */
/* CACHE_SEGMENT: an NVTX memory heap (older readers: a framework's segment) */
#define VT_SEGMENT_NVTX_HEAP 0x01

/* FREE status|flags byte: low 4 bits status, VT_ADDR_HANDLE as above. */
enum vt_free_status {
    VT_FREE_OK = 0,       /* freed a traced allocation */
    VT_FREE_UNTRACED = 1, /* the driver accepted a pointer the tracer never saw */
    VT_FREE_INVALID = 2,  /* the driver rejected the free (unknown pointer) */
    VT_FREE_TEARDOWN = 3, /* freed by context teardown, without a free call */
};
#define VT_FREE_STATUS_MASK 0x0f

/* The CUDA API that the program called, without version suffix: its id in
 * ALLOC, FREE, FAILED, BAD_FREE and site records, and whether it allocates
 * (VT_API_ALLOCATES; else it frees or tears down). Id ranges, a promise of
 * the format: 0 unknown, runtime APIs (cuda*) from VT_API_RUNTIME_FIRST up
 * to VT_API_DRIVER_FIRST and from VT_API_RUNTIME2_FIRST up to
 * VT_API_RUNTIME2_LIMIT, driver APIs (cu*) from VT_API_DRIVER_FIRST up to
 * VT_API_RUNTIME2_FIRST. A graph's allocation is recorded under the API
 * that made its node (cudaMallocAsync captured, cuGraphAddMemAllocNode,
 * cuGraphAddNode: it makes free nodes too...) when a launch runs the node; cuGraphLaunch / cudaGraphLaunch name the
 * graph memory pool's growth.
 * A new API takes the next free id of its range (ids are never reused). */
#define VT_API_ALLOCATES 0x1u
#define VT_API_LIST(X)                                \
    X(0, unknown, 0)                                  \
    X(1, cudaMalloc, VT_API_ALLOCATES)                \
    X(2, cudaMallocPitch, VT_API_ALLOCATES)           \
    X(3, cudaMalloc3D, VT_API_ALLOCATES)              \
    X(4, cudaMallocManaged, VT_API_ALLOCATES)         \
    X(5, cudaMallocAsync, VT_API_ALLOCATES)           \
    X(6, cudaMallocFromPoolAsync, VT_API_ALLOCATES)   \
    X(7, cudaMallocHost, VT_API_ALLOCATES)            \
    X(8, cudaHostAlloc, VT_API_ALLOCATES)             \
    X(9, cudaMallocArray, VT_API_ALLOCATES)           \
    X(10, cudaFree, 0)                                \
    X(11, cudaFreeAsync, 0)                           \
    X(12, cudaFreeHost, 0)                            \
    X(13, cudaFreeArray, 0)                           \
    X(14, cudaDeviceReset, 0)                         \
    X(15, cudaMallocMipmappedArray, VT_API_ALLOCATES) \
    X(16, cudaFreeMipmappedArray, 0)                  \
    X(17, cudaMalloc3DArray, VT_API_ALLOCATES)        \
    X(18, cudaHostRegister, VT_API_ALLOCATES)         \
    X(19, cudaHostUnregister, 0)                      \
    X(20, cuMemAlloc, VT_API_ALLOCATES)               \
    X(21, cuMemAllocPitch, VT_API_ALLOCATES)          \
    X(22, cuMemAllocManaged, VT_API_ALLOCATES)        \
    X(23, cuMemAllocAsync, VT_API_ALLOCATES)          \
    X(24, cuMemAllocFromPoolAsync, VT_API_ALLOCATES)  \
    X(25, cuMemAllocHost, VT_API_ALLOCATES)           \
    X(26, cuMemHostAlloc, VT_API_ALLOCATES)           \
    X(27, cuMemCreate, VT_API_ALLOCATES)              \
    X(28, cuArrayCreate, VT_API_ALLOCATES)            \
    X(29, cuArray3DCreate, VT_API_ALLOCATES)          \
    X(30, cuMemFree, 0)                               \
    X(31, cuMemFreeAsync, 0)                          \
    X(32, cuMemFreeHost, 0)                           \
    X(33, cuMemRelease, 0)                            \
    X(34, cuMemUnmap, 0)                              \
    X(35, cuArrayDestroy, 0)                          \
    X(36, cuCtxDestroy, 0)                            \
    X(37, cuDevicePrimaryCtxReset, 0)                 \
    X(38, cuDevicePrimaryCtxRelease, 0)               \
    X(39, cuMipmappedArrayCreate, VT_API_ALLOCATES)   \
    X(40, cuMipmappedArrayDestroy, 0)                 \
    X(41, cuMemHostRegister, VT_API_ALLOCATES)        \
    X(42, cuMemHostUnregister, 0)                     \
    X(43, cuGraphAddMemAllocNode, VT_API_ALLOCATES)   \
    X(44, cuGraphAddMemFreeNode, 0)                   \
    X(45, cuGraphLaunch, VT_API_ALLOCATES)            \
    X(46, cuDeviceGraphMemTrim, 0)                    \
    X(47, cuGreenCtxDestroy, 0)                       \
    X(48, cuGraphAddNode, VT_API_ALLOCATES)           \
    X(64, cudaGraphAddMemAllocNode, VT_API_ALLOCATES) \
    X(65, cudaGraphAddMemFreeNode, 0)                 \
    X(66, cudaGraphLaunch, VT_API_ALLOCATES)          \
    X(67, cudaDeviceGraphMemTrim, 0)                  \
    X(68, cudaGraphAddNode, VT_API_ALLOCATES)         \
    X(128, torchTensorAlloc, VT_API_ALLOCATES)        \
    X(129, torchTensorFree, 0)                        \
    X(130, nvtxMemRegionsRegister, VT_API_ALLOCATES)  \
    X(131, nvtxMemRegionsUnregister, 0)

#define VT_API_RUNTIME_FIRST 1u
#define VT_API_DRIVER_FIRST 20u
/* The runtime's range ran out: runtime APIs go on from 64 (to 128). */
#define VT_API_RUNTIME2_FIRST 64u
#define VT_API_RUNTIME2_LIMIT 128u
/* Allocators of frameworks, seen inside the segments they got from CUDA:
 * from 128. A tensor's bytes lie in a segment that its own ALLOC record
 * counts (the device's view: usage, peaks); they count for the call site
 * (leaks, growth), never again for the device. Its address is a key space
 * of its own (the first tensor of a segment has the segment's address). */
#define VT_API_FRAMEWORK_FIRST 128u

enum vt_api {
#define VT_API_ENUM(n, name, traits) VT_API_##name = n,
    VT_API_LIST(VT_API_ENUM)
#undef VT_API_ENUM
        VT_API_LIMIT = 256
};

/* Name of an api id, or NULL for an id this version does not know. */
static inline const char *vt_api_name(unsigned api)
{
    switch (api) {
#define VT_API_CASE(n, name, traits) \
    case n:                          \
        return #name;
        VT_API_LIST(VT_API_CASE)
#undef VT_API_CASE
    default:
        return NULL;
    }
}

/* 1 for an id in the runtime's range (cuda*), 0 for the driver's and unknown. */
static inline int vt_api_is_runtime(unsigned api)
{
    return (api >= VT_API_RUNTIME_FIRST && api < VT_API_DRIVER_FIRST) ||
           (api >= VT_API_RUNTIME2_FIRST && api < VT_API_RUNTIME2_LIMIT);
}

/* 1 for an API whose memory lies inside a segment counted by another
 * record (VT_API_FRAMEWORK_FIRST): PyTorch's tensors, the regions of an
 * NVTX memory heap (nvtxMemHeapReset and nvtxMemHeapUnregister free them
 * as nvtxMemRegionsUnregister). */
static inline int vt_api_in_segment(unsigned api)
{
    return api == VT_API_torchTensorAlloc || api == VT_API_torchTensorFree ||
           api == VT_API_nvtxMemRegionsRegister || api == VT_API_nvtxMemRegionsUnregister;
}

/* 1 for a known API that allocates. */
static inline int vt_api_allocates(unsigned api)
{
    switch (api) {
#define VT_API_TRAITS(n, name, traits) \
    case n:                            \
        return ((traits)&VT_API_ALLOCATES) != 0;
        VT_API_LIST(VT_API_TRAITS) /* NOLINT(bugprone-branch-clone): a case per API */
#undef VT_API_TRAITS
    default:
        return 0;
    }
}

static inline const char *vt_kind_name(unsigned kind)
{
    static const char *const names[VT_KIND_COUNT] = {"device", "managed", "host", "graph pool"};
    return kind < VT_KIND_COUNT ? names[kind] : NULL;
}

/* A call site, as the CLI groups allocations and aggregate mode counts
 * them: (stack id, api, kind, device). No padding: it is hashed as bytes. */
struct vt_site_key {
    uint64_t stack_id;
    uint64_t api, kind;
    int64_t device;
};

static inline struct vt_site_key vt_site_key(uint64_t stack_id, unsigned api, unsigned kind,
                                             int64_t device)
{
    struct vt_site_key key = {stack_id, api, kind, device};
    return key;
}

static inline int vt_site_key_eq(const struct vt_site_key *a, const struct vt_site_key *b)
{
    return a->stack_id == b->stack_id && a->api == b->api && a->kind == b->kind &&
           a->device == b->device;
}

/* ---- varint helpers ---- */

static inline size_t vt_put_varint(uint8_t *out, uint64_t v)
{
    uint8_t *p = out; /* a moving pointer: one instruction fewer a byte than an index */
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return (size_t)(p - out);
}

/* A WIDE field: V (at most VT_WIDE_MAX, larger is clamped) in exactly
 * VT_WIDE_BYTES bytes; any varint reader reads it. */
#define VT_WIDE_BYTES 5
#define VT_WIDE_MAX ((UINT64_C(1) << (7 * VT_WIDE_BYTES)) - 1)
static inline void vt_put_wide(uint8_t *out, uint64_t v)
{
    _Static_assert(VT_WIDE_BYTES == 5, "vt_put_wide writes five bytes");
    v = v < VT_WIDE_MAX ? v : VT_WIDE_MAX;
    out[0] = (uint8_t)(v | 0x80);
    out[1] = (uint8_t)(v >> 7 | 0x80);
    out[2] = (uint8_t)(v >> 14 | 0x80);
    out[3] = (uint8_t)(v >> 21 | 0x80);
    out[4] = (uint8_t)(v >> 28);
}

static inline uint64_t vt_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t vt_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Reads a varint from [*p, end). Returns 0 and advances *p, or -1 when the
 * bytes run out or the varint is longer than 10 bytes / overflows. */
static inline int vt_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
    uint64_t v = 0;
    const uint8_t *q = *p;
    for (unsigned shift = 0; q < end && shift < 70; shift += 7) {
        uint8_t b = *q++;
        if (shift == 63 && (b & 0x7e))
            return -1;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *p = q;
            *out = v;
            return 0;
        }
    }
    return -1;
}

#endif
