#!/bin/bash
# cnihook as an OCI hook under plain containerd (Debian's 1.6, no CRI): a
# containerd of the test's own (root, state, sockets and opt directory under
# the test's temp dir, stopped by its pid at exit), an image imported from an
# OCI archive of the busybox rootfs, and containers started with
# `ctr run -d --config SPEC ID`, where SPEC is a full runtime spec carrying
# the hooks of the shipped config/runc-hooks.json and the annotations (as
# nerdctl does: ctr has no flag for hooks, and with --config it ignores
# --annotation). See ctd_init in runtime-lib.sh.
#
# containerd runs createRuntime through the shim's runc at task start, and
# poststop when the task is DELETED (`ctr task rm`, or `ctr container rm` of
# a stopped task), not when its process exits: in between, the attachment
# stays (case 2).
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/runtime-lib.sh"

# ctd_hook_ran N M: the hook ran createRuntime N times and poststop M times
# so far (the shim's log lines; without the shim, CNIHOOK_E2E_SHIM=0, nothing
# counts them: true).
ctd_hook_ran() {
	[ "${CNIHOOK_E2E_SHIM:-1}" = 1 ] || return 0
	[ "$(grep -c -- ' createRuntime: exit ' "$HOOKLOG") $(grep -c -- ' poststop: exit ' "$HOOKLOG")" = "$1 $2" ]
}

# ctd_still_attached ID CID IP PORT: what the hook set up for CID is all
# there: eth0's address in the container (while it runs), the lease, the
# cache file, the veth on the bridge, the pin, the record, the port mapping's
# rules and the hook's network status.
ctd_still_attached() {
	local id=$1 cid=$2 ip=$3 port=$4 pin
	pin=$STATEDIR/$cid/netns
	[ -f "$DATADIR/$NET/$ip" ] || fail "no lease $DATADIR/$NET/$ip"
	grep -qF -- "$cid" "$DATADIR/$NET/$ip" || fail "lease $ip does not name $cid"
	[ -f "$CACHEDIR/results/$NET-$cid-eth0" ] || fail "no cache file $NET-$cid-eth0"
	[ "$(ip -o link show master "$BR" | wc -l)" = 1 ] ||
		fail "want one veth on $BR: $(ip -o link show master "$BR")"
	is_mount "$pin" || fail "$pin is not a mount point"
	[ -f "$STATEDIR/$cid/record.json" ] || fail "no $STATEDIR/$cid/record.json"
	assert_portmap "$cid" "$port" "$ip"
	hook_status "$cid" | jq -e --arg n "$NET" --arg ip "$ip" \
		'length == 1 and .[0].name == $n and (.[0].ips | index($ip) != null)' >/dev/null ||
		fail "cnihook status $cid does not show $NET with $ip"
}

# 2. The attachment lives as long as the task, not as long as its process:
# it persists while the task runs (an exec runs no hook); after SIGKILL the
# task is stopped and everything is still attached (poststop has not run);
# `ctr task rm` runs poststop and then nothing is left; `ctr container rm`
# runs no hook.
ctd_case_detach_at_delete() {
	local id cid ip port pin
	rt_start_attached k
	id=$(rt_id) cid=$RT_CID port=$RT_PORT
	pin=$STATEDIR/$cid/netns
	ip=$(assert_attached_to "$id" "$cid" "$NET" eth0 "$SUB")
	assert_page "http://127.0.0.1:$port/"

	checking "while the task runs: an exec runs no hook, the attachment persists"
	ctd_hook_ran 1 0 ||
		fail "want one createRuntime and no poststop so far: $(cat "$HOOKLOG")"
	rt_exec "$id" ping -c1 -W2 "$GW" >/dev/null || fail "no reply from $GW inside $id"
	sleep 1
	ctd_hook_ran 1 0 || fail "a hook ran during the exec: $(cat "$HOOKLOG")"
	[ "$(assert_attached_to "$id" "$cid" "$NET" eth0 "$SUB")" = "$ip" ] ||
		fail "eth0's address changed"
	ctd_still_attached "$id" "$cid" "$ip" "$port"
	ok "one createRuntime, no poststop; eth0 $ip, lease, cache file, veth, pin, rules"
	assert_page "http://127.0.0.1:$port/"

	checking "ctr task kill -s SIGKILL $id: the task is stopped, not deleted"
	ctd task kill -s SIGKILL "$id" >"$DIR/$id.stop" 2>&1 ||
		fail "ctr task kill: $(cat "$DIR/$id.stop")"
	wait_for 50 ctd_task_is "$id" stopped || fail "task $id is $(rt_status "$id")"
	ok "stopped"
	checking "after the process exited, before the task is deleted: still attached"
	rt_hook_log
	ctd_hook_ran 1 0 || fail "poststop ran at process exit: $(cat "$HOOKLOG")"
	ctd_still_attached "$id" "$cid" "$ip" "$port"
	ok "no poststop yet; lease, cache file, veth, pin, record, rules, status all there"

	checking "ctr task rm $id runs poststop"
	ctd task rm "$id" >>"$DIR/$id.stop" 2>&1 || fail "ctr task rm: $(cat "$DIR/$id.stop")"
	rt_hook_log
	ctd_hook_ran 1 1 || fail "want one poststop: $(cat "$HOOKLOG")"
	[ "${CNIHOOK_E2E_SHIM:-1}" != 1 ] || grep -q ' poststop: exit 0$' "$HOOKLOG" ||
		fail "poststop failed: $(cat "$HOOKLOG")"
	[ "$(rt_status "$id")" = notask ] || fail "task $id is $(rt_status "$id"), want none"
	ok "poststop ran (exit 0), the container is left without a task"
	rt_nothing_left_for "$cid"
	checking "containerd's bundle of $id is gone, nothing mounted under it"
	[ ! -e "${RT_BUNDLE[$cid]}" ] || fail "${RT_BUNDLE[$cid]} still exists"
	! grep -qF -- "${RT_BUNDLE[$cid]}" /proc/self/mountinfo ||
		fail "mounts left under ${RT_BUNDLE[$cid]}"
	ok "gone"

	checking "ctr container rm $id runs no hook"
	ctd container rm "$id" >>"$DIR/$id.stop" 2>&1 ||
		fail "ctr container rm: $(cat "$DIR/$id.stop")"
	[ "$(rt_status "$id")" = gone ] || fail "container $id is $(rt_status "$id")"
	ctd_hook_ran 1 1 || fail "hooks ran again: $(cat "$HOOKLOG")"
	ok "removed, no hook ran"
	[ ! -e "$pin" ] || fail "$pin still exists"
	rt_teardown_and_check
}

# 4. One id in two containerd namespaces: NAME in $CTD_NS and
# NAME in a second namespace run side by side on one network, each with its
# own eth0, address and host port (CNI_CONTAINERID <namespace>-NAME);
# deleting the first leaves the second's network working; then nothing is
# left of either.
ctd_case_two_namespaces() {
	local id nsb cida cidb ipa ipb pa pb seen
	rt_start_attached n
	id=$(rt_id) cida=$RT_CID pa=$RT_PORT
	[ "$cida" = "$CTD_NS-$id" ] || fail "RT_CID $cida, want $CTD_NS-$id"
	ipa=$(assert_attached_to "$id" "$cida" "$NET" eth0 "$SUB")
	nsb=$CTD_NS-b
	cleanup_push "rm -rf '/run/containerd/runc/$nsb'"
	cleanup_push "CTD_NS='$nsb' ctd_force_remove '$id'"
	pb=$((pa == 30000 ? 20000 : pa + 1))
	seen=$(wc -l <"$HOOKLOG")
	CTD_NS=$nsb rt_start_ok "start $nsb/$id (the same id in another namespace), port $pb" \
		"$id" "$(annotations io.cnihook.networks "$NET" io.cnihook.ports "$pb:80")"
	cidb=$RT_CID
	checking "$nsb/$id has its own eth0 and address, $CTD_NS/$id keeps its own"
	[ "$cidb" = "$nsb-$id" ] || fail "RT_CID $cidb, want $nsb-$id"
	ipb=$(CTD_NS=$nsb assert_attached_to "$id" "$cidb" "$NET" eth0 "$SUB")
	[ "$ipa" != "$ipb" ] || fail "both have $ipa"
	[ "$(assert_attached_to "$id" "$cida" "$NET" eth0 "$SUB")" = "$ipa" ] ||
		fail "$CTD_NS/$id lost $ipa"
	[ "$(ip -o link show master "$BR" | wc -l)" = 2 ] ||
		fail "want two veths on $BR: $(ip -o link show master "$BR")"
	! tail -n +"$((seen + 1))" "$HOOKLOG" | grep -q "detaching that first" ||
		fail "the hook detached something: $(tail -n +"$((seen + 1))" "$HOOKLOG")"
	ok "$CTD_NS/$id $ipa, $nsb/$id $ipb, two veths, nothing detached"
	assert_portmap "$cida" "$pa" "$ipa"
	assert_portmap "$cidb" "$pb" "$ipb"
	assert_page "http://127.0.0.1:$pa/"
	assert_page "http://127.0.0.1:$pb/"
	checking "cnihook status and list name them <namespace>/<id>"
	hook_status "$CTD_NS/$id" | jq -e --arg ip "$ipa" '.[0].ips | index($ip) != null' >/dev/null ||
		fail "cnihook status $CTD_NS/$id does not show $ipa"
	hook_status "$nsb/$id" | jq -e --arg ip "$ipb" '.[0].ips | index($ip) != null' >/dev/null ||
		fail "cnihook status $nsb/$id does not show $ipb"
	"$CNIHOOK" --config "$HOOKCONF" list --no-trunc >"$DIR/list.out" 2>&1 || fail "list failed"
	grep -q "^$CTD_NS/$id " "$DIR/list.out" && grep -q "^$nsb/$id " "$DIR/list.out" ||
		fail "list: $(cat "$DIR/list.out")"
	ok "both, each with its address"

	rt_stop "$id"
	checking "nothing of $CTD_NS/$id left (the other's pin stays)"
	[ ! -e "$STATEDIR/$cida" ] || fail "left: $(find "$STATEDIR/$cida")"
	[ ! -e "$STATEDIR/$cida.lock" ] || fail "left: $STATEDIR/$cida.lock"
	[ -z "$(find "$CACHEDIR" -type f -name "*-$cida-*")" ] ||
		fail "left: $(find "$CACHEDIR" -type f -name "*-$cida-*")"
	! grep -rqF -- "$cida" "$DATADIR" || fail "a lease names $cida"
	ok "no state, lock, cache file or lease"
	checking "$nsb/$id still has its network after $CTD_NS/$id was deleted"
	[ "$(CTD_NS=$nsb assert_attached_to "$id" "$cidb" "$NET" eth0 "$SUB")" = "$ipb" ] ||
		fail "$nsb/$id lost $ipb"
	CTD_NS=$nsb rt_exec "$id" ping -c1 -W2 "$GW" >/dev/null || fail "no reply from $GW inside $nsb/$id"
	[ -f "$STATEDIR/$cidb/record.json" ] || fail "no record of $cidb"
	ok "eth0 $ipb, the gateway answers, its record is there"
	assert_portmap "$cidb" "$pb" "$ipb"
	assert_page "http://127.0.0.1:$pb/"
	CTD_NS=$nsb rt_stop "$id"
	CTD_NS=$nsb ctd namespaces rm "$nsb" >/dev/null 2>&1 || true
	rt_teardown_and_check
}

rt_init containerd
run_case "1. one network: address, gateway, port mapping to httpd ($RT)" rt_case_one_network
run_case "2. detach at task delete, not at process exit ($RT)" ctd_case_detach_at_delete
run_case "3. a failing second network: no start, the first rolled back ($RT)" \
	rt_case_failing_network
run_case "4. one id in two containerd namespaces: two containers, each its own network ($RT)" \
	ctd_case_two_namespaces
log "--- whole script"
ctd_nothing_left
assert_nothing_left
finish
