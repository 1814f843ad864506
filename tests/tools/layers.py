#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The floors of the production code, held (docs/architecture.md, "The
floors"): every #include "..." of common/, lib/ and hook/ is checked
against them, and so is the floors block of docs/architecture.md.

  layers.py check SRCDIR   prints each violation as FILE:LINE: why, and
                           exits 1 if there is one (0 and a count if none)
  layers.py floors         prints the floors, top first

Rules:
  - a folder of hook/ includes its own headers and those of the folders
    on lower floors, never one on its floor or above (hook/main.c stands
    above every floor);
  - common/ includes only its own headers; lib/ its own and common/'s;
  - lib's internal.h is included only in lib/ (and lib's unit tests);
  - no production file includes a header of tests/;
  - a header of hook/ is guarded by CNIHOOK_<FOLDER>_<FILE>_H, its path.
"""
import os
import re
import sys

# hook/'s folders, floor by floor, the top first: a folder stands on those
# below it. Kept in step with docs/architecture.md's floors block, which
# `check` compares with this list.
FLOORS = [
    ["cmd"],
    ["engine"],
    ["names"],
    ["conf"],
    ["state", "host"],
    ["request"],
    ["base"],
]
FLOOR = {f: len(FLOORS) - 1 - i for i, row in enumerate(FLOORS) for f in row}
COMMON_HEADERS = {"common.h", "json.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
GUARD = re.compile(r"^#ifndef (\w+)\n#define \1\n", re.M)
# Headers whose guard still carries an older name: files that other
# branches edit at the time of writing, renamed once they are merged.
GUARDS_PENDING = set()
DOC = "docs/architecture.md"
DOC_MARK = "<!-- floors: checked by tests/tools/layers.py -->"


def sources(src, top):
    base = os.path.join(src, top)
    for d, _, files in os.walk(base):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(d, f), src)


def includes(src, rel):
    with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            m = INCLUDE.match(line)
            if m:
                yield n, m.group(1)


def hook_problem(rel, inc):
    """Why hook/ file rel may not include inc, or None."""
    parts = rel.split("/")
    head = inc.split("/")[0] if "/" in inc else None
    if os.path.basename(inc) == "internal.h":
        return "lib's internal.h outside lib/"
    if inc.startswith("tests/") or inc in ("hooktest.h", "tmpdir.h"):
        return "a header of tests/ in production code"
    if head not in FLOOR:
        return None  # config.h, common's and lib's public headers
    if len(parts) == 2:  # hook/main.c
        return None
    if len(parts) != 3 or parts[1] not in FLOOR:
        return "a file in no folder of the floors (tests/tools/layers.py FLOORS)"
    own = parts[1]
    if head == own or FLOOR[head] < FLOOR[own]:
        return None
    if FLOOR[head] == FLOOR[own]:
        return "%s/ includes %s/, on its own floor (floor %d): sideways" % (
            own, head, FLOOR[own])
    return "%s/ (floor %d) includes %s/ (floor %d): upwards" % (
        own, FLOOR[own], head, FLOOR[head])


def lower_problem(rel, inc):
    """Why a file of common/ or lib/ may not include inc, or None."""
    top = rel.split("/")[0]
    if inc == "config.h":
        return None
    if top == "common":
        return None if inc in COMMON_HEADERS else \
            "common/ includes only its own headers"
    if inc in COMMON_HEADERS or "/" not in inc:
        return None  # lib's own headers (internal.h, cnirt.h) and common's
    return "lib/ includes only its own headers and common's"


def guard_problem(src, rel):
    """Why the guard of hook/ header rel is not its path's, or None."""
    want = "CNIHOOK_" + re.sub(r"[/-]", "_", rel[len("hook/"):-len(".h")]).upper() + "_H"
    with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as fh:
        m = GUARD.search(fh.read())
    if m and m.group(1) == want:
        return None
    return "guarded by %s, not %s (its path)" % (m.group(1) if m else "no #ifndef/#define", want)


def doc_floors(src):
    """The floors block of docs/architecture.md: the lines of the fenced
    block after DOC_MARK, as [[folder, ...], ...], top first; None when
    the mark is missing."""
    path = os.path.join(src, DOC)
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    if DOC_MARK not in lines:
        return None
    i = lines.index(DOC_MARK) + 1
    while i < len(lines) and not lines[i].startswith("```"):
        i += 1
    rows = []
    for line in lines[i + 1:]:
        if line.startswith("```"):
            break
        m = re.match(r"^floor (\d+)\s+((?:hook/\w+/\s*)+)", line)
        if m:
            rows.append([f[len("hook/"):-1] for f in m.group(2).split()])
    return rows


def check(src):
    problems = []
    count = 0
    for top in ("common", "lib", "hook"):
        for rel in sources(src, top):
            for n, inc in includes(src, rel):
                count += 1
                why = hook_problem(rel, inc) if top == "hook" else lower_problem(rel, inc)
                if why:
                    problems.append("%s:%d: #include \"%s\": %s" % (rel, n, inc, why))
            if top == "hook" and rel.endswith(".h") and rel not in GUARDS_PENDING:
                why = guard_problem(src, rel)
                if why:
                    problems.append("%s: %s" % (rel, why))
    rows = doc_floors(src)
    if rows is None:
        problems.append("%s: no floors block (a line %s, then a fenced block)" % (DOC, DOC_MARK))
    elif rows != FLOORS:
        problems.append("%s: the floors block says %s; the build holds %s (tests/tools/layers.py)"
                        % (DOC, rows, FLOORS))
    for p in problems:
        print(p)
    if problems:
        return 1
    print("%d includes of common/, lib/ and hook/ on their floors" % count)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "check":
        return check(argv[2])
    if len(argv) == 2 and argv[1] == "floors":
        for i, row in enumerate(FLOORS):
            print("floor %d  %s" % (len(FLOORS) - 1 - i, "  ".join("hook/%s/" % f for f in row)))
        return 0
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
