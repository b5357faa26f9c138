#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The SPDX-License-Identifier line of every source file git tracks.

    tests/lint/spdx.py          lists the files without one; exit status 1 if any
    tests/lint/spdx.py --fix    adds it where missing (the mechanical commit: run it
                                after merging branches, then commit the result alone)

The line is `/* SPDX-License-Identifier: MIT */` in C, C++ and CUDA, `# ...` in
Python, shell, meson and TOML files, `.\\" ...` in the man page; other files
(Markdown, golden outputs, data) carry none. It goes first (after a #! line),
except in the programs that tests and examples trace (C, C++ and CUDA under
examples/ and tests/, and everything under examples/, tests/programs/ and
tests/python/): there it goes last, so that the file:line of their call sites,
which README.md and golden reports show, stay as they are.
"""
import os
import subprocess
import sys

LICENSE = 'MIT'
COMMENT = {
    '.c': '/* {} */', '.h': '/* {} */', '.cpp': '/* {} */', '.cu': '/* {} */', '.c.in': '/* {} */',
    '.py': '# {}', '.sh': '# {}', '.toml': '# {}', 'meson.build': '# {}', 'meson.options': '# {}',
    '.1': '.\\" {}',
}


def comment_of(path):
    name = os.path.basename(path)
    if name in COMMENT:
        return COMMENT[name]
    for suffix in sorted(COMMENT, key=len, reverse=True):
        if suffix.startswith('.') and name.endswith(suffix):
            return COMMENT[suffix]
    return None


C_FAMILY = ('.c', '.h', '.cpp', '.cu')
TRACED_FOLDERS = ('examples/', 'tests/programs/', 'tests/python/')


def goes_last(path):
    """A traced program: its line numbers appear in reports."""
    return path.startswith(TRACED_FOLDERS) or (
        path.startswith('tests/') and path.endswith(C_FAMILY))


def tracked(root):
    out = subprocess.run(['git', '-C', root, 'ls-files', '-z'], capture_output=True, check=True)
    for path in out.stdout.decode().split('\0'):
        full = os.path.join(root, path)
        if path and comment_of(path) and os.path.isfile(full) and not os.path.islink(full):
            yield path


def main(args):
    root = os.path.realpath(os.path.join(os.path.dirname(__file__), '..', '..'))
    fix = args == ['--fix']
    if args and not fix:
        print('usage: spdx.py [--fix]', file=sys.stderr)
        return 2
    missing = 0
    for path in tracked(root):
        full = os.path.join(root, path)
        with open(full, encoding='utf-8') as f:
            lines = f.readlines()
        if any('SPDX-License-Identifier:' in line for line in lines[:3] + lines[-2:]):
            continue
        missing += 1
        if not fix:
            print(f'spdx: {path} has no SPDX-License-Identifier line (tests/lint/spdx.py --fix)')
            continue
        line = comment_of(path).format('SPDX-License-Identifier: ' + LICENSE) + '\n'
        if goes_last(path):
            if lines and not lines[-1].endswith('\n'):
                lines[-1] += '\n'
            lines.append(line)
        else:
            lines.insert(1 if lines and lines[0].startswith('#!') else 0, line)
        with open(full, 'w', encoding='utf-8') as f:
            f.writelines(lines)
    print(f'spdx: {missing} file(s) {"given the line" if fix else "without the line"}')
    return 0 if fix or missing == 0 else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
