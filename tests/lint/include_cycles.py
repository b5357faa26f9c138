#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Finds circles between the C files of the given folders.

    tests/lint/include_cycles.py [--build DIR] FOLDER...   (e.g. tools src)
    tests/lint/include_cycles.py [--build DIR] --layers src
    tests/lint/include_cycles.py --self-test   (it finds planted circles of both kinds,
                                                and a planted edge up the layers)

A unit is a file's name without its extension: foo.c and foo.h are one unit
(a circle report.c -> render_text.h, render_text.c -> report.h is a circle
between the units report and render_text). Headers are included by bare
name (meson puts every folder on the include path), so `#include "x.h"`
names the unit x wherever it lives among the folders; includes that match no
file there (system headers, include/) are left out. Prints each circle
(one strongly connected component of two or more units, or a unit that
includes itself) with the include lines that close it; exit status 1 if
there is one, 0 if none.

With --build DIR (a built meson build directory), a unit also depends on the
units whose object files define the symbols its object file uses (nm, over
DIR/compile_commands.json): a header declared in one place and defined in
another (cli.h's vt_usage_error in main.c) cannot hide a circle. Names libc
defines (dlclose, raise: the library's interposers) are calls into libc,
not dependencies between the files.

With --layers ROOT (the tracer's src/), the folders of ROOT must form the
chain LAYERS, lowest first: a file may use (include, or call with --build)
files of its own folder and of the folders below it, never one above it. A
folder missing from LAYERS is an error: a new folder gets its place here.
"""
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile

# The tracer's folders, lowest first, each using only those before it. "."
# is src/ itself: the headers shared with the reader (format.h, output_path.h).
LAYERS = [
    '.',        # the dump format and the output path pattern, shared with tools/
    'base',     # thread state, the lock and guard, clock, warnings, options, entry pools
    'reach',    # the real CUDA, NVML and libc: ABI types, real dlsym, ELF symbols,
                # driver functions, the hook table, the caller cache
    'python',   # Python frames, read from the interpreter's memory
    'dump',     # the dump file: writer, records, the process's facts, manifest, the exit line
    'stacks',   # native stacks, the module list, thread names
    'output',   # what the dump gets per event: every event, or aggregates
    'gpu',      # the devices: identity, the driver's and NVML's view
    'track',    # the event core: the live table, owners, graphs, peaks
    'process',  # the process's life: start, fork, exit, exec, signals, markers
    'hooks',    # what the program calls: CUDA's wrappers, the loader's lookups, PyTorch's tracker
    'api',      # the public C API (include/vramtrace.h)
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def c_files(folders):
    for folder in folders:
        for root, _, names in os.walk(folder):
            for name in sorted(names):
                if name.endswith(('.c', '.h')):
                    yield os.path.join(root, name)


def unit_of(path):
    return os.path.splitext(os.path.basename(path))[0]


def include_graph(folders):
    files = list(c_files(folders))
    units = {unit_of(f) for f in files}
    headers = {os.path.basename(f) for f in files if f.endswith('.h')}
    edges = {u: {} for u in units}  # unit -> {unit it needs: why}
    for path in files:
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        for m in INCLUDE.finditer(text):
            name = os.path.basename(m.group(1))
            if name not in headers:
                continue
            line = text.count('\n', 0, m.start()) + 1
            if unit_of(name) != unit_of(path):
                edges[unit_of(path)].setdefault(
                    unit_of(name), f'{path}:{line}: includes {name}')
    return edges


def defined_and_used(obj):
    out = subprocess.run(['nm', '--defined-only', '-g', obj], capture_output=True,
                         text=True, check=True).stdout
    defined = {line.split()[-1] for line in out.splitlines() if line.strip()}
    out = subprocess.run(['nm', '--undefined-only', obj], capture_output=True,
                         text=True, check=True).stdout
    used = {line.split()[-1] for line in out.splitlines() if line.strip()}
    return defined, used


def libc_symbols():
    libc = subprocess.run(['cc', '-print-file-name=libc.so.6'], capture_output=True,
                          text=True).stdout.strip()
    if not os.path.isabs(libc):
        return set()
    out = subprocess.run(['nm', '-D', '--defined-only', libc], capture_output=True,
                         text=True).stdout
    return {line.split()[-1].split('@')[0] for line in out.splitlines() if line.strip()}


def add_link_edges(edges, folders, build):
    """unit -> unit where one object file uses a symbol the other defines."""
    with open(os.path.join(build, 'compile_commands.json'), encoding='utf-8') as f:
        commands = json.load(f)
    roots = [os.path.realpath(d) + os.sep for d in folders]
    objects = {}  # unit -> object file (one per source; the first target wins)
    for entry in commands:
        source = os.path.realpath(os.path.join(entry['directory'], entry['file']))
        if not any(source.startswith(r) for r in roots):
            continue
        obj = os.path.join(entry['directory'], entry['output'])
        if os.path.exists(obj):
            objects.setdefault(unit_of(source), obj)
    definer, uses, libc = {}, {}, libc_symbols()
    for unit, obj in sorted(objects.items()):
        defined, used = defined_and_used(obj)
        uses[unit] = used
        for symbol in defined:
            definer.setdefault(symbol, unit)
    for unit, used in uses.items():
        for symbol in sorted(used):
            target = definer.get(symbol)
            if target and target != unit and symbol not in libc:
                edges.setdefault(unit, {}).setdefault(
                    target, f'{os.path.relpath(objects[unit])}: uses {symbol} (defined by {target})')
                edges.setdefault(target, {})
    return len(objects)


def strongly_connected(edges):
    """Tarjan's algorithm, iterative; yields components as lists."""
    index, low, on_stack, stack, counter = {}, {}, set(), [], [0]
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                yield sorted(component)


def self_test():
    """Plants an include circle (a.h -> b.h -> c.h -> a.h) and a symbol circle
    (main.c calls run(), run.c calls usage() which main.c defines, declared in
    cli.h that has no .c), and a tree without either; 0 when all three are seen right."""
    files = {
        'inc/a.h': '#include "b.h"\n', 'inc/b.h': '#include "c.h"\n', 'inc/c.h': '#include "a.h"\n',
        'sym/cli.h': 'int usage(void);\nint run(void);\n',
        'sym/main.c': '#include "cli.h"\nint usage(void) { return 2; }\n'
                      'int main(void) { return run(); }\n',
        'sym/run.c': '#include "cli.h"\nint run(void) { return usage(); }\n',
        'ok/x.c': '#include "x.h"\n#include "y.h"\n', 'ok/x.h': '', 'ok/y.h': '',
        'up/low/l.c': '#include "h.h"\n', 'up/high/h.h': '', 'up/high/h.c': '#include "l.h"\n',
        'up/low/l.h': '',
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, name)), exist_ok=True)
            with open(os.path.join(tmp, name), 'w') as f:
                f.write(text)
        build = os.path.join(tmp, 'build')
        os.makedirs(build)
        commands = []
        for name in ('main', 'run'):
            src = os.path.join(tmp, 'sym', name + '.c')
            subprocess.run(['cc', '-c', src, '-o', os.path.join(build, name + '.o')], check=True)
            commands.append({'directory': build, 'file': src, 'output': name + '.o'})
        with open(os.path.join(build, 'compile_commands.json'), 'w') as f:
            json.dump(commands, f)
        results = {}
        for what, args in (('include circle', [os.path.join(tmp, 'inc')]),
                           ('symbol circle', ['--build', build, os.path.join(tmp, 'sym')]),
                           ('no circle', [os.path.join(tmp, 'ok')])):
            with contextlib.redirect_stdout(io.StringIO()) as out:
                results[what] = (main(args), out.getvalue())
        with contextlib.redirect_stdout(io.StringIO()) as out:
            edges = include_graph([os.path.join(tmp, 'up')])
            results['edge up'] = (check_layers(os.path.join(tmp, 'up'), edges, ['low', 'high']),
                                  out.getvalue())
        with contextlib.redirect_stdout(io.StringIO()) as out:
            results['no place'] = (check_layers(os.path.join(tmp, 'up'), edges, ['high']),
                                   out.getvalue())
    wrong = [w for w, want in (('include circle', 1), ('symbol circle', 1), ('no circle', 0),
                               ('edge up', 1), ('no place', 1))
             if results[w][0] != want]
    if 'layers: low -> high goes up' not in results['edge up'][1]:
        wrong.append('edge up named')
    if 'folder low of' not in results['no place'][1]:
        wrong.append('no place named')
    if 'circle: a b c' not in results['include circle'][1]:
        wrong.append('include circle members')
    if 'circle: main run' not in results['symbol circle'][1]:
        wrong.append('symbol circle members')
    for w in wrong:
        print(f'include_cycles.py --self-test: {w} not found as planted:\n{results.get(w, ("", ""))[1]}')
    print(f'self-test: {"FAIL" if wrong else "ok"}')
    return 1 if wrong else 0


def folder_of(path, root):
    return os.path.relpath(os.path.dirname(os.path.realpath(path)), os.path.realpath(root))


def check_layers(root, edges, order):
    """Edges up ORDER between ROOT's folders, and folders not in ORDER: 0
    when none (prints the chain), else 1 (prints each)."""
    folders = {unit_of(f): folder_of(f, root) for f in c_files([root])}
    unknown = sorted(set(folders.values()) - set(order))
    for folder in unknown:
        print(f'layers: folder {folder} of {root} has no place in the layer order '
              f'(LAYERS in tests/lint/include_cycles.py)')
    rank = {folder: i for i, folder in enumerate(order)}
    down, up = {}, 0
    for unit, targets in sorted(edges.items()):
        for target, where in sorted(targets.items()):
            a, b = folders.get(unit), folders.get(target)
            if a is None or b is None or a == b or a in unknown or b in unknown:
                continue
            if rank[b] > rank[a]:
                up += 1
                print(f'layers: {a} -> {b} goes up: {where}')
            else:
                down[(a, b)] = down.get((a, b), 0) + 1
    present = [f for f in order if f in set(folders.values())]
    print('layers: ' + ' <- '.join(present) +
          f' ({len(down)} folder pairs used downward, {up} edge(s) upward)')
    return 1 if up or unknown else 0


def main(args):
    if args == ['--self-test']:
        return self_test()
    build = None
    if args[:1] == ['--build'] and len(args) > 1:
        build, args = args[1], args[2:]
    layers = args[:1] == ['--layers'] and len(args) == 2
    if layers:
        args = args[1:]
    folders = args
    if not folders or any(f.startswith('-') for f in folders):
        print('usage: include_cycles.py [--build DIR] FOLDER... | [--build DIR] --layers ROOT',
              file=sys.stderr)
        return 2
    for folder in folders:
        if not os.path.isdir(folder):
            print(f'include_cycles.py: no folder {folder}', file=sys.stderr)
            return 2
    edges = include_graph(folders)
    linked = ''
    if build:
        if not os.path.exists(os.path.join(build, 'compile_commands.json')):
            print(f'include_cycles.py: {build} is not a meson build directory', file=sys.stderr)
            return 2
        linked = f' ({add_link_edges(edges, folders, build)} object files)'
    circles = 0
    for component in strongly_connected(edges):
        members = set(component)
        if len(component) == 1 and component[0] not in edges[component[0]]:
            continue
        circles += 1
        print(f'circle: {" ".join(component)}')
        for unit in component:
            for target, where in sorted(edges[unit].items()):
                if target in members:
                    print(f'  {unit} -> {target}: {where}')
    units = len(edges)
    print(f'{units} units in {" ".join(folders)}{linked}: {circles} circle(s)')
    if layers and check_layers(folders[0], edges, LAYERS):
        return 1
    return 1 if circles else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
