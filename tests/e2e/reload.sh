#!/bin/bash
# `cnihook reload` after a firewall reload (cnihook(8), "After a firewall
# reload"), with Debian's real plugins (bridge, host-local, portmap,
# firewall) and the hook's stages run by hand on namespaces of the test's
# own:
#   a  a network whose bridge declares the ips and mac capabilities: one of
#      portmap's DNAT rules deleted by hand; reload reports it and
#      re-applies the attachment; the rule is back, the container keeps its
#      address and MAC; a second reload says ok; poststop leaves nothing.
#      A reload with nothing broken says ok and changes nothing.
#   b  a network that declares no ips capability: reload refuses to
#      re-apply (the address could change), exits 1, and leaves the
#      attachment as it was.
# Debian's portmap 1.1.1 fails every CHECK of an IPv4 attachment where
# ip6tables works (containernetworking/plugins#819, as check_attachment in
# tests/harness/lib.sh says): there, reload re-applies what CHECK calls
# broken, which the cases then expect, with the same address and MAC.
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
T_NETPREFIX=rld
. "$srcdir/tests/harness/lib.sh"

require_root
require_cmd ip jq iptables iptables-save sha512sum flock
CNIHOOK=${CNIHOOK:-${abs_top_builddir:-$srcdir}/hook/cnihook}
[ -x "$CNIHOOK" ] || fail "cnihook not found at $CNIHOOK (set CNIHOOK)"
PLUGINDIR=${CNI_PLUGIN_DIR:-/usr/lib/cni}
require_plugins bridge host-local portmap firewall
command -v ping >/dev/null 2>&1 || command -v busybox >/dev/null 2>&1 ||
	skip "neither ping nor busybox (for ping) found"

guard_host_state
log "cnihook: $CNIHOOK"
log "suffix:  $uniq"

# ---------------------------------------------------------------- helpers
# attach LETTER CAPS: the case's cnihook.json ($HOOKCONF, a state directory
# of its own), a bridge/portmap/firewall network whose bridge declares the
# capabilities CAPS (a jq object), a namespace, and createRuntime with a
# port mapping. Sets NS CID PORT IP MAC STATE.
attach() {
	setup_case "$1"
	HOOKCONF=$DIR/cnihook.json STATE=$DIR/state
	mkdir -p "$STATE"
	cleanup_push "umount_under '$STATE'"
	jq -n --arg c "$NETCONFPATH" --arg b "$PLUGINDIR" --arg k "$CNI_CACHE_DIR" \
		--arg s "$STATE" \
		'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, log: {syslog: false}}' \
		>"$HOOKCONF"
	write_list "$DIR/list" "$NET" 1.0.0 bridge portmap firewall
	jq --argjson caps "$2" '.plugins[0].capabilities = $caps' "$DIR/list" \
		>"$NETCONFPATH/10-net.conflist"
	PORT=$((20000 + RANDOM % 10001)) NS=rld-$uniq-$1 CID=rld-$uniq-$1
	new_netns "$NS"
	hook_attach "$CID" "/run/netns/$NS" "$PORT"
	IP=$(jq -r '.[0].ips[0]' "$STATE/$CID/network-status.json")
	MAC=$(jq -r '.[0].mac' "$STATE/$CID/network-status.json")
	assert_attached "$NS" "$IP" "$GW" "$CID"
	assert_portmap "$CID" "$PORT" "$IP"
}

# identity: the container's eth0 as reload must keep it: its IPv4
# address, its MAC, and what network-status.json says of them.
identity() {
	ip -n "$NS" -4 -o addr show dev eth0 | awk '{print $4}'
	ip -n "$NS" -o link show dev eth0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'
	jq -c '[.[] | {name, interface, ips, mac}]' "$STATE/$CID/network-status.json"
}

# rules: the rules of the container (rules_of), sorted: a rule added again
# may take another place in a shared chain.
rules() { rules_of "$IP" "$CID" | sort; }

# reload_says DESCRIPTION STATUS WORD [ERE]: reload of the container exits
# STATUS and prints one line for its attachment, saying WORD (ok,
# reloaded, failed) and matching ERE; nothing on stderr. A CHECK that fails
# for portmap's plugins#819 alone makes "ok" a "reloaded".
reload_says() {
	local desc=$1 status=$2 word=$3 ere=${4:-}
	local line="reload: container \"$CID\" network \"$NET\" interface eth0: "
	checking "$desc"
	capture "$CNIHOOK" --config "$HOOKCONF" reload "$CID"
	if [ "$word" = ok ] && [[ $OUT == "$line"reloaded* ]] &&
		grep -q 'could not check ipv6 dnat' <<<"$OUT"; then
		log "  known plugin bug (portmap 1.1.1, containernetworking/plugins#819): $OUT"
		word=reloaded ere='' desc="$desc (portmap's plugins#819: reloaded instead)"
	fi
	if [ "$RC" != "$status" ] || [ -n "$ERR" ] || [ "$(wc -l <<<"$OUT")" != 1 ] ||
		[[ $OUT != "$line$word"* ]] || ! grep -Eq -- "$ere" <<<"$OUT"; then
		printf 'reload: status %s (want %s)\nstdout: %s\nstderr: %s\nwant: %s%s /%s/\n' \
			"$RC" "$status" "$OUT" "$ERR" "$line" "$word" "$ere" >&2
		fail "$desc"
	fi
	ok "$desc: $OUT"
}

# same DESCRIPTION BEFORE NOW: the two texts are the same.
same() {
	checking "$1"
	if [ "$2" != "$3" ]; then
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") >&2 || true
		fail "$1 (diff above)"
	fi
	ok "$1"
}

# drop_dnat: delete portmap's DNAT rule of the container by hand, as a
# firewall reload does. Sets DNAT (the rule, as iptables-save wrote it).
drop_dnat() {
	DNAT=$(iptables-save -t nat | grep -E -- "^-A CNI-DN-.* --dport $PORT .*-j DNAT --to-destination $IP:80$" || true)
	[ -n "$DNAT" ] && [ "$(wc -l <<<"$DNAT")" = 1 ] || fail "not one DNAT rule of $IP:80: $DNAT"
	checking "delete the DNAT rule by hand: ${DNAT#-A }"
	# shellcheck disable=SC2086 # the rule's words, as iptables-save wrote them
	iptables -t nat -D ${DNAT#-A }
	! iptables-save -t nat | grep -qxF -- "$DNAT" || fail "the rule is still there"
	ok "deleted"
}

# detach: poststop, then nothing of the case is left.
detach() {
	checking "poststop"
	capture "$CNIHOOK" --config "$HOOKCONF" poststop <"$DIR/state.json"
	[ "$RC" = 0 ] || fail "poststop: status $RC: $ERR"
	ok "detached"
	assert_detached "$NS" "$IP" "$CID"
	checking "the state directory holds nothing of $CID"
	[ ! -e "$STATE/$CID" ] && [ ! -e "$STATE/$CID.lock" ] || fail "left: $(ls -A "$STATE")"
	! grep -qF "$STATE/$CID" /proc/self/mountinfo || fail "the pin is still mounted"
	ok "nothing of $CID in $STATE"
	teardown_and_check "$NS" "$CID"
}

# ---------------------------------------------------------------- cases
case_keeps_identity() {
	local before rules_before
	attach a '{"ips": true, "mac": true}'
	before=$(identity)
	rules_before=$(rules)

	reload_says "reload with nothing broken: ok" 0 ok
	same "the address, MAC and status are as they were" "$before" "$(identity)"
	same "the rules are as they were" "$rules_before" "$(rules)"

	drop_dnat
	reload_says "reload after the DNAT rule went: reloaded, saying what CHECK said" 0 reloaded \
		'\(CHECK: network "[^"]*": plugin "portmap": .*dnat'
	checking "the DNAT rule is back"
	iptables-save -t nat | grep -qxF -- "$DNAT" ||
		fail "no rule $DNAT: $(iptables-save -t nat | grep CNI- || true)"
	ok "back: $DNAT"
	same "the container kept its address and MAC ($IP, $MAC)" "$before" "$(identity)"
	same "the rules are as before the deletion" "$rules_before" "$(rules)"
	assert_attached "$NS" "$IP" "$GW" "$CID"
	assert_portmap "$CID" "$PORT" "$IP"

	reload_says "a second reload: ok" 0 ok
	same "still the same address and MAC" "$before" "$(identity)"

	checking "reload of every container (no ID) names this one"
	capture "$CNIHOOK" --config "$HOOKCONF" reload
	[ "$RC" = 0 ] && grep -qF "reload: container \"$CID\" network \"$NET\" interface eth0: " <<<"$OUT" ||
		fail "reload: status $RC: $OUT $ERR"
	ok "reload: $OUT"
	detach
}

case_no_ips_capability() {
	local before
	attach b '{}'
	before=$(identity)
	drop_dnat
	reload_says "without the ips capability: not re-applied, status 1" 1 failed \
		'CHECK: .*not re-applied: .*"ips" capability'
	same "the container is as it was" "$before" "$(identity)"
	checking "the DNAT rule is still missing (nothing ran but CHECK)"
	! iptables-save -t nat | grep -qxF -- "$DNAT" || fail "the rule came back"
	ok "still missing"
	checking "an unknown container: status 1, one line on stderr"
	capture "$CNIHOOK" --config "$HOOKCONF" reload "nosuch-$uniq"
	[ "$RC" = 1 ] && [ -z "$OUT" ] && grep -q 'not attached by cnihook' <<<"$ERR" ||
		fail "reload nosuch: status $RC: $OUT $ERR"
	ok "refused: $ERR"
	detach
}

run_case "(a) reload keeps the address and MAC, restores the DNAT rule" case_keeps_identity
run_case "(b) reload without the ips capability refuses to re-apply" case_no_ips_capability

log "--- whole script"
assert_nothing_left
finish
