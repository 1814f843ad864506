#!/bin/bash
# libcnirt as an engine links it: this build's library,
# header and libcnirt.pc installed into a staging directory (DESTDIR), then
# tests/engine/mini-engine.c built from the installed .pc alone (pkg-config
# sees no other .pc file, so not yajl.pc either), once dynamically and once
# fully statically (`pkg-config --static`: yajl from Libs.private, Debian's
# libyajl_s.a), and both run an ADD and a DEL against the fake plugin; then
# the threaded engine (tests/engine/engine.c) the same two ways.
# Needs no root: the fake plugin touches no network.
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
: "${FAKEPLUGIN:?}"
build=${abs_top_builddir:-$(cd "$(dirname "$FAKEPLUGIN")/../.." && pwd)}
require_cmd pkg-config "${CC:-cc}"

tmp=$(mktemp -d /tmp/cnirt-pkgconfig-XXXXXX)
cleanup_push "rm -rf '$tmp'"
stage=$tmp/stage

# make in the build tree as a command of its own (not a sub-make of make check)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u DESTDIR \
	make -C "$build" install-libLTLIBRARIES install-includeHEADERS install-pkgconfigDATA \
	DESTDIR="$stage" >"$tmp/install.log" 2>&1 ||
	fail "make install DESTDIR=$stage: $(tail -20 "$tmp/install.log")"
pc=$(find "$stage" -name libcnirt.pc)
[ -n "$pc" ] || fail "no libcnirt.pc installed under $stage"
so=$(find "$stage" -name 'libcnirt.so.*' -type f | head -1)
libdir=${so%/*}
[ -f "$libdir/libcnirt.a" ] || fail "no libcnirt.a installed beside $so (configure --disable-static?)"

# Only the installed .pc; paths inside it are relative to the staging root.
pkgc() {
	env -u PKG_CONFIG_PATH PKG_CONFIG_LIBDIR="${pc%/*}" PKG_CONFIG_SYSROOT_DIR="$stage" \
		pkg-config "$@"
}
bin=$tmp/bin
mkdir -p "$bin"
cp "$FAKEPLUGIN" "$bin/fake"

run_case_dynamic() {
	checking "pkg-config --cflags --libs libcnirt works without yajl.pc, and adds no yajl path"
	flags=$(pkgc --cflags --libs libcnirt) || fail "pkg-config --cflags --libs libcnirt failed"
	case $flags in *yajl*) fail "dynamic flags name yajl: $flags" ;; esac
	ok "$flags"
	checking "a dynamic engine builds and runs"
	# shellcheck disable=SC2086
	"${CC:-cc}" -o "$tmp/engine-dynamic" "$srcdir/tests/engine/mini-engine.c" $flags \
		2>"$tmp/cc.log" || fail "cc: $(cat "$tmp/cc.log")"
	# ldd's output whole first: grep -q stops reading early, and ldd's
	# SIGPIPE would fail the pipeline (pipefail).
	libs=$(LD_LIBRARY_PATH=$libdir ldd "$tmp/engine-dynamic")
	grep -qF "$libdir/libcnirt.so" <<<"$libs" ||
		fail "not linked to the installed libcnirt.so: $libs"
	out=$(LD_LIBRARY_PATH=$libdir "$tmp/engine-dynamic" "$bin" "$tmp/cache-d" fake) ||
		fail "engine-dynamic failed: $out"
	grep -q "added and deleted, 1 cached attachment" <<<"$out" || fail "engine-dynamic said: $out"
	ok "$out"
}

run_case_static() {
	checking "pkg-config --static --libs libcnirt gives what a fully static link needs"
	flags=$(pkgc --static --cflags --libs libcnirt) || fail "pkg-config --static failed"
	ok "$flags"
	checking "a fully static engine builds and runs"
	# shellcheck disable=SC2086
	"${CC:-cc}" -static -o "$tmp/engine-static" "$srcdir/tests/engine/mini-engine.c" $flags \
		2>"$tmp/cc.log" || fail "cc -static: $(cat "$tmp/cc.log")"
	if readelf -d "$tmp/engine-static" 2>/dev/null | grep NEEDED >/dev/null; then
		fail "engine-static needs shared libraries: $(readelf -d "$tmp/engine-static" | grep NEEDED)"
	fi
	out=$("$tmp/engine-static" "$bin" "$tmp/cache-s" fake) || fail "engine-static failed: $out"
	grep -q "added and deleted, 1 cached attachment" <<<"$out" || fail "engine-static said: $out"
	ok "$out"
}

# tests/engine/engine.c, the threaded engine with its own child reaping,
# built the same two ways from the installed .pc alone: each link runs two
# of its process models (a SIGCHLD handler reaping with waitpid(-1), a
# reaper thread) with a few runs per thread; make check runs all of them.
run_case_threaded() {
	local how=$1 exe=$tmp/threaded-$1 flags
	checking "the threaded engine links $how from the installed libcnirt.pc and runs"
	if [ "$how" = static ]; then
		flags=$(pkgc --static --cflags --libs libcnirt) || fail "pkg-config --static failed"
	else
		flags=$(pkgc --cflags --libs libcnirt) || fail "pkg-config failed"
	fi
	# shellcheck disable=SC2086
	"${CC:-cc}" $([ "$how" = static ] && echo -static) -pthread -o "$exe" \
		"$srcdir/tests/engine/engine.c" $flags 2>"$tmp/cc.log" || fail "cc: $(cat "$tmp/cc.log")"
	if [ "$how" = static ] && readelf -d "$exe" 2>/dev/null | grep NEEDED >/dev/null; then
		fail "the static engine needs shared libraries: $(readelf -d "$exe" | grep NEEDED)"
	fi
	out=$(ENGINE_RUNS=3 LD_LIBRARY_PATH=$libdir "$exe" handler reaper 2>&1) ||
		fail "the $how engine failed: $(tr '\n' ' ' <<<"$out")"
	[ "$(grep -c '^ok ' <<<"$out")" = 2 ] || fail "the $how engine said: $(tr '\n' ' ' <<<"$out")"
	ok "$how: $(grep '^ok ' <<<"$out" | sed 's/^ok //' | tr '\n' ';')"
}

run_case "dynamic link from the installed libcnirt.pc" run_case_dynamic
run_case "static link from the installed libcnirt.pc" run_case_static
run_case "the threaded engine, dynamic, from the installed libcnirt.pc" run_case_threaded dynamic
run_case "the threaded engine, fully static, from the installed libcnirt.pc" run_case_threaded static
finish
