# SPDX-License-Identifier: MIT
"""tests/programs/watch_steps.c traced, driven one command at a time: it
pauses after each, so what is live whenever a test looks is known exactly
(test_watch.py, test_metrics.py)."""
import os
import subprocess

import harness as H

SRC = H.program_source("watch_steps.c")


class Stepper:
    """watch_steps, traced into DIR/t.vtr (or DUMP), one command at a time."""

    def __init__(self, extra_env=None, dump=None):
        self.dir = os.path.dirname(dump) if dump else H.tmpdir()
        self.dump = dump or os.path.join(self.dir, "t.vtr")
        env = H.base_env(extra_env)
        env["LD_PRELOAD"] = ":".join(filter(None, [env.get("LD_PRELOAD"), H.vramtrace_lib()]))
        env["VRAMTRACE_OUTPUT"] = self.dump
        self.p = subprocess.Popen(H.emulated([H.program("watch_steps")]), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, cwd=self.dir, env=env,
                                  universal_newlines=True)

    def do(self, *commands):
        for c in commands:
            self.p.stdin.write(c + "\n")
            self.p.stdin.flush()
            H.expect_eq("watch_steps' answer to %r" % c, self.p.stdout.readline(), "ok\n")

    def quit(self):
        self.p.stdin.write("q\n")
        self.p.stdin.close()
        H.expect_eq("watch_steps' exit status", self.p.wait(timeout=H.TIMEOUT), 0)

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def vt(*args, cwd=None, env=None):
    return H._run([H.vramtrace_exe()] + list(args), env or H.base_env(), cwd or H.tmpdir())


def line_of(tag):
    """The line of watch_steps.c's /* LEAK:tag */ call."""
    return H.marker_line(SRC, tag)
