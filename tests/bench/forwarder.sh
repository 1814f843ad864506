#!/bin/bash
# The rootless port forwarder against podman's own (docs/benchmarks.md, "The
# rootless port forwarder"). Not a test: it prints figures and exits 0
# whatever they are (and also when it cannot run: not root, no
# rootlessport).
#
#   tests/bench/forwarder.sh [BUILD_DIR]
#
# A network namespace of its own (lo only) holds a server (tests/bench/
# fwdbench.c) on 127.0.0.1; two published ports on the host's 127.0.0.1
# reach it: one by cnihook's forwarder, started as the hook starts it (its
# listener taken in the host's namespace, the process in the container's),
# one by podman's rootlessport, driven as podman drives it (its JSON
# configuration on stdin, the namespace's path, ready and exit
# descriptors): both cross the same namespaces the same way. ROUNDS rounds,
# each forwarder in turn (the one first in a round goes last in the next):
# MIB MiB from the server through the port (MiB/s), then GETS connections
# one after the other, each a 1-byte request and a 1 KiB answer (median
# microseconds of one).
#
# Environment (all optional):
#   ROUNDS        rounds (default 3)
#   MIB           bulk size (default 200)
#   GETS          small requests per round (default 500)
#   FWDBENCH      the fwdbench binary (default BUILD_DIR/tests/bench/fwdbench)
#   BASELINE      another build's fwdbench: its forwarder takes turns too,
#                 as "baseline" (before and after a change)
#   ROOTLESSPORT  podman's forwarder (default /usr/lib/podman/rootlessport,
#                 else /usr/libexec/podman/rootlessport)
set -euo pipefail

builddir=${1:-${abs_top_builddir:-.}}
FWDBENCH=${FWDBENCH:-$builddir/tests/bench/fwdbench}
ROUNDS=${ROUNDS:-3}
MIB=${MIB:-200}
GETS=${GETS:-500}
if [ -z "${ROOTLESSPORT:-}" ]; then
	for p in /usr/lib/podman/rootlessport /usr/libexec/podman/rootlessport; do
		[ -x "$p" ] && ROOTLESSPORT=$p && break
	done
fi
if [ "$(id -u)" != 0 ]; then
	echo "forwarder.sh: not run: needs root (a network namespace)"
	exit 0
fi
if [ -z "${ROOTLESSPORT:-}" ] || [ ! -x "$FWDBENCH" ]; then
	echo "forwarder.sh: not run: needs rootlessport (podman) and $FWDBENCH (make check)"
	exit 0
fi

ns=cnihook-fwdb-$$
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$ns"
ip -n "$ns" link set lo up

# Free ports of the host's loopback (the server's is in the namespace).
read -r target cni rlp base < <(python3 -c '
import socket
s = [socket.socket() for _ in range(4)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

ip netns exec "$ns" "$FWDBENCH" serve "$target" >"$tmp/serve.out" &
pids+=($!)
if ! fwd=$("$FWDBENCH" forward "$cni" "/run/netns/$ns" "$target"); then
	echo "forwarder.sh: not run: cnihook's forwarder did not start"
	exit 0
fi
pids+=("$fwd")
who_all="cnihook rootlessport"
if [ -n "${BASELINE:-}" ]; then
	fwd=$("$BASELINE" forward "$base" "/run/netns/$ns" "$target")
	pids+=("$fwd")
	who_all="cnihook baseline rootlessport"
fi

mkfifo "$tmp/exit"
sleep infinity >"$tmp/exit" &
pids+=($!)
cat >"$tmp/rootlessport.json" <<JSON
{"Mappings":[{"host_ip":"127.0.0.1","container_port":$target,"host_port":$rlp,"range":1,"protocol":"tcp"}],
 "NetNSPath":"/run/netns/$ns","ExitFD":3,"ReadyFD":4,"TmpDir":"$tmp","ChildIP":"127.0.0.1",
 "ContainerID":"fwdbench","RootlessCNI":false}
JSON
"$ROOTLESSPORT" <"$tmp/rootlessport.json" 3<"$tmp/exit" 4>"$tmp/ready" 2>"$tmp/rootlessport.log" &
pids+=($!)
for _ in $(seq 50); do
	[ -s "$tmp/ready" ] && [ -s "$tmp/serve.out" ] && break
	sleep 0.1
done
if [ ! -s "$tmp/ready" ]; then
	echo "forwarder.sh: rootlessport did not get ready:"
	cat "$tmp/rootlessport.log"
	exit 0
fi

printf '%-6s %-14s %12s %16s\n' round forwarder "MiB/s" "GET median us"
declare -A mibs gets
order=$who_all
for r in $(seq "$ROUNDS"); do
	for who in $order; do
		port=$cni
		[ "$who" = rootlessport ] && port=$rlp
		[ "$who" = baseline ] && port=$base
		m=$("$FWDBENCH" bulk "$port" "$MIB")
		g=$("$FWDBENCH" gets "$port" "$GETS")
		mibs[$who]+="$m "
		gets[$who]+="$g "
		printf '%-6s %-14s %12s %16s\n' "$r" "$who" "$m" "$g"
	done
	order="${order#* } ${order%% *}" # the first goes last next round
done
med() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mc=$(echo "${mibs[cnihook]}" | med)
mr=$(echo "${mibs[rootlessport]}" | med)
gc=$(echo "${gets[cnihook]}" | med)
gr=$(echo "${gets[rootlessport]}" | med)
echo
for who in $who_all; do
	printf 'median: %-12s %6s MiB/s %6s us per GET\n' "$who" \
		"$(echo "${mibs[$who]}" | med)" "$(echo "${gets[$who]}" | med)"
done
awk -v a="$mc" -v b="$mr" -v c="$gc" -v d="$gr" \
	'BEGIN {printf "cnihook/rootlessport: throughput %.2fx, GET time %.2fx\n", a / b, c / d}'
