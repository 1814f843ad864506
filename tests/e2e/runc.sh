#!/bin/bash
# cnihook as an OCI hook under runc: real containers (busybox rootfs), the
# hooks of the shipped config/runc-hooks.json (createRuntime and poststop),
# Debian's CNI plugins. The cases are in
# runtime-lib.sh; each one checks that nothing is left after the container.
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/runtime-lib.sh"

# 9. One id under two runc roots: nothing the hook is given shows
# runc's --root, only the bundle. NAME runs attached; NAME under another
# root, from another bundle, is refused at createRuntime with a message
# naming both bundles, and its poststop (runc runs it after the failed
# hook) leaves the first alone; the first keeps its eth0, address and port;
# deleting the first then cleans up.
runc_case_two_roots() {
	local id cid ip root2 b2
	rt_start_attached r
	id=$(rt_id) cid=$RT_CID
	ip=$(assert_attached_to "$id" "$cid" "$NET" eth0 "$SUB")
	root2=$DIR/root2 b2=$DIR/bundle2-$id
	make_bundle "$b2" "$id" "$(annotations io.cnihook.networks "$NET")"
	# A cgroup of its own (runc's default path is the id's).
	jq --arg c "/cnihook-root2-$id" '.linux.cgroupsPath = $c' "$b2/config.json" >"$b2/c.json" &&
		mv "$b2/c.json" "$b2/config.json"
	cleanup_push "runc --root '$root2' delete --force '$id' 2>/dev/null"
	checking "runc --root $root2 run $id (the same id, another root and bundle) is refused"
	if runc --root "$root2" run -d --bundle "$b2" "$id" </dev/null >"$DIR/$id.root2" 2>&1; then
		fail "runc started it"
	fi
	rt_hook_log
	grep -qF -- "$DIR/bundle-$id" "$DIR/$id.root2" && grep -qF -- "$b2" "$DIR/$id.root2" ||
		fail "runc's error does not name both bundles: $(cat "$DIR/$id.root2")"
	ok "$(grep -o 'container id.*' "$DIR/$id.root2" | head -1 | cut -c1-200)"
	checking "its poststop left the first alone"
	grep -qF -- "left alone" "$HOOKLOG" || fail "the hook's log does not say so"
	grep -q ' poststop: exit 0$' "$HOOKLOG" || fail "poststop did not exit 0: $(cat "$HOOKLOG")"
	ok "poststop exit 0, \"left alone\""
	runc --root "$root2" delete --force "$id" >/dev/null 2>&1 || true
	checking "$id (root 1) keeps eth0 $ip, its pin and record"
	[ "$(assert_attached_to "$id" "$cid" "$NET" eth0 "$SUB")" = "$ip" ] || fail "eth0 changed"
	jq -e --arg b "$DIR/bundle-$id" '.bundle == $b' "$STATEDIR/$cid/record.json" >/dev/null ||
		fail "the record is not the first's: $(cat "$STATEDIR/$cid/record.json")"
	rt_exec "$id" ping -c1 -W2 "$GW" >/dev/null || fail "no reply from $GW inside $id"
	ok "attached as before"
	assert_portmap "$cid" "$RT_PORT" "$ip"
	assert_page "http://127.0.0.1:$RT_PORT/"
	rt_stop "$id"
	rt_teardown_and_check
}
rt_own_cases() {
	run_case "9. one id under two runc roots: the second refused, the first intact ($RT)" \
		runc_case_two_roots
}

rt_init runc
rt_run_all
