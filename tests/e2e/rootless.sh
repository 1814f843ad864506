#!/bin/bash
# Rootless podman with CNI networks (cnihook(8), ROOTLESS): a user of the
# test's own, with subordinate uid and gid ranges and a runtime directory
# /run/user/UID, runs podman 4 (runc, vfs storage, --network none) with the
# shipped hook entries in a hooks directory of the test's, cnihook.json
# naming a bridge/portmap network of the test's:
#   - an SCTP mapping is refused (the forwarder carries TCP and UDP),
#     nothing made;
#   - a misspelt network is refused with "did you mean";
#   - a host port root listens on is refused, naming the socket as another
#     user's; gc --dry-run says there is nothing to collect;
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
#   - ps names a's forwarder "cnihook-fwd ID HOSTIP:PORT/tcp->ADDR:80 ..."
#     (pgrep -f cnihook-fwd finds it); the user's watch runs;
#   - cnihook status and list as the user and under podman unshare show
#     the user's attachments and slirp4netns;
#   - slirp4netns and a's forwarder killed: status shows them MISSING;
#     the next container's start
#     starts both again, warning (a reaches outside, its port serves);
#     the forwarder killed again: podman unshare cnihook reload starts it;
#   - the user's log is /run/user/UID/cnihook.log, kept after the last
#     container;
#   - removing a stops its forwarder and frees the port; removing b, the
#     last, leaves nothing: no /run/user/UID/cnihook (namespace, state,
#     cache, leases), no process of cnihook's or slirp4netns of the user's,
#     no mount of cnihook's in podman's mount namespace;
#   - a rootless pod (--network none): two annotated members share one
#     attachment and forwarder, under the infra container's id, until the
#     last one stops;
#   - a container m removed without its poststop (as when conmon or
#     podman is killed) is collected by the next start, d's, which takes
#     m's port; then /run/user/UID/cnihook removed under d: the user's
#     watch stops d's forwarder, slirp4netns and dnsmasq, the port is free;
#     the same with the watch killed first: podman unshare cnihook gc
#     stops what was left running;
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
rl_hook_entries "${abs_top_builddir:-$srcdir}/config/hooks.d" "$U/hooks.d" "$U/cnihook" "$U/cnihook.json"
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
# A misspelt network: refused with the nearest name of confDir.
out=$(pm run -d --name u --network none --annotation "io.cnihook.networks=${NET}x" \
	"$IMAGE" true 2>&1) || true
grep -qF "network \"${NET}x\" not found in $U/net.d; did you mean \"$NET\"?" <<<"$out" && [ ! -e "$DIR" ] &&
	ok "a misspelt network is refused with \"did you mean\"; nothing left" ||
	not_ok "a misspelt network is refused with \"did you mean\"" "$out$(ls -R "$DIR" 2>&1)"
pm rm -f -t 0 u >/dev/null 2>&1 || true
# A host port another user (root, here) listens on: the start is refused,
# saying the socket is another user's and how root finds it.
HPORT=$((PORT + 3))
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(60)' "$HPORT" &
HOLDER=$!
cleanup_push "kill_child $HOLDER"
for ((i = 0; i < 50; i++)); do
	ss -Hntl "sport = :$HPORT" | grep -q . && break
	sleep 0.1
done
out=$(pm run -d --name h --network none --annotation "io.cnihook.networks=$NET" \
	--annotation "io.cnihook.ports=127.0.0.1:$HPORT:80" "$IMAGE" true 2>&1) || true
grep -q "host port $HPORT/tcp on 127.0.0.1 is in use on the host (socket inode [0-9]*; .*another user's, which root sees with ss -lntup 'sport = :$HPORT')" <<<"$out" &&
	[ ! -e "$DIR" ] &&
	ok "a port another user listens on is refused, naming the socket and how root finds its holder" ||
	not_ok "a port another user listens on is refused, naming the socket" "$out"
kill_child "$HOLDER" || true
pm rm -f -t 0 h >/dev/null 2>&1 || true
out=$(pm unshare "$U/cnihook" --config "$U/cnihook.json" gc --dry-run 2>&1) || true
[ "$out" = "gc: nothing to collect: the user has no $DIR" ] &&
	ok "gc --dry-run says when there is nothing to collect" ||
	not_ok "gc --dry-run says when there is nothing to collect" "$out"
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
[ ! -e "$RUNDIR/cnihook.log" ] || sed 's/^/#   log: /' "$RUNDIR/cnihook.log"

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
host_get() { rl_host_get "${1:-$PORT}"; } # host_get [PORT]
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
		"slirp4netns: ${SLIRP:-none}; wget: $got$(grep slirp4netns "$RUNDIR/cnihook.log" 2>/dev/null)"

[ -e "$DIR/netns" ] && [ -s "$DIR/forwarders/$A" ] && [ ! -e "$DIR/forwarders/$B" ] &&
	ok "the user's namespace and a's forwarder (none for b, which publishes nothing)" ||
	not_ok "the user's namespace and a's forwarder" "$(ls -R "$DIR" 2>&1)"
FWD=$(awk '{print $1}' "$DIR/forwarders/$A")
got=$(pgrep -u "$RL_UID" -af "^cnihook-fwd ${A:0:12} " || true)
grep -q "^$FWD cnihook-fwd ${A:0:12} 127.0.0.1:$PORT/tcp->${IP_A%/*}:80 127.0.0.1:$UPORT/udp->${IP_A%/*}:5353" <<<"$got" &&
	ok "ps names a's forwarder by what it forwards (pgrep -f cnihook-fwd): $got" ||
	not_ok "ps names a's forwarder by what it forwards" "pgrep: $got; ps: $(ps -o args= -p "$FWD")"
WATCH=$(awk '{print $1}' "$DIR/watch.pid" 2>/dev/null || true)
[ -n "$WATCH" ] && ps -o args= -p "$WATCH" | grep -q "^cnihook-watch uid $RL_UID *\$" &&
	ok "the user's watch runs (pid $WATCH)" || not_ok "the user's watch runs" "$(ls "$DIR")"

# ---------------------------------------------------------------- healing
# slirp4netns and a's forwarder killed (an OOM kill, a stray kill): the
# next stage of any container of the user's starts them again, warning.
# running PID: PID is a process, not a zombie (a helper stopped by a stage
# that `podman unshare` ran has init for its parent, which may reap late).
running() {
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $st != Z* ]]
}
# status and list as the user, and under podman unshare: the user's own
# attachments, helpers and forwarders.
st_user=$(as_user "$U/cnihook" --config "$U/cnihook.json" status 2>&1) || true
st_unshare=$(pm unshare "$U/cnihook" --config "$U/cnihook.json" status 2>&1) || true
ls_unshare=$(pm unshare "$U/cnihook" --config "$U/cnihook.json" list 2>&1) || true
for v in "$st_user" "$st_unshare"; do
	grep -q "^${A:0:12} *$NET .*own *- *\$" <<<"$v" && grep -q "^${B:0:12} " <<<"$v" &&
		grep -q "^slirp4netns: running (pid $SLIRP)" <<<"$v" || break
done
[ "$v" = "$st_unshare" ] && grep -q "^${A:0:12} *$NET " <<<"$v" && grep -q "^${A:0:12} *$NET " <<<"$ls_unshare" &&
	ok "cnihook status and list, as the user and under podman unshare, show the user's attachments and slirp4netns" ||
	not_ok "cnihook status and list as the user and under podman unshare" \
		"as the user: $st_user"$'\n'"podman unshare: $st_unshare"$'\n'"list: $ls_unshare"
kill -9 "$SLIRP" "$FWD" 2>/dev/null || true
sleep 0.2
st=$(as_user "$U/cnihook" --config "$U/cnihook.json" status 2>&1) || true
grep -q "^${A:0:12} *$NET .*forwarder *\$" <<<"$st" && grep -q "^slirp4netns: MISSING (pid $SLIRP)" <<<"$st" &&
	ok "slirp4netns and a's forwarder killed: status shows both MISSING" ||
	not_ok "slirp4netns and a's forwarder killed: status shows both MISSING" "$st"
out=$(pm run -d --name x --network none --annotation "io.cnihook.networks=$NET" \
	"$IMAGE" sleep 600 2>&1) || fail "podman run x: $out"
NEW_SLIRP=$(awk '{print $1}' "$DIR/slirp4netns.pid" 2>/dev/null || true)
got=$(pm exec a timeout 5 wget -q -O- "http://$OUT.2:8080/" 2>&1) || true
[ -n "$NEW_SLIRP" ] && [ "$NEW_SLIRP" != "$SLIRP" ] && [ "$got" = outside ] &&
	grep -q "the user's slirp4netns (pid $SLIRP) is not running (killed?): started again" <<<"$(rl_log)" &&
	ok "slirp4netns killed: x's start warns and starts it again (pid $NEW_SLIRP); a reaches outside again" ||
	not_ok "slirp4netns killed: x's start starts it again" "slirp: ${NEW_SLIRP:-none}; wget: $got$(rl_log | tail -n 5)"
SLIRP=$NEW_SLIRP
NEW_FWD=$(awk '{print $1}' "$DIR/forwarders/$A")
got=$(host_get 2>&1) || true
[ "$NEW_FWD" != "$FWD" ] && [ "$got" = a ] &&
	grep -q "the port forwarder of \"$A\" (pid $FWD) was not running (killed?): started again" <<<"$(rl_log)" &&
	ok "a's forwarder killed: x's start warns and starts it again; 127.0.0.1:$PORT serves" ||
	not_ok "a's forwarder killed: x's start starts it again" "GET: $got$(rl_log | tail -n 5)"
FWD=$NEW_FWD
kill -9 "$FWD" 2>/dev/null || true
out=$(pm unshare "$U/cnihook" --config "$U/cnihook.json" reload 2>&1) || true
NEW_FWD=$(awk '{print $1}' "$DIR/forwarders/$A")
got=$(host_get 2>&1) || true
[ "$NEW_FWD" != "$FWD" ] && [ "$got" = a ] &&
	ok "a's forwarder killed: podman unshare cnihook reload starts it again" ||
	not_ok "a's forwarder killed: podman unshare cnihook reload starts it again" "GET: $got; $out$(rl_log | tail -n 5)"
FWD=$NEW_FWD
pm rm -f -t 0 x >/dev/null 2>&1 || fail "podman rm x"

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
if running "$FWD"; then
	not_ok "a's forwarder (pid $FWD) stops with a" "$(ps -o pid,ppid,lstart,args -p "$FWD"; rl_log | tail -n 8)"
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
# namespace. (The teardown kills slirp4netns without waiting for it, and
# its exit takes tens of milliseconds: a second is given to it.)
user_clean() {
	local procs mounts pause
	[ ! -e "$DIR" ] && ok "$1: no $DIR" || not_ok "$1: no $DIR" "$(ls -laR "$DIR" 2>&1)"
	procs=$(rl_helpers_left)
	if [ -n "$SLIRP" ] && running "$SLIRP"; then
		not_ok "$1: slirp4netns (pid $SLIRP) stopped"
	fi
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
grep -q "$B poststop: detached 1 network(s)" "$RUNDIR/cnihook.log" &&
	ok "the user's log, $RUNDIR/cnihook.log, outlives the last container" ||
	not_ok "the user's log, $RUNDIR/cnihook.log, outlives the last container" "$(ls -la "$RUNDIR")"

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
		"GET: $got$(ls -R "$DIR" 2>&1; tail -n 5 "$RUNDIR/cnihook.log" 2>&1)"
FWD2=$(awk '{print $1}' "$DIR/forwarders/$INFRA" 2>/dev/null || true)
pm rm -f -t 0 pa >/dev/null 2>&1 || fail "podman rm pa"
[ -d "$DIR/state/$INFRA" ] && [ -n "$FWD2" ] && running "$FWD2" &&
	ok "pa stopped: pb keeps the pod's attachment and forwarder" ||
	not_ok "pa stopped: pb keeps the pod's attachment and forwarder" "$(ls -R "$DIR" 2>&1)"
pm pod rm -f -t 0 p >/dev/null 2>&1 || fail "podman pod rm p"
[ -n "$FWD2" ] && ! running "$FWD2" && ! host_get "$PORT2" >/dev/null 2>&1 &&
	ok "the pod removed: its forwarder stopped, port $PORT2 free" ||
	not_ok "the pod removed: its forwarder stopped, port $PORT2 free"
user_clean "after the pod"

# ---------------------------------------------------------------- missed poststop
# A container whose poststop never ran (a hooks directory without it, as
# when conmon or podman is killed) holds its port until the user's next
# start, which collects it first (as gc would find it): d takes the port.
mkdir -p "$U/hooks-nostop.d"
cp "$U/hooks.d/cnihook-createRuntime.json" "$U/hooks-nostop.d/"
chmod -R a+rX "$U/hooks-nostop.d"
pm_nostop() {
	as_user podman --runtime runc --storage-driver vfs --cgroup-manager cgroupfs \
		--events-backend file --hooks-dir "$U/hooks-nostop.d" "$@"
}
out=$(pm_nostop run -d --name m --network none --annotation "io.cnihook.networks=$NET" \
	--annotation "io.cnihook.ports=127.0.0.1:$PORT:80" "$IMAGE" sh -c "$(serve m)" 2>&1) ||
	fail "podman run m: $out"
M=$(tail -n 1 <<<"$out")
pm rm -f -t 0 m >/dev/null 2>&1 || fail "podman rm m"
out=$(pm run -d --name d --network none --annotation "io.cnihook.networks=$NET" \
	--annotation "io.cnihook.ports=127.0.0.1:$PORT:80" "$IMAGE" sh -c "$(serve d)" 2>&1) || true
got=$(host_get 2>&1) || true
[ "$got" = d ] && [ ! -e "$DIR/state/$M" ] &&
	grep -q "collected container \"$M\" first: gone without its poststop" <<<"$(rl_log)" &&
	ok "m gone without its poststop: d's start collects it first and takes its port $PORT" ||
	not_ok "m gone without its poststop: d's start collects it first" "run d: $out; GET: $got$(rl_log | tail -n 5)"

# The user's directory removed under running containers (logind at logout,
# by hand): the user's watch stops the helpers that served it (d's
# forwarder, slirp4netns, dnsmasq); the port is free.
FWD_D=$(awk '{print $1}' "$DIR/forwarders/"* 2>/dev/null | head -n 1)
SLIRP=$(awk '{print $1}' "$DIR/slirp4netns.pid" 2>/dev/null || true)
rm -rf "$DIR"
for ((i = 0; i < 50; i++)); do
	procs=$(rl_helpers)
	[ -n "$procs" ] || break
	sleep 0.1
done
if [ -n "$procs" ]; then
	not_ok "$DIR removed: the user's helpers stop by themselves" "$procs"
elif host_get >/dev/null 2>&1 || ss -Hntl "sport = :$PORT" | grep -q .; then
	not_ok "$DIR removed: port $PORT is free"
else
	ok "$DIR removed under d: its forwarder (pid $FWD_D), slirp4netns, dnsmasq and the watch stop within $((i / 10)).$((i % 10)) s; port $PORT free"
fi
pm rm -f -t 0 d >/dev/null 2>&1 || fail "podman rm d"
SLIRP=
user_clean "after the user's directory was removed"
# The same with the watch killed first: what is left runs on until
# podman unshare cnihook gc finds it (the user's helpers outside any
# namespace of the user's) and stops it.
out=$(pm run -d --name e --network none --annotation "io.cnihook.networks=$NET" \
	--annotation "io.cnihook.ports=127.0.0.1:$PORT:80" "$IMAGE" sh -c "$(serve e)" 2>&1) ||
	fail "podman run e: $out"
E=$(tail -n 1 <<<"$out")
kill -9 "$(awk '{print $1}' "$DIR/watch.pid")" 2>/dev/null || true
rm -rf "$DIR"
sleep 1.5
left=$(rl_helpers)
out=$(pm unshare "$U/cnihook" --config "$U/cnihook.json" gc 2>&1) || true
procs=$(rl_helpers)
if [ -z "$left" ]; then
	not_ok "$DIR removed, the watch killed: the helpers run on" "(none left)"
elif [ -n "$procs" ] || ! grep -q "^gc: stopped [1-9][0-9]* helper(s) of the user's" <<<"$out"; then
	not_ok "podman unshare cnihook gc stops the user's helpers left running" "$out; left: $procs"
elif host_get >/dev/null 2>&1; then
	not_ok "podman unshare cnihook gc frees port $PORT"
else
	ok "$DIR removed, the watch killed: podman unshare cnihook gc stops the helpers left running ($(wc -l <<<"$left")), port $PORT free"
fi
pm rm -f -t 0 e >/dev/null 2>&1 || fail "podman rm e"
user_clean "after gc of what was left running"

# ---------------------------------------------------------------- gc
# A container whose poststop never runs (a hooks directory without it):
# its attachment and forwarder stay after it is gone, until `podman unshare
# cnihook gc` collects them and removes the namespace.
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
assert_nothing_left --subnet "$SUBNET" --subnet "$OUT" --link "$NET" --id "$A" --id "$B" --id "$C" --id "$INFRA" \
	--id "$M" --id "$E"
finish
