#!/bin/bash
# A rootless `podman run --rm` with a published port: cnihook's network
# against podman's default rootless one and podman's own CNI bridge network
# (docs/benchmarks.md, "A rootless start with a port"). Not a test: it
# prints figures (through the TAP harness of tests/harness/lib.sh, which
# makes and removes the user).
#
#   tests/bench/rootless-start.sh [BUILD_DIR [CNIHOOK...]]
#
# A user of its own (tests/harness/rootless-lib.sh), the static busybox as
# its image; ROUNDS rounds of the variants taking turns (the first of a
# round goes last in the next), each `podman run --rm IMAGE true` timed:
#   none     --network none: the floor
#   podman   podman's default rootless network with -p 127.0.0.1:P:80
#            (slirp4netns per container and rootlessport)
#   podman-cni  podman's CNI backend (--network-backend cni) and a network
#            of the user's made by `podman network create --disable-dns`,
#            -p 127.0.0.1:P:80: bridge (ipMasq), portmap, firewall and
#            tuning as podman writes them (cnihook's two and two more),
#            run by podman in its rootless-netns
#   cnihook  --network none plus the hook (io.cnihook.networks,
#            io.cnihook.ports=127.0.0.1:P:80): bridge (ipMasq, a default
#            route) and portmap in the user's rootless namespace, made for
#            the container and removed after it (it is the user's only one)
# With CNIHOOK binaries after BUILD_DIR (one before a change and one after
# it, say), one cnihook variant each, cnihook1, cnihook2, ..., in the same
# rounds. Prints the median wall time of each, ms.
#
# Environment: ROUNDS (default 10), CNIHOOK (the one binary when none is
# given), CNI_PLUGIN_DIR, CNIHOOK_BUSYBOX, PODMAN_CNI_FIRST (podman-cni's
# network cut to its first N plugins: 2 is bridge and portmap).
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${1:-${abs_top_builddir:-$srcdir}}
shift $(($# > 0))
. "$srcdir/tests/harness/lib.sh"
. "$srcdir/tests/harness/rootless-lib.sh"

require_root "to create a user with subordinate ids"
require_cmd podman runc jq slirp4netns
BINS=("$@")
[ $# -gt 0 ] || BINS=("${CNIHOOK:-$builddir/hook/cnihook}")
for b in "${BINS[@]}"; do
	[ -x "$b" ] || fail "cnihook not found at $b (set CNIHOOK)"
done
PLUGINDIR=${CNI_PLUGIN_DIR:-/usr/lib/cni}
require_plugins bridge host-local portmap
ROUNDS=${ROUNDS:-10}

rl_user_setup
NET=rs$uniq
SUBNET=$(random_subnet)
mkdir -p "$U/net.d"
jq -n --arg n "$NET" --arg s "$SUBNET.0/24" '{cniVersion: "1.0.0", name: $n, plugins: [
	{type: "bridge", bridge: $n, isGateway: true, ipMasq: true,
	 ipam: {type: "host-local", ranges: [[{subnet: $s}]], routes: [{dst: "0.0.0.0/0"}]}},
	{type: "portmap", capabilities: {portMappings: true}}]}' >"$U/net.d/10-$NET.conflist"
jq -n --arg c "$U/net.d" --arg b "$PLUGINDIR" '{confDir: $c, binDirs: [$b]}' >"$U/cnihook.json"
# Each binary a copy of its own (the user reads it) and a hooks directory
# naming it.
CNIHOOKS=()
for i in "${!BINS[@]}"; do
	n=$((i + 1))
	v=cnihook
	[ $# -eq 0 ] || v=cnihook$n
	CNIHOOKS+=("$v")
	install -m 0755 "${BINS[$i]}" "$U/cnihook$n"
	mkdir -p "$U/hooks$n.d"
	rl_hook_entries "$builddir/config/hooks.d" "$U/hooks$n.d" "$U/cnihook$n" "$U/cnihook.json"
	[ $# -eq 0 ] || log "$v: ${BINS[$i]}"
done
chmod -R a+rX "$U/net.d" "$U"/hooks*.d "$U/cnihook.json"
IMAGE=localhost/cnihook-rstart:$uniq
rl_image "$IMAGE" true
PORT_P=$((20000 + RANDOM % 10001))
PORT_C=$((PORT_P + 1))
PORT_N=$((PORT_P + 2))

# podman's own: its CNI backend for this variant only (the others keep the
# default, which has no part in --network none or slirp4netns), the
# network in the user's $HOME/.config/cni/net.d, removed at the end before
# the containers and the pause process go.
pm_cni() {
	RL_PODMAN_ARGS=(--network-backend cni)
	rl_pm "$@"
}
PNET=rp$uniq
pm_cni network create --disable-dns --subnet "$(random_subnet).0/24" "$PNET" >/dev/null ||
	fail "podman network create $PNET failed"
cleanup_push "pm_cni network rm -f '$PNET'"
# PODMAN_CNI_FIRST=2: only bridge and portmap of what podman wrote (the
# plugins of cnihook's network), podman reading its file at each run.
PCONF=$U/home/.config/cni/net.d/$PNET.conflist
if [ -n "${PODMAN_CNI_FIRST:-}" ]; then
	jq --argjson n "$PODMAN_CNI_FIRST" '.plugins |= .[:$n]' "$PCONF" >"$U/conflist.new" ||
		fail "cutting $PCONF failed"
	cat "$U/conflist.new" >"$PCONF"
fi
log "podman-cni: $PNET, plugins $(jq -r '[.plugins[].type] | join(" ")' "$PCONF")"

run_variant() {
	local n
	RL_PODMAN_ARGS=()
	case $1 in
	none) rl_pm run --rm --network none "$IMAGE" true ;;
	podman) rl_pm run --rm -p "127.0.0.1:$PORT_P:80" "$IMAGE" true ;;
	podman-cni) pm_cni run --rm --network "$PNET" -p "127.0.0.1:$PORT_N:80" "$IMAGE" true ;;
	cnihook*)
		n=${1#cnihook}
		RL_PODMAN_ARGS=(--hooks-dir "$U/hooks${n:-1}.d")
		rl_pm run --rm --network none --annotation "io.cnihook.networks=$NET" \
			--annotation "io.cnihook.ports=127.0.0.1:$PORT_C:80" "$IMAGE" true
		;;
	esac
}

declare -A times
order="none podman podman-cni ${CNIHOOKS[*]}"
for v in $order; do run_variant "$v" >/dev/null 2>&1 || fail "podman run ($v) failed"; done
# What the containers leave behind them, podman-cni's rootless-netns above
# all (podman makes it for a container, its netns in $RUNDIR/netns, its
# slirp4netns's pid in $RUNDIR/libpod/tmp/rootless-netns, and removes it
# after the user's last one): the user's live processes (a zombie is its
# reaper's to wait for) a second after the last container, and those
# files.
rl_left() {
	log "$1: the user's processes:" \
		"$(ps -u "$RL_UID" -o stat=,comm= | awk '$1 !~ /^Z/ {print $2}' | sort | uniq -c | xargs);" \
		"in $RUNDIR/netns: $(find "$RUNDIR/netns" -mindepth 1 -printf '%f ' 2>/dev/null);" \
		"rootless-netns: $(ls -d "$RUNDIR"/libpod/tmp/rootless-netns 2>/dev/null)"
}
sleep 1
rl_left "after the warm-up"
for r in $(seq "$ROUNDS"); do
	for v in $order; do
		t0=$(date +%s%N)
		run_variant "$v" >/dev/null 2>&1 || fail "podman run ($v) failed"
		times[$v]+="$((($(date +%s%N) - t0) / 1000000)) "
	done
	order="${order#* } ${order%% *}"
done
sleep 1
rl_left "after the rounds"
pm_cni network rm "$PNET" >/dev/null || fail "podman network rm $PNET failed"
[ ! -e "$PCONF" ] || fail "$PCONF left after podman network rm"
for v in none podman podman-cni "${CNIHOOKS[@]}"; do
	m=$(tr ' ' '\n' <<<"${times[$v]}" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	log "$v: median ${m} ms of $ROUNDS (${times[$v]% })"
done
ok "rootless podman run --rm with a port, timed"
finish
