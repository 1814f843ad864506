#!/bin/bash
# Killed anywhere, nothing leaks (docs/architecture.md, "Attach" and the
# crash table): the hook is SIGKILLed in the middle of an attach or a
# detach, as each plugin k of a chain of Debian's real plugins starts
#
#   bridge (host-local) -> portmap -> firewall -> tuning
#
# At createRuntime (k's ADD) poststop must then remove everything; at
# poststop (k's DEL, the chain in reverse) `cnihook gc` must, as the runtime
# has forgotten the container. Everything means the rules of the plugins that
# need prevResult to find what they made (firewall, portmap) included:
# their prevResult comes from the ADD journal (<stateDir>/<id>/journal/),
# written after each plugin's ADD, since no cache entry was ever written.
#
# For every k, a wrapper named like plugin k (the
# others are symbolic links to the real plugins) kills its parent, the hook
# (cnirt_ctx_set_spawn_direct(): plugins are the hook's own children), the
# moment k's ADD (or DEL) starts, and waits; any other call runs the real
# plugin. The hook
# runs its stages by hand, as tests/suites/faults.sh does: an OCI state on
# stdin, a bundle config.json with io.cnihook.networks and io.cnihook.ports,
# a network namespace of the test's own, a cnihook.json with confDir,
# cacheDir and stateDir under the test's temp dir. The audit after the recovery:
# no iptables rule (iptables-save, every table) naming the container's
# address or id, no CNI chain that was not there before, no host-local
# lease, no veth on the bridge, no cache entry, no state left.
#
# The kill points are deterministic; the names carry lib.sh's unique suffix
# and the subnet is a free 10.X.Y.0/24 (random_subnet). No default route
# leaves a namespace, ipMasq is off, nothing is sent anywhere.
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
T_NETPREFIX=kil
. "$srcdir/tests/harness/lib.sh"

require_root
require_cmd ip jq iptables-save
: "${CNIHOOK:=${abs_top_builddir:-$srcdir}/hook/cnihook}"
[ -x "$CNIHOOK" ] || fail "cnihook not found at $CNIHOOK (set CNIHOOK)"
require_plugins bridge host-local portmap firewall tuning
hook_binary
guard_host_state
log "cnihook: $HOOKBIN, suffix $uniq"

CHAIN=(bridge portmap firewall tuning)

# cni_chains: the CNI chains of every table, one "table chain" a line.
cni_chains() {
	local t
	for t in filter nat mangle raw; do
		iptables-save -t "$t" 2>/dev/null | sed -n "s/^:\(CNI-[^ ]*\) .*/$t \1/p"
	done | sort
}

# own_chains NET ID: the chains the plugins name after a network and a
# container (the reference library's rule: "CNI-", a prefix, then the hex
# SHA-512 of NET and ID, cut at iptables' 28 characters): bridge's masquerade
# chain, portmap's DN- and SN- chains.
own_chains() {
	local h p
	h=$(printf '%s%s' "$1" "$2" | sha512sum | cut -d' ' -f1)
	for p in "" DN- SN-; do
		printf '%s ' "$(printf 'CNI-%s%s' "$p" "$h" | cut -c1-28)"
	done
}

# rules_naming IP ID: every iptables rule (every table) naming IP or ID.
rules_naming() {
	iptables-save 2>/dev/null | grep -e '^-A ' | grep -E -e "(^|[^0-9])${1//./\\.}(/|[^0-9]|$)" \
		-e "$2" || true
}

# audit IP ID CHAINS_BEFORE WHAT: nothing of the container is left (rules
# naming IP or ID, CNI chains not in CHAINS_BEFORE, host-local files, links on
# the bridge, cache files, state).
audit() {
	local ip=$1 id=$2 chains_before=$3 what=$4 bad=0 left
	: >"$DIR/audit.err"
	left=$(rules_naming "${ip:-no-address}" "$id")
	if [ -n "$left" ]; then
		printf 'left: iptables rules naming %s or %s:\n%s\n' "${ip:-no address}" "$id" "$left" | tee -a "$DIR/audit.err" >&2
		bad=1
	fi
	# The shared chains (scaffolding, removed by guard_host_state) are no
	# container's; nor are chains another test running beside this one
	# made: a new chain is this container's when its name is one the
	# plugins derive from the network and the id, or a rule that jumps to
	# it names the container.
	left=$(comm -13 <(printf '%s\n' "$chains_before") <(cni_chains) |
		while read -r _ c; do
			[[ " $T_CNI_GLOBAL_CHAINS " == *" $c "* ]] && continue
			[[ " $(own_chains "$NET" "$id") " == *" $c "* ]] ||
				[ -n "$(iptables-save 2>/dev/null | grep -F -e "-j $c" | grep -F -e "$id" -e "$NET")" ] ||
				continue
			echo "$c"
		done)
	if [ -n "$left" ]; then
		printf 'left: CNI chains:\n%s\n' "$left" | tee -a "$DIR/audit.err" >&2
		bad=1
	fi
	left=$(find "$DATADIR" -type f ! -name lock ! -name 'last_reserved_ip*' -print)
	if [ -n "$left" ]; then
		printf 'left: host-local files:\n%s\n' "$left" | tee -a "$DIR/audit.err" >&2
		bad=1
	fi
	left=$(ip -o link show master "$BR" 2>/dev/null || true)
	if [ -n "$left" ]; then
		printf 'left: links on the bridge:\n%s\n' "$left" | tee -a "$DIR/audit.err" >&2
		bad=1
	fi
	left=$(find "$DIR/cache" -mindepth 1 ! -type d -print)
	if [ -n "$left" ]; then
		printf 'left: cache files:\n%s\n' "$left" | tee -a "$DIR/audit.err" >&2
		bad=1
	fi
	# The shared port reservation and pin index directories may stay,
	# empty.
	left=$(find "$DIR/state" -mindepth 1 ! \( -type d \( -name ports -o -name @pins \) \) -print)
	if [ -n "$left" ]; then
		printf 'left: state:\n%s\n' "$left" | tee -a "$DIR/audit.err" >&2
		bad=1
	fi
	# What was left, and what the stage said, in the TAP log too.
	[ "$bad" = 0 ] || {
		sed 's/^/#   /' "$DIR/audit.err" "$DIR/stop.err" 2>/dev/null || true
		fail "something was left after $what (see above)"
	}
	ok "nothing left after $what (rules, chains, lease, veth, cache, state)"
}

# killed_at STAGE K: kill the hook the moment plugin K starts (its ADD at
# createRuntime, its DEL at poststop); then the recovery (poststop after a
# killed createRuntime; `cnihook gc` after a killed poststop, as the runtime
# has forgotten the container by then), then the audit.
killed_at() {
	local stage=$1 k=$2 l id nsname ns bindir cfg port p ip hpid rc killer chains_before cmd
	l=${stage:0:1}${k:0:1}
	cmd=ADD
	[ "$stage" = createRuntime ] || cmd=DEL
	setup_case "$l"
	id=ctr-$uniq-$l
	nsname=ns-$uniq-$l
	new_netns "$nsname"
	ns=/run/netns/$nsname
	port=$((20000 + RANDOM % 20000))
	forget_new_lease_dir "$DATADIR"
	cleanup_push "umount_under '$DIR/state'"
	bindir=$DIR/bin
	mkdir -p "$bindir" "$DIR/state"
	for p in bridge host-local portmap firewall tuning loopback; do
		[ -x "$PLUGINDIR/$p" ] && ln -s "$PLUGINDIR/$p" "$bindir/$p"
	done
	rm -f "$bindir/$k"
	# The wrapper: at CMD, while the trigger exists, kill the hook (its
	# parent) and wait; any other command runs the real plugin.
	cat >"$bindir/$k" <<EOF
#!/bin/sh
if [ "\$CNI_COMMAND" = $cmd ] && [ -e '$DIR/trigger' ]; then
	rm -f '$DIR/trigger'
	echo "\$\$ \$PPID" >'$DIR/killer.tmp' && mv '$DIR/killer.tmp' '$DIR/killer'
	kill -9 "\$PPID"
	sleep 10
	exit 1
fi
exec '$PLUGINDIR/$k' "\$@"
EOF
	chmod 755 "$bindir/$k"
	cleanup_push "[ -s '$DIR/killer' ] && kill -9 \$(cut -d' ' -f1 '$DIR/killer') 2>/dev/null"
	write_list "$DIR/net.d/10-$NET.conflist" "$NET" 1.0.0 "${CHAIN[@]}"
	cfg=$DIR/cnihook.json
	jq -n --arg c "$DIR/net.d" --arg b "$bindir" --arg k "$DIR/cache" --arg s "$DIR/state" \
		'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, log: {syslog: false}}' \
		>"$cfg"
	bundle "$id" "$(annotations io.cnihook.networks "$NET" io.cnihook.ports "$port:80")" "$ns"
	chains_before=$(cni_chains)

	if [ "$stage" = poststop ]; then
		state "$id" creating | "$HOOKBIN" --config "$cfg" createRuntime \
			>"$DIR/create.out" 2>"$DIR/create.err" ||
			fail "createRuntime failed: $(cat "$DIR/create.err")"
	fi
	: >"$DIR/trigger"
	if [ "$stage" = createRuntime ]; then
		state "$id" creating | "$HOOKBIN" --config "$cfg" createRuntime \
			>"$DIR/create.out" 2>"$DIR/create.err" &
	else
		state "$id" stopped | "$HOOKBIN" --config "$cfg" poststop \
			>"$DIR/stop.out" 2>"$DIR/stop.err" &
	fi
	hpid=$!
	set +e
	wait "$hpid"
	rc=$?
	set -e
	[ "$rc" = 137 ] || fail "$stage was not killed (status $rc)"
	killer=$(cat "$DIR/killer")
	[ "${killer#* }" = "$hpid" ] || fail "the wrapper's parent ${killer#* } is not the hook $hpid"
	kill -9 "${killer%% *}" 2>/dev/null || true
	ok "$stage, $k: the hook was SIGKILLed the moment $k's $cmd started"

	ip=$(find "$DATADIR" -type f -regex '.*/[0-9.]+' -printf '%f\n' | head -1)
	[ -n "$ip" ] || [ "$stage/$k" = createRuntime/bridge ] ||
		fail "$stage, $k: no host-local lease after the kill"
	log "  left by the kill: ${ip:-no address}, $(rules_naming "${ip:-no-address}" "$id" | wc -l) iptables rule(s) naming it or the id"
	if [ "$stage" = createRuntime ]; then
		[ ! -e "$DIR/cache/results" ] || [ -z "$(ls -A "$DIR/cache/results")" ] ||
			fail "$k: a cache entry was written before the kill"
		case $k in
		firewall) [ -n "$(rules_naming "$ip" "$id")" ] || fail "$k: portmap's rules are not there" ;;
		tuning) rules_naming "$ip" "$id" | grep -q -- '-A CNI-FORWARD' ||
			fail "$k: firewall's CNI-FORWARD rules are not there" ;;
		esac
		state "$id" stopped | "$HOOKBIN" --config "$cfg" poststop >"$DIR/stop.out" 2>"$DIR/stop.err" ||
			fail "$k: poststop failed: $(cat "$DIR/stop.err")"
		ok "$stage, $k: poststop exits 0"
		audit "$ip" "$id" "$chains_before" poststop
	else
		# The runtime has forgotten the container: only gc is left.
		"$HOOKBIN" --config "$cfg" gc >"$DIR/gc.out" 2>"$DIR/gc.err" ||
			fail "$k: gc failed: $(cat "$DIR/gc.out" "$DIR/gc.err")"
		grep -qF "container \"$id\": gone: detached" "$DIR/gc.out" ||
			fail "$k: gc did not detach $id: $(cat "$DIR/gc.out" "$DIR/gc.err")"
		ok "$stage, $k: gc detaches it"
		audit "$ip" "$id" "$chains_before" gc
	fi
	# The bridge plugin leaves its bridge by design; CNI_CACHE_DIR is
	# setup_case's (unused), the hook's cache is $DIR/cache.
	CNI_CACHE_DIR=$DIR/cache teardown_and_check "$nsname" "$id"
}

for k in "${CHAIN[@]}"; do
	run_case "SIGKILL when $k's ADD starts at createRuntime, then poststop" \
		killed_at createRuntime "$k"
done
for k in "${CHAIN[@]}"; do
	run_case "SIGKILL when $k's DEL starts at poststop, then gc" killed_at poststop "$k"
done
finish
