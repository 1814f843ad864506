#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The names docs/architecture.md gives the code, held to the tree, so that
the map cannot drift from what it maps.

  docrefs.py check SRCDIR   prints each name the document gives that the
                            tree lacks, as DOC:LINE: why, and exits 1 if
                            there is one (0 and a count if none)

What is checked, in every `...` span of the document (fenced blocks too):
  - a path of the tree: a span that starts with common/, lib/, hook/,
    config/, docs/ or tests/ (a folder when it ends in /), or that starts
    with one of hook/'s folders (engine/run.c, base/error.h): it must exist
    (a path with <...>, *, {...} or a space is a pattern, not a name), or
    the template it is made from (PATH.in), or it is a product the build
    names (Makefile.am, configure.ac: hook/cnihook-shared);
  - a file name alone (attach.c, cnirt.h): some file of common/, lib/,
    hook/ or tests/ has it;
  - a function, written with its parentheses (`error_set()`,
    `sandbox_apply(data, type)`): a C source or header of common/, lib/,
    hook/ or tests/ names it followed by "(" (a definition, a declaration
    or a call: the name is in the code).
Table rows of the form | `folder/` | `file.c` | ... (the map of hook/)
give the folder to the files of the rows that follow, which must then be
in that folder.

And the other way: where a file of the tree (code, tests, docs) cites a
section as (docs/architecture.md, "SECTION"), the document has a heading
that starts with SECTION, or a line that does (the floors, on the first
screen, have none), so that a section renamed or removed is seen.
"""
import os
import re
import sys

DOC = "docs/architecture.md"
TOPS = ("common/", "lib/", "hook/", "config/", "docs/", "tests/")
CODE_TOPS = ("common", "lib", "hook", "tests")
SPAN = re.compile(r"`([^`\n]+)`")
FUNC = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\(.*\)$")
FILE = re.compile(r"^[A-Za-z0-9_.+-]+\.(?:c|h|py|sh)$")
PATTERN = re.compile(r"[<>*{} ]|\.\.\.")
ROW = re.compile(r"^\|\s*(`[^`]*`)?\s*\|\s*`([^`]+)`\s*\|")


def tree(src):
    files, names = set(), set()
    for top in CODE_TOPS + ("config", "docs"):
        for d, dirs, fs in os.walk(os.path.join(src, top)):
            dirs[:] = [x for x in dirs if not x.startswith(".")]
            rel = os.path.relpath(d, src)
            files.add(rel + "/")
            for f in fs:
                files.add(os.path.join(rel, f))
                if rel.split("/")[0] in CODE_TOPS:
                    names.add(f)
    return files, names


def code_text(src):
    out = []
    for top in CODE_TOPS:
        for d, dirs, fs in os.walk(os.path.join(src, top)):
            dirs[:] = [x for x in dirs if not x.startswith(".")]
            for f in fs:
                if f.endswith((".c", ".h")):
                    with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                        out.append(fh.read())
    return "\n".join(out)


def build_text(src):
    out = []
    for f in ("Makefile.am", "configure.ac"):
        try:
            with open(os.path.join(src, f), encoding="utf-8") as fh:
                out.append(fh.read())
        except OSError:
            pass
    return "\n".join(out)


def check(src):
    files, names = tree(src)
    build = build_text(src)

    def exists(path):
        if path in files or path + ".in" in files:
            return True
        return re.search(r"(?<![\w/.-])" + re.escape(path.rstrip("/")) + r"(?![\w/-])", build) is not None

    hook_dirs = {p.split("/")[1] for p in files if p.startswith("hook/") and p.count("/") == 2 and p.endswith("/")}
    code = code_text(src)
    known_funcs = set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", code))
    problems, count = [], 0
    folder = None
    with open(os.path.join(src, DOC), encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    for n, line in enumerate(lines, 1):
        row = ROW.match(line)
        if row and row.group(1) and row.group(1).strip("`").endswith("/"):
            folder = "hook/" + row.group(1).strip("`")
        elif not row:
            folder = None
        for span in SPAN.findall(line):
            span = span.strip()
            m = FUNC.match(span)
            if m:
                count += 1
                if m.group(1) not in known_funcs:
                    problems.append(f"{DOC}:{n}: function `{span}`: no such function in the code")
                continue
            if PATTERN.search(span):
                continue
            if span.startswith(TOPS):
                count += 1
                if not exists(span):
                    problems.append(f"{DOC}:{n}: `{span}`: no such path in the tree")
                continue
            head = span.split("/")[0]
            if "/" in span and head in hook_dirs:
                count += 1
                if not exists("hook/" + span):
                    problems.append(f"{DOC}:{n}: `{span}`: no such path in hook/")
                continue
            if FILE.match(span) and "/" not in span:
                count += 1
                if folder and row and span == row.group(2) and span.endswith((".c", ".h")):
                    if folder + span not in files:
                        problems.append(f"{DOC}:{n}: `{span}`: not in {folder}")
                elif span not in names and span not in {os.path.basename(p) for p in files}:
                    problems.append(f"{DOC}:{n}: `{span}`: no file of that name in the tree")
    return problems, count


CITE = re.compile(r'docs/architecture\.md,\s*"([^"]+)"')
CITE_DIRS = ("common", "lib", "hook", "tests", "docs", "config")


def citations(src):
    """(file, section as written, section) for each citation of DOC's."""
    paths = [os.path.join(src, f) for f in ("README.md", "Makefile.am", "configure.ac")]
    for top in CITE_DIRS:
        for d, dirs, fs in os.walk(os.path.join(src, top)):
            dirs[:] = [x for x in dirs if not x.startswith(".")]
            paths += [os.path.join(d, f) for f in fs]
    for path in sorted(paths):
        rel = os.path.relpath(path, src)
        if rel in (DOC, "tests/tools/docrefs.py") or not rel.endswith((".c", ".h", ".sh", ".py", ".md", ".am", ".ac", ".in")):
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        # a citation may run over a comment's line break: join the lines,
        # their comment leaders dropped
        joined = re.sub(r"\n\s*(?:\*(?!/)|#|//)?\s*", " ", text)
        for m in CITE.finditer(joined):
            yield rel, m.group(1), " ".join(m.group(1).split())


def check_citations(src):
    with open(os.path.join(src, DOC), encoding="utf-8") as fh:
        starts = [re.sub(r"^#+\s*", "", l).strip() for l in fh.read().split("\n")]
    starts = [" ".join(l.replace("`", "").split()) for l in starts if l]
    problems, count = [], 0
    for rel, raw, section in citations(src):
        count += 1
        want = section.replace("`", "")
        if not any(l.startswith(want) for l in starts):
            problems.append(f'{rel}: cites {DOC}, "{section}": no such section')
    return problems, count


def main(argv):
    if len(argv) != 3 or argv[1] != "check":
        print(__doc__, file=sys.stderr)
        return 2
    problems, count = check(argv[2])
    cited, ncited = check_citations(argv[2])
    for p in problems + cited:
        print(p)
    if problems or cited:
        return 1
    print(f"{count} names of {DOC} found in the tree, {ncited} citations of its sections found in it")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
