# SPDX-License-Identifier: MIT
"""pytest plugin for tests run under vramtrace: fail a test whose CUDA device
memory outlives it, and (pytest --vramtrace) a table of what each test left.

    @pytest.mark.vram_limit_leaks("1 MiB", warmups=1)
    def test_step(): ...

    @pytest.mark.vram_limit_peak("2 GiB")
    def test_forward(): ...

vram_limit_leaks runs the test WARMUPS times first (caches and lazy
initialisation are allowed to keep memory there), then once more between
vramtrace.checkpoint() and vramtrace.leaked_since(): more than the limit still
live fails the test, naming the test's own line and the leaking call site
(labelled as every view of vramtrace labels it, from this process's dump,
read by the vramtrace CLI) and the dump's path. vram_limit_peak fails the test
when the CUDA memory it allocated peaked above the limit (live at once, as
pytest-memray's limit_memory; vramtrace.peak_since()). Without the tracer a
marked test is skipped, not passed. The `vram` fixture gives the live traced
bytes (vram.live_bytes).

`pytest --vramtrace` runs the session under the tracer (`vramtrace run --
PYTHON -m pytest ARGS`, with the interpreter pytest runs on; with
--vramtrace-tensors, `vramtrace run --pytorch-tensors`: each PyTorch tensor
traced at its line) when it is not preloaded already, writes a marker after
each test, and ends with a short table: the tests that left the most CUDA
memory live (measured from the test's call, so that a fixture's memory is
charged to the fixture's setup, listed apart, not to the first test that
uses it), the fixtures that hold memory, and the call sites growing from test
to test by vramtrace's growth rule; with -v or --vramtrace-report, the whole
report of the dump so far after it.

Built on the `vramtrace` module (python/vramtrace.py); its own frames are
folded in reports as pytest's are.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

import vramtrace

MARKER = "vram_limit_leaks"
PEAK_MARKER = "vram_limit_peak"
SUMMARY_TESTS = 10
_UNITS = {"": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20,
          "g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40}


def parse_size(size):
    """Bytes from an int or a string such as "1 MiB", "512KB" (binary, as
    pytest-memray reads them), "1.5 GiB"."""
    if isinstance(size, int) and not isinstance(size, bool) and size >= 0:
        return size
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]*)\s*", str(size))
    if not m or m.group(2).lower() not in _UNITS:
        raise ValueError("not a size: %r (expected e.g. 1024, '512 KiB', '1 MiB')" % (size,))
    return int(float(m.group(1)) * (1 << _UNITS[m.group(2).lower()]))


def human_size(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return ("%d %s" if unit == "B" else "%.1f %s") % (n, unit)
        n /= 1024.0
    return "%d B" % n


def why_not_tracing():
    """None when allocations are traced, else why not (a skip reason)."""
    if not vramtrace.loaded():
        return ("vramtrace is not loaded: run pytest under `vramtrace run -- python -m pytest` "
                "or with LD_PRELOAD=libvramtrace.so")
    if not vramtrace.active():
        return "vramtrace is loaded but not tracing (see its message on stderr)"
    return None


def _vramtrace_cli():
    """The wheel's CLI (beside the module, whether its venv is activated or
    not), else `vramtrace` on PATH, else next to the preloaded library (a build tree) or in the
    bin folder beside its lib folder (an installation)."""
    found = vramtrace._bundled_cli() or shutil.which("vramtrace")
    if found:
        return found
    for lib in os.environ.get("LD_PRELOAD", "").replace(":", " ").split():
        if os.path.basename(lib).startswith("libvramtrace"):
            here = os.path.dirname(os.path.abspath(lib))
            for cli in (os.path.join(here, "vramtrace"),
                        os.path.join(here, "..", "bin", "vramtrace"),
                        os.path.join(here, "..", "..", "bin", "vramtrace")):
                if os.access(cli, os.X_OK):
                    return cli
    return None


def _where(frame):
    """"fn (file:line)" / "fn file:line" / "fn (module+0x...)" as the report."""
    name = frame.get("function") or "??"
    if frame.get("file"):
        path = os.path.abspath(frame["file"])
        if path.startswith(os.getcwd() + os.sep):
            path = os.path.relpath(path)
        return "%s (%s:%s)" % (name, path, frame.get("line"))
    if frame.get("module"):
        return "%s (%s+0x%x)" % (name, os.path.basename(frame["module"]), frame.get("offset") or 0)
    return name


def _test_leak(dump, path, name):
    """The largest live site of the dump allocated from test NAME in PATH:
    (the test's own frame, the leaking call's frame, the site), or None."""
    cli = _vramtrace_cli()
    if not cli:
        return None
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "VRAMTRACE_MANIFEST")}
    try:
        # every site: the test's own may be past the report's first ten
        out = subprocess.run([cli, "report", "--json", "--top", "0", dump], capture_output=True,
                             env=env, timeout=120, check=True).stdout
        report = json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    best = None
    for site in report.get("live_at_end", []) + report.get("leaks", []):
        frames = site.get("frames") or []
        own = [f for f in frames if f.get("function") == name and f.get("file") and
               os.path.abspath(f["file"]) == path]
        if own and (best is None or site["bytes"] > best[2]["bytes"]):
            call = next((f for f in frames if not f.get("runtime")), frames[0])
            best = (own[0], call, site)
    return best


def _failure_message(pyfuncitem, leaked, limit, token):
    """Three lines: what leaked, the test's own line, the leaking call; then
    the dump's path (the whole report)."""
    head = ("%d bytes of CUDA memory allocated by the test are still live, over the limit of "
            "%d bytes" % (leaked, limit))
    dump = vramtrace.dump_path()
    found = dump and _test_leak(dump, os.path.abspath(str(pyfuncitem.path)),
                                pyfuncitem.originalname)
    if not found:
        return "%s; the largest call sites:\n%s" % (head, vramtrace.leak_sites_since(token))
    own, call, site = found
    # the site's label, as every view of vramtrace names it
    return ("%s\n  in the test: %s\n  leaking call: %s via %s\n"
            "  dump: %s (vramtrace report %s)" % (head, _where(own),
                                                  site.get("label") or _where(call),
                                                  site.get("api"), dump, dump))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", MARKER + "(limit, warmups=0): fail when more than LIMIT (bytes or '1 MiB') "
        "of CUDA memory allocated by the test is still live after it; skip without vramtrace")
    config.addinivalue_line(
        "markers", PEAK_MARKER + "(limit): fail when the CUDA memory the test allocated peaked "
        "above LIMIT (bytes or '2 GiB'), live at once; skip without vramtrace")


def _limit_of(marker):
    if len(marker.args) != 1:
        raise pytest.UsageError("%s takes one limit, e.g. %s('1 MiB')" % (MARKER, MARKER))
    warmups = marker.kwargs.get("warmups", 0)
    if not isinstance(warmups, int) or warmups < 0:
        raise pytest.UsageError("%s: warmups must be a count, not %r" % (MARKER, warmups))
    return parse_size(marker.args[0]), warmups


def _peak_limit_of(marker):
    if len(marker.args) != 1 or marker.kwargs:
        raise pytest.UsageError("%s takes one limit, e.g. %s('2 GiB')" % (PEAK_MARKER,
                                                                          PEAK_MARKER))
    return parse_size(marker.args[0])


def pytest_runtest_setup(item):
    marker, peak = item.get_closest_marker(MARKER), item.get_closest_marker(PEAK_MARKER)
    if marker is None and peak is None:
        return
    if marker is not None:
        _limit_of(marker)
    if peak is not None:
        _peak_limit_of(peak)
    reason = why_not_tracing()
    if reason:
        pytest.skip(reason)


def _peak_failure(peak, limit):
    if peak == vramtrace.PEAK_UNKNOWN:
        return ("the peak of the test's CUDA memory is not known: it took more than 16 "
                "vramtrace checkpoints of its own")
    return ("the CUDA memory allocated by the test peaked at %d bytes (%s) live at once, over "
            "the limit of %d bytes (%s)" % (peak, human_size(peak), limit, human_size(limit)))


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    marker, peak_marker = (pyfuncitem.get_closest_marker(MARKER),
                           pyfuncitem.get_closest_marker(PEAK_MARKER))
    if marker is None and peak_marker is None:
        return None
    limit, warmups = _limit_of(marker) if marker is not None else (None, 0)
    peak_limit = _peak_limit_of(peak_marker) if peak_marker is not None else None
    func = pyfuncitem.obj
    args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    for _ in range(warmups):
        func(**args)
    token = vramtrace.checkpoint()
    func(**args)
    peak = vramtrace.peak_since(token)
    leaked = vramtrace.leaked_since(token)
    if peak_limit is not None and peak > peak_limit:
        pytest.fail(_peak_failure(peak, peak_limit), pytrace=False)
    if limit is not None and leaked > limit:
        pytest.fail(_failure_message(pyfuncitem, leaked, limit, token), pytrace=False)
    return True


class VRam:
    """What the `vram` fixture gives: the tracer's view of this process."""

    @property
    def live_bytes(self):
        """Live traced device + managed bytes now."""
        return vramtrace.live_bytes()

    def checkpoint(self):
        return vramtrace.checkpoint()

    def leaked_since(self, token):
        return vramtrace.leaked_since(token)

    def peak_since(self, token):
        return vramtrace.peak_since(token)

    def mark(self, label):
        vramtrace.mark(label)


@pytest.fixture
def vram():
    """The live traced CUDA bytes (vram.live_bytes) and the checkpoint API;
    skips the test when vramtrace is not tracing."""
    reason = why_not_tracing()
    if reason:
        pytest.skip(reason)
    return VRam()


# ---- pytest --vramtrace: the session under the tracer, a table at the end ----

def pytest_addoption(parser):
    group = parser.getgroup("vramtrace")
    group.addoption(
        "--vramtrace", action="store_true", default=False,
        help="run the session under the vramtrace tracer (vramtrace run) unless it is loaded "
        "already, and list the tests that left the most CUDA memory live, the fixtures that "
        "hold some, and what grows from test to test")
    group.addoption(
        "--vramtrace-tensors", action="store_true", default=False,
        help="with --vramtrace: trace each PyTorch tensor at its own line (vramtrace run "
        "--pytorch-tensors)")
    group.addoption(
        "--vramtrace-report", action="store_true", default=False,
        help="with --vramtrace: print vramtrace's whole report after the table (so does -v)")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """--vramtrace without the tracer: the same session again, under it."""
    if not config.getoption("vramtrace") or vramtrace.loaded():
        return None
    cli = _vramtrace_cli()
    if not cli:
        raise pytest.UsageError("--vramtrace: the vramtrace command is not on PATH (install "
                                "vramtrace, or run pytest under `vramtrace run --`)")
    tensors = ["--pytorch-tensors"] if config.getoption("vramtrace_tensors") else []
    argv = [cli, "run", *tensors, "--", sys.executable, "-m", "pytest",
            *config.invocation_params.args]
    return subprocess.run(argv, cwd=str(config.invocation_params.dir)).returncode


_left = []      # (bytes the test left live, nodeid)
_fixtures = {}  # (fixture name, scope): bytes its setup left live
_calls = {}     # nodeid: the checkpoint taken as its call began


def _session_on(config):
    return config.getoption("vramtrace") and vramtrace.active()


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    """What a fixture's setup leaves live is the fixture's (a model built
    once for a module), not the first test's that asked for it."""
    if not _session_on(request.config):
        yield
        return
    token = vramtrace.checkpoint()
    yield
    left = vramtrace.leaked_since(token)
    if left:
        key = (fixturedef.argname, fixturedef.scope)
        _fixtures[key] = _fixtures.get(key, 0) + left


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    if _session_on(item.config):
        _calls[item.nodeid] = vramtrace.checkpoint()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After the teardown: what the test's call made and still holds; a
    marker closes the test, so that growth is judged from test to test."""
    yield
    if not _session_on(item.config):
        return
    token = _calls.pop(item.nodeid, None)
    if token is not None:
        _left.append((vramtrace.leaked_since(token), item.nodeid))
    vramtrace.mark("after " + item.nodeid)


def _report(dump, *args):
    """`vramtrace report ARGS DUMP` (the dump so far): its stdout, or None."""
    cli = _vramtrace_cli()
    if not cli:
        return None
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "VRAMTRACE_MANIFEST")}
    try:
        return subprocess.run([cli, "report", *args, dump], capture_output=True, env=env,
                              timeout=300, check=True, text=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None


def _growing(dump):
    """[(bytes per test, label, api)] of the sites growing from test to test."""
    out = _report(dump, "--json")
    try:
        sites = json.loads(out).get("sites", []) if out else []
    except ValueError:
        return []
    return [(s.get("bytes_per_interval") or 0, s.get("label") or "?", s.get("api"))
            for s in sites if s.get("growing")]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not _session_on(config):
        return
    tr = terminalreporter
    tr.section("vramtrace: CUDA memory each test left live")
    worst = sorted((t for t in _left if t[0]), key=lambda t: (-t[0], t[1]))[:SUMMARY_TESTS]
    if not worst:
        tr.write_line("no test left CUDA memory live (%d tests)" % len(_left))
    for left, nodeid in worst:
        tr.write_line("%12s  %s" % (human_size(left), nodeid))
    more = sum(1 for t in _left if t[0]) - len(worst)
    if more > 0:
        tr.write_line("... %d more tests left some" % more)
    if _fixtures:
        tr.write_line("held by fixtures (charged to their setup, not to a test):")
        for (name, scope), left in sorted(_fixtures.items(), key=lambda f: (-f[1], f[0])):
            tr.write_line("%12s  fixture %s (%s scope)" % (human_size(left), name, scope))
    dump = vramtrace.dump_path()
    if not dump:
        return
    growing = _growing(dump)
    if growing:
        tr.write_line("growing from test to test (a marker after each test):")
        for rate, label, api in growing[:SUMMARY_TESTS]:
            tr.write_line("%12s per test  %s via %s" % (human_size(rate), label, api))
    tr.write_line("dump: %s (vramtrace report %s)" % (dump, dump))
    if config.getoption("vramtrace_report") or config.option.verbose > 0:
        text = _report(dump)
        if text:
            tr.section("vramtrace report (so far)")
            tr.write(text)
