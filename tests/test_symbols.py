# SPDX-License-Identifier: MIT
"""The symbol cache (tools/read/symbol_cache.c): a report served from it is
the report without it, byte for byte; a damaged file, one of another build
id, of another build of the CLI, is ignored; the directory stays within its
bound, the least recently used files removed first; VRAMTRACE_SYMBOL_CACHE,
XDG_CACHE_HOME and HOME say where it is. Ground truth: the report made with
the cache off (VRAMTRACE_SYMBOL_CACHE=0), and a cache file whose names were
changed (its checksum made right again) showing those names when served."""
import os
import re
import struct
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

PROGRAM = r"""
#include <cuda_runtime_api.h>
static void *keep[2];
__attribute__((noinline)) static void %(name)s_inner(int i, size_t n)
{
    cudaMalloc(&keep[i], n);
}
__attribute__((noinline)) void %(name)s_alloc(int i, size_t n)
{
    %(name)s_inner(i, n);
}
int main(void)
{
    %(name)s_alloc(0, 3000000);
    %(name)s_alloc(1, 1000000);
    return 0;
}
"""
HEADER = 16  # the magic and the checksum
MiB = 1 << 20


def build(work, name):
    """work/prog: PROGRAM with NAME's functions; its build id (hex)."""
    src, exe = os.path.join(work, "prog.c"), os.path.join(work, "prog")
    with open(src, "w") as f:
        f.write(PROGRAM % {"name": name})
    include = os.path.join(H.source_root(), "tests", "standin", "include")
    cc = os.environ.get("VT_CC", "cc").split()
    r = H._run(cc + ["-g", "-O1", "-Wl,--build-id", "-I", include, src, "-L", H.standin_dir(),
                     "-lcudart", "-o", exe], H.base_env(), work)
    H.expect_eq("compile status (%s)" % r.stderr, r.status, 0)
    r = H.run_plain(["readelf", "-n", exe])
    m = re.search(r"Build ID: ([0-9a-f]+)", r.stdout)
    H.expect(m, "no build id in %s: %s" % (exe, r.stdout))
    return exe, m.group(1)


def traced(work, exe, name):
    dump = os.path.join(work, name + ".vtr")
    r = H._run([H.vramtrace_exe(), "run", "-o", dump, "--", exe], H.base_env(), work)
    H.expect_eq("run status (%s)" % r.stderr, r.status, 0)
    return dump


def report(dump, cache, *args):
    """The text report, the JSON of every site, and stderr of both: with the
    cache in CACHE ("0": off)."""
    env = H.base_env({"VRAMTRACE_SYMBOL_CACHE": cache})
    out = []
    for cmd in (["report"], ["report", "--json", "--top", "0"]):
        r = H._run([H.vramtrace_exe()] + cmd + list(args) + [dump], env, os.path.dirname(dump))
        H.expect_eq("report status (%s)" % r.stderr, r.status, 0)
        out += [r.stdout, r.stderr]
    return out


def fnv(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def with_checksum(data):
    """DATA with the checksum of what follows it made right."""
    return data[:8] + struct.pack("=Q", fnv(data[HEADER:])) + data[HEADER:]


def cache_file(cache, build_id):
    return os.path.join(cache, build_id + ".vtsym")


def fresh_files(work, dump):
    """The cache files one report makes in an empty cache: the program's,
    and libc's (its start-up frames)."""
    cache = os.path.join(work, "fresh")
    report(dump, cache)
    return sorted(os.listdir(cache))


def setup(name="alpha"):
    work = H.tmpdir()
    exe, build_id = build(work, name)
    dump = traced(work, exe, name)
    return work, exe, build_id, dump, report(dump, "0")


def case_served_alike():
    """The first report fills the cache, the second is served from it: both
    read as the report without it; changed names in the file show."""
    work, _, build_id, dump, plain = setup()
    cache = os.path.join(work, "cache")
    H.expect_eq("first report (fills the cache)", report(dump, cache), plain)
    path = cache_file(cache, build_id)
    H.expect(os.path.isfile(path), "no cache file %s: %s" % (path, os.listdir(cache)))
    H.expect_eq("second report (from the cache)", report(dump, cache), plain)
    with open(path, "rb") as f:
        data = f.read()
    H.expect_eq("checksum", struct.unpack("=Q", data[8:HEADER])[0], fnv(data[HEADER:]))
    H.expect(b"alpha_inner" in data and b"prog.c" in data, "cache file %r" % data[:200])
    with open(path, "wb") as f:
        f.write(with_checksum(data.replace(b"alpha_inner", b"gamma_inner")))
    H.expect_eq("the names of the cache file served",
                report(dump, cache), [s.replace("alpha_inner", "gamma_inner") for s in plain])


def case_damaged_ignored():
    """A damaged file (cut anywhere, a byte changed, counts and lengths that
    lie with a right checksum, another build of the CLI, empty, a directory)
    gives the report without the cache, and is made whole again."""
    work, _, build_id, dump, plain = setup()
    cache = os.path.join(work, "cache")
    report(dump, cache)
    path = cache_file(cache, build_id)
    with open(path, "rb") as f:
        good = f.read()
    build_len = struct.unpack("=I", good[HEADER:HEADER + 4])[0]
    damages = {"empty": b"", "magic": b"X" + good[1:],
               "other build": with_checksum(good[:HEADER + 4] + b"0" + good[HEADER + 5:]),
               "entry count + 1": None, "garbage": bytes(range(256)) * 8}
    p = HEADER + 4 + build_len + 1
    id_len = struct.unpack("=I", good[p:p + 4])[0]
    p += 4 + id_len
    debug_len = struct.unpack("=I", good[p:p + 4])[0]
    count_at = p + 4 + debug_len + 1
    count = struct.unpack("=I", good[count_at:count_at + 4])[0]
    damages["entry count + 1"] = with_checksum(good[:count_at] + struct.pack("=I", count + 1) +
                                               good[count_at + 4:])
    damages["other debug file"] = with_checksum(good[:p + 4] + b"/" + good[p + 5:])
    for cut in sorted(set(range(1, len(good), max(1, len(good) // 16))) | {len(good) - 1}):
        damages["cut at %d" % cut] = good[:cut]
        damages["cut at %d, checksum right" % cut] = with_checksum(good[:cut]) \
            if cut >= HEADER else good[:cut]
    for at in range(HEADER, len(good), max(1, len(good) // 8)):
        damages["byte %d changed" % at] = good[:at] + bytes([good[at] ^ 0x5a]) + good[at + 1:]
    for what, data in damages.items():
        with open(path, "wb") as f:
            f.write(data)
        H.expect_eq("report with the cache file %s" % what, report(dump, cache), plain)
        with open(path, "rb") as f:
            H.expect_eq("the file %s made whole again" % what, f.read()[:8], good[:8])
    os.unlink(path)
    os.mkdir(path)
    H.expect_eq("report with a directory in the file's place", report(dump, cache), plain)


def case_other_build_id():
    """The cache of one build of a program serves no other: not the next
    build at the same path, not a dump whose module on disk has changed,
    not the file renamed to the other's build id."""
    work, exe, alpha_id, alpha_dump, alpha_plain = setup()
    cache = os.path.join(work, "cache")
    report(alpha_dump, cache)
    alpha_file = cache_file(cache, alpha_id)
    with open(alpha_file, "rb") as f:
        poisoned = with_checksum(f.read().replace(b"alpha_inner", b"gamma_inner"))
    with open(alpha_file, "wb") as f:
        f.write(poisoned)
    _, bravo_id = build(work, "bravo")
    H.expect(bravo_id != alpha_id, "the same build id twice")
    bravo_dump = traced(work, exe, "bravo")
    bravo_plain = report(bravo_dump, "0")
    H.expect_eq("the next build's report", report(bravo_dump, cache), bravo_plain)
    H.expect_eq("a dump of the old build, the new one on disk",
                report(alpha_dump, cache), report(alpha_dump, "0"))
    H.expect("build id differs" in report(alpha_dump, cache)[1], "no warning")
    os.unlink(cache_file(cache, bravo_id))
    with open(cache_file(cache, bravo_id), "wb") as f:
        f.write(poisoned)
    H.expect_eq("another build id's file under this one's name", report(bravo_dump, cache),
                bravo_plain)
    H.expect(not any("gamma_inner" in s for s in alpha_plain + bravo_plain), "gamma_inner")


def case_debug_file_installed():
    """A separate debug file found since the cache was written (by
    .gnu_debuglink, beside the module) is read: the cache made without it
    is not served."""
    work, exe, build_id, _, _ = setup()
    debug = exe + ".debug"
    for cmd in (["objcopy", "--only-keep-debug", exe, debug], ["objcopy", "--strip-debug", exe],
                ["objcopy", "--add-gnu-debuglink=" + debug, exe]):
        r = H._run(cmd, H.base_env(), work)
        H.expect_eq("%s (%s)" % (cmd[:2], r.stderr), r.status, 0)
    os.rename(debug, debug + ".aside")
    dump = traced(work, exe, "stripped")
    cache = os.path.join(work, "cache")
    without = report(dump, "0")
    H.expect_eq("report without the debug file", report(dump, cache), without)
    H.expect("prog.c" not in without[0], "file:line without debug information")
    os.rename(debug + ".aside", debug)
    with_debug = report(dump, "0")
    H.expect("prog.c:" in with_debug[0], "no file:line with the debug file")
    H.expect_eq("report after the debug file came", report(dump, cache), with_debug)
    H.expect_eq("and again, from the cache", report(dump, cache), with_debug)
    H.expect(os.path.isfile(cache_file(cache, build_id)), "no cache file")


def case_bounded():
    """At most 64 MiB of cache files: the least recently used go first;
    half-written ones count; other files are never touched."""
    work, _, build_id, dump, plain = setup()
    cache = os.path.join(work, "cache")
    os.mkdir(cache)
    old = [(".vtsym-stale1", 10), ("%040x.vtsym" % 1, 15), ("%040x.vtsym" % 2, 15),
           ("%040x.vtsym" % 3, 15), ("%040x.vtsym" % 4, 15), ("%040x.vtsym" % 5, 15)]
    for age, (name, mib) in enumerate(old):
        with open(os.path.join(cache, name), "wb") as f:
            f.truncate(mib * MiB)  # sparse: the size counts, not the blocks
        os.utime(os.path.join(cache, name), (1000000 + age, 1000000 + age))
    with open(os.path.join(cache, "notes.txt"), "wb") as f:
        f.truncate(100 * MiB)
    os.utime(os.path.join(cache, "notes.txt"), (1, 1))
    H.expect_eq("report", report(dump, cache), plain)
    left = sorted(os.listdir(cache))
    made = fresh_files(work, dump)
    H.expect(build_id + ".vtsym" in made, "made %r" % made)
    H.expect_eq("files left", left, sorted([n for n, _ in old[2:]] + ["notes.txt"] + made))
    ours = sum(os.path.getsize(os.path.join(cache, n)) for n in left if n != "notes.txt")
    H.expect(ours <= 64 * MiB, "%d bytes of cache files" % ours)


def case_where():
    """VRAMTRACE_SYMBOL_CACHE, else $XDG_CACHE_HOME/vramtrace/symbols, else
    ~/.cache/vramtrace/symbols; VRAMTRACE_SYMBOL_CACHE=0: no file anywhere."""
    work, _, build_id, dump, plain = setup()
    xdg, home = os.path.join(work, "xdg"), os.path.join(work, "home")
    base = H.base_env()
    base.pop("VRAMTRACE_SYMBOL_CACHE", None)
    for env, where in (({"XDG_CACHE_HOME": xdg}, os.path.join(xdg, "vramtrace", "symbols")),
                       ({"HOME": home}, os.path.join(home, ".cache", "vramtrace", "symbols")),
                       ({"VRAMTRACE_SYMBOL_CACHE": "0", "XDG_CACHE_HOME": xdg + "0",
                         "HOME": home + "0"}, None)):
        e = dict(base)
        e.pop("XDG_CACHE_HOME", None)
        e.update(env)
        e.setdefault("HOME", home)
        r = H._run([H.vramtrace_exe(), "report", dump], e, work)
        H.expect_eq("report with %r" % env, r.stdout, plain[0])
        if where:
            H.expect(os.path.isfile(cache_file(where, build_id)), "nothing in %s" % where)
    H.expect(not os.path.exists(xdg + "0") and not os.path.exists(home + "0"),
             "VRAMTRACE_SYMBOL_CACHE=0 made a cache")


def case_reports_at_once():
    """Four reports at once on an empty cache read alike, and leave one
    whole file."""
    work, _, build_id, dump, plain = setup()
    cache = os.path.join(work, "cache")
    env = H.base_env({"VRAMTRACE_SYMBOL_CACHE": cache})
    procs = [subprocess.Popen([H.vramtrace_exe(), "report", dump], env=env, cwd=work,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(4)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        H.expect_eq("a report at once with others", (p.returncode, out, err),
                    (0, plain[0], plain[1]))
    made = fresh_files(work, dump)
    H.expect(build_id + ".vtsym" in made, "made %r" % made)
    H.expect_eq("files", sorted(os.listdir(cache)), made)
    for name in made:
        with open(os.path.join(cache, name), "rb") as f:
            data = f.read()
        H.expect_eq("checksum of %s" % name, struct.unpack("=Q", data[8:HEADER])[0],
                    fnv(data[HEADER:]))


if __name__ == "__main__":
    H.main(globals())
