#!/bin/bash
# Rootless podman with CNI networks (cnihook(8), ROOTLESS): a user of the
# test's own, with subordinate uid and gid ranges and a runtime directory
# /run/user/UID, runs podman 4 (runc, vfs storage, --network none) with the
# shipped hook entries in a hooks directory of the test's, cnihook.json
# naming a bridge/portmap network of the test's:
#   - an SCTP mapping is refused (the forwarder carries TCP and UDP),
#     nothing made;
#   - two containers annotated io.cnihook.networks=NET reach each other by
#     HTTP (busybox httpd in each, wget from the other);
#   - a's published ports (io.cnihook.ports 127.0.0.1:PORT:80 and
#     127.0.0.1:UPORT:5353/udp) serve on the host's 127.0.0.1: HTTP, and a
#     UDP echo server (tests/e2e/udp-echo.c, built static here) that answers
#     two clients each their own;
#   - a has the names of the network's result (its bridge returns `dns`):
#     /etc/resolv.conf names the server and the search domain, podman's
#     /etc/hosts maps a's address to its name;
#   - a reaches, through slirp4netns, a web server in a network namespace
#     of the test's on the host (a veth and a /30 of its own; the user's
#     namespace masquerades behind slirp's tap0, the host's tables are not
#     touched). Debian hosts give everyone /dev/net/tun (udev, 0666); where
#     it is 0600 (no udev), the test user alone gets it by an ACL entry,
#     removed at the end;
#   - the user's rootless network namespace, its slirp4netns (when the user
#     can open /dev/net/tun; without it, a warning and no outbound traffic)
#     and a's port forwarder are there while they run; slirp4netns runs
#     under its seccomp filter, it and the forwarder in /, the forwarder
#     with no child;
#   - removing a stops its forwarder and frees the port; removing b, the
#     last, leaves nothing: no /run/user/UID/cnihook (namespace, state,
#     cache, leases), no process of cnihook's or slirp4netns of the user's,
#     no mount of cnihook's in podman's mount namespace;
#   - a rootless pod (--network none): two annotated members share one
#     attachment and forwarder, under the infra container's id, until the
#     last one stops;
#   - a container removed without its poststop (a hooks directory without
#     it) keeps its attachment and forwarder until `podman unshare cnihook
#     gc`, which leaves nothing either.
# The user, its ranges, its runtime directory and podman's storage are
# removed at the end, podman's pause process stopped by its pid.
# ok never fails, so that `A && ok ... || not_ok ...` is an if-then-else.
# shellcheck disable=SC2015
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
. "$srcdir/tests/harness/rootless-lib.sh"

require_root "to create a user with subordinate ids"
require_cmd podman runc jq nsenter slirp4netns ss "${CC:-cc}"
CNIHOOK=${CNIHOOK:-${abs_top_builddir:-$srcdir}/hook/cnihook}
[ -x "$CNIHOOK" ] || fail "cnihook not found at $CNIHOOK (set CNIHOOK)"
PLUGINDIR=${CNI_PLUGIN_DIR:-/usr/lib/cni}
require_plugins bridge host-local portmap dnsname
require_cmd dnsmasq
BUSYBOX=${CNIHOOK_BUSYBOX:-/bin/busybox}
[ -x "$BUSYBOX" ] || skip "no static busybox at $BUSYBOX (busybox-static)"

guard_host_state
log "cnihook: $CNIHOOK"
log "suffix:  $uniq"

# ---------------------------------------------------------------- the user
rl_user_setup
cp "$CNIHOOK" "$U/cnihook"
chmod 0755 "$U/cnihook"
RL_PODMAN_ARGS=(--hooks-dir "$U/hooks.d")
as_user() { rl_as_user "$@"; }
pm() { rl_pm "$@"; }

# ---------------------------------------------------------------- network
NET=rl$uniq
SUBNET=$(random_subnet)
mkdir -p "$U/net.d" "$U/hooks.d"
# ipMasq: inside the user's namespace, the containers' traffic leaves
# through slirp4netns's tap0 under its address. dns: the bridge returns it
# in its result, and the names follow from it.
jq -n --arg n "$NET" --arg s "$SUBNET.0/24" --arg g "$SUBNET.1" '{cniVersion: "1.0.0", name: $n, plugins: [
	{type: "bridge", bridge: $n, isGateway: true, ipMasq: true,
	 dns: {nameservers: [$g], search: ["rl.test"]},
	 ipam: {type: "host-local", ranges: [[{subnet: $s}]], routes: [{dst: "0.0.0.0/0"}]}},
	{type: "portmap", capabilities: {portMappings: true}},
	{type: "dnsname", domainName: "rl.test"}]}' >"$U/net.d/10-$NET.conflist"

# Outside: a namespace of the test's on the host, a veth to it with a /30
# of its own, a web server in it (the static busybox).
OUT=$(random_subnet)
OUTNS=rlout$uniq OUTLINK=rlo$uniq
OUT_HTTPD=
# outside_down: the server stopped, the namespace and the veth removed (at
# the end, before the nothing-left check; again by the cleanups).
outside_down() {
	[ -z "$OUT_HTTPD" ] || kill_child "$OUT_HTTPD" || true
	ip netns delete "$OUTNS" 2>/dev/null || true
	ip link delete "$OUTLINK" 2>/dev/null || true
}
cleanup_push outside_down
ip netns add "$OUTNS" || fail "ip netns add $OUTNS"
ip link add "$OUTLINK" type veth peer name eth0 netns "$OUTNS" || fail "ip link add $OUTLINK"
ip addr add "$OUT.1/30" dev "$OUTLINK" && ip link set "$OUTLINK" up &&
	ip -n "$OUTNS" addr add "$OUT.2/30" dev eth0 && ip -n "$OUTNS" link set eth0 up &&
	ip -n "$OUTNS" link set lo up || fail "addresses on $OUTLINK"
mkdir -p "$T_TMP/outside"
echo outside >"$T_TMP/outside/index.html"
ip netns exec "$OUTNS" "$BUSYBOX" httpd -f -p 8080 -h "$T_TMP/outside" &
OUT_HTTPD=$!
jq -n --arg c "$U/net.d" --arg b "$PLUGINDIR" \
	'{confDir: $c, binDirs: [$b], log: {level: "info"}}' >"$U/cnihook.json"
for f in cnihook-createRuntime.json cnihook-poststop.json; do
	jq --arg p "$U/cnihook" --arg c "$U/cnihook.json" \
		'.hook.path = $p | .hook.args = .hook.args[:1] + ["--config", $c] + .hook.args[1:]' \
		"${abs_top_builddir:-$srcdir}/config/hooks.d/$f" >"$U/hooks.d/$f"
done
chmod -R a+rX "$U/net.d" "$U/hooks.d" "$U/cnihook.json"

# The image: the static busybox, its applets and the UDP echo server.
mkdir -p "$U/rootfs/bin"
"${CC:-cc}" -static -O2 -o "$U/rootfs/bin/udp-echo" "$srcdir/tests/e2e/udp-echo.c" ||
	fail "cannot build tests/e2e/udp-echo.c static (${CC:-cc} -static)"
IMAGE=localhost/cnihook-rootless:$uniq
rl_image "$IMAGE" sh httpd wget sleep cat timeout nslookup
ok "rootless podman imported the image as $RL_USER"

# ---------------------------------------------------------------- containers
PORT=$((20000 + RANDOM % 10001))
DIR=$RUNDIR/cnihook
UPORT=$((PORT + 2))
serve() { # serve NAME: the container's command: httpd serving NAME (and udp-echo)
	printf 'echo %s >/www/index.html; udp-echo 5353 & exec httpd -f -p 80 -h /www' "$1"
}
# A mapping the forwarder cannot carry (SCTP): the start is refused, naming
# it, and the user's first container leaves nothing behind.
if out=$(pm run -d --name u --network none --annotation "io.cnihook.networks=$NET" \
	--annotation "io.cnihook.ports=$PORT:9/sctp" "$IMAGE" sleep 1 2>&1); then
	not_ok "an SCTP mapping is refused" "$out"
elif grep -q 'protocol "sctp": a rootless container.s ports are forwarded for tcp and udp only' \
	<<<"$out" && [ ! -e "$DIR" ]; then
	ok "an SCTP mapping is refused, naming it; nothing made"
else
	not_ok "an SCTP mapping is refused, naming it; nothing made" "$out$(ls -R "$DIR" 2>&1)"
fi
pm rm -f -t 0 u >/dev/null 2>&1 || true
# (podman splits --annotation at commas outside double quotes)
# The names dnsname answers: io.cnihook.name (podman's hostname is the
# short id).
out=$(pm run -d --name a --network none --annotation "io.cnihook.networks=$NET" \
	--annotation io.cnihook.name=a \
	--annotation "\"io.cnihook.ports=127.0.0.1:$PORT:80,127.0.0.1:$UPORT:5353/udp\"" \
	"$IMAGE" sh -c "$(serve a)" 2>&1) ||
	fail "podman run a: $out"
A=$(tail -n 1 <<<"$out")
out=$(pm run -d --name b --network none --annotation "io.cnihook.networks=$NET" \
	--annotation io.cnihook.name=b \
	"$IMAGE" sh -c "$(serve b)" 2>&1) || fail "podman run b: $out"
B=$(tail -n 1 <<<"$out")
ok "two rootless containers started with io.cnihook.networks=$NET"
[ ! -e "$DIR/state/cnihook.log" ] || sed 's/^/#   log: /' "$DIR/state/cnihook.log"

ip_of() { jq -r '.[0].ips[0]' "$DIR/state/$1/network-status.json"; }
IP_A=$(ip_of "$A") IP_B=$(ip_of "$B")
case $IP_A/$IP_B in
"$SUBNET".*/"$SUBNET".*) ok "both have an address of $SUBNET.0/24 ($IP_A, $IP_B)" ;;
*) not_ok "both have an address of $SUBNET.0/24" "a: $IP_A, b: $IP_B" ;;
esac
[ "$(pm exec b wget -q -O- "http://$IP_A/" 2>&1)" = a ] &&
	ok "b reaches a ($IP_A:80)" || not_ok "b reaches a ($IP_A:80)"
[ "$(pm exec a wget -q -O- "http://$IP_B/" 2>&1)" = b ] &&
	ok "a reaches b ($IP_B:80)" || not_ok "a reaches b ($IP_B:80)"
# host_get: the body of GET / on 127.0.0.1:PORT (bash's /dev/tcp: no
# client of the host's needed), or a failure.
host_get() { # host_get [PORT]
	# shellcheck disable=SC2016
	timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf "GET / HTTP/1.0\r\n\r\n" >&3 &&
		sed "1,/^\r\{0,1\}$/d" <&3' _ "${1:-$PORT}"
}
got=$(host_get 2>&1) || true
[ "$got" = a ] && ok "a's published port serves on 127.0.0.1:$PORT" ||
	not_ok "a's published port serves on 127.0.0.1:$PORT" "$got"
# udp_ask WORD: a datagram to 127.0.0.1:UPORT from a socket of its own
# (bash's /dev/udp), and the one datagram that comes back.
udp_ask() {
	# shellcheck disable=SC2016
	timeout 5 bash -c 'exec 3<>"/dev/udp/127.0.0.1/$1" && printf %s "$2" >&3 &&
		dd bs=2048 count=1 status=none <&3' _ "$UPORT" "$1"
}
got1=$(udp_ask one 2>&1) || true
got2=$(udp_ask two 2>&1) || true
[ "$got1" = "echo one" ] && [ "$got2" = "echo two" ] &&
	ok "a's published UDP port answers two clients on 127.0.0.1:$UPORT, each its own" ||
	not_ok "a's published UDP port answers two clients on 127.0.0.1:$UPORT" "one: $got1; two: $got2"

rc=$(pm exec a cat /etc/resolv.conf 2>&1)
grep -qx "nameserver $SUBNET.1" <<<"$rc" && grep -q '^search rl.test' <<<"$rc" &&
	ok "a's /etc/resolv.conf names the network's server and search domain" ||
	not_ok "a's /etc/resolv.conf names the network's server and search domain" "$rc"
hosts=$(pm exec a cat /etc/hosts 2>&1)
grep -qE "^${IP_A%/*}[[:space:]].*\ba\b" <<<"$hosts" &&
	ok "a's /etc/hosts maps ${IP_A%/*} to its name" ||
	not_ok "a's /etc/hosts maps ${IP_A%/*} to its name" "$hosts"

got=$(pm exec b nslookup a 2>&1) || true
grep -q "Address: *${IP_A%/*}\$" <<<"$got" &&
	ok "b resolves a by name (dnsname's dnsmasq in the user's namespace): ${IP_A%/*}" ||
	not_ok "b resolves a by name (dnsname's dnsmasq in the user's namespace)" "$got"

SLIRP=$(awk '{print $1}' "$DIR/slirp4netns.pid" 2>/dev/null || true)
got=$(pm exec a timeout 5 wget -q -O- "http://$OUT.2:8080/" 2>&1) || true
[ -n "$SLIRP" ] && [ "$got" = outside ] &&
	ok "a reaches $OUT.2:8080 outside the user's namespace, through slirp4netns (pid $SLIRP)" ||
	not_ok "a reaches $OUT.2:8080 outside the user's namespace, through slirp4netns" \
		"slirp4netns: ${SLIRP:-none}; wget: $got$(grep slirp4netns "$DIR/state/cnihook.log" 2>/dev/null)"

[ -e "$DIR/netns" ] && [ -s "$DIR/forwarders/$A" ] && [ ! -e "$DIR/forwarders/$B" ] &&
	ok "the user's namespace and a's forwarder (none for b, which publishes nothing)" ||
	not_ok "the user's namespace and a's forwarder" "$(ls -R "$DIR" 2>&1)"
FWD=$(awk '{print $1}' "$DIR/forwarders/$A")

# slirp4netns under its seccomp filter (--enable-seccomp, as podman runs it),
# in /; the forwarder in / with no child (one event loop, no process per
# connection).
slirp_st=$(grep '^Seccomp:' "/proc/$SLIRP/status" 2>&1 || true)
[ "$(readlink "/proc/$SLIRP/cwd")" = / ] && [ "$(readlink "/proc/$FWD/cwd")" = / ] &&
	grep -q '2$' <<<"$slirp_st" && [ -z "$(cat "/proc/$FWD/task/$FWD/children" 2>&1)" ] &&
	ok "slirp4netns runs under its seccomp filter, it and the forwarder in /" ||
	not_ok "slirp4netns runs under its seccomp filter, it and the forwarder in /" \
		"slirp4netns $SLIRP: $slirp_st, cwd $(readlink "/proc/$SLIRP/cwd"); forwarder $FWD: cwd $(readlink "/proc/$FWD/cwd")"

# ---------------------------------------------------------------- teardown
pm rm -f -t 0 a >/dev/null 2>&1 || fail "podman rm a"
if kill -0 "$FWD" 2>/dev/null; then
	not_ok "a's forwarder (pid $FWD) stops with a"
elif host_get >/dev/null 2>&1; then
	not_ok "a's port $PORT is free after a"
elif ss -Hnul "sport = :$UPORT" | grep -q .; then
	not_ok "a's UDP port $UPORT is free after a"
else
	ok "removing a stops its forwarder and frees ports $PORT and $UPORT/udp"
fi
[ -e "$DIR/netns" ] && [ -d "$DIR/state/$B" ] &&
	ok "b keeps the namespace" || not_ok "b keeps the namespace" "$(ls -R "$DIR" 2>&1)"

# user_clean WHEN: nothing of cnihook's left for the user: no directory,
# no slirp4netns, forwarder or cnihook process, no mount in podman's mount
# namespace.
user_clean() {
	local procs mounts pause
	[ ! -e "$DIR" ] && ok "$1: no $DIR" || not_ok "$1: no $DIR" "$(ls -laR "$DIR" 2>&1)"
	if [ -n "$SLIRP" ] && kill -0 "$SLIRP" 2>/dev/null; then
		not_ok "$1: slirp4netns (pid $SLIRP) stopped"
	fi
	# (pgrep: a pattern of more than 15 bytes matches nothing)
	# shellcheck disable=SC2009
	procs=$(ps -u "$RL_USER" -o pid=,comm= | grep -E 'cnihook|slirp4netns|dnsmasq' || true)
	[ -z "$procs" ] && ok "$1: no forwarder, slirp4netns, dnsmasq or cnihook process of the user's" ||
		not_ok "$1: no forwarder, slirp4netns, dnsmasq or cnihook process of the user's" "$procs"
	pause=$(cat "$RUNDIR/libpod/tmp/pause.pid" 2>/dev/null || true)
	if [ -n "$pause" ]; then
		mounts=$(nsenter -t "$pause" -m grep -F "$DIR" /proc/self/mountinfo || true)
		[ -z "$mounts" ] && ok "$1: no mount under $DIR in podman's mount namespace" ||
			not_ok "$1: no mount under $DIR in podman's mount namespace" "$mounts"
	fi
}

pm rm -f -t 0 b >/dev/null 2>&1 || fail "podman rm b"
user_clean "after the last container"

# ---------------------------------------------------------------- a pod
# A rootless pod (--network none): its first annotated member attaches the
# network for the pod, under the infra container's id, with its published
# port; a second member that asks the same joins; the attachment and the
# forwarder stay until the last member stops, then nothing is left.
PORT2=$((PORT + 1))
pm pod create --network none --name p >/dev/null 2>&1 || fail "podman pod create p"
INFRA=$(pm pod inspect p --format '{{.InfraContainerID}}')
pod_ann=(--annotation "io.cnihook.networks=$NET" --annotation "io.cnihook.ports=127.0.0.1:$PORT2:80"
	--annotation io.cnihook.name=p)
out=$(pm run -d --pod p --name pa "${pod_ann[@]}" "$IMAGE" sh -c "$(serve pa)" 2>&1) ||
	fail "podman run --pod p pa: $out"
out=$(pm run -d --pod p --name pb "${pod_ann[@]}" "$IMAGE" sleep 600 2>&1) ||
	fail "podman run --pod p pb: $out"
got=$(host_get "$PORT2" 2>&1) || true
[ -d "$DIR/state/$INFRA" ] && [ -s "$DIR/forwarders/$INFRA" ] && [ "$got" = pa ] &&
	ok "a rootless pod: two members, one attachment (the infra's id), its port serves on 127.0.0.1:$PORT2" ||
	not_ok "a rootless pod: two members, one attachment, its port serves" \
		"GET: $got$(ls -R "$DIR" 2>&1; tail -n 5 "$DIR/state/cnihook.log" 2>&1)"
FWD2=$(awk '{print $1}' "$DIR/forwarders/$INFRA" 2>/dev/null || true)
pm rm -f -t 0 pa >/dev/null 2>&1 || fail "podman rm pa"
[ -d "$DIR/state/$INFRA" ] && [ -n "$FWD2" ] && kill -0 "$FWD2" 2>/dev/null &&
	ok "pa stopped: pb keeps the pod's attachment and forwarder" ||
	not_ok "pa stopped: pb keeps the pod's attachment and forwarder" "$(ls -R "$DIR" 2>&1)"
pm pod rm -f -t 0 p >/dev/null 2>&1 || fail "podman pod rm p"
[ -n "$FWD2" ] && ! kill -0 "$FWD2" 2>/dev/null && ! host_get "$PORT2" >/dev/null 2>&1 &&
	ok "the pod removed: its forwarder stopped, port $PORT2 free" ||
	not_ok "the pod removed: its forwarder stopped, port $PORT2 free"
user_clean "after the pod"

# ---------------------------------------------------------------- gc
# A container whose poststop never runs (a hooks directory without it):
# its attachment and forwarder stay after it is gone, until `podman unshare
# cnihook gc` collects them and removes the namespace.
mkdir -p "$U/hooks-nostop.d"
cp "$U/hooks.d/cnihook-createRuntime.json" "$U/hooks-nostop.d/"
chmod -R a+rX "$U/hooks-nostop.d"
out=$(as_user podman --runtime runc --storage-driver vfs --cgroup-manager cgroupfs \
	--events-backend file --hooks-dir "$U/hooks-nostop.d" run -d --name c --network none \
	--annotation "io.cnihook.networks=$NET" --annotation "io.cnihook.ports=127.0.0.1:$PORT:80" \
	--annotation io.cnihook.name=c \
	"$IMAGE" sh -c "$(serve c)" 2>&1) || fail "podman run c: $out"
C=$(tail -n 1 <<<"$out")
pm rm -f -t 0 c >/dev/null 2>&1 || fail "podman rm c"
[ -d "$DIR/state/$C" ] && [ -s "$DIR/forwarders/$C" ] &&
	ok "c removed without its poststop: its attachment and forwarder stay" ||
	not_ok "c removed without its poststop: its attachment and forwarder stay" "$(ls -R "$DIR" 2>&1)"
out=$(pm unshare "$U/cnihook" --config "$U/cnihook.json" gc 2>&1) &&
	grep -q "container \"$C\": gone: detached 1 attachment" <<<"$out" &&
	ok "podman unshare cnihook gc: c is gone, detached" ||
	not_ok "podman unshare cnihook gc: c is gone, detached" "$out"
user_clean "after gc"
outside_down
assert_nothing_left --subnet "$SUBNET" --subnet "$OUT" --link "$NET" --id "$A" --id "$B" --id "$C" --id "$INFRA"
finish
