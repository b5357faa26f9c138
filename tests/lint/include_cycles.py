#!/usr/bin/env python3
"""Include circles between the files of a source tree.

    tests/lint/include_cycles.py DIR...
    tests/lint/include_cycles.py --self-test    (the check finds a planted circle)

Headers are included by bare name (every folder is on the include path), so
a quoted #include "x.h" is resolved to the x.h found under the DIRs (and
src/format.h). A .c file and its own header count as one node (x.c + x.h:
"x"), which is what an import circle between files means. Prints each
circle found and exits 1; exits 0 when the graph has none.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(dirs):
    for top in dirs:
        for root, _, files in os.walk(top):
            for name in files:
                if name.endswith((".c", ".h")):
                    yield os.path.join(root, name)


def node(path):
    return os.path.splitext(path)[0]


def graph(dirs):
    files = sorted(set(sources(dirs)))
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), f)
    edges = {}
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for name in INCLUDE.findall(text):
            target = by_name.get(os.path.basename(name))
            if target and node(target) != node(f):
                edges.setdefault(node(f), set()).add(node(target))
        edges.setdefault(node(f), set())
    return edges


def cycles(edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def self_test():
    """A three-file circle (a.c -> b.h, b.c -> c.h, c.c -> a.h) and a file
    outside it must give exactly that circle; a tree without one, none."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        files = {"x/a.c": "b.h", "x/a.h": None, "y/b.c": "c.h", "y/b.h": None,
                 "z/c.c": "a.h", "z/c.h": None, "z/d.c": "a.h"}
        for name, inc in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(d, name), "w") as f:
                f.write('#include "%s"\n#include <stdio.h>\n' % inc if inc else "\n")
        found = cycles(graph([d]))
        expect = [sorted(os.path.join(d, n) for n in ("x/a", "y/b", "z/c"))]
        if found != expect:
            print("self-test: expected %s, found %s" % (expect, found))
            return 1
        os.remove(os.path.join(d, "z/c.c"))
        found = cycles(graph([d]))
        if found:
            print("self-test: expected no circle, found %s" % found)
            return 1
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) < 2:
        print("usage: include_cycles.py DIR...", file=sys.stderr)
        return 2
    found = cycles(graph(argv[1:]))
    for component in found:
        print("include circle of %d files: %s" % (len(component), " ".join(component)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
