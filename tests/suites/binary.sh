#!/bin/bash
# What the build made (Makefile.am, configure.ac): cnihook is a
# position-independent executable (its addresses are randomised: it runs as
# root on what containers' annotations say), statically linked as a static
# PIE or dynamically linked; libcnirt exports its cnirt_ functions and
# nothing else, from libcnirt.so and from libcnirt.a.
. "$abs_top_srcdir/tests/harness/lib.sh"
: "${CNIHOOK:?}" "${abs_top_builddir:?}"

require_cmd readelf nm
set +e
rc=0 out='' err='' # the last cnihook run, which tap_not_ok shows
hook_binary

# elf_type FILE: readelf's "Type:" of FILE (EXEC, DYN, ...)
elf_type() { readelf -h "$1" 2>/dev/null | sed -n 's/^ *Type: *\([A-Z]*\).*/\1/p'; }

t=$(elf_type "$HOOKBIN")
if [ "$t" = DYN ]; then
	ok "cnihook ($HOOKBIN) is a position-independent executable (Type: DYN)"
else
	not_ok "cnihook ($HOOKBIN) is a position-independent executable (Type: DYN)" \
		"readelf -h says Type: ${t:-nothing}"
fi
# A static PIE has no program interpreter, a dynamic one loads its libraries.
if readelf -l "$HOOKBIN" | grep INTERP >/dev/null; then
	log "cnihook is dynamically linked: $(readelf -d "$HOOKBIN" | grep -c NEEDED) shared libraries"
	check "the dynamically linked cnihook needs libcnirt.so" \
		eval 'readelf -d "$HOOKBIN" | grep "NEEDED.*libcnirt\.so" >/dev/null'
else
	log "cnihook is statically linked"
	check "the static cnihook needs no shared library" \
		not eval 'readelf -d "$HOOKBIN" | grep NEEDED >/dev/null'
	check "the static cnihook relocates itself (DT_FLAGS_1 PIE)" \
		eval 'readelf -d "$HOOKBIN" | grep "Flags:.*PIE" >/dev/null'
fi
check "cnihook runs" eval '"$CNIHOOK" --version | grep -q "^cnihook "'

so=$abs_top_builddir/lib/.libs/libcnirt.so
a=$abs_top_builddir/lib/.libs/libcnirt.a
# others FILE...: the defined global symbols of FILE but cnirt_*
others() { nm "$@" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[A-TV-Z]$/ && $3 !~ /^cnirt_/ {print $3}' | sort -u; }
if [ -f "$so" ]; then
	check "libcnirt.so exports cnirt_ functions" eval 'nm -D --defined-only "$so" | grep " T cnirt_ctx_new$" >/dev/null'
	x=$(others -D --defined-only "$so")
	if [ -z "$x" ]; then ok "libcnirt.so exports nothing but cnirt_*"; else
		not_ok "libcnirt.so exports nothing but cnirt_*" "$x"; fi
else
	skip "no lib/.libs/libcnirt.so (configured --disable-shared)"
fi
if [ -f "$a" ]; then
	check "libcnirt.a defines cnirt_ functions" eval 'nm "$a" | grep " T cnirt_ctx_new$" >/dev/null'
	x=$(others "$a")
	if [ -z "$x" ]; then ok "libcnirt.a's symbols other than cnirt_* are local"; else
		not_ok "libcnirt.a's symbols other than cnirt_* are local" "$x"; fi
else
	skip "no lib/.libs/libcnirt.a (configured --disable-static)"
fi
finish
