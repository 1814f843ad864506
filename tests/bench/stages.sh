#!/bin/bash
# The CPU time of the hook's two stages, for several hook binaries in turn
# (docs/benchmarks.md, "Before and after: stages.sh"). Not a test: it prints
# figures and exits 0 (2 when it cannot run).
#
#   tests/bench/stages.sh BUILD_DIR CNIHOOK...
#
# For each chain length of CHAINS and each binary, createRuntime then
# poststop of one container on a network of that many
# tests/plugins/echoplugin (each plugin costs about a millisecond and
# touches nothing, so that the hook's own work weighs), its namespace named
# by path in config.json (a namespace of the script's own), stateDir and
# cacheDir on tmpfs (under /dev/shm, as /run is on most hosts). The binaries
# take turns, one further each round (ROUNDS timed, 3 untimed first), so
# that load from elsewhere weighs on all alike. Each run is timed by
# tests/bench/scalehelp.c `run` (compiled here with cc): CPU time (user +
# system) of the hook and the plugins it waited for, from wait4's rusage,
# and wall time. Printed: per chain and binary, the medians in ms.
#
# Environment: ROUNDS (default 200), CHAINS (default "1 4 10"), CC.
# Needs root (a network namespace, the pins' mounts), jq and a C compiler.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir=${1:-}
if [ -z "$builddir" ] || [ ! -d "$builddir" ] || [ $# -lt 2 ]; then
	echo "usage: $0 BUILD_DIR CNIHOOK..." >&2
	exit 2
fi
shift
BINS=()
for b in "$@"; do
	[ -x "$b" ] || {
		echo "$0: $b: not an executable" >&2
		exit 2
	}
	BINS+=("$(cd "$(dirname "$b")" && pwd)/$(basename "$b")")
done
ROUNDS=${ROUNDS:-200}
CHAINS=${CHAINS:-1 4 10}
ECHO=$builddir/tests/plugins/echoplugin
[ -x "$ECHO" ] || {
	echo "$0: no $ECHO (make tests/plugins/echoplugin)" >&2
	exit 2
}
[ "$(id -u)" = 0 ] || {
	echo "$0: needs root" >&2
	exit 2
}

W=$(mktemp -d /dev/shm/cnihook-stages.XXXXXX)
ns=cnihook-stages-$$
cleanup() {
	local m
	for m in $(findmnt -rn -o TARGET | grep "^$W/" | sort -r); do umount "$m"; done
	ip netns delete "$ns" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
"${CC:-cc}" -O2 -o "$W/scalehelp" "$srcdir/tests/bench/scalehelp.c"
ip netns add "$ns"
mkdir -p "$W/bin"
cp "$ECHO" "$W/bin/echoplugin"
for ((i = 1; i <= 10; i++)); do ln -s echoplugin "$W/bin/echo$i"; done

for n in $CHAINS; do
	for b in "${!BINS[@]}"; do
		d=$W/c$n-$b
		mkdir -p "$d/net.d" "$d/cache" "$d/state" "$d/bundle"
		jq -n --argjson n "$n" '{cniVersion: "1.0.0", name: "stages",
			plugins: [range(1; $n + 1) | {type: "echo\(.)"}]}' >"$d/net.d/10-stages.conflist"
		jq -n --arg c "$d/net.d" --arg b "$W/bin" --arg k "$d/cache" --arg s "$d/state" \
			'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, log: {syslog: false}}' \
			>"$d/cnihook.json"
		jq -n --arg p "/run/netns/$ns" '{ociVersion: "1.0.2", process: {args: ["sh"]},
			root: {path: "rootfs"}, annotations: {"io.cnihook.networks": "stages"},
			linux: {namespaces: [{type: "mount"}, {type: "network", path: $p}]}}' \
			>"$d/bundle/config.json"
		for st in creating stopped; do
			jq -cn --arg b "$d/bundle" --arg s "$st" \
				'{ociVersion: "1.0.2", id: "stages", status: $s, bundle: $b}' >"$d/$st.json"
		done
	done
done

# one N B: createRuntime and poststop of binary B on chain N; appends
# "N B create_cpu stop_cpu create_wall stop_wall" to the results.
one() {
	local d=$W/c$1-$2 c p
	c=$("$W/scalehelp" run 30 "$d/creating.json" /dev/null "$d/err" "${BINS[$2]}" \
		--config "$d/cnihook.json" createRuntime) || {
		echo "$0: ${BINS[$2]} createRuntime failed: $(cat "$d/err")" >&2
		exit 2
	}
	p=$("$W/scalehelp" run 30 "$d/stopped.json" /dev/null "$d/err" "${BINS[$2]}" \
		--config "$d/cnihook.json" poststop) || {
		echo "$0: ${BINS[$2]} poststop failed: $(cat "$d/err")" >&2
		exit 2
	}
	[ "$3" = timed ] || return 0
	echo "$1 $2 ${c#* } ${p#* } ${c% *} ${p% *}" >>"$W/results"
}

for ((r = -3; r < ROUNDS; r++)); do
	for n in $CHAINS; do
		for ((k = 0; k < ${#BINS[@]}; k++)); do
			one "$n" $(((k + r + 3) % ${#BINS[@]})) "$([ "$r" -ge 0 ] && echo timed)"
		done
	done
done

median() { sort -g | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "CPU time (hook and plugins) and wall time, medians of $ROUNDS rounds, ms"
printf '%-6s %-40s %9s %9s %9s %9s %9s\n' chain binary "cpu:cr" "cpu:ps" "cpu:sum" "wall:cr" "wall:ps"
for n in $CHAINS; do
	for b in "${!BINS[@]}"; do
		awk -v n="$n" -v b="$b" '$1 == n && $2 == b { print $3, $4, $3 + $4, $5, $6 }' \
			"$W/results" >"$W/x"
		printf '%-6s %-40s' "$n" "${BINS[b]}"
		for f in 1 2 3 4 5; do printf ' %9s' "$(cut -d' ' -f"$f" "$W/x" | median)"; done
		echo
	done
done
