#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# cnihook under valgrind memcheck: the CLI (add, check, del, validate,
# version, and refusals) against recording fake plugins, and the hook stages
# (createRuntime, poststop, a rollback, refused input) with hand-made OCI
# states and a network namespace of our own, as tests/suites/cli.sh and
# tests/suites/hook.sh do. Every run must have zero memcheck errors and zero bytes
# definitely lost.
#
#     tests/tools/valgrind.sh [BUILD_DIR]
#
# BUILD_DIR: a configured and built tree (default: the current directory if
# it is one, else the source tree). The real binary runs (hook/.libs/cnihook,
# or cnihook-shared when cnihook is static, with LD_LIBRARY_PATH=lib/.libs),
# not libtool's wrapper script; plugins are not traced. The hook stages need root and
# ip(8); without them they are skipped (a failure under CNIHOOK_NO_SKIP=1).
set -uo pipefail

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${1:-}" ]; then
	build=$(cd "$1" && pwd)
elif [ -f config.h ] && [ -f Makefile ]; then
	build=$PWD
else
	build=$srcdir
fi
command -v valgrind >/dev/null || {
	echo "valgrind.sh: valgrind is needed" >&2
	exit 2
}
# A statically linked cnihook (configure's default when it can) hides malloc
# from memcheck: the build's hook/cnihook-shared is the same program linked
# to the shared libraries.
prog=cnihook
grep -q '^hook_cnihook_shared_SOURCES' "$build/Makefile" && prog=cnihook-shared
make -s -C "$build" "hook/$prog" tests/plugins/fakeplugin >/dev/null || exit 1
bin_real=$build/hook/.libs/$prog
[ -x "$bin_real" ] || bin_real=$build/hook/$prog # linked without libtool's wrapper
export LD_LIBRARY_PATH=$build/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

uniq=$(printf %04x%04x $(($$ % 65536)) $((RANDOM)))
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cnihook-vg.XXXXXX")
NS=cnihook-vg-$uniq
made_ns=0
cleanup() {
	local m
	# The hook's pins are mounts under $tmp: deepest first.
	for _ in 1 2 3 4 5; do
		m=$(awk -v p="$tmp/" 'index($5, p) == 1 {print length($5), $5}' /proc/self/mountinfo |
			sort -rn | cut -d' ' -f2-)
		[ -n "$m" ] || break
		while IFS= read -r p; do umount -l "$p" 2>/dev/null; done <<<"$m"
	done
	[ "$made_ns" = 1 ] && ip netns delete "$NS" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

runs=0 bad=0 total_errors=0 total_definite=0 total_indirect=0 total_possible=0
mkdir -p "$tmp/vg"

# vg EXPECTED-STATUS NAME [--stdin TEXT] ARGS...: cnihook ARGS under memcheck.
vg() {
	local want=$1 name=$2 input='' log rc errors definite indirect possible
	shift 2
	if [ "${1:-}" = --stdin ]; then
		input=$2
		shift 2
	fi
	runs=$((runs + 1))
	log=$tmp/vg/$runs.log
	printf '%s' "$input" | valgrind --leak-check=full --errors-for-leak-kinds=definite \
		--error-exitcode=99 --track-fds=no --log-file="$log" \
		"$bin_real" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$log" | tail -1 | tr -d ,)
	definite=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tail -1 | tr -d ,)
	indirect=$(sed -n 's/.*indirectly lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tail -1 | tr -d ,)
	possible=$(sed -n 's/.*possibly lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tail -1 | tr -d ,)
	errors=${errors:-?} definite=${definite:-0} indirect=${indirect:-0} possible=${possible:-0}
	if [ "$errors" != "?" ]; then total_errors=$((total_errors + errors)); fi
	total_definite=$((total_definite + definite))
	total_indirect=$((total_indirect + indirect))
	total_possible=$((total_possible + possible))
	if [ "$rc" = 99 ] || [ "$errors" != 0 ] || [ "$definite" != 0 ] ||
		{ [ "$want" != any ] && [ "$rc" != "$want" ]; }; then
		bad=$((bad + 1))
		echo "not ok - $name: exit $rc (expected $want), $errors errors, $definite bytes definitely lost"
		echo "#   cnihook $*"
		sed 's/^/#   stderr: /' "$tmp/err" | head -5
		grep -vE '^==[0-9]+== *$' "$log" | sed 's/^/#   /' | head -80
	else
		echo "ok - $name: exit $rc, 0 errors, 0 bytes definitely lost"
	fi
}

# ---------------------------------------------------------------- CLI
bin=$tmp/bin conf=$tmp/net.d
mkdir -p "$bin" "$conf"
for p in alpha beta; do cp "$build/tests/plugins/fakeplugin" "$bin/$p"; done
cat >"$conf/10-two.conflist" <<'EOF'
{"cniVersion":"1.0.0","name":"two","plugins":[
 {"type":"alpha","capabilities":{"portMappings":true}},
 {"type":"beta","big":12345678901234567890}]}
EOF
echo '{"cniVersion":"0.3.1","name":"old","type":"alpha"}' >"$conf/20-old.conf"
echo '{"cniVersion":"1.0.0","name":"broken","plugins":[{"type":"a/b"}]}' >"$conf/30-broken.conflist"
export NETCONFPATH=$conf CNI_PATH=$bin CNI_CACHE_DIR=$tmp/cache
unset CNI_CONTAINERID CNI_ARGS CAP_ARGS CNI_IFNAME CNIHOOK_CONFIG

echo "# CLI"
vg 0 "add" add two /run/netns/vgtest
CNI_CONTAINERID=ctr1 CNI_IFNAME=net1 CNI_ARGS='A=1;B=two' \
	CAP_ARGS='{"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"}]}' \
	vg 0 "add with CNI_ARGS and CAP_ARGS" add two /run/netns/vgtest
CNI_CONTAINERID=ctr1 CNI_IFNAME=net1 vg 0 "check" check two /run/netns/vgtest
CNI_CONTAINERID=ctr1 CNI_IFNAME=net1 vg 0 "del" del two /run/netns/vgtest
vg 0 "del of the first attachment" del two /run/netns/vgtest
vg 0 "add to a wrapped .conf" add old /run/netns/vgtest
vg 1 "check of a 0.3.1 network (refused)" check old /run/netns/vgtest
vg 0 "del of the wrapped .conf" del old /run/netns/vgtest
printf 'exit=1\nstdout={"cniVersion":"1.0.0","code":7,"msg":"bad","details":"d"}\n' >"$bin/beta.ADD"
vg 1 "add failing in the second plugin (rollback)" add two /run/netns/vgtest
rm -f "$bin/beta.ADD"
vg 1 "unknown network" add nosuch /run/netns/vgtest
CNI_ARGS=novalue vg 1 "bad CNI_ARGS" add two /run/netns/vgtest
CNI_CONTAINERID=../../etc vg 1 "bad container id" del two /run/netns/vgtest
CAP_ARGS='[1]' vg 1 "bad CAP_ARGS" add two /run/netns/vgtest
vg 0 "validate NETWORK" validate two
vg 1 "validate all (a broken file)" validate
vg 0 "version" version
vg 0 "--version" --version
vg 2 "unknown command" frobnicate

# ---------------------------------------------------------------- hook
echo "# hook stages"
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	if [ "${CNIHOOK_NO_SKIP:-0}" = 1 ]; then
		echo "not ok - hook stages: would skip (CNIHOOK_NO_SKIP=1): needs root and ip"
		bad=$((bad + 1))
	else
		echo "SKIP: hook stages need root and ip"
	fi
else
	ip netns add "$NS" && made_ns=1
	state=$tmp/state cache=$tmp/hcache
	cfg=$tmp/cnihook.json
	cat >"$cfg" <<EOF
{"confDir": "$conf", "binDirs": ["$bin"], "cacheDir": "$cache", "stateDir": "$state",
 "log": {"syslog": false}}
EOF
	bundle() { # bundle ID ANNOTATIONS-JSON
		mkdir -p "$tmp/bundles/$1"
		cat >"$tmp/bundles/$1/config.json" <<EOF
{"ociVersion":"1.0.2","process":{"args":["sh"]},"root":{"path":"rootfs"},
 "annotations":$2,
 "linux":{"namespaces":[{"type":"mount"},{"type":"network","path":"/run/netns/$NS"}]}}
EOF
	}
	state() { # state ID STATUS
		printf '{"ociVersion":"1.0.2","id":"%s","status":"%s","bundle":"%s"}' \
			"$1" "$2" "$tmp/bundles/$1"
	}
	id=vg1-$uniq
	bundle "$id" '{"io.cnihook.networks":"two,old@net9","io.cnihook.ports":"8080:80"}'
	vg 0 "createRuntime (two networks)" --stdin "$(state "$id" creating)" \
		--config "$cfg" createRuntime
	vg 0 "status --json" --config "$cfg" status --json "$id"
	vg 0 "status PREFIX" --config "$cfg" status "${id:0:6}"
	vg 0 "status (all), --no-trunc" --config "$cfg" status --no-trunc
	vg 0 "list" --config "$cfg" list
	vg 0 "gc --dry-run (its verdict and evidence)" --config "$cfg" gc --dry-run
	vg 0 "poststop" --stdin "$(state "$id" stopped)" --config "$cfg" poststop
	vg 0 "poststop again (nothing to do)" --stdin "$(state "$id" stopped)" \
		--config "$cfg" poststop
	id=vg2-$uniq
	bundle "$id" '{"io.cnihook.networks":"old,two"}'
	printf 'exit=1\nstdout={"cniVersion":"1.0.0","code":11,"msg":"try again"}\n' >"$bin/beta.ADD"
	vg 1 "createRuntime failing in the second network (rollback)" \
		--stdin "$(state "$id" creating)" --config "$cfg" createRuntime
	rm -f "$bin/beta.ADD"
	vg 0 "poststop after the failed createRuntime" --stdin "$(state "$id" stopped)" \
		--config "$cfg" poststop
	id=vg3-$uniq
	bundle "$id" '{"io.cnihook.networks":"two","io.cnihook.ports":"99999:80"}'
	vg 1 "createRuntime with a refused annotation" --stdin "$(state "$id" creating)" \
		--config "$cfg" createRuntime
	vg 1 "createRuntime with a broken state" --stdin '{"ociVersion":"1.0.2","id":' \
		--config "$cfg" createRuntime
	vg 0 "gc --netns-from-result" --config "$cfg" gc --netns-from-result
	# (<stateDir>/ports is the port reservations' directory: emptied, kept.)
	left=$(find "$state" "$cache/results" -mindepth 1 ! -path "$state/ports" \
		-printf '%P ' 2>/dev/null)
	if [ -n "$left" ]; then
		echo "not ok - the hook runs left: $left"
		bad=$((bad + 1))
	fi
fi

echo "# $runs runs under memcheck: $total_errors errors, $total_definite bytes definitely lost" \
	"($total_indirect indirectly, $total_possible possibly)"
if [ "$bad" -ne 0 ]; then
	echo "valgrind.sh: $bad of $runs runs FAILED"
	exit 1
fi
echo "valgrind.sh: ok"
