#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The test case list meson registers, from the test files themselves.

    tests/list_cases.py FILE...   or   tests/list_cases.py TESTS_DIR

(TESTS_DIR: its test_*.py files and cli/check_cli.py, sorted.) Runs `python3 FILE --list` for each FILE (tests/test_<area>.py: harness.main
lists its case_<name> functions, those made in loops too; tests/cli/check_cli.py
lists its own) and prints one line "<area> <case> <file>" per case, FILE by FILE. The
area is the file name after "test_" ("cli" for check_cli.py). Exit status 1,
with the file named, when a file lists nothing or cannot run.
"""
import glob
import os
import subprocess
import sys


def area_of(path):
    name = os.path.splitext(os.path.basename(path))[0]
    if name == 'check_cli':
        return 'cli'
    if not name.startswith('test_'):
        sys.exit(f'list_cases.py: {path} is neither tests/test_<area>.py nor check_cli.py')
    return name[len('test_'):]


def test_files(args):
    if len(args) == 1 and os.path.isdir(args[0]):
        return sorted(glob.glob(os.path.join(args[0], 'test_*.py'))) + [
            os.path.join(args[0], 'cli', 'check_cli.py')]
    return args


def main(args):
    for path in test_files(args):
        area = area_of(path)
        p = subprocess.run([sys.executable, path, '--list'], capture_output=True, text=True)
        cases = p.stdout.split()
        if p.returncode != 0 or not cases:
            sys.exit(f'list_cases.py: {path} --list: exit status {p.returncode}, '
                     f'{len(cases)} cases: {p.stderr.strip()}')
        for case in cases:
            print(area, case, path)


if __name__ == '__main__':
    main(sys.argv[1:])
