#!/bin/bash
# The main job, with a real container: runc starts a busybox container whose
# config.json runs cnihook at createRuntime and poststop; cnihook attaches it
# to the network shipped in config/net.d ("cnihook": bridge cnihook0,
# host-local 10.89.0.0/24, portmap, firewall, tuning) with a port mapping
# 18080 -> 80, the host fetches the container's web page through it, and
# after `runc delete` nothing of the attachment is left.
#
# Names between containers: the shipped network stays as shipped (no
# dnsname, so it works on a host without it); the demo adds a network of its
# own ("cnihook-demo-names": bridge cnihook-dn0, host-local 10.91.0.0/24,
# firewall, dnsname) in its private confDir, next to a copy of the shipped
# one. The first container is on both networks under the name "web"
# (io.cnihook.name); a second one, "client", is on the names network only,
# resolves "web" (nslookup web) through the /etc/resolv.conf cnihook gives it
# (cnihook(8), NAMES BETWEEN CONTAINERS): dnsname's dnsmasq on the bridge's
# address; then it fetches http://web/. The
# rootfs is read-only, so it holds an empty /etc/resolv.conf and /etc/hosts
# for cnihook to bind-mount over. At the end dnsmasq has stopped (the last
# DEL), and the demo removes what dnsname leaves of a network it created: its
# INPUT rule for the bridge, /run/containers/cni/dnsname if it made it.
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
[ -x "$PLUGINDIR/dnsname" ] ||
	fail "no CNI plugin $PLUGINDIR/dnsname (install golang-github-containernetworking-plugin-dnsname)"
command -v dnsmasq >/dev/null 2>&1 || [ -x /usr/sbin/dnsmasq ] || fail "no dnsmasq (install dnsmasq-base)"

step() { printf '\n== %s\n' "$*"; }
show() { sed 's/^/   /'; }

NETWORK=cnihook
BRIDGE=cnihook0
PORT=18080
ID=cnihook-demo-$uniq
LEASES=/var/lib/cni/networks/$NETWORK # host-local's default dataDir
SUBNET=$(jq -r '.plugins[0].ipam.ranges[0][0].subnet' "$src/config/net.d/10-cnihook.conflist")
# The demo's own network with dnsname, and the second container.
NAMESNET=cnihook-demo-names
NAMESBR=cnihook-dn0
NAMESSUB=10.91.0.0/24
NAMESGW=10.91.0.1
CLIENT=cnihook-demo-client-$uniq
DN_BASE=/run/containers/cni/dnsname
DN_DIR=$DN_BASE/$NAMESNET
DN_RULE=(INPUT -i "$NAMESBR" -p udp -m udp --dport 53 -j ACCEPT)

step "checking that the demo can run here"
if grep -q ":$(printf '%04X' $PORT) 00000000:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null; then
	fail "port $PORT is in use on this host"
fi
if ip -4 route show "$SUBNET" | grep -v "dev $BRIDGE" | grep -q .; then
	fail "$SUBNET is routed elsewhere on this host: $(ip -4 route show "$SUBNET")"
fi
echo "   port $PORT is free, $SUBNET is not used by anything but $BRIDGE"
if ip link show "$NAMESBR" >/dev/null 2>&1; then
	fail "$NAMESBR exists: another demo runs, or one was interrupted (ip link delete $NAMESBR)"
fi
if ip -4 route show "$NAMESSUB" | grep -q .; then
	fail "$NAMESSUB is routed on this host: $(ip -4 route show "$NAMESSUB")"
fi
if [ -e "$DN_DIR" ]; then
	fail "$DN_DIR exists: another demo's dnsmasq runs, or one was interrupted"
fi
echo "   $NAMESBR and $NAMESSUB are free, and so is dnsname's $DN_DIR"
bridge_existed=no
ip link show "$BRIDGE" >/dev/null 2>&1 && bridge_existed=yes
ports_before=$( (ip -o link show master "$BRIDGE" 2>/dev/null || true) | awk -F': ' '{print $2}' | sort)
guard_host_state
# Whatever happens: the container, the bridge if the demo made it, the lease
# directory if the demo made it (only last_reserved_ip and lock stay in it).
[ "$bridge_existed" = yes ] || cleanup_push "delete_link '$BRIDGE'"
forget_new_lease_dir "$LEASES"
# What dnsname leaves of the demo's network if the demo stops half-way: its
# dnsmasq (the pid file's, when its command line names this network), its
# directories if the demo made them, its INPUT rule; then the bridge.
for d in /run/containers /run/containers/cni "$DN_BASE"; do
	[ -e "$d" ] || cleanup_push "rmdir '$d' 2>/dev/null || true"
done
cleanup_push "delete_link '$NAMESBR'"
remove_dn_rule() {
	while iptables -w -C "${DN_RULE[@]}" 2>/dev/null; do iptables -w -D "${DN_RULE[@]}"; done
}
cleanup_push remove_dn_rule
dn_dnsmasq() { # the pid of the demo network's dnsmasq, or nothing
	local pid
	pid=$(cat "$DN_DIR/pidfile" 2>/dev/null) || return 0
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "--conf-file=$DN_DIR/dnsmasq.conf" ||
		return 0
	printf '%s\n' "$pid"
}
stop_dnsmasq() {
	local pid
	pid=$(dn_dnsmasq)
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
	rm -rf "${DN_DIR:?}"
}
cleanup_push stop_dnsmasq

step "building a busybox rootfs in $T_TMP/rootfs"
RT_ROOTFS=$T_TMP/rootfs
PAGE="Hello from container $ID, attached by cnihook"
make_rootfs "$RT_ROOTFS" "$PAGE"
# The rootfs is read-only: cnihook bind-mounts its resolv.conf and hosts
# over these (it cannot create them there).
: >"$RT_ROOTFS/etc/resolv.conf"
: >"$RT_ROOTFS/etc/hosts"
echo "   $(ls "$RT_ROOTFS/bin" | wc -l) busybox applets, /www/index.html: $PAGE"
echo "   empty /etc/resolv.conf and /etc/hosts (read-only rootfs: cnihook mounts its own over them)"

step "the hook configuration $T_TMP/cnihook.json and its networks in $T_TMP/net.d"
STATEDIR=$T_TMP/state
CACHEDIR=$T_TMP/cache
HOOKCONF=$T_TMP/cnihook.json
HOOKPATH=$CNIHOOK
CONFDIR=$T_TMP/net.d
mkdir -p "$CONFDIR"
cp "$src/config/net.d/10-cnihook.conflist" "$CONFDIR/"
jq -n --arg n "$NAMESNET" --arg br "$NAMESBR" --arg sub "$NAMESSUB" --arg dd "$T_TMP/leases" '
	{cniVersion: "1.0.0", name: $n, plugins: [
		{type: "bridge", bridge: $br, isGateway: true, ipMasq: false,
		 ipam: {type: "host-local", dataDir: $dd, ranges: [[{subnet: $sub}]], routes: []}},
		{type: "firewall", backend: "iptables"},
		{type: "dnsname", domainName: "demo.cnihook.test"}]}' >"$CONFDIR/50-$NAMESNET.conflist"
jq -n --arg conf "$CONFDIR" --arg bin "$PLUGINDIR" --arg cache "$CACHEDIR" \
	--arg state "$STATEDIR" \
	'{confDir: $conf, binDirs: [$bin], cacheDir: $cache, stateDir: $state}' >"$HOOKCONF"
show <"$HOOKCONF"
cleanup_push "rt_umount_under '$STATEDIR'"
echo "   $NETWORK, the shipped network (a copy of $src/config/net.d/10-cnihook.conflist, unchanged):"
jq -c '.plugins[]' "$CONFDIR/10-cnihook.conflist" | show
echo "   $NAMESNET, the demo's own network with dnsname (the shipped one has none):"
jq -c '.plugins[]' "$CONFDIR/50-$NAMESNET.conflist" | show

step "the runc bundle $T_TMP/bundle (runc spec, then hooks and annotations)"
ANN=$(jq -cn --arg n "$NETWORK,$NAMESNET" --arg p "$PORT:80" \
	'{"io.cnihook.networks": $n, "io.cnihook.ports": $p, "io.cnihook.name": "web"}')
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

step "a second container, $CLIENT, on $NAMESNET only (io.cnihook.name client)"
ANN2=$(jq -cn --arg n "$NAMESNET" '{"io.cnihook.networks": $n, "io.cnihook.name": "client"}')
make_bundle "$T_TMP/bundle-client" "$CLIENT" "$ANN2" "" "exec sleep 600"
jq -c '.annotations' "$T_TMP/bundle-client/config.json" | show
cleanup_push "runc delete --force '$CLIENT'"
if ! runc run -d --bundle "$T_TMP/bundle-client" "$CLIENT" </dev/null >"$T_TMP/runc-client.out" 2>&1; then
	show <"$T_TMP/runc-client.out"
	fail "runc run $CLIENT failed"
fi
runc list | grep -E "^(ID|$CLIENT) " | show
pid=$(dn_dnsmasq)
[ -n "$pid" ] || fail "no dnsmasq for $NAMESNET ($(ls -la "$DN_DIR" 2>&1))"
echo "   dnsname's dnsmasq for $NAMESNET: pid $pid, on $NAMESGW; its hosts file:"
show <"$DN_DIR/addnhosts"

step "inside $CLIENT: cat /etc/resolv.conf  (cnihook's, from the result's dns)"
rc=$(runc exec "$CLIENT" cat /etc/resolv.conf)
printf '%s\n' "$rc" | show
[ "$(grep -m1 '^nameserver' <<<"$rc")" = "nameserver $NAMESGW" ] ||
	fail "the first nameserver in $CLIENT's /etc/resolv.conf is not $NAMESGW"

step "inside $CLIENT: nslookup web  (no server given: the one in /etc/resolv.conf)"
web_ip=$(runc exec "$ID" ip -4 -o addr show | awk '$4 ~ /^10\.91\.0\./ { sub("/.*", "", $4); print $4 }')
[ -n "$web_ip" ] || fail "$ID has no address in $NAMESSUB"
out=
for ((i = 0; i < 15; i++)); do
	# dnsmasq rereads its hosts file on the SIGHUP dnsname sends.
	out=$(runc exec "$CLIENT" nslookup web 2>&1) &&
		grep -Eq "^Address( [0-9]+)?:[[:space:]]*${web_ip//./\\.}\$" <<<"$out" && break
	sleep 0.2
done
printf '%s\n' "$out" | show
grep -Eq "^Address( [0-9]+)?:[[:space:]]*${web_ip//./\\.}\$" <<<"$out" ||
	fail "$CLIENT cannot resolve web to $web_ip (web's address on $NAMESNET)"
echo "   web is $web_ip, $ID's address on $NAMESNET"

# (No -T: Debian's busybox-static wget crashes with it.)
step "inside $CLIENT: wget -q -O - http://web/  (by name again, through /etc/resolv.conf)"
got=$(timeout 10 runc exec "$CLIENT" wget -q -O - http://web/ 2>&1) || true
printf '%s\n' "$got" | show
[ "$got" = "$PAGE" ] || fail "got \"$got\", want \"$PAGE\""

step "cnihook status $ID"
"$CNIHOOK" --config "$HOOKCONF" status "$ID" | show
echo "   the host side: $(ip -o link show master "$BRIDGE" | awk -F': ' '{print $2}' | tr '\n' ' ')on $BRIDGE"
echo "   iptables rules naming $ID: $(iptables-save | grep -cF -- "$ID")"
echo "   pinned namespace: $STATEDIR/$ID/netns ($(grep -cF " $STATEDIR/$ID/netns " /proc/self/mountinfo) mount)"

step "runc kill; runc delete, $CLIENT then $ID  (runc runs cnihook poststop)"
for c in "$CLIENT" "$ID"; do
	runc kill "$c" KILL
	for ((i = 0; i < 50; i++)); do
		[ "$(runc state "$c" 2>/dev/null | jq -r .status)" = stopped ] && break
		sleep 0.1
	done
	runc delete "$c"
	echo "   deleted $c"
done
for ((i = 0; i < 20; i++)); do
	[ -e "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] || break
	sleep 0.1
done

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
f=$( (ip -o link show master "$NAMESBR" 2>/dev/null || true) | awk -F': ' '{print $2}')
report "veths on $NAMESBR" "$(grep -c . <<<"$f" || true)" "$f"
for c in "$ID" "$CLIENT"; do
	f=$(find "$LEASES" "$T_TMP/leases" -type f ! -name 'last_reserved_ip*' ! -name lock \
		-exec grep -lF -- "$c" {} + 2>/dev/null || true)
	report "leases of $c" "$(grep -c . <<<"$f" || true)" "$f"
	f=$( (iptables-save; ip6tables-save) 2>/dev/null | grep -F -- "$c" || true)
	report "iptables rules naming $c" "$(grep -c . <<<"$f" || true)" "$f"
	f=$(find "$CACHEDIR" -type f -name "*-$c-*" 2>/dev/null || true)
	report "cache files of $c" "$(grep -c . <<<"$f" || true)" "$f"
	f=$(find "$STATEDIR" -mindepth 1 -maxdepth 1 -name "$c*" 2>/dev/null || true)
	report "state of $c in $STATEDIR" "$(grep -c . <<<"$f" || true)" "$f"
done
f=$(awk -v d="$STATEDIR/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo)
report "pinned namespaces, resolv.conf, hosts mounts" "$(grep -c . <<<"$f" || true)" "$f"
f=$( ([ -e "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] &&
	echo "dnsmasq $pid runs") || true)
report "dnsmasq of $NAMESNET (stops at the last DEL)" "$(grep -c . <<<"$f" || true)" "$f"
f=$(ls -d "$DN_DIR" 2>/dev/null || true)
report "dnsname's $DN_DIR" "$(grep -c . <<<"$f" || true)" "$f"
[ "$left" = 0 ] || fail "something was left (above)"
echo "   nothing left of the containers"
# What dnsname and the bridge plugin keep, and the demo removes since it
# created the network.
iptables -w -C "${DN_RULE[@]}" 2>/dev/null ||
	fail "no dnsname rule ${DN_RULE[*]}: cnihook(8) says dnsname leaves it"
remove_dn_rule
echo "   removed dnsname's rule ${DN_RULE[*]} (dnsname never removes it; this demo created $NAMESBR)"
delete_link "$NAMESBR"
echo "   removed $NAMESBR (the bridge plugin keeps its bridge; this demo created it)"
for d in "$DN_BASE" /run/containers/cni /run/containers; do
	printf '%s\n' "${T_CLEANUPS[@]}" | grep -qxF "rmdir '$d' 2>/dev/null || true" || continue
	rmdir "$d" && echo "   removed $d (dnsname keeps it; this demo made it)"
done
if [ "$bridge_existed" = no ]; then
	delete_link "$BRIDGE"
	echo "   removed $BRIDGE (the bridge plugin keeps its bridge; this demo created it)"
fi
