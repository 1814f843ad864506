#!/bin/bash
# cnihook and the reference Go library (libcni, through tests/interop/refcni.go)
# share the cache format: each must tear down what the other set up, and both
# must write the same cache file for the same inputs. Runs Debian's real
# plugins (bridge, host-local, portmap, firewall) against namespaces it creates.
set -euo pipefail

srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"

require_root
require_cmd ip jq iptables-save ip6tables-save sha512sum base64 cmp flock
CNIHOOK=${CNIHOOK:-${abs_top_builddir:-$srcdir}/hook/cnihook}
[ -x "$CNIHOOK" ] || fail "cnihook not found at $CNIHOOK (set CNIHOOK)"
require_plugins bridge host-local portmap firewall
command -v ping >/dev/null 2>&1 || command -v busybox >/dev/null 2>&1 ||
	skip "neither ping nor busybox (for ping) found"

guard_host_state
T_NETPREFIX=iop

require_refcni
log "cnihook: $CNIHOOK"
log "refcni:  $REFCNI (libcni $LIBCNI_VERSION)"
log "suffix:  $uniq"

# The inputs every case uses: a 1.0.0 (or given) list, CNI_ARGS and a port
# mapping, so that the cache carries cniArgs and capabilityArgs.
setup_interop() {
	local l=$1 version=$2
	setup_case "$l"
	write_list "$NETCONFPATH/10-net.conflist" "$NET" "$version" bridge portmap firewall
	export CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=cnihook;K8S_POD_NAME=pod-$uniq"
	export CAP_ARGS="{\"portMappings\":[{\"hostPort\":$((20000 + RANDOM % 10001)),\"containerPort\":80,\"protocol\":\"tcp\"}]}"
}

# result_ip: the container's IP from the add result in $OUT.
result_ip() {
	local ip
	ip=$(jq -r '.ips[0].address // empty' <<<"$OUT")
	[[ $ip == "$SUB".*/24 ]] || fail "no IP of $SUB.0/24 in the result: $OUT"
	printf '%s\n' "${ip%/24}"
}

# cross ADDER DELETER LETTER VERSION: one runtime sets up, the other checks
# and tears down.
cross() {
	local adder=$1 deleter=$2 l=$3 version=$4 ns nspath cid ip
	setup_interop "$l" "$version"
	ns=cnt-$uniq-$l
	new_netns "$ns"
	nspath=/run/netns/$ns
	export CNI_CONTAINERID=iop-$uniq-$l
	cid=$CNI_CONTAINERID

	expect_ok "$adder add ($version: bridge portmap firewall)" "$adder" add "$NET" "$nspath"
	cleanup_push "'$CNIHOOK' del '$NET' '$nspath'"
	ip=$(result_ip)
	assert_attached "$ns" "$ip" "$GW" "$cid"
	checking "portmap and firewall rules for $ip"
	assert_portmap "$cid" "$(jq '.portMappings[0].hostPort' <<<"$CAP_ARGS")" "$ip"
	iptables-save -t filter | grep -qF -- "$ip/32" || fail "no firewall rule for $ip/32"
	ok "rules present"
	[ -f "$CNI_CACHE_DIR/results/$NET-$cid-eth0" ] ||
		fail "$adder wrote no cache file $NET-$cid-eth0: $(ls "$CNI_CACHE_DIR/results" 2>&1)"

	# The deleter reads the adder's cache: CHECK and DEL get the cached
	# result as prevResult (the firewall plugin removes its rules by the
	# IPs it finds there).
	check_attachment "$deleter" "$NET" "$nspath"
	expect_ok "$deleter del" "$deleter" del "$NET" "$nspath"
	assert_detached "$ns" "$ip" "$cid"
	expect_ok "$deleter del again" "$deleter" del "$NET" "$nspath"
	teardown_and_check "$ns" "$cid"
}

# normalize_result FILE: the cached result without what legitimately differs
# between two ADDs of the same inputs: the IPs host-local hands out, the veth
# pair's MACs, the host veth's name. An empty "dns" object and no "dns" are the
# same, so are no "routes" and an empty list.
normalize_result() {
	jq -S --arg br "$BR" '.result
		| .ips |= map(.address |= "ADDRESS")
		| .interfaces |= map(if .name == $br then . else .mac |= "MAC" end
			| if (.sandbox // "") == "" and .name != $br
			  then .name |= "HOSTVETH" else . end)
		| if .dns == {} then del(.dns) else . end
		| if .routes == [] then del(.routes) else . end' "$1"
}

# compare_caches LETTER VERSION: the same inputs through cnihook and refcni
# give the same cache file.
compare_caches() {
	local l=$1 version=$2 ns nspath cid f a b k
	setup_interop "$l" "$version"
	ns=cnt-$uniq-$l
	new_netns "$ns"
	nspath=/run/netns/$ns
	cid=$(default_cid "$nspath")
	f=$CNI_CACHE_DIR/results/$NET-$cid-eth0
	a=$DIR/cache.cnihook
	b=$DIR/cache.refcni

	expect_ok "cnihook add" cli add "$NET" "$nspath"
	cleanup_push "'$CNIHOOK' del '$NET' '$nspath'"
	[ -f "$f" ] || fail "cnihook wrote no cache file $f: $(ls "$CNI_CACHE_DIR/results" 2>&1)"
	cp -p "$f" "$a"
	expect_ok "cnihook del" cli del "$NET" "$nspath"
	[ ! -e "$f" ] || fail "cnihook del left $f"

	expect_ok "refcni add (same inputs)" ref add "$NET" "$nspath"
	cleanup_push "'$REFCNI' del '$NET' '$nspath'"
	[ -f "$f" ] || fail "refcni wrote no cache file $f: $(ls "$CNI_CACHE_DIR/results" 2>&1)"
	cp -p "$f" "$b"
	expect_ok "refcni del" ref del "$NET" "$nspath"
	[ ! -e "$f" ] || fail "refcni del left $f"

	log "  cnihook: $(cat "$a")"
	log "  refcni:  $(cat "$b")"
	checking "both cache files are mode 0600"
	[ "$(stat -c %a "$a")" = 600 ] || fail "cnihook's cache file has mode $(stat -c %a "$a")"
	[ "$(stat -c %a "$b")" = 600 ] || fail "refcni's cache file has mode $(stat -c %a "$b")"
	ok "0600"

	checking "config is base64 of the list file's bytes in both"
	jq -r .config "$a" | base64 -d | cmp - "$NETCONFPATH/10-net.conflist" ||
		fail "cnihook's .config is not the list file"
	jq -r .config "$b" | base64 -d | cmp - "$NETCONFPATH/10-net.conflist" ||
		fail "refcni's .config is not the list file"
	ok "same config bytes"

	# Debian's libcni (1.1.2) predates the cache's "netns" key (libcni
	# 1.2.0 added it for GC); when a file has it, it must be the netns.
	checking "\"netns\", where present, is the namespace path"
	for k in "$a" "$b"; do
		jq -e --arg p "$nspath" '(has("netns") | not) or .netns == $p' "$k" >/dev/null ||
			fail "$k: netns is $(jq .netns "$k"), want $nspath"
	done
	jq -e 'has("netns")' "$b" >/dev/null ||
		log "  note: refcni (libcni $LIBCNI_VERSION) writes no \"netns\"; compared without it"
	ok "netns"

	checking "same keys and values apart from the result"
	if ! diff -u <(jq -S 'del(.result, .netns)' "$b") <(jq -S 'del(.result, .netns)' "$a"); then
		fail "the cache files differ (- refcni, + cnihook)"
	fi
	ok "same cache fields"

	checking "same result apart from addresses, MACs and the host veth name"
	if ! diff -u <(normalize_result "$b") <(normalize_result "$a"); then
		fail "the cached results differ (- refcni, + cnihook)"
	fi
	ok "same result shape"

	checking "the result's cniVersion is the list's ($version)"
	jq -e --arg v "$version" '.result.cniVersion == $v' "$a" >/dev/null ||
		fail "cnihook cached a $(jq .result.cniVersion "$a") result"
	ok "cniVersion $version"
	teardown_and_check "$ns" "$cid"
}

run_case "(1) cnihook add, refcni check and del (1.0.0)" cross cli ref 1a 1.0.0
run_case "(1) cnihook add, refcni check and del (0.4.0)" cross cli ref 1b 0.4.0
run_case "(2) refcni add, cnihook check and del (1.0.0)" cross ref cli 2a 1.0.0
run_case "(2) refcni add, cnihook check and del (0.4.0)" cross ref cli 2b 0.4.0
run_case "(3) same cache file for the same inputs (1.0.0)" compare_caches 3a 1.0.0
run_case "(3) same cache file for the same inputs (0.4.0)" compare_caches 3b 0.4.0

log "--- whole script"
assert_nothing_left
finish
