#!/bin/bash
# The documentation against the code and the tests, so that neither drifts:
#  - every message the hook can print at warn or error level has its entry
#    in cnihook-troubleshooting(7), MESSAGES (tests/tools/messages.py: a
#    message without one is named with its file and line, and
#    `tests/tools/messages.py missing .` prints the entries to fill in);
#  - every command of the README's quick starts and of the man pages'
#    EXAMPLES that is marked "run by tests/e2e/X.sh" is a line of that
#    script, as it is written there: the examples are the e2e tests'
#    commands, run by CI with the engines, not run twice here;
#  - the man pages render without a warning of groff;
#  - every path, file and function that docs/architecture.md names in
#    backquotes exists in the tree (tests/tools/docrefs.py), so that the
#    map of the code cannot drift from it, and every section of it that
#    a file cites (by the document's path, a comma and "SECTION") is
#    there; and the
#    check itself fails on a copy of the tree given a name it lacks.
# Needs python3 (the message extraction); no root.
. "$abs_top_srcdir/tests/harness/lib.sh"
: "${abs_top_builddir:?}"
set +e
require_cmd python3

src=$abs_top_srcdir

# ---------------------------------------------------------------- messages
out=$(python3 "$src/tests/tools/messages.py" check "$src" 2>&1)
if [ $? = 0 ]; then
	ok "every warn/error message of the hook has its entry in cnihook-troubleshooting(7) (${out##*$'\n'})"
else
	not_ok "every warn/error message of the hook has its entry in cnihook-troubleshooting(7)" \
		"$out"$'\n'"(tests/tools/messages.py missing \$srcdir prints the entries to add, for docs/cnihook-troubleshooting.7.in)"
fi

# ---------------------------------------------------------------- examples
# blocks FILE KIND: "SCRIPT<US>DATA<US>LINE" (US: the byte 0x1f; DATA empty
# but for "run by SCRIPT from DATA") for each command line of the blocks
# of FILE marked as run by SCRIPT: in markdown (KIND md) a fenced block
# right after a line <!-- run by tests/e2e/X.sh -->; in roff (KIND roff) the
# .nf ... .fi block after a line .\" run by tests/e2e/X.sh, roff's escapes
# undone. Blank lines and lines that are only a comment are not commands;
# a trailing "  # comment" is dropped; a line ending in a backslash is
# joined to the next (as the shell reads it) only when the script writes
# it so too, so lines are compared one by one, trimmed.
blocks() {
	python3 - "$1" "$2" <<'EOF'
import re, sys
path, kind = sys.argv[1], sys.argv[2]
mark = re.compile(r'(?:<!--|\.\\") run by (tests/[A-Za-z0-9_/.-]+\.sh)(?: from ([A-Za-z0-9_/.-]+))?')
script, inside = None, False
for raw in open(path, encoding='utf-8'):
    line = raw.rstrip('\n')
    m = mark.search(line)
    if m and not inside:
        script = m.group(1) + '\x1f' + (m.group(2) or '')
        continue
    if script is None:
        continue
    if not inside:
        if (kind == 'md' and line.startswith('```')) or (kind == 'roff' and line.startswith('.nf')):
            inside = True
        elif line.strip() and not line.startswith('.'):
            script = None
        continue
    if (kind == 'md' and line.startswith('```')) or (kind == 'roff' and line.startswith('.fi')):
        inside, script = False, None
        continue
    if kind == 'roff':
        if line.startswith('.'):
            continue
        line = re.sub(r'\\f[BIRP]', '', line).replace('\\-', '-').replace('\\e', '\\')
        line = line.replace('\\(dq', '"').replace('\\(aq', "'").replace('\\&', '')
        # the paths as configure's defaults make them (the README's /usr/local)
        line = line.replace('@datadir@', '/usr/local/share').replace('@sysconfdir@', '/usr/local/etc')
        line = line.replace('@bindir@', '/usr/local/bin')
    line = re.sub(r'\s+#\s.*$', '', line).strip()
    if not line or line.startswith('#'):
        continue
    print(f'{script}\x1f{line}')
EOF
}
# trimmed FILE: its lines without leading and trailing white space and
# without a trailing "  # comment", as blocks prints a block's lines.
trimmed() {
	sed -E 's/^[[:space:]]+//; s/[[:space:]]+#[[:space:]].*$//; s/[[:space:]]+$//' "$1"
}
# examples FILE KIND WHAT: check the marked blocks of FILE. A block marked
# "run by SCRIPT from DATA" shows a file the script uses (a configuration):
# its lines are DATA's, and SCRIPT must name DATA.
examples() {
	local file=$1 kind=$2 what=$3 n=0 bad='' script data line in
	while IFS=$'\x1f' read -r script data line; do
		n=$((n + 1))
		in=${data:-$script}
		if [ ! -f "$src/$script" ]; then
			bad+="$script (named by $what) does not exist"$'\n'
		elif [ -n "$data" ] && ! grep -qF -- "$data" "$src/$script"; then
			bad+="$script does not use $data (named by $what)"$'\n'
		elif [ ! -f "$src/$in" ]; then
			bad+="$in (named by $what) does not exist"$'\n'
		elif ! trimmed "$src/$in" >"$T_TMP/lines" || ! grep -qxF -- "$line" "$T_TMP/lines"; then
			bad+="$in does not have this line of $what: $line"$'\n'
		fi
	done < <(blocks "$file" "$kind")
	if [ "$n" = 0 ]; then
		not_ok "$what has examples marked as run by an e2e test" "no block marked <!-- run by tests/e2e/X.sh --> or .\\\" run by tests/e2e/X.sh"
	elif [ -z "$bad" ]; then
		ok "the $n command lines of $what's examples are the e2e tests' own"
	else
		not_ok "the $n command lines of $what's examples are the e2e tests' own" "${bad%$'\n'}"
	fi
}
examples "$src/README.md" md README.md
examples "$src/docs/cnihook.8.in" roff "cnihook(8)"

# ---------------------------------------------------------------- names
out=$(python3 "$src/tests/tools/docrefs.py" check "$src" 2>&1)
if [ $? = 0 ]; then
	ok "every path, file and function docs/architecture.md names is in the tree (${out##*$'\n'})"
else
	not_ok "every path, file and function docs/architecture.md names is in the tree" "$out"
fi
# The check fails on a planted name: a copy of the tree's code and the
# document, the document given a function, a path and a file that do not
# exist, each of which must be named.
plant=$T_TMP/docrefs doc=docs/architecture.md
mkdir -p "$plant" && for d in common lib hook tests config docs Makefile.am configure.ac; do
	cp -r "$src/$d" "$plant/" || break; done &&
	printf '%s\n' '' 'Planted: `no_such_function_xyz()`, `hook/engine/no-such-file.c`, `no-such-file.c`.' \
		>>"$plant/docs/architecture.md" &&
	printf '# as the document says (%s, "No such\n# section here")\n' "$doc" \
		>"$plant/tests/planted.sh"
out=$(python3 "$src/tests/tools/docrefs.py" check "$plant" 2>&1)
if [ $? = 1 ] && [ "$(wc -l <<<"$out")" = 4 ] && grep -q 'no_such_function_xyz' <<<"$out" &&
	grep -q 'hook/engine/no-such-file.c' <<<"$out" && grep -q '`no-such-file.c`' <<<"$out" &&
	grep -qF "tests/planted.sh: cites $doc, \"No such section here\"" <<<"$out"; then
	ok "docrefs.py names a planted function, path, file and cited section that the tree lacks"
else
	not_ok "docrefs.py names a planted function, path, file and cited section that the tree lacks" "$out"
fi

# ---------------------------------------------------------------- rendering
if command -v groff >/dev/null; then
	for p in cnihook.8 cnihook.json.5 cnihook-annotations.7 cnihook-troubleshooting.7; do
		f=$abs_top_builddir/docs/$p
		if [ ! -f "$f" ]; then
			not_ok "$p renders without a warning" "$f was not built"
			continue
		fi
		w=$(groff -t -man -Tutf8 -ww -Wbreak -z "$f" 2>&1)
		if [ -z "$w" ]; then ok "$p renders without a warning"; else
			not_ok "$p renders without a warning" "$w"; fi
	done
else
	skip "no groff: the man pages' rendering is not checked"
fi
finish
