# SPDX-License-Identifier: MIT
"""The fast stack walk (src/stacks/unwind_fast.c, x86_64 and aarch64) against
libunwind, frame by frame (aarch64's under qemu in the lane,
tests/aarch64/lane.sh: there unw_step's return addresses are compared less
one, as libunwind's aarch64 fast trace behind unw_backtrace records them).
tests/programs/unwind_check.c is preloaded in place of the
tracer: at each cudaMalloc it walks the stack three ways (the fast walk,
unw_backtrace, libunwind's unw_step walk without caches) and prints at exit
how many stacks it saw, how many the fast walk took (the rest it leaves to
unw_backtrace, as the tracer does), and how many of those differ from each
of libunwind's walks. Stacks: libtorch's shape (tests/bench/torchish.cpp:
C++ -O2 without frame pointers, 57 frames of it) called from C and from
under 10 Python frames; C with frame pointers
(tests/programs/unwind_shapes.c): shallow, deeper than the frame limit,
threads, a signal handler (a signal frame: left to libunwind), a frame
whose CFA is a DWARF expression (left to libunwind), on aarch64 frames
whose return address pointer authentication signs (stripped: libunwind
1.6's walks end there, which the comparer counts apart), a
call after an early return's epilogue (remember_state / restore_state),
fork, more call sites than the walk's table holds, two callers of one
function at the same place (a remembered walk must not be taken for the
other's), the same stack above one place with a frame whose CFA comes from
rbp moved; a library closed and another loaded at its place (the rules of
the first must not walk the second), also through the tracer itself."""
import os
import re
import shlex
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SEEN = re.compile(r"unwind_check: stacks (\d+) fast (\d+) fallback (\d+) differ_backtrace (\d+) "
                  r"differ_steps (\d+) differ_key (\d+) depth (\d+)-(\d+) started (\d+) "
                  r"differ_start (\d+) past_signed (\d+) frames_fast (\d+) "
                  r"frames_libunwind (\d+)")
FIELDS = ("stacks", "fast", "fallback", "differ_backtrace", "differ_steps", "differ_key",
          "min_depth", "max_depth", "started", "differ_start", "past_signed", "frames_fast",
          "frames_libunwind")
COMPARED = FIELDS[:6] + FIELDS[8:11]  # all but the depths and frames
TORCHISH_FRAMES = 57  # tests/bench/torchish.cpp's frames on the stack at each cudaMalloc


def fast_walk_built():
    if not os.path.isfile(os.path.join(H.env_path("PROGRAMS_DIR", "dir"), "libunwind_check.so")):
        raise H.Skip("the fast walk is x86_64's and aarch64's")


def arm():
    """The programs are aarch64's (natively or under qemu)."""
    return H.elf_machine(H.program("unwind_shapes")) == H.EM_AARCH64


def checked(argv, extra_env=None):
    """Runs argv with the comparer preloaded: what each process printed."""
    fast_walk_built()
    env = {"LD_PRELOAD": os.path.join(H.env_path("PROGRAMS_DIR", "dir"), "libunwind_check.so")}
    env.update(extra_env or {})
    r = H.run_plain(argv, env)
    if r.status != 0:
        H.fail("exit status %d\n%s" % (r.status, r.describe()))
    seen = [dict(zip(FIELDS, map(int, m.groups()))) for m in SEEN.finditer(r.stderr)]
    if not seen:
        H.fail("the comparer printed nothing\n%s" % r.describe())
    return r, seen


def expect_all_fast(seen, stacks):
    H.expect_eq("what the comparer saw", {k: seen[k] for k in COMPARED},
                {"stacks": stacks, "fast": stacks, "fallback": 0, "differ_backtrace": 0,
                 "differ_steps": 0, "differ_key": 0, "started": stacks,
                 "differ_start": 0, "past_signed": 0})


def shapes(*args):
    return [H.program("unwind_shapes")] + [str(a) for a in args]


def cross_tool(name):
    """NAME of the programs' machine: aarch64's cross tool where the
    programs are aarch64's and this machine is not."""
    own = H.elf_machine("/proc/self/exe")
    return "aarch64-linux-gnu-" + name if arm() and own != H.EM_AARCH64 else name


def torchish():
    """libtorchish.so built as tests/bench/deep.sh builds it, and its C caller."""
    out = H.tmpdir()
    lib = os.path.join(out, "libtorchish.so")
    bench = os.path.join(H.source_root(), "tests", "bench")
    cxx = cross_tool("g++") if arm() else "c++"
    subprocess.run([cxx, "-O2", "-fomit-frame-pointer", "-fPIC", "-shared", "-g0", "-I",
                    os.path.join(H.source_root(), "tests", "standin", "include"),
                    os.path.join(bench, "torchish.cpp"), "-L", H.standin_dir(), "-lcudart",
                    "-o", lib], check=True)
    subprocess.run([cross_tool("strip"), "--strip-debug", lib], check=True)
    prog = os.path.join(out, "bench_torchish")
    cc = shlex.split(os.environ.get("VT_CC") or "cc")
    if arm():  # the cross linker finds the stand-ins libtorchish needs only so
        cc = [cross_tool("gcc"), "-Wl,-rpath-link," + H.standin_dir()]
    subprocess.run(cc + [
        "-O2", os.path.join(bench, "bench_torchish.c"), "-L", out, "-ltorchish",
        "-Wl,-rpath," + out, "-o", prog], check=True)
    return lib, prog, bench


def case_torchish_from_c():
    _, prog, _ = torchish()
    _, seen = checked([prog, "100"])  # and 100 pairs of warm-up
    expect_all_fast(seen[0], 200)
    H.expect("a stack of torchish's %d frames and more: %r" % (TORCHISH_FRAMES, seen[0]),
             seen[0]["min_depth"] == seen[0]["max_depth"] > TORCHISH_FRAMES)


def case_torchish_under_python():
    lib, _, bench = torchish()
    _, seen = checked([sys.executable, os.path.join(bench, "bench_torchish.py"), lib, "20", "10"])
    expect_all_fast(seen[0], 120)
    H.expect("the interpreter's frames above torchish's: %r" % seen[0],
             seen[0]["min_depth"] == seen[0]["max_depth"] > TORCHISH_FRAMES + 10)


def case_frame_pointers():
    _, seen = checked(shapes("recurse", 40))
    expect_all_fast(seen[0], 4)
    # allocate, down x depth, recurse's caller main and the C library's three
    # (recurse itself inlined into main), the comparer's two
    H.expect_eq("depths", (seen[0]["min_depth"], seen[0]["max_depth"] - seen[0]["min_depth"]),
                (seen[0]["min_depth"], 39))


def case_deeper_than_limit():
    _, seen = checked(shapes("recurse", 700))
    expect_all_fast(seen[0], 4)
    H.expect_eq("the deepest walk stops at the limit", seen[0]["max_depth"], 512)
    _, seen = checked(shapes("recurse", 700), {"UNWIND_CHECK_LIMIT": "16"})
    expect_all_fast(seen[0], 4)
    H.expect_eq("the deepest walk stops at the limit", seen[0]["max_depth"], 16)


def case_threads():
    _, seen = checked(shapes("threads", 8))
    expect_all_fast(seen[0], 160)
    H.expect_eq("depths: thread 0 at 5, thread 7 at 12",
                seen[0]["max_depth"] - seen[0]["min_depth"], 7)


def expect_second_left_to_libunwind(shape, what):
    """SHAPE's program allocates twice: once on a stack the fast walk
    takes, once on one it leaves to libunwind (WHAT), which walks it alike."""
    _, seen = checked(shapes(shape))
    H.expect_eq("what the comparer saw (%s left to libunwind)" % what,
                {k: seen[0][k] for k in COMPARED},
                {"stacks": 2, "fast": 1, "fallback": 1, "differ_backtrace": 0,
                 "differ_steps": 0, "differ_key": 0, "started": 2, "differ_start": 0,
                 "past_signed": 0})


def case_signal_handler():
    expect_second_left_to_libunwind("signal", "the handler's stack")


def case_cfa_expression():
    expect_second_left_to_libunwind("expression", "the expression's stack")


def signing_checked(shape):
    """aarch64 (pointer authentication): SHAPE run under the comparer on a
    CPU that signs (qemu's "max" where emulated)."""
    fast_walk_built()
    if not arm():
        raise H.Skip("pointer authentication is aarch64's")
    return checked(shapes(shape), {"QEMU_CPU": "max"})


def case_signed_return_address():
    """A frame whose return address pointer authentication signs (paciasp)
    is walked, its address stripped: libunwind 1.6's walks end there (the
    stack past it counted apart), the other stack is the same in all."""
    _, seen = signing_checked("signed")
    H.expect_eq("what the comparer saw", {k: seen[0][k] for k in COMPARED},
                {"stacks": 2, "fast": 2, "fallback": 0, "differ_backtrace": 0,
                 "differ_steps": 0, "differ_key": 0, "started": 2, "differ_start": 0,
                 "past_signed": 1})


def expect_signing(r):
    """pac_chain's program found its saved return addresses signed: the CPU
    authenticates pointers. Each code is random (the keys are the
    process's) and may be 0, which leaves that address as it was (under
    qemu-user some 1 in 120 addresses, measured): at least one of the four."""
    m = re.fullmatch(r"signed (\d) of 4", r.stdout.strip())
    H.expect("saved return addresses signed: %r" % r.stdout, m and int(m.group(1)) >= 1)


# unwind_shapes pac_chain's stack: compare() and cudaMalloc (the
# comparer's), pac_4 to pac_1, pac_chain, main, the C library's two, _start.
PAC_CHAIN = ["pac_4", "pac_3", "pac_2", "pac_1", "pac_chain"]


def case_pac_chain_compared():
    """Four frames that sign their return addresses (pac-ret), signed on
    the stack (the program strips each saved x30 and finds it changed: a
    CPU without pointer authentication fails here): the fast walk goes
    through all of them; libunwind 1.6's walks stop in the innermost, one
    frame past it (pac_4 and its guess from x30), and say so apart."""
    r, seen = signing_checked("pac_chain")
    expect_signing(r)
    H.expect_eq("what the comparer saw", {k: seen[0][k] for k in FIELDS},
                {"stacks": 1, "fast": 1, "fallback": 0, "differ_backtrace": 0,
                 "differ_steps": 0, "differ_key": 0, "min_depth": 2 + len(PAC_CHAIN) + 4,
                 "max_depth": 2 + len(PAC_CHAIN) + 4, "started": 1,
                 "differ_start": 0, "past_signed": 1, "frames_fast": 2 + len(PAC_CHAIN) + 4,
                 "frames_libunwind": 4})


def expect_traced_chain(shape, nbytes, names):
    """SHAPE traced: the leak of NBYTES has the frames NAMES, then main, each
    at the line of its call (its LEAK marker; None: no line, an assembly
    function)."""
    fast_walk_built()
    if not arm():
        raise H.Skip("pointer authentication is aarch64's")
    r = H.run_traced(shapes(shape), mode="preload", extra_env={"QEMU_CPU": "max"})
    H.expect_program_ok(r)
    source = H.program_source("unwind_shapes.c")
    fr = H.frames(H.leak_by_bytes(H.report(r.dump), nbytes))
    H.expect_eq("the frames", [(f.get("function"), f.get("line")) for f in fr[:len(names) + 1]],
                [(n, None if n == "via_expression" else H.marker_line(source, n))
                 for n in names + ["main"]])
    return r


def case_pac_chain_traced():
    """The tracer's report names every function of the signed chain, in
    order, at the lines of their calls, down to main (the fast walk)."""
    r = expect_traced_chain("pac_chain", 4099, PAC_CHAIN)
    expect_signing(r)


def case_pac_exit_release():
    """A primary context released inside exit() under frames that sign
    their return addresses: the tracer still finds exit() on the stack
    (libunwind 1.6's walk ends in release_primary), so the memory it held
    stays a leak, not memory "freed at teardown"."""
    fast_walk_built()
    if not arm():
        raise H.Skip("pointer authentication is aarch64's")
    r = H.run_traced(shapes("pac_exit"), mode="preload", extra_env={"QEMU_CPU": "max"})
    H.expect_program_ok(r)
    rep = H.report(r.dump)
    H.expect_eq("the leak's frames", [f.get("function") for f in
                                      H.frames(H.leak_by_bytes(rep, 16387))[:2]],
                ["pac_exit", "main"])
    H.expect_eq("freed at teardown", H.summary(rep).get("teardown_freed_allocations"), 0)


def case_pac_fallback_traced():
    """A stack the fast walk leaves to libunwind (via_expression's frame)
    with signed frames further out: libunwind 1.6's walk ends in pac_x1
    (and guesses pac_x1 again from x30); the tracer walks on from there
    with the fast walk, from the registers libunwind had in pac_x1."""
    expect_traced_chain("pac_expression", 8195,
                        ["keep_there", "via_expression", "pac_x1", "pac_x2", "pac_expression"])


def case_remembered_state():
    _, seen = checked(shapes("remembered"))
    expect_all_fast(seen[0], 2)


def case_many_sites():
    """More return addresses than a thread's rules hold: the new take old ones' slots."""
    _, seen = checked(shapes("sites"))
    expect_all_fast(seen[0], 10000)


def case_same_place():
    """One place, the same registers, two callers: a remembered walk is
    checked against what the stack now holds (the return addresses differ)."""
    _, seen = checked(shapes("same_place"))
    expect_all_fast(seen[0], 4)


def case_shifted():
    """The stack above reads the same where the first walk read it, but a
    frame whose CFA comes from rbp sits elsewhere: the rbp values a walk
    used are checked too."""
    _, seen = checked(shapes("shifted"))
    expect_all_fast(seen[0], 2)
    H.expect_eq("depths: one step() frame more", seen[0]["max_depth"] - seen[0]["min_depth"], 1)


def case_fork():
    _, seen = checked(shapes("fork"))
    H.expect_eq("lines: the child's, then the parent's", len(seen), 2)
    for s in seen:  # each counts the parent's first stack
        expect_all_fast(s, 2)


def hop_libraries():
    d = H.env_path("PROGRAMS_DIR", "dir")
    return [os.path.join(d, "libunwind_hop_%s.so" % n) for n in "ab"]


def case_dlclose_same_place():
    r, seen = checked(shapes("dlclose", *hop_libraries()))
    H.expect_eq("library B loaded where A was", r.stdout.strip(), "same place")
    # unw_backtrace walks B with A's rules: its fast trace keeps them (libunwind 1.6)
    H.expect_eq("what the comparer saw", {k: seen[0][k] for k in FIELDS if k != "differ_backtrace"},
                {"stacks": 2, "fast": 2, "fallback": 0, "differ_steps": 0, "differ_key": 0,
                 "min_depth": seen[0]["max_depth"], "max_depth": seen[0]["max_depth"],
                 "started": 2, "differ_start": 0, "past_signed": 0, "frames_fast": 0,
                 "frames_libunwind": 0})


def case_dlclose_traced():
    """The tracer forgets its rules at dlclose: the allocation made through
    B has the whole stack that the one made through A has."""
    fast_walk_built()
    r = H.run_traced(shapes("dlclose", *hop_libraries()))
    H.expect_program_ok(r)
    H.expect_eq("library B loaded where A was", r.stdout.strip(), "same place")
    rep = H.report(r.dump)
    names = {n: [f.get("function") for f in H.frames(H.leak_by_bytes(rep, n))]
             for n in (4097, 8193)}
    H.expect_eq("frames through B", names[8193], names[4097])
    H.expect_eq("innermost frames", names[4097][:2], ["kept_allocation", "hop"])
    H.expect("main among the frames: %r" % names[4097], "main" in names[4097])


if __name__ == "__main__":
    H.main(globals())
