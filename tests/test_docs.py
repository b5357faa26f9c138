# SPDX-License-Identifier: MIT
"""The documentation a newcomer reads: README.md is the short version (the two
set-up commands first, a table of contents), docs/ holds the rest, and every
link between them leads somewhere."""
import glob
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

README_MAX_LINES = 250


def root():
    return H.source_root()


def read(rel):
    with open(os.path.join(root(), rel), encoding="utf-8") as f:
        return f.read()


def markdown_files():
    docs = sorted(os.path.relpath(p, root()) for p in glob.glob(os.path.join(root(), "docs", "*.md")))
    return ["README.md", "HACKING.md"] + docs


def without_code(text):
    """TEXT without fenced and indented code blocks and inline code spans."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    text = re.sub(r"^(    |\t).*$", "", text, flags=re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as '-'."""
    text = re.sub(r"`", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text):
    found = {anchor(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, re.M)}
    found |= set(re.findall(r'<a id="([^"]+)"', text))
    return found


def case_links():
    """Every relative link of README.md, HACKING.md and docs/*.md names a file
    that exists and, after '#', a heading of it."""
    bad = []
    for rel in markdown_files():
        text = read(rel)
        for target in re.findall(r"\]\(([^)\s]+)\)", without_code(text)):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(rel), path)) if path else rel
            if not os.path.exists(os.path.join(root(), dest)):
                bad.append("%s: %s: no file %s" % (rel, target, dest))
            elif frag and dest.endswith(".md") and frag not in anchors(read(dest)):
                bad.append("%s: %s: no heading #%s in %s" % (rel, target, frag, dest))
    H.expect(not bad, "broken links:\n  " + "\n  ".join(bad))


def case_readme_short():
    """README.md opens with the two commands of a fresh machine, has a table of
    contents, stays short, and names each file of docs/."""
    text = read("README.md")
    lines = text.splitlines()
    H.expect(len(lines) <= README_MAX_LINES,
             "README.md has %d lines; the rest belongs in docs/" % len(lines))
    commands = [l.split()[0] for l in lines[:20] if l.startswith("    ")]
    H.expect_eq("the first commands of README.md", commands[:2], ["tools/setup.sh", "tests/run.sh"])
    H.expect("## Contents" in text, "README.md has no table of contents")
    for section in re.findall(r"^- \[[^]]+\]\(#([^)]+)\)", text.split("## Contents", 1)[1], re.M):
        H.expect(section in anchors(text), "the contents name #%s, which is no heading" % section)
    for doc in glob.glob(os.path.join(root(), "docs", "*.md")):
        name = "docs/" + os.path.basename(doc)
        H.expect("](%s)" % name in text, "README.md does not point to %s" % name)


H.main(globals())
