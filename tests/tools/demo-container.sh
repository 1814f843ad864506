#!/bin/bash
# The main job, with a real container: runc starts a busybox container whose
# config.json runs cnihook at createRuntime and poststop; cnihook attaches it
# to the network shipped in config/net.d ("cnihook": bridge cnihook0,
# host-local 10.89.0.0/24, portmap, firewall, tuning) with a port mapping
# 18080 -> 80, the host fetches the container's web page through it, and
# after `runc delete` nothing of the attachment is left.
#
# Usage: tests/tools/demo-container.sh [BUILD_DIR]   (as root; BUILD_DIR defaults to .)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-.}" && pwd)
export CNIHOOK=$build/hook/cnihook
[ "$(id -u)" = 0 ] || { echo "demo: run as root" >&2; exit 1; }
[ -x "$CNIHOOK" ] || { echo "demo: $CNIHOOK not built (make in $build)" >&2; exit 1; }

# lib.sh: cleanups run at exit whatever happens; guard_host_state puts
# net.ipv4.ip_forward and the shared CNI iptables chains back as they were.
RT=runc
CNIHOOK_E2E_SHIM=0
. "$src/tests/harness/runtime-lib.sh"
require_cmd runc ip jq iptables-save
PLUGINDIR=${CNI_PLUGIN_DIR:-/usr/lib/cni}
RT_BUSYBOX=${CNIHOOK_BUSYBOX:-/bin/busybox}
[ -x "$RT_BUSYBOX" ] || fail "no static busybox at $RT_BUSYBOX (install busybox-static)"
for p in bridge host-local portmap firewall tuning; do
	[ -x "$PLUGINDIR/$p" ] || fail "no CNI plugin $PLUGINDIR/$p (install containernetworking-plugins)"
done

step() { printf '\n== %s\n' "$*"; }
show() { sed 's/^/   /'; }

NETWORK=cnihook
BRIDGE=cnihook0
PORT=18080
ID=cnihook-demo-$uniq
LEASES=/var/lib/cni/networks/$NETWORK # host-local's default dataDir
SUBNET=$(jq -r '.plugins[0].ipam.ranges[0][0].subnet' "$src/config/net.d/10-cnihook.conflist")

step "checking that the demo can run here"
if grep -q ":$(printf '%04X' $PORT) 00000000:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null; then
	fail "port $PORT is in use on this host"
fi
if ip -4 route show "$SUBNET" | grep -v "dev $BRIDGE" | grep -q .; then
	fail "$SUBNET is routed elsewhere on this host: $(ip -4 route show "$SUBNET")"
fi
echo "   port $PORT is free, $SUBNET is not used by anything but $BRIDGE"
bridge_existed=no
ip link show "$BRIDGE" >/dev/null 2>&1 && bridge_existed=yes
ports_before=$( (ip -o link show master "$BRIDGE" 2>/dev/null || true) | awk -F': ' '{print $2}' | sort)
guard_host_state
# Whatever happens: the container, the bridge if the demo made it, the lease
# directory if the demo made it (only last_reserved_ip and lock stay in it).
[ "$bridge_existed" = yes ] || cleanup_push "delete_link '$BRIDGE'"
forget_new_lease_dir "$LEASES"

step "building a busybox rootfs in $T_TMP/rootfs"
RT_ROOTFS=$T_TMP/rootfs
PAGE="Hello from container $ID, attached by cnihook"
make_rootfs "$RT_ROOTFS" "$PAGE"
echo "   $(ls "$RT_ROOTFS/bin" | wc -l) busybox applets, /www/index.html: $PAGE"

step "the hook configuration $T_TMP/cnihook.json"
STATEDIR=$T_TMP/state
CACHEDIR=$T_TMP/cache
HOOKCONF=$T_TMP/cnihook.json
HOOKPATH=$CNIHOOK
jq -n --arg conf "$src/config/net.d" --arg bin "$PLUGINDIR" --arg cache "$CACHEDIR" \
	--arg state "$STATEDIR" \
	'{confDir: $conf, binDirs: [$bin], cacheDir: $cache, stateDir: $state}' >"$HOOKCONF"
show <"$HOOKCONF"
cleanup_push "rt_umount_under '$STATEDIR'"
echo "   the network it attaches ($src/config/net.d/10-cnihook.conflist):"
jq -c '.plugins[]' "$src/config/net.d/10-cnihook.conflist" | show

step "the runc bundle $T_TMP/bundle (runc spec, then hooks and annotations)"
ANN=$(jq -cn --arg n "$NETWORK" --arg p "$PORT:80" '{"io.cnihook.networks": $n, "io.cnihook.ports": $p}')
make_bundle "$T_TMP/bundle" "$ID" "$ANN"
jq '{annotations, hooks, process: {args: .process.args}}' "$T_TMP/bundle/config.json" | show

step "runc run -d $ID  (runc runs cnihook createRuntime before the container starts)"
cleanup_push "runc delete --force '$ID'"
if ! runc run -d --bundle "$T_TMP/bundle" "$ID" </dev/null >"$T_TMP/runc.out" 2>&1; then
	show <"$T_TMP/runc.out"
	fail "runc run failed"
fi
runc list | grep -E "^(ID|$ID) " | show

step "the host fetches http://127.0.0.1:$PORT/ (portmap forwards it to port 80 inside)"
got=
for ((i = 0; i < 30; i++)); do
	got=$(http_get "http://127.0.0.1:$PORT/") && [ -n "$got" ] && break
	sleep 0.2
done
[ "$got" = "$PAGE" ] || fail "got \"$got\", want \"$PAGE\""
printf '%s\n' "$got" | show

step "inside the container: runc exec $ID ip addr show eth0"
runc exec "$ID" ip addr show eth0 | show

step "cnihook status $ID"
"$CNIHOOK" --config "$HOOKCONF" status "$ID" | show
echo "   the host side: $(ip -o link show master "$BRIDGE" | awk -F': ' '{print $2}' | tr '\n' ' ')on $BRIDGE"
echo "   iptables rules naming $ID: $(iptables-save | grep -cF -- "$ID")"
echo "   pinned namespace: $STATEDIR/$ID/netns ($(grep -cF " $STATEDIR/$ID/netns " /proc/self/mountinfo) mount)"

step "runc kill $ID; runc delete $ID  (runc runs cnihook poststop)"
runc kill "$ID" KILL
for ((i = 0; i < 50; i++)); do
	[ "$(runc state "$ID" 2>/dev/null | jq -r .status)" = stopped ] && break
	sleep 0.1
done
runc delete "$ID"
echo "   deleted"

step "what is left"
left=0
report() { # WHAT COUNT [DETAILS]
	printf '   %-45s %s\n' "$1:" "$2"
	if [ "$2" != 0 ]; then
		left=1
		[ -z "${3:-}" ] || printf '%s\n' "$3" | show
	fi
}
ports_after=$( (ip -o link show master "$BRIDGE" 2>/dev/null || true) | awk -F': ' '{print $2}' | sort)
new=$(comm -13 <(printf '%s\n' "$ports_before") <(printf '%s\n' "$ports_after") | grep . || true)
report "new veths on $BRIDGE" "$(grep -c . <<<"$new" || true)" "$new"
f=$(find "$LEASES" -type f ! -name 'last_reserved_ip*' ! -name lock -exec grep -lF -- "$ID" {} + 2>/dev/null || true)
report "leases of $ID in $LEASES" "$(grep -c . <<<"$f" || true)" "$f"
f=$( (iptables-save; ip6tables-save) 2>/dev/null | grep -F -- "$ID" || true)
report "iptables rules naming $ID" "$(grep -c . <<<"$f" || true)" "$f"
f=$(awk -v d="$STATEDIR/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo)
report "pinned namespaces under $STATEDIR" "$(grep -c . <<<"$f" || true)" "$f"
f=$(find "$CACHEDIR" -type f -name "*-$ID-*" 2>/dev/null || true)
report "cache files of $ID" "$(grep -c . <<<"$f" || true)" "$f"
f=$(find "$STATEDIR" -mindepth 1 -maxdepth 1 -name "$ID*" 2>/dev/null || true)
report "state of $ID in $STATEDIR" "$(grep -c . <<<"$f" || true)" "$f"
[ "$left" = 0 ] || fail "something was left (above)"
echo "   nothing left"
if [ "$bridge_existed" = no ]; then
	delete_link "$BRIDGE"
	echo "   removed $BRIDGE (the bridge plugin keeps its bridge; this demo created it)"
fi
