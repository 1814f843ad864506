#!/bin/bash
# Names between containers: the dnsname plugin (Debian's
# golang-github-containernetworking-plugin-dnsname: a dnsmasq per network
# that answers the containers' names) in a network that cnihook attaches,
# under runc, crun, podman (--network none) and containerd (ctr), with the
# shipped sandbox (cnihook.json(5), "Plugins with a profile: dnsname").
#
# Per runtime: two containers on a network of bridge, host-local and
# dnsname; each resolves the other by name (io.cnihook.name, else its
# hostname, which runtime-lib.sh's bundles set to the container's name;
# podman's is its short id, so both podman containers are named by
# annotation) through the server the result's dns names, read from
# `cnihook status`; the name reached dnsname alone (the cache entry's
# CNI_ARGS, which every plugin of the chain gets, has no K8S_POD_NAME);
# dnsmasq runs with dnsname's profile; the first container's stop removes
# its name, the last one's stops dnsmasq and removes
# /run/containers/cni/dnsname/NETWORK; dnsname's iptables rule (udp 53 from
# the bridge) stays, as cnihook(8) says, and the test removes it.
# Under runc, an ADD that fails after dnsname's (a tuning plugin with a
# sysctl that does not exist) leaves nothing of dnsname's, and a name that
# is no DNS name is refused before any plugin runs.
#
# The whole script runs in a mount namespace of its own, as crun.sh does,
# so that crun's case can unmount /sys/fs/cgroup/unified (it runs last).
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ "${CNIHOOK_IN_CRUN_NS:-}" != 1 ] && [ "$(id -u)" = 0 ] &&
	command -v unshare >/dev/null 2>&1 && unshare -m true 2>/dev/null; then
	export CNIHOOK_IN_CRUN_NS=1
	exec unshare -m --propagation unchanged "$BASH" "$0" "$@"
fi
T_NETPREFIX=dn
. "$srcdir/tests/harness/runtime-lib.sh"

DN_DIR=/run/containers/cni/dnsname
# dnsname keeps its base directory (cnihook(8)): removed at the end when
# this script made it and it is empty.
for d in /run/containers /run/containers/cni "$DN_DIR"; do
	[ -e "$d" ] || cleanup_push "rmdir '$d' 2>/dev/null || true"
done

# dn_add_net [KIND]: the case's network $NET: bridge $BR (host-local,
# $SUB.0/24), dnsname with domain dn-$uniq.test; KIND "failing": then a
# tuning plugin whose sysctl does not exist (its ADD fails, after dnsname's).
# Registers the removal of what dnsname leaves if the case fails half-way:
# its dnsmasq (by the pid file of the case's network), its directory, its
# iptables rule for $BR.
dn_add_net() {
	local kind=${1:-}
	jq -n --arg n "$NET" --arg br "$BR" --arg sub "$SUB.0/24" --arg dd "$DATADIR" \
		--arg dom "dn-$uniq.test" --arg kind "$kind" '
		{cniVersion: "1.0.0", name: $n, plugins: ([
			{type: "bridge", bridge: $br, isGateway: true, ipMasq: false,
			 ipam: {type: "host-local", dataDir: $dd, ranges: [[{subnet: $sub}]],
				routes: []}},
			{type: "dnsname", domainName: $dom}]
			+ if $kind == "failing" then
				[{type: "tuning", sysctl: {"net.cnihook.nosuchsysctl": "1"}}]
			  else [] end)}' >"$DIR/net.d/50-$NET.conflist"
	cleanup_push "dn_remove_rule '$BR'"
	cleanup_push "dn_stop_dnsmasq '$NET'"
	log "  network $NET: bridge, host-local, dnsname (domain dn-$uniq.test)$([ -z "$kind" ] || echo ", tuning failing")"
}

# dn_rule BRIDGE: dnsname's rule for BRIDGE (as it inserts it).
dn_rule() {
	printf '%s\n' INPUT -i "$1" -p udp -m udp --dport 53 -j ACCEPT
}
dn_remove_rule() {
	local r
	mapfile -t r < <(dn_rule "$1")
	while iptables -w -C "${r[@]}" 2>/dev/null; do iptables -w -D "${r[@]}"; done
}

# dn_dnsmasq NETWORK: the pid of the dnsmasq dnsname started for NETWORK
# (its pid file, and a live process whose command line names the network's
# configuration), or nothing.
dn_dnsmasq() {
	local pid st
	pid=$(cat "$DN_DIR/$1/pidfile" 2>/dev/null) || return 0
	dn_alive "$pid" || return 0
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "--conf-file=$DN_DIR/$1/dnsmasq.conf" ||
		return 0
	printf '%s\n' "$pid"
}

# dn_alive PID: PID is a process that is not a zombie (dnsname kills dnsmasq;
# whether anyone reaps it depends on the host's init).
dn_alive() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

# dn_stop_dnsmasq NETWORK: the safety net: the case's dnsmasq (found as
# above, so never another's) killed, its directory removed.
dn_stop_dnsmasq() {
	local pid
	pid=$(dn_dnsmasq "$1")
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
	rm -rf "${DN_DIR:?}/$1"
}

# dn_server CID: the first nameserver of the network-status's dns.
dn_server() {
	hook_status "$1" | jq -r '.[0].dns.nameservers[0] // empty'
}

# dn_resolves FROM NAME SERVER IP: busybox nslookup in container FROM asks
# SERVER for NAME and gets IP (tried for up to 3 s: dnsmasq rereads its
# hosts file on the SIGHUP dnsname sends).
dn_resolves() {
	local out i
	for ((i = 0; i < 15; i++)); do
		out=$(rt_exec "$1" nslookup "$2" "$3" 2>&1) || true
		if grep -Eq "^Address( [0-9]+)?:[[:space:]]*$4\$" <<<"$out"; then
			return 0
		fi
		sleep 0.2
	done
	printf '    nslookup| %s\n' "${out//$'\n'/$'\n'    nslookup| }"
	return 1
}

# dn_case RUNTIME LETTER: the case described at the top, under RUNTIME.
dn_case() {
	local rt=$1 l=$2 a b name_a name_b cid_a cid_b ann_a server ip_a ip_b pid bnd
	T_TMP=$T_TMP/$rt
	mkdir -p "$T_TMP"
	rt_init "$rt"
	command -v dnsmasq >/dev/null 2>&1 || [ -x /usr/sbin/dnsmasq ] ||
		skip "no dnsmasq (install dnsmasq-base)"
	[ -x "$PLUGINDIR/dnsname" ] ||
		skip "no dnsname plugin in $PLUGINDIR (install golang-github-containernetworking-plugin-dnsname)"
	rt_setup_case "$l"
	dn_add_net
	a=$(rt_id a) b=$(rt_id b)
	name_b=peer-$uniq$l
	# a: its hostname (the bundle's; podman's is its short id, so there
	# the annotation); b: io.cnihook.name.
	if [ "$rt" = podman ]; then
		name_a=first-$uniq$l
		ann_a=$(annotations io.cnihook.networks "$NET" io.cnihook.name "$name_a")
	else
		name_a=$a
		ann_a=$(annotations io.cnihook.networks "$NET")
	fi
	rt_start_ok "start $a on $NET (named $name_a)" "$a" "$ann_a"
	cid_a=$RT_CID
	rt_start_ok "start $b on $NET with io.cnihook.name=$name_b" "$b" \
		"$(annotations io.cnihook.networks "$NET" io.cnihook.name "$name_b")"
	cid_b=$RT_CID
	ip_a=$(assert_attached_to "$a" "$cid_a" "$NET" eth0 "$SUB")
	ip_b=$(assert_attached_to "$b" "$cid_b" "$NET" eth0 "$SUB")

	checking "the result's dns names dnsname's server, $GW (cnihook status)"
	server=$(dn_server "$cid_a")
	[ "$server" = "$GW" ] || fail "network-status of $cid_a has dns server \"$server\": $(hook_status "$cid_a")"
	[ "$(dn_server "$cid_b")" = "$GW" ] || fail "network-status of $cid_b: $(hook_status "$cid_b")"
	ok "dns.nameservers[0] = $server for both"

	checking "$a resolves $name_b to $ip_b, $b resolves $name_a to $ip_a (nslookup NAME $server)"
	dn_resolves "$a" "$name_b" "$server" "$ip_b" || fail "$a cannot resolve $name_b"
	dn_resolves "$b" "$name_a" "$server" "$ip_a" || fail "$b cannot resolve $name_a"
	ok "both resolve"

	checking "the name reached dnsname alone: no K8S_POD_NAME in the chain's CNI_ARGS; the record keeps it"
	! jq -e '[.cniArgs // [] | .[] | .[0]] | index("K8S_POD_NAME")' \
		"$CACHEDIR/results/$NET-$cid_b-eth0" >/dev/null ||
		fail "the cache entry's cniArgs hold K8S_POD_NAME: $(jq -c .cniArgs "$CACHEDIR/results/$NET-$cid_b-eth0")"
	jq -e --arg n "$name_b" '.hostname == $n' "$STATEDIR/$cid_b/record.json" >/dev/null ||
		fail "the record of $cid_b does not hold hostname $name_b"
	ok "cniArgs: $(jq -c '.cniArgs // []' "$CACHEDIR/results/$NET-$cid_b-eth0")"

	checking "dnsmasq runs with dnsname's profile (CAP_NET_ADMIN, CAP_NET_RAW, CAP_NET_BIND_SERVICE, CAP_SETGID), no_new_privs"
	pid=$(dn_dnsmasq "$NET")
	[ -n "$pid" ] || fail "no dnsmasq for $NET ($(ls -la "$DN_DIR/$NET" 2>&1))"
	bnd=$(awk '$1 == "CapBnd:" { print $2 }' "/proc/$pid/status")
	# bits 6, 10, 12, 13 (what the host's own bounding set has of them)
	[ $((0x$bnd & ~0x3440)) = 0 ] || fail "dnsmasq $pid has bounding set $bnd"
	grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$pid/status" || fail "dnsmasq $pid without no_new_privs"
	ok "dnsmasq $pid, CapBnd $bnd"

	checking "dnsname's iptables rule for $BR (udp 53) is there"
	iptables -w -C $(dn_rule "$BR") 2>/dev/null || fail "no rule $(dn_rule "$BR" | tr '\n' ' ')"
	ok "$(dn_rule "$BR" | tr '\n' ' ')"

	rt_stop "$a"
	checking "$name_a left dnsname's hosts file; dnsmasq $pid still answers for $name_b"
	! grep -qw -- "$name_a" "$DN_DIR/$NET/addnhosts" ||
		fail "$DN_DIR/$NET/addnhosts still names $name_a: $(cat "$DN_DIR/$NET/addnhosts")"
	[ "$(dn_dnsmasq "$NET")" = "$pid" ] || fail "dnsmasq $pid is gone with $b still on $NET"
	dn_resolves "$b" "$name_b" "$server" "$ip_b" || fail "$b cannot resolve its own name"
	ok "hosts file: $(tr '\n\t' '  ' <"$DN_DIR/$NET/addnhosts")"

	rt_stop "$b"
	checking "after the last container: no dnsmasq $pid, no $DN_DIR/$NET"
	for ((i = 0; i < 20; i++)); do
		dn_alive "$pid" || break
		sleep 0.1
	done
	! dn_alive "$pid" || fail "dnsmasq $pid still runs"
	[ ! -e "$DN_DIR/$NET" ] || fail "$DN_DIR/$NET is left: $(ls -la "$DN_DIR/$NET")"
	ok "gone"
	checking "dnsname's iptables rule for $BR stays (dnsname's DEL never removes it): removed here"
	iptables -w -C $(dn_rule "$BR") 2>/dev/null || fail "the rule is gone: cnihook(8) says otherwise"
	dn_remove_rule "$BR"
	ok "removed"
	rt_teardown_and_check
}

# dn_case_failed_add: under runc, the network's ADD fails after dnsname's
# (tuning, last): the rollback DEL gives dnsname the name too, which then
# removes it, stops its dnsmasq and removes its directory.
dn_case_failed_add() {
	local a
	T_TMP=$T_TMP/failed
	mkdir -p "$T_TMP"
	rt_init runc
	[ -x "$PLUGINDIR/dnsname" ] ||
		skip "no dnsname plugin in $PLUGINDIR (install golang-github-containernetworking-plugin-dnsname)"
	rt_setup_case f
	dn_add_net failing
	a=$(rt_id a)
	checking "start $a on $NET (bridge, dnsname, a failing tuning) fails"
	if rt_start "$a" "$(annotations io.cnihook.networks "$NET")"; then
		fail "runc started it"
	fi
	grep -q "nosuchsysctl" "${RT_OUT[$RT_CID]}" "$HOOKLOG" || fail "the error does not name tuning's sysctl"
	ok "refused: tuning's sysctl"
	checking "nothing of dnsname's is left: no $DN_DIR/$NET, no dnsmasq for it"
	[ ! -e "$DN_DIR/$NET" ] || fail "$DN_DIR/$NET is left: $(ls -la "$DN_DIR/$NET")"
	[ -z "$(dn_dnsmasq "$NET")" ] || fail "dnsmasq $(dn_dnsmasq "$NET") runs"
	ok "none"
	rt_force_remove "$a"
	dn_remove_rule "$BR"

	# A name dnsname cannot take: refused before any plugin runs.
	a=$(rt_id b)
	checking "start $a with io.cnihook.name=not_a_name is refused before any plugin runs"
	if rt_start "$a" "$(annotations io.cnihook.networks "$NET" io.cnihook.name not_a_name)"; then
		fail "runc started it"
	fi
	grep -q 'annotation "io.cnihook.name": "not_a_name" is not a DNS name' \
		"${RT_OUT[$RT_CID]}" "$HOOKLOG" || fail "the error does not name the annotation"
	[ ! -e "$DN_DIR/$NET" ] || fail "$DN_DIR/$NET exists"
	! iptables -w -C $(dn_rule "$BR") 2>/dev/null || fail "dnsname ran: its rule is there"
	ok "refused: annotation \"io.cnihook.name\": \"not_a_name\" is not a DNS name"
	rt_force_remove "$a"
	rt_teardown_and_check
}

run_case "two containers resolve each other through dnsname (runc)" dn_case runc a
run_case "an ADD failing after dnsname's leaves nothing of it; a bad name is refused (runc)" \
	dn_case_failed_add
run_case "two containers resolve each other through dnsname (podman --network none)" dn_case podman b
run_case "two containers resolve each other through dnsname (containerd)" dn_case containerd c
run_case "two containers resolve each other through dnsname (crun)" dn_case crun d
log "--- whole script"
assert_nothing_left
finish
