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



# ---- one source of truth: the CLI's table (tools/cmd/cli_table.c) ----

def vt_help(*args):
    r = H._run([H.vramtrace_exe(), *args, "--help"], H.base_env(), H.tmpdir())
    H.expect_eq("vramtrace %s --help status" % " ".join(args), r.status, 0)
    return r.stdout


def section(text, title):
    """The rows of a help section (after the line TITLE, up to a blank line)."""
    lines = text.split("\n" + title, 1)[1].split("\n\n", 1)[0].splitlines()
    return [l for l in lines[1:]]


def commands():
    return re.findall(r"^  (\w+)(?: |$)", "\n".join(section(vt_help(), "Commands:")), re.M)


def man_section(man, name):
    return man.split(".SH " + name, 1)[1].split("\n.SH ", 1)[0]


def case_cli_reference():
    """Every command, option, environment variable and exit status of the
    help (printed from one table) is in the man page and docs/cli.md; every
    option the parsers take is in the help; every variable the code reads
    is in the help; `vramtrace --help` names watch and torch-snapshot."""
    man, cli = read("tools/vramtrace.1"), read("docs/cli.md")
    main = vt_help()
    H.expect("  watch " in main and "torch-snapshot" in main, main)
    names = commands()
    H.expect_eq("commands", sorted(names),
                ["attach", "check", "detach", "export", "gpus", "lib", "report", "run", "timeline",
                 "watch"])
    missing = []
    helped = set()
    for cmd in names:
        H.expect("### vramtrace %s" % cmd in cli, "docs/cli.md has no section for %s" % cmd)
        H.expect(".B vramtrace %s" % cmd in man, "the man page has no synopsis of %s" % cmd)
        text = vt_help(cmd)
        for option in re.findall(r"^  (?:-\w, )?(--[\w-]+)", "\n".join(section(text, "Options:")),
                                 re.M):
            helped.add(option)
            if "`%s" % option not in cli:
                missing.append("docs/cli.md: %s %s" % (cmd, option))
            if option.replace("-", "\\-") not in man:
                missing.append("man page: %s %s" % (cmd, option))
        statuses = re.findall(r"^  (\S+)  ", "\n".join(section(text, "Exit status:")), re.M)
        exit_man = man_section(man, "EXIT STATUS")
        exit_cli = cli.split("## Exit statuses", 1)[1]
        for status in statuses:
            if not re.search(r"^\| %s \|" % re.escape(status), exit_cli, re.M):
                missing.append("docs/cli.md exit statuses: %s %s" % (cmd, status))
            if status.replace("-", "\\-") not in exit_man:
                missing.append("man page EXIT STATUS: %s %s" % (cmd, status))
    variables = re.findall(r"^  (VRAMTRACE_\w+)", "\n".join(section(main, "Environment:")), re.M)
    for var in variables:
        if "`%s" % var not in cli:
            missing.append("docs/cli.md: %s" % var)
        if ".B %s" % var not in man_section(man, "ENVIRONMENT"):
            missing.append("man page ENVIRONMENT: %s" % var)
    sources = [p for d in ("src", "tools") for p in glob.glob(os.path.join(root(), d, "**", "*.[ch]"),
                                                          recursive=True)]
    code = "".join(open(p, encoding="utf-8").read() for p in sources)
    for var in sorted(set(re.findall(r'getenv\("(VRAMTRACE_\w+)"\)', code))):
        if var not in variables:
            missing.append("vramtrace --help Environment: %s (read by the code)" % var)
    parsers = "".join(open(p, encoding="utf-8").read()
                      for p in glob.glob(os.path.join(root(), "tools", "cmd", "*.[ch]")))
    for name in sorted(set(re.findall(r'\{"([\w-]+)", (?:no|required|optional)_argument', parsers))):
        if name != "help" and "--" + name not in helped:
            missing.append("a command's --help: --%s (parsed, not in any help)" % name)
    H.expect(not missing, "not documented:\n  " + "\n  ".join(missing))


H.main(globals())
