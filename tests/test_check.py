# SPDX-License-Identifier: MIT
"""`vramtrace check` and `run --fail-on-leak` with limits and suppressions,
on dumps of tests/programs/api_check.c and cublas_user.c (exact ground truth:
see the #defines there)."""
import json
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

SRC = H.program_source("api_check.c")
D = H.c_defines(SRC)
LEAKED = D["API_LEAKED_BYTES"]          # 4 MiB at exit, two call sites
LEAK = D["API_LEAK_BYTES"]              # 3 MiB: leak_after_checkpoint
EXTRA = D["API_EXTRA_BYTES"]            # 1 MiB: leak_after_last_mark
CUBLAS_SRC = H.program_source("cublas_user.c")
USER_LEAK = H.c_defines(CUBLAS_SRC)["USER_LEAK_BYTES"]
WORKSPACE = H.c_defines(H.program_source("fake_cublas.c"))["CUBLAS_WORKSPACE_BYTES"]
LEAK_STATUS = 23


def api_dump():
    r = H.run_traced([H.program("api_check")], mode="preload")
    H.expect_program_ok(r)
    H.expect_dump(r)
    return r.dump


def cublas_dump():
    r = H.run_traced([H.program("cublas_user")], mode="preload")
    H.expect_program_ok(r)
    H.expect_dump(r)
    return r.dump


def vt(*args, env=None, cwd=None):
    return H._run([H.vramtrace_exe()] + list(args), H.base_env(env), cwd or H.tmpdir())


def check(dump, *args, env=None):
    return vt("check", *args, dump, env=env, cwd=os.path.dirname(dump))


def expect_status(r, status, what):
    H.expect(r.status == status, "%s: expected exit status %d, got %d\n%s"
             % (what, status, r.status, r.describe()))


def over_lines(r):
    return [l for l in r.stderr.splitlines() if ", over --" in l]


def expect_limits(dump, option, value, cases):
    """CASES: (limit, status) pairs for `check OPTION limit DUMP`."""
    for limit, status in cases:
        r = check(dump, option, str(limit))
        expect_status(r, status, "check %s %s (the value is %d)" % (option, limit, value))
        H.expect_eq("lines naming a broken limit for %s %s" % (option, limit),
                    len(over_lines(r)), 0 if status == 0 else 1)


def case_max_leaked():
    """At the limit passes (inclusive), one byte under fails, one over passes."""
    dump = api_dump()
    expect_limits(dump, "--max-leaked", LEAKED, [(LEAKED, 0), (LEAKED - 1, LEAK_STATUS),
                                                  (LEAKED + 1, 0)])
    r = check(dump, "--max-leaked", str(LEAKED - 1))
    H.expect_eq("what broke", over_lines(r), [
        "vramtrace: %s: %d bytes (4.0 MiB) leaked, over --max-leaked %d (4.0 MiB)"
        % (dump, LEAKED, LEAKED - 1)])


def case_units():
    """Sizes with units (binary, also for KB/MB/GB), fractions, spaces."""
    dump = api_dump()
    for limit, status in (("4MiB", 0), ("4 MiB", 0), ("4MB", 0), ("4mb", 0), ("4096KiB", 0),
                          ("4096 KB", 0), ("4194304B", 0), ("0.00390625GiB", 0),
                          ("3.99 MiB", LEAK_STATUS), ("4194303 B", LEAK_STATUS),
                          ("0.004 GB", 0), ("1GB", 0)):
        expect_status(check(dump, "--max-leaked", limit), status, "--max-leaked %r" % limit)


def case_bad_sizes():
    """A size that is not one: exit 2 and one line naming it."""
    dump = api_dump()
    for bad in ("", "-1", "1x", "MiB", "1 MiB extra", "inf", "99999999999999999999",
                "20000000 TiB"):
        r = check(dump, "--max-leaked", bad)
        expect_status(r, 2, "--max-leaked %r" % bad)
        H.expect_eq("stderr for --max-leaked %r" % bad, r.stderr,
                    "vramtrace check: --max-leaked needs a size such as 1048576, 512KiB or "
                    "1.5 MiB, not '%s'\n" % bad)
    r = check(dump, "--max-growth")
    expect_status(r, 2, "--max-growth without a value")


def case_default_limit():
    """Without limits any leak fails; a clean dump passes."""
    expect_status(check(api_dump()), LEAK_STATUS, "check on a leaking dump")
    r = H.run_traced([H.program("clean_exit")], mode="preload")
    H.expect_program_ok(r)
    expect_status(check(r.dump), 0, "check on a clean dump")


def case_max_per_site():
    """Per call site: the 3 MiB site at, under and over its limit; under
    1 MiB both sites are named, each at its leaking line."""
    dump = api_dump()
    expect_limits(dump, "--max-leaked-per-site", LEAK, [(LEAK, 0), (LEAK - 1, LEAK_STATUS),
                                                        (LEAK + 1, 0)])
    r = check(dump, "--max-leaked-per-site", str(LEAK - 1))
    H.expect_eq("what broke", over_lines(r), [
        "vramtrace: %s: %d bytes (3.0 MiB) leaked at one call site, over --max-leaked-per-site "
        "%d (3.0 MiB): leak_after_checkpoint %s:%d via cudaMalloc"
        % (dump, LEAK, LEAK - 1, SRC, H.marker_line(SRC, "api"))])
    r = check(dump, "--max-leaked-per-site", str(EXTRA - 1))
    expect_status(r, LEAK_STATUS, "per site under both sites")
    lines = over_lines(r)
    H.expect_eq("sites named", [re.sub(r".*: (\w+) \S+:(\d+) via .*", r"\1:\2", l) for l in lines],
                ["leak_after_checkpoint:%d" % H.marker_line(SRC, "api"),
                 "leak_after_last_mark:%d" % H.marker_line(SRC, "extra")])


SHAPES_SRC = H.program_source("report_shapes.c")
STEP = H.c_defines(SHAPES_SRC)["STEP_LEAK_BYTES"]


def shapes_dump(*args):
    """tests/programs/report_shapes.c's ARGS, or usage.c's after "usage"."""
    prog = "report_shapes"
    if args[0] == "usage":
        prog, args = "usage", args[1:]
    r = H.run_traced([H.program(prog)] + list(args), mode="preload")
    H.expect_program_ok(r)
    H.expect_dump(r)
    return r.dump


def case_max_growth():
    """What the growing sites rose by since they started growing (the growth
    rule of the report), not the leaked bytes: 6 steps of 1 MiB, a marker
    after each, rose by 5 MiB from the first marker."""
    dump = shapes_dump("steps", "6")
    growth = 5 * STEP
    expect_limits(dump, "--max-growth", growth, [(growth, 0), (growth - 1, LEAK_STATUS),
                                                 (growth + 1, 0)])
    r = check(dump, "--max-growth", str(growth - 1))
    H.expect_eq("what broke", over_lines(r), [
        "vramtrace: %s: %d bytes (5.0 MiB) of growth at 1 growing call site (judged on 6 "
        "markers, 0 skipped), over --max-growth %d (5.0 MiB): mostly at leak_step %s:%d via "
        "cudaMalloc (5.0 MiB)" % (dump, growth, growth - 1, SHAPES_SRC,
                                   H.marker_line(SHAPES_SRC, "step"))])


def case_max_growth_few_markers():
    """Two markers are too few to judge growth: the leaked bytes stand for it."""
    dump = api_dump()
    expect_limits(dump, "--max-growth", LEAKED, [(LEAKED, 0), (LEAKED - 1, LEAK_STATUS)])
    r = check(dump, "--max-growth", str(LEAKED - 1))
    H.expect("(leaked; fewer than 3 markers)" in r.stderr, "growth message:\n" + r.describe())


def case_growing_fails_by_default():
    """Without a limit, a site growing on markers fails check (--max-growth
    0 applies beside --max-leaked 0): a leak that ends freed still fails, and
    check says so as the report does."""
    dump = shapes_dump("usage", "kept", "6")
    rep = report_json(dump)
    H.expect_eq("the report: leaked", rep["summary"]["leaked_bytes"], 0)
    H.expect_eq("the report: growing sites", [s["growing"] for s in rep["sites"]][:1], [True])
    r = check(dump)
    expect_status(r, LEAK_STATUS, "check of a growing dump")
    H.expect(any("of growth at 1 growing call site" in l for l in over_lines(r)),
             "the growth named:\n" + r.describe())
    expect_status(check(shapes_dump("cache")), 0, "check of a cache filled once")


def case_check_agrees_with_report():
    """check --max-growth 0 fails exactly where the report names a growing
    site: one rule for both, with or without --skip."""
    for args, grows in ((("usage", "kept", "6"), True), (("steps", "5"), True),
                        (("ramp",), True), (("cache",), False), (("usage", "warmup"), False)):
        dump = shapes_dump(*args)
        for skip in ("0", "2"):
            rep = report_json(dump, "--skip", skip)
            growing = any(s["growing"] for s in rep["sites"])
            judged = rep["growth"]["marks"] - int(skip) >= 3
            H.expect_eq("%s --skip %s: the report's verdict" % (args, skip), growing,
                        grows and judged)
            expect_status(check(dump, "--skip", skip, "--max-growth", "0"),
                          LEAK_STATUS if growing else 0,
                          "%s --skip %s: check agrees with the report" % (args, skip))


def case_max_growth_no_markers():
    """Without markers growth is the leaked bytes (after suppressions)."""
    dump = cublas_dump()
    expect_limits(dump, "--max-growth", USER_LEAK, [(USER_LEAK, 0), (USER_LEAK - 1, LEAK_STATUS),
                                                    (USER_LEAK + 1, 0)])
    r = check(dump, "--max-growth", str(USER_LEAK - 1))
    H.expect("(leaked; no markers)" in r.stderr, "growth message:\n" + r.describe())


def case_only_given_limits():
    """A limit given replaces the default --max-leaked 0; several at once
    each report what broke them."""
    dump = api_dump()
    expect_status(check(dump, "--max-growth", str(LEAKED)), 0, "only --max-growth, within")
    r = check(dump, "--max-leaked", str(LEAKED - 1), "--max-leaked-per-site", str(LEAK - 1),
              "--max-growth", str(LEAKED - 1))
    expect_status(r, LEAK_STATUS, "three limits broken")
    H.expect_eq("lines naming broken limits", len(over_lines(r)), 3)


def suppressions_file(*lines):
    path = os.path.join(H.tmpdir(), "vram.supp")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def report_json(dump, *args, env=None):
    r = vt("report", "--json", *args, dump, env=env)
    H.expect(r.status == 0, "report failed:\n" + r.describe())
    return json.loads(r.stdout)


# pattern -> bytes it suppresses in the api_check dump
MATCHING = [
    ("leak_after_checkpoint", LEAK),           # function, substring
    ("after_last", EXTRA),                     # function, substring inside
    ("api_check.c", LEAKED),                   # source file of both
    ("/api_check$", LEAKED),                   # module (the executable), anchored at the end
    ("^leak_after_checkpoint$", LEAK),         # both anchors
    ("checkpoint$", LEAK),
    ("^leak_*_mark", EXTRA),                   # glob
    ("leak*last*mark$", EXTRA),
    ("*", LEAKED),                             # anything
]
NOT_MATCHING = ["no_such_function", "^after_checkpoint", "leak_after_checkpoin$",
                "^api_check.c", "leak_*_nothing", "LEAK_AFTER_CHECKPOINT"]


def case_suppressions_match():
    """Each pattern suppresses exactly the leaks it matches: they leave the
    report and the limits, and the table counts them."""
    dump = api_dump()
    for pattern, nbytes in MATCHING:
        path = suppressions_file("# a comment", "", "  leak:%s  " % pattern)
        rep = report_json(dump, "--suppressions", path)
        s = rep["summary"]
        H.expect_eq("leaked_bytes with leak:%s" % pattern, s["leaked_bytes"], LEAKED - nbytes)
        H.expect_eq("suppressed_bytes with leak:%s" % pattern, s["suppressed_bytes"], nbytes)
        H.expect_eq("suppressed with leak:%s" % pattern, rep["suppressed"], [
            {"pattern": pattern, "count": 2 if nbytes == LEAKED else 1, "bytes": nbytes,
             "origin": path}])
        expect_status(check(dump, "--suppressions", path, "--max-leaked", str(LEAKED - nbytes)),
                      0, "check with leak:%s at the rest" % pattern)
        if nbytes < LEAKED:
            expect_status(check(dump, "--suppressions", path, "--max-leaked",
                                str(LEAKED - nbytes - 1)), LEAK_STATUS,
                          "check with leak:%s under the rest" % pattern)


def case_suppressions_no_match():
    dump = api_dump()
    path = suppressions_file(*("leak:" + p for p in NOT_MATCHING))
    rep = report_json(dump, "--suppressions", path)
    H.expect_eq("leaked_bytes", rep["summary"]["leaked_bytes"], LEAKED)
    H.expect_eq("suppressed", rep["suppressed"], [])
    r = check(dump, "--suppressions", path)
    expect_status(r, LEAK_STATUS, "check with patterns that match nothing")
    H.expect("Suppressions used" not in r.stdout, "a table with nothing used:\n" + r.describe())


def case_suppressions_table():
    """The text report ends with the table of suppressions used."""
    dump = api_dump()
    path = suppressions_file("leak:leak_after_checkpoint", "leak:unused", "leak:after_last")
    r = check(dump, "--suppressions", path)
    expect_status(r, 0, "check with both leaks suppressed")
    H.expect(r.stdout.endswith("\nSuppressions used:\n  count           bytes  pattern\n"
                               "      1 %15d  leak_after_checkpoint\n"
                               "      1 %15d  after_last\n"
                               "\nSuppressions not used (they matched no leak):\n"
                               "  leak:unused  (%s:2)\n" % (LEAK, EXTRA, path)),
             "the report should end with the table, then the unused pattern:\n" + r.describe())


def case_suppressions_env():
    """VRAMTRACE_SUPPRESSIONS names a file read as --suppressions is."""
    dump = api_dump()
    path = suppressions_file("leak:leak_after_checkpoint")
    env = {"VRAMTRACE_SUPPRESSIONS": path}
    expect_status(check(dump, "--max-leaked", str(EXTRA), env=env), 0, "env suppression")
    expect_status(check(dump, "--max-leaked", str(EXTRA)), LEAK_STATUS, "without the env")
    rep = report_json(dump, env=env)
    H.expect_eq("suppressed via the env", rep["suppressed"],
                [{"pattern": "leak_after_checkpoint", "count": 1, "bytes": LEAK, "origin": path}])


def case_suppressions_bad():
    """An unreadable file or a line that is not leak:PATTERN: exit 1, one
    line naming the file (and the line)."""
    dump = api_dump()
    missing = os.path.join(H.tmpdir(), "missing.supp")
    r = check(dump, "--suppressions", missing)
    expect_status(r, 1, "a missing suppressions file")
    H.expect_eq("stderr", r.stderr, "vramtrace: %s: cannot read suppressions: No such file or "
                "directory\n" % missing)
    path = suppressions_file("# ok", "leak:fine", "interceptor_via_fun:foo")
    r = check(dump, "--suppressions", path)
    expect_status(r, 1, "a bad suppressions line")
    H.expect_eq("stderr", r.stderr, "vramtrace: %s:3: expected 'leak:PATTERN', got "
                "'interceptor_via_fun:foo'\n" % path)
    r = check(dump, env={"VRAMTRACE_SUPPRESSIONS": missing})
    expect_status(r, 1, "a missing file in VRAMTRACE_SUPPRESSIONS")


def case_default_suppressions():
    """The cuBLAS-named library's workspace, kept until exit, is known
    memory (cuBLAS's), never left out by a default suppression: not leaked,
    not suppressed; without the built-in known list it is leaked."""
    dump = cublas_dump()
    rep = report_json(dump)
    H.expect_eq("leaked_bytes with the defaults", rep["summary"]["leaked_bytes"], USER_LEAK)
    H.expect_eq("suppressed", rep["suppressed"], [])
    H.expect_eq("known", [(k["bytes"], k["known"]["label"], k["known"]["pattern"])
                          for k in rep["known"]],
                [(WORKSPACE, "cuBLAS's handles and workspaces", "libcublas")])
    expect_status(check(dump, "--max-leaked", str(USER_LEAK)), 0, "defaults on")
    for off in ("--no-default-suppressions", "--no-default-known"):
        r = check(dump, off, "--max-leaked", str(USER_LEAK))
        expect_status(r, 0 if off == "--no-default-suppressions" else LEAK_STATUS, off)
    rep = report_json(dump, "--no-default-known")
    H.expect_eq("leaked_bytes without the known list", rep["summary"]["leaked_bytes"],
                USER_LEAK + WORKSPACE)


def case_several_dumps():
    """Every dump is checked; one over the limit fails the lot; an
    unreadable one is an error (1) whatever the others say."""
    good = H.run_traced([H.program("clean_exit")], mode="preload")
    bad = api_dump()
    r = vt("check", good.dump, bad)
    expect_status(r, LEAK_STATUS, "a clean and a leaking dump")
    H.expect_eq("dumps named as over", [l.split(":")[1].strip() for l in over_lines(r)], [bad])
    r = vt("check", bad, os.path.join(H.tmpdir(), "none.vtr"))
    expect_status(r, 1, "a leaking and a missing dump")


def run_api_check(*run_args):
    return H.run_traced([H.program("api_check")], run_args=list(run_args))


def case_run_fails_on_growth():
    """run --fail-on-leak fails on a call site growing over the markers though
    all is freed at exit, and passes a warm-up that then stays flat; its
    report leads with what grows and never says "no leaks" beside it."""
    r = H.run_traced([H.program("usage"), "kept", "6"], run_args=["--fail-on-leak"])
    expect_status(r, LEAK_STATUS, "run --fail-on-leak of a growing program")
    H.expect(re.search(r"^vramtrace: growing: 1\.0 MiB per marker interval at keep_step \S+:%d\n"
                       r"vramtrace: nothing leaked at exit: all device memory was freed "
                       % H.marker_line(H.program_source("usage.c"), "kept"), r.stderr, re.M),
             r.describe())
    r = H.run_traced([H.program("usage"), "warmup"], run_args=["--fail-on-leak"])
    expect_status(r, 0, "run --fail-on-leak of a warm-up, then flat")


def case_run_limits():
    """run takes the same options, with the same outcome; a limit implies
    --fail-on-leak; the program's own status is kept when within limits."""
    for args, status in ((["--fail-on-leak"], LEAK_STATUS),
                         (["--fail-on-leak", "--max-leaked", str(LEAKED)], 0),
                         (["--max-leaked", str(LEAKED - 1)], LEAK_STATUS),
                         (["--max-leaked-per-site", str(LEAK)], 0),
                         (["--max-leaked-per-site", str(LEAK - 1)], LEAK_STATUS),
                         (["--max-growth", str(LEAKED)], 0),
                         (["--max-growth", str(LEAKED - 1)], LEAK_STATUS)):
        r = run_api_check(*args)
        expect_status(r, status, "run %s" % " ".join(args))
        H.expect_eq("lines naming a broken limit (run %s)" % " ".join(args),
                    len(over_lines(r)), 1 if status else 0)
    path = suppressions_file("leak:api_check.c")
    r = run_api_check("--fail-on-leak", "--suppressions", path)
    expect_status(r, 0, "run --fail-on-leak with both leaks suppressed")
    H.expect("Suppressions used:" in r.stderr, "run's report should show the table:\n"
             + r.describe())
    r = run_api_check("--suppressions", os.path.join(H.tmpdir(), "missing.supp"))
    expect_status(r, 1, "run with a missing suppressions file")
    H.expect(not os.path.exists(r.dump), "the command ran despite the bad file")


def case_run_default_suppressions():
    for args, status in ((["--fail-on-leak", "--max-leaked", str(USER_LEAK)], 0),
                         (["--fail-on-leak", "--no-default-known", "--max-leaked",
                           str(USER_LEAK)], LEAK_STATUS)):
        r = H.run_traced([H.program("cublas_user")], run_args=args)
        expect_status(r, status, "run %s" % " ".join(args))


if __name__ == "__main__":
    H.main(globals())
