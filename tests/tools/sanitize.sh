#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# The unit and conformance tests under AddressSanitizer (with LeakSanitizer)
# and UndefinedBehaviorSanitizer, in a build of their own.
#
#     tests/tools/sanitize.sh [BUILD_DIR]
#
# BUILD_DIR (default: a temporary directory, removed afterwards) is
# configured with CC (default clang) and
# CFLAGS=LDFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all
# -fno-omit-frame-pointer -g -O1", built, and `make check` runs the tests of
# UNIT_TESTS (unit and conformance). Any sanitizer report fails: the
# process aborts (abort_on_error, halt_on_error, no recovery compiled in),
# and the test logs are searched for reports that a child process (a fake
# plugin) printed.
#
# When the source tree is configured in place (as CI does), the build uses
# a copy of the distribution files (make distdir): automake refuses a
# second build of a tree configured in place.
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-clang}
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
jobs=$(nproc)

tmp=$(mktemp -d /tmp/cnihook-sanitize.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${1:-}" ]; then
	mkdir -p "$1"
	build=$(cd "$1" && pwd)
else
	build=$tmp/build
	mkdir -p "$build"
fi

src=$srcdir
if [ -f "$srcdir/config.status" ]; then
	echo "sanitize.sh: the source tree is configured in place: building a copy (make distdir)"
	make -s -C "$srcdir" distdir distdir="$tmp/src" >/dev/null
	src=$tmp/src
fi

cd "$build"
if [ ! -f Makefile ]; then
	echo "sanitize.sh: configuring $build with CC=$cc CFLAGS=\"$san\""
	"$src/configure" -q CC="$cc" CFLAGS="$san" LDFLAGS="$san"
fi
make -s -j"$jobs" >/dev/null

# Plugins that run inside the hook's sandbox (seccomp, no capabilities,
# no_new_privs) cannot run LeakSanitizer, which needs ptrace: at exit it
# fails ("LeakSanitizer has encountered a fatal error") and so does the
# plugin. The plain-libc test plugins are built without sanitizers; the
# fake plugin (which links the library) stays instrumented.
for p in evilplugin echoplugin; do
	grep -q "^tests_plugins_${p}_SOURCES" Makefile || continue
	rm -f "tests/plugins/$p" "tests/plugins/$p.o"
	make -s "tests/plugins/$p" CFLAGS="-g -O1" LDFLAGS= >/dev/null
done

# The unit and conformance tests, as Makefile.am lists them.
tests=$(sed -n '/^UNIT_TESTS = /,/[^\\]$/p' Makefile | sed -e 's/^UNIT_TESTS = //' -e 's/\\//g' |
	tr -s ' \t\n' ' ')
[ -n "${tests// /}" ] || {
	echo "sanitize.sh: no UNIT_TESTS in $build/Makefile" >&2
	exit 1
}

# detect_leaks: LeakSanitizer at exit. Plugins the tests run get none of
# these variables (the library gives them only CNI_* and PATH): for them
# the defaults apply, which also detect leaks, and -fno-sanitize-recover
# makes any UB report fatal.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=print_suppressions=0

status=0
echo "sanitize.sh: make check TESTS=\"$tests\""
make -j"$jobs" check TESTS="$tests" >"$tmp/check.out" 2>&1 || status=$?
grep -E '^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR):|^# ' "$tmp/check.out" || true

# Reports in any log (a child's report may reach the test only as a plugin
# failure message).
reports=$(grep -lE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (Address|Undefined|Leak)' \
	tests/unit/*/*.log tests/unit/*/*/*.log tests/conformance/*.log 2>/dev/null || true)
if [ -n "$reports" ]; then
	echo "sanitize.sh: sanitizer reports in:"
	for f in $reports; do
		echo "==== $f"
		grep -E -A30 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$f" | head -60
	done
	status=1
fi
if [ "$status" -ne 0 ]; then
	for f in $(grep -lE '^(FAIL|ERROR):' tests/unit/*/*.log tests/unit/*/*/*.log tests/conformance/*.log 2>/dev/null || true); do
		echo "==== $f"
		tail -40 "$f"
	done
	echo "sanitize.sh: FAILED"
	exit 1
fi
echo "sanitize.sh: unit and conformance tests pass under ASan+LSan+UBSan, no report"
