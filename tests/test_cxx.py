# SPDX-License-Identifier: MIT
"""C++ names, demangled and qualified, in every output: a program built with
g++ -g (names from DWARF: a class template's member in a namespace, a
function in an anonymous namespace) and a stripped C++ library (names from
its mangled dynamic symbols); the text report, JSON, HTML, folded and pprof
exports (the Chrome trace names no functions), and suppressions that match
the demangled name."""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

CXX_DIR = os.path.join(H.source_root(), "tests", "cxx")
TRAINER = os.path.join(CXX_DIR, "trainer.cpp")
MAKE = "trainer::Buffer<float>::make(unsigned long)"
WARM_UP = "trainer::(anonymous namespace)::warm_up(unsigned long)"
GRAB = "scratch::Pool::grab(unsigned long)"
MAKE_BYTES = 3800003 * 4
GRAB_BYTES = 3800011


def cxx(args, what):
    r = subprocess.run(["g++"] + args, capture_output=True, text=True)
    if r.returncode != 0:
        H.fail("g++ %s failed:\n%s" % (what, r.stderr[-3000:]))


def build():
    """The program and its stripped library, in a fresh directory."""
    out = H.tmpdir()
    inc = ["-I", os.path.join(H.source_root(), "tests", "standin", "include")] + \
        H.library_include_args() + ["-I", CXX_DIR]
    lib = os.path.join(out, "libscratch.so")
    cxx(["-shared", "-fPIC", "-O1", "-fno-omit-frame-pointer"] + inc +
        [os.path.join(CXX_DIR, "scratch.cpp"), "-L", H.standin_dir(), "-lcudart", "-o", lib],
        "libscratch.so")
    subprocess.run(["strip", "--strip-all", lib], check=True)
    prog = os.path.join(out, "trainer")
    cxx(["-g", "-O0", "-fno-omit-frame-pointer"] + inc +
        [TRAINER, "-L", out, "-lscratch", "-L", H.standin_dir(), "-lcudart",
         "-Wl,-rpath," + out, "-o", prog], "trainer")
    return prog, lib


def traced():
    prog, lib = build()
    r = H.run_traced([prog])
    H.expect_program_ok(r)
    return r.dump, lib


def case_debug_info():
    dump, _ = traced()
    rep = H.report(dump)
    lk = H.leak_by_bytes(rep, MAKE_BYTES)
    got = [(f.get("function"), f.get("line")) for f in H.frames(lk)[:3]]
    H.expect_eq("frames from DWARF", got,
                [(MAKE, H.marker_line(TRAINER, "make")), (WARM_UP, H.call_line(TRAINER, "warm_up")),
                 ("main", H.call_line(TRAINER, "main"))])


def case_stripped_library():
    dump, lib = traced()
    lk = H.leak_by_bytes(H.report(dump), GRAB_BYTES)
    f = H.frames(lk)[0]
    H.expect_eq("frame from the stripped library", (f.get("function"), f.get("file"),
                                                    os.path.basename(f.get("module") or "")),
                (GRAB, None, os.path.basename(lib)))


def cli(*args):
    r = subprocess.run([H.vramtrace_exe()] + list(args), capture_output=True, text=True)
    H.expect(r.returncode == 0, "vramtrace %s: %s" % (" ".join(args), r.stderr))
    return r.stdout


def case_outputs():
    dump, _ = traced()
    out = H.tmpdir()
    text = cli("report", dump)
    for name in (MAKE, WARM_UP, GRAB):
        H.expect(name in text, "text report: no %s in\n%s" % (name, text))
    html = os.path.join(out, "r.html")
    cli("export", "--format", "html", "-o", html, dump)
    with open(html, encoding="utf-8") as f:
        page = f.read()
    for name in (MAKE, GRAB):
        escaped = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        H.expect(escaped in page, "HTML: no %s" % escaped)
    folded = cli("export", "--format", "folded", dump)
    H.expect(any((";%s;" % MAKE) in line.rsplit(" ", 1)[0] for line in folded.splitlines()),
             "folded: no stack through %s:\n%s" % (MAKE, folded))
    pprof = os.path.join(out, "p.pb.gz")
    cli("export", "--format", "pprof", "-o", pprof, dump)
    import gzip
    with gzip.open(pprof) as f:
        data = f.read()
    for name in (MAKE, GRAB):
        H.expect(name.encode() in data, "pprof string table: no %s" % name)
    H.expect("_ZN" not in text + folded + page, "a mangled name is left somewhere")


def case_suppressions():
    """leak:<demangled name> suppresses exactly that leak."""
    dump, _ = traced()
    sup = os.path.join(H.tmpdir(), "sup.txt")
    with open(sup, "w") as f:
        f.write("leak:scratch::Pool::grab\n")
    rep = H.report(dump, "--suppressions", sup)
    H.expect_eq("suppressed bytes", rep["summary"]["suppressed_bytes"], GRAB_BYTES)
    H.expect_eq("leaked bytes", rep["summary"]["leaked_bytes"], MAKE_BYTES)


if __name__ == "__main__":
    H.main(globals())
