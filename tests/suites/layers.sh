#!/bin/bash
# The floors of the production code (docs/architecture.md, first screen):
# tests/tools/layers.py checks every #include of common/, lib/ and hook/
# and the floors block of docs/architecture.md. Then, so that the check is
# known to bite, it is run on a copy of the sources with one violation
# planted at a time: an include from a lower floor to a higher one, one
# sideways, lib's internal.h in hook/, a header of tests/ in production
# code, a header guarded by another name than its path's, and a floors
# block that says otherwise. Needs python3; no root,
# nothing outside a temporary directory.
. "$abs_top_srcdir/tests/harness/lib.sh"
set +e
require_cmd python3

src=$abs_top_srcdir
layers=$src/tests/tools/layers.py

out=$(python3 "$layers" check "$src" 2>&1)
if [ $? = 0 ]; then
	ok "every include stands on its floor, and docs/architecture.md says the floors the build holds (${out##*$'\n'})"
else
	not_ok "every include stands on its floor, and docs/architecture.md says the floors the build holds" "$out"
fi

tmp=$(mktemp -d /tmp/cnihook-layers.XXXXXX)
cleanup_push "rm -rf '$tmp'"

# planted WHAT FILE LINE WANT: a copy of the sources with LINE added to
# FILE (or, LINE "s|...", that sed script run on it) is refused, with WANT
# in the message.
planted() {
	local what=$1 file=$2 line=$3 want=$4
	rm -rf "$tmp/src" && mkdir -p "$tmp/src/docs" &&
		cp -r "$src/common" "$src/lib" "$src/hook" "$tmp/src/" &&
		cp "$src/docs/architecture.md" "$tmp/src/docs/" || {
		not_ok "$what: the copy of the sources"
		return
	}
	if [[ $line == "s|"* ]]; then
		sed -i "$line" "$tmp/src/$file"
	else
		printf '%s\n' "$line" >>"$tmp/src/$file"
	fi
	local o
	o=$(python3 "$layers" check "$tmp/src" 2>&1)
	if [ $? = 1 ] && [[ $o == *"$want"* ]]; then
		ok "$what is refused (${o%%$'\n'*})"
	else
		not_ok "$what is refused, naming \"$want\"" "$o"
	fi
}

planted "an upward include (base/ of engine/)" hook/base/log.c \
	'#include "engine/engine.h"' 'hook/base/log.c:'
planted "an upward include (request/ of state/)" hook/request/policy.h \
	'#include "state/layout.h"' 'request/ (floor 1) includes state/ (floor 2): upwards'
planted "a sideways include (state/ of host/)" hook/state/record.c \
	'#include "host/userns.h"' 'state/ includes host/, on its own floor (floor 2): sideways'
planted "lib's internal.h in hook/" hook/cmd/gc.c \
	'#include "internal.h"' "lib's internal.h outside lib/"
planted "a header of tests/ in production code" hook/engine/run.c \
	'#include "hooktest.h"' 'a header of tests/ in production code'
planted "common/ including the hook's" common/file.c \
	'#include "base/util.h"' 'common/ includes only its own headers'
planted "a header guarded by another name" hook/base/table.h \
	's|CNIHOOK_BASE_TABLE_H|CNIHOOK_TABLE_H|' 'guarded by CNIHOOK_TABLE_H, not CNIHOOK_BASE_TABLE_H'
planted "a floors block that says otherwise" docs/architecture.md \
	's|^floor 3  hook/conf/ |floor 3  hook/names/|' 'the floors block says'
finish
