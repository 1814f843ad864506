#!/bin/bash
# cnihook add/check/del/validate with Debian's real CNI plugins (bridge,
# host-local, portmap, tuning, firewall) against network namespaces this script
# creates. Everything it makes has a unique name and is removed at exit; each
# case checks that the CLI itself left nothing behind.
set -euo pipefail

srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"

require_root
require_cmd ip jq iptables-save ip6tables-save sha512sum flock
CNIHOOK=${CNIHOOK:-${abs_top_builddir:-$srcdir}/hook/cnihook}
[ -x "$CNIHOOK" ] || fail "cnihook not found at $CNIHOOK (set CNIHOOK)"
PLUGINDIR=${CNI_PLUGIN_DIR:-/usr/lib/cni}
for p in bridge host-local portmap tuning firewall; do
	[ -x "$PLUGINDIR/$p" ] ||
		skip "CNI plugin $PLUGINDIR/$p not found (install containernetworking-plugins)"
done
command -v ping >/dev/null 2>&1 || command -v busybox >/dev/null 2>&1 ||
	skip "neither ping nor busybox (for ping) found"

guard_host_state

log "cnihook: $CNIHOOK"
log "plugins: $PLUGINDIR ($(CNI_COMMAND=VERSION "$PLUGINDIR/bridge" </dev/null 2>&1 || true))"
log "suffix:  $uniq"

# ---------------------------------------------------------------- cases
# lifecycle LETTER VERSION PLUGIN...: add (with a port mapping), look at the
# container, check, del, nothing left.
lifecycle() {
	local l=$1 version=$2 ns nspath cid port ip cache hasfw=0 p
	shift 2
	setup_case "$l"
	for p in "$@"; do [ "$p" != firewall ] || hasfw=1; done
	write_list "$NETCONFPATH/10-net.conflist" "$NET" "$version" "$@"
	ns=cnt-$uniq-$l
	new_netns "$ns"
	nspath=/run/netns/$ns
	cid=$(default_cid "$nspath")
	port=$((20000 + RANDOM % 10001))
	export CAP_ARGS="{\"portMappings\":[{\"hostPort\":$port,\"containerPort\":80,\"protocol\":\"tcp\"}]}"

	expect_ok "add ($version list: $*), hostPort $port" cli add "$NET" "$nspath"
	cleanup_push "'$CNIHOOK' del '$NET' '$nspath'"
	checking "the result is an indented $version result with the container's IP"
	[ "$(wc -l <<<"$OUT")" -gt 1 ] || fail "the result is not indented: $OUT"
	jq -e --arg v "$version" '.cniVersion == $v' <<<"$OUT" >/dev/null ||
		fail "result cniVersion is not $version: $OUT"
	ip=$(jq -r '.ips[0].address // empty' <<<"$OUT")
	[[ $ip == "$SUB".*/24 ]] || fail "no IP of $SUB.0/24 in the result: $OUT"
	ip=${ip%/24}
	ok "result has $ip"

	assert_attached "$ns" "$ip" "$GW" "$cid"

	checking "tuning set net.core.somaxconn=500 in the container"
	[ "$(ip netns exec "$ns" cat /proc/sys/net/core/somaxconn)" = 500 ] ||
		fail "net.core.somaxconn is $(ip netns exec "$ns" cat /proc/sys/net/core/somaxconn)"
	ok "sysctl set"

	checking "portmap rules name the container id $cid and map $port to $ip:80"
	assert_portmap "$cid" "$port" "$ip"
	ok "portmap rules present"
	if [ "$hasfw" = 1 ]; then
		checking "firewall rules admit $ip"
		iptables-save -t filter | grep -qF -- "$ip/32" ||
			fail "no filter rule for $ip/32: $(iptables-save -t filter | grep CNI- || true)"
		ok "firewall rules present"
	fi

	if command -v busybox >/dev/null 2>&1; then
		checking "a TCP connection to $GW:$port reaches port 80 in the container"
		mkdir -p "$DIR/www"
		echo "hello $uniq" >"$DIR/www/index.html"
		ip netns exec "$ns" busybox httpd -f -p 80 -h "$DIR/www" &
		cleanup_push "kill $! 2>/dev/null; wait $! 2>/dev/null"
		local got='' i
		for ((i = 0; i < 20; i++)); do
			got=$(busybox timeout 2 busybox wget -q -O - "http://$GW:$port/" 2>/dev/null) || true
			[ -z "$got" ] || break
			sleep 0.1
		done
		[ "$got" = "hello $uniq" ] || fail "port mapping $GW:$port -> $ip:80 did not answer"
		ok "port mapping works"
	fi

	checking "cache file $NET-$cid-eth0"
	cache=$CNI_CACHE_DIR/results/$NET-$cid-eth0
	[ -f "$cache" ] || fail "no cache file $cache: $(ls -la "$CNI_CACHE_DIR/results" 2>&1)"
	[ "$(stat -c %a "$cache")" = 600 ] || fail "cache file mode $(stat -c %a "$cache")"
	jq -e --arg c "$cid" --arg n "$NET" --arg p "$nspath" '.kind == "cniCacheV1" and
		.containerId == $c and .ifName == "eth0" and .networkName == $n and
		((has("netns") | not) or .netns == $p) and (.result | type) == "object"' \
		"$cache" >/dev/null || fail "cache file content: $(cat "$cache")"
	ok "cache file written"

	if [ "$version" = 0.3.1 ]; then
		expect_fail "check on a 0.3.1 list is refused, naming CHECK and the version" \
			'CHECK.*0\.3\.1|0\.3\.1.*CHECK' check "$NET" "$nspath"
	else
		check_attachment cli "$NET" "$nspath"
	fi

	expect_ok "del" cli del "$NET" "$nspath"
	[ -z "$OUT" ] || fail "del printed: $OUT"
	assert_detached "$ns" "$ip" "$cid"
	teardown_and_check "$ns" "$cid"
}

# add_for_del LETTER [CONTAINERID]: set up case LETTER with one attachment for
# the DEL cases. Sets NS NSPATH CID IP.
add_for_del() {
	local l=$1
	setup_case "$l"
	write_list "$NETCONFPATH/10-net.conflist" "$NET" 1.0.0 bridge portmap tuning firewall
	export CAP_ARGS="{\"portMappings\":[{\"hostPort\":$((20000 + RANDOM % 10001)),\"containerPort\":80,\"protocol\":\"tcp\"}]}"
	NS=cnt-$uniq-$l
	new_netns "$NS"
	NSPATH=/run/netns/$NS
	if [ $# -gt 1 ]; then
		export CNI_CONTAINERID=$2
		CID=$2
	else
		CID=$(default_cid "$NSPATH")
	fi
	expect_ok "add (container id $CID)" cli add "$NET" "$NSPATH"
	cleanup_push "'$CNIHOOK' del '$NET' '$NSPATH'"
	IP=$(jq -r '.ips[0].address' <<<"$OUT")
	IP=${IP%/24}
	checking "lease, portmap rules and cache file exist after add"
	[ -f "$(lease_of "$IP")" ] || fail "no lease for $IP after add"
	[ -n "$(nat_rules_naming "$CID")" ] || fail "no portmap rules after add"
	[ -f "$CNI_CACHE_DIR/results/$NET-$CID-eth0" ] || fail "no cache file after add"
	ok "attached"
}

# (c1) del twice.
del_twice() {
	add_for_del c1
	expect_ok "del" cli del "$NET" "$NSPATH"
	expect_ok "del again" cli del "$NET" "$NSPATH"
	assert_detached "$NS" "$IP" "$CID"
	teardown_and_check "$NS" "$CID"
}

# (c2) the namespace was deleted before DEL; DEL names its (missing) path.
del_missing_netns() {
	add_for_del c2
	ip netns delete "$NS"
	expect_ok "del with the deleted namespace's path" cli del "$NET" "$NSPATH"
	assert_detached "" "$IP" "$CID"
	expect_ok "del again" cli del "$NET" "$NSPATH"
	teardown_and_check "" "$CID"
}

# (c3) the namespace was deleted before DEL; DEL gets an empty netns, which the
# spec allows for DEL: the plugins release what does not live in the netns.
del_empty_netns() {
	add_for_del c3 "cnihook-e2e-$uniq-c3"
	cleanup_push "'$CNIHOOK' del '$NET' ''"
	ip netns delete "$NS"
	expect_ok "del with an empty netns" cli del "$NET" ""
	assert_detached "" "$IP" "$CID"
	expect_ok "del with an empty netns again" cli del "$NET" ""
	teardown_and_check "" "$CID"
}

# (d) validate against the real plugins.
validate_cases() {
	setup_case d
	write_list "$NETCONFPATH/10-good.conflist" "$NET" 1.0.0 bridge portmap tuning firewall
	write_list "$NETCONFPATH/20-good.conflist" "$NET-031" 0.3.1 bridge portmap tuning
	expect_ok "validate $NET (1.0.0: bridge portmap tuning firewall)" cli validate "$NET"
	expect_ok "validate $NET-031 (0.3.1: bridge portmap tuning)" cli validate "$NET-031"
	expect_ok "validate (every network)" cli validate

	write_list "$NETCONFPATH/30-bad.conflist" "$NET-bad" 1.0.0 bridge nosuchplugin
	expect_fail "validate a list with a missing plugin names it" \
		'nosuchplugin' validate "$NET-bad"
	expect_fail "validate (every network) reports the broken network" \
		'nosuchplugin|30-bad\.conflist' validate
	rm "$NETCONFPATH/30-bad.conflist"

	# The firewall plugin supports 0.4.0 and 1.0.0 only.
	write_list "$NETCONFPATH/40-oldfw.conflist" "$NET-fw" 0.3.1 bridge firewall
	expect_fail "validate a 0.3.1 list with the firewall plugin (0.4.0+ only) names it" \
		'firewall' validate "$NET-fw"
	rm "$NETCONFPATH/40-oldfw.conflist"

	expect_fail "validate an unknown network" "$NET-nonet" validate "$NET-nonet"
	teardown_and_check ""
}

# (e1) a plugin of the chain does not exist.
add_missing_plugin() {
	local ns nspath cid
	setup_case e1
	export CAP_ARGS="{\"portMappings\":[{\"hostPort\":$((20000 + RANDOM % 10001)),\"containerPort\":80,\"protocol\":\"tcp\"}]}"
	write_list "$NETCONFPATH/10-net.conflist" "$NET" 1.0.0 bridge portmap nosuchplugin
	ns=cnt-$uniq-e1
	new_netns "$ns"
	nspath=/run/netns/$ns
	cid=$(default_cid "$nspath")
	cleanup_push "'$CNIHOOK' del '$NET' '$nspath'"
	expect_fail "add fails naming the missing plugin" 'nosuchplugin' add "$NET" "$nspath"
	assert_failed_add_left_nothing "$ns" "$cid"
	teardown_and_check "$ns" "$cid"
}

# (e2) a plugin fails after bridge, host-local and portmap succeeded.
add_plugin_fails() {
	local ns nspath cid
	setup_case e2
	export CAP_ARGS="{\"portMappings\":[{\"hostPort\":$((20000 + RANDOM % 10001)),\"containerPort\":80,\"protocol\":\"tcp\"}]}"
	write_list "$NETCONFPATH/10-net.conflist" "$NET" 1.0.0 bridge portmap badtuning firewall
	ns=cnt-$uniq-e2
	new_netns "$ns"
	nspath=/run/netns/$ns
	cid=$(default_cid "$nspath")
	cleanup_push "'$CNIHOOK' del '$NET' '$nspath'"
	expect_fail "add fails in tuning, naming it" 'plugin "tuning"' add "$NET" "$nspath"
	assert_failed_add_left_nothing "$ns" "$cid"
	teardown_and_check "$ns" "$cid"
}

# (e3) host-local's range is exhausted: the second attachment fails in the
# bridge plugin (its IPAM), after the bridge made the veth pair.
add_range_exhausted() {
	local ns nspath cid nsb cidb ip
	setup_case e3
	write_list "$NETCONFPATH/10-net.conflist" "$NET" 1.0.0 bridge1 portmap tuning firewall
	export CAP_ARGS="{\"portMappings\":[{\"hostPort\":$((20000 + RANDOM % 10001)),\"containerPort\":80,\"protocol\":\"tcp\"}]}"
	ns=cnt-$uniq-e3
	new_netns "$ns"
	nspath=/run/netns/$ns
	cid=$(default_cid "$nspath")
	expect_ok "add takes the only address of the range" cli add "$NET" "$nspath"
	cleanup_push "'$CNIHOOK' del '$NET' '$nspath'"
	ip=$(jq -r '.ips[0].address' <<<"$OUT")
	ip=${ip%/24}
	[ "$ip" = "$SUB.2" ] || fail "got $ip, want $SUB.2"

	nsb=cnt-$uniq-e3b
	new_netns "$nsb"
	cidb=$(default_cid "/run/netns/$nsb")
	cleanup_push "'$CNIHOOK' del '$NET' '/run/netns/$nsb'"
	expect_fail "a second add fails in bridge (no address left)" 'plugin "bridge"' \
		add "$NET" "/run/netns/$nsb"
	checking "the failed add left nothing, the first attachment is intact"
	! ip -n "$nsb" link show dev eth0 >/dev/null 2>&1 || fail "eth0 left in $nsb"
	[ "$(ip -o link show master "$BR" | wc -l)" = 1 ] ||
		fail "want one port on $BR: $(ip -o link show master "$BR")"
	grep -qF -- "$cid" "$(lease_of "$ip")" || fail "lease of $ip no longer names $cid"
	! grep -rqF -- "$cidb" "$DATADIR" || fail "a lease names $cidb"
	[ -z "$(nat_rules_naming "$cidb")" ] || fail "nat rules left: $(nat_rules_naming "$cidb")"
	[ ! -e "$CNI_CACHE_DIR/results/$NET-$cidb-eth0" ] || fail "cache file for $cidb"
	[ -f "$CNI_CACHE_DIR/results/$NET-$cid-eth0" ] || fail "cache file for $cid is gone"
	ok "nothing of the failed add, first attachment intact"
	assert_attached "$ns" "$ip" "$GW" "$cid"
	assert_portmap "$cid" "$(jq '.portMappings[0].hostPort' <<<"$CAP_ARGS")" "$ip"

	expect_ok "del the first attachment" cli del "$NET" "$nspath"
	assert_detached "$ns" "$ip" "$cid"
	ip netns delete "$nsb"
	teardown_and_check "$ns" "$cid" "$cidb"
}

# (f) a namespace that holds another program's eth0 (an engine's own
# network: a veth with its peer on the host). Without the check, bridge's
# ADD fails ("already exists") and the rollback DEL of CNI_IFNAME=eth0
# deletes the other program's interface and its host peer.
add_beside_other_eth0() {
	local ns nspath cid peer before
	setup_case f1
	write_list "$NETCONFPATH/10-net.conflist" "$NET" 1.0.0 bridge portmap
	ns=cnt-$uniq-f1
	new_netns "$ns"
	nspath=/run/netns/$ns
	peer=cno$uniq
	ip link add "$peer" type veth peer name eth0 netns "$ns"
	cleanup_push "delete_link '$peer'"
	before=$(ip -n "$ns" -o link show eth0 | cut -d: -f2-)
	cid=$(default_cid "$nspath")
	cleanup_push "CNI_IFNAME=net1 '$CNIHOOK' del '$NET' '$nspath'"
	expect_fail "add into a taken eth0 is refused, naming it and the fix" \
		'interface "eth0" exists in .* already.*CNI_IFNAME.*net1' add "$NET" "$nspath"
	checking "the other eth0 and its host peer are untouched; no plugin ran"
	[ "$(ip -n "$ns" -o link show eth0 | cut -d: -f2-)" = "$before" ] || fail "eth0 changed"
	ip link show "$peer" >/dev/null 2>&1 || fail "the host peer $peer is gone"
	[ -z "$(ls -A "$CNI_CACHE_DIR/results" 2>/dev/null)" ] || fail "a cache entry was written"
	ok "untouched"
	export CNI_IFNAME=net1
	expect_ok "add with CNI_IFNAME=net1 beside it" cli add "$NET" "$nspath"
	expect_ok "del net1" cli del "$NET" "$nspath"
	unset CNI_IFNAME
	checking "the other eth0 is still there after the del"
	[ "$(ip -n "$ns" -o link show eth0 | cut -d: -f2-)" = "$before" ] || fail "eth0 changed"
	ok "still there"
	delete_link "$peer"
	teardown_and_check "$ns" "$cid"
}

run_case "(a) 1.0.0 bridge+host-local+portmap+tuning+firewall: add, check, del" \
	lifecycle a 1.0.0 bridge portmap tuning firewall
run_case "(b) 0.4.0 list: add, check, del" \
	lifecycle b1 0.4.0 bridge portmap tuning firewall
run_case "(b) 0.3.1 list: add, check refused, del" \
	lifecycle b2 0.3.1 bridge portmap tuning
run_case "(c) del twice" del_twice
run_case "(c) del after the namespace was deleted (its path)" del_missing_netns
run_case "(c) del with an empty netns after the namespace was deleted" del_empty_netns
run_case "(d) validate with the real plugins" validate_cases
run_case "(e) add with a missing plugin leaves nothing" add_missing_plugin
run_case "(e) add failing in a later plugin leaves nothing" add_plugin_fails
run_case "(e) add with host-local's range exhausted leaves nothing" add_range_exhausted
run_case "(f) add beside another program's eth0: refused, it untouched" add_beside_other_eth0

log "--- whole script"
assert_nothing_left
finish
