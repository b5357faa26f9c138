# SPDX-License-Identifier: MIT
"""Golden text reports (tests/golden/<case>.txt), compared exactly after
the run-to-run figures (times, rates) are replaced by placeholders.

Regenerate after a deliberate change of the report's text:
    VT_GOLDEN_UPDATE=1 meson test -C BUILD --suite golden
then review `git diff tests/golden/`."""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402
import test_cxx  # noqa: E402
import test_readable as R  # noqa: E402

GOLDEN = os.path.join(H.source_root(), "tests", "golden")


def normalize(text):
    """Times and rates change from run to run; nothing else may."""
    # (padding before a time depends on its length: one space kept)
    text = re.sub(r"( +)?\d+\.\d{3} (ms|s)\b", lambda m: (" " if m.group(1) else "") + "<time>",
                  text)
    text = re.sub(r"(?<!than )\b\d+ time ticks", "<n> time ticks", text)
    return re.sub(r"\d+(\.\d)? ([KMGTPE]iB|B)/s", "<rate>/s", text)


def compare(case, text):
    path = os.path.join(GOLDEN, case + ".txt")
    text = normalize(text)
    if os.environ.get("VT_GOLDEN_UPDATE"):
        with open(path, "w") as f:
            f.write(text)
        return
    H.expect(os.path.exists(path), "%s is missing (VT_GOLDEN_UPDATE=1 writes it)" % path)
    with open(path) as f:
        want = f.read()
    if text != want:
        import difflib
        H.fail("%s differs (VT_GOLDEN_UPDATE=1 rewrites it):\n%s" % (path, "".join(
            difflib.unified_diff(want.splitlines(True), text.splitlines(True), "golden", "now"))))


def shapes_report(args, *report_args):
    dump = R.shapes_run(*args).dump
    return R.text_report(dump, *report_args, cwd=H.source_root())


def sample_report(*args):
    return R.text_report(R.sample_run(*args).dump, cwd=H.source_root())


def case_c_leak():
    compare("c_leak", shapes_report(["c_leak"]))


def case_sites40():
    compare("sites40", shapes_report(["sites"]))


def case_two_devices():
    compare("two_devices", shapes_report(["two_devices"]))


def case_pinned_only():
    compare("pinned_only", sample_report("pinned_only"))


def case_device1_released():
    compare("device1_released", sample_report("device1_released"))


def case_growth_judged():
    compare("growth_judged", shapes_report(["steps", "5"]))


def case_growth_not_judged():
    compare("growth_not_judged", shapes_report(["steps", "2"]))


def case_growth_skipped():
    compare("growth_skipped", shapes_report(["steps", "5"], "--skip", "3"))


def case_growth_stopped():
    compare("growth_stopped", shapes_report(["cache"]))


def case_cxx_signatures():
    """Long C++ names: default template arguments left out of the frames,
    parameter lists shortened to (...) in the one-line labels."""
    prog = os.path.join(H.tmpdir(), "signatures")
    test_cxx.cxx(["-g", "-O0", "-fno-omit-frame-pointer", "-I", test_cxx.CXX_DIR] +
                 H.library_include_args() +
                 ["-I", os.path.join(H.source_root(), "tests", "standin", "include"),
                  os.path.join(test_cxx.CXX_DIR, "signatures.cpp"), "-L", H.standin_dir(),
                  "-lcudart", "-o", prog], "signatures")
    r = H.run_traced([prog])
    H.expect_program_ok(r)
    compare("cxx_signatures", R.text_report(r.dump, cwd=H.source_root()))
    pad = H.frames(H.leak_by_bytes(H.report(r.dump), 1000008))[0]["function"]
    H.expect(pad.startswith("shapes::pad_batch(std::vector<int, std::allocator<int> > const&, "
                            "std::vector<int, std::allocator<int> > const&, std::map<"),
             "JSON keeps the whole name: %s" % pad)


def case_pytest_leak():
    dump = R.pytest_leak_dump()
    compare("pytest_leak", R.text_report(dump))


if __name__ == "__main__":
    H.main(globals())
