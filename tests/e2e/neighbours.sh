#!/bin/bash
# gc on a shared host (cnihook(8), "gc"): it acts only on proof that a
# container is gone, and leaves the attachments of its neighbours as they
# were, byte for byte, with Debian's real plugins (bridge, host-local,
# portmap, firewall):
#   a  the reference library (refcni, libcni 1.1) writes its cache entry
#      without "netns": kept, even once its namespace is deleted; with
#      --netns-from-result the sandbox its result names is the evidence
#   b  the same entry with "netns": kept while the namespace exists, torn
#      down once it is deleted
#   c  `cnihook add` to a named namespace: kept
#   d  the hook's own attachment (createRuntime on a named namespace): kept
#      while a process lives in it; after `ip netns del`, gc leaves nothing
#   e  podman's own CNI backend (network_backend = "cni", a network made
#      with `podman network create` in a private configuration directory),
#      a running container: kept
# "As it was": the cache entry (sha256), the host-local lease (sha256), the
# iptables rules that name the container or its address and the chains they
# jump to (iptables-save), the container's eth0 (address, MAC).
# Each case runs gc and gc --dry-run with a cnihook.json of its own.
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
T_NETPREFIX=gcn
. "$srcdir/tests/harness/runtime-lib.sh"

require_root
require_cmd ip jq iptables-save sha256sum sha512sum podman runc tar
CNIHOOK=${CNIHOOK:-${abs_top_builddir:-$srcdir}/hook/cnihook}
[ -x "$CNIHOOK" ] || fail "cnihook not found at $CNIHOOK (set CNIHOOK)"
require_plugins bridge host-local portmap firewall
RT_BUSYBOX=${CNIHOOK_BUSYBOX:-/bin/busybox}
[ -x "$RT_BUSYBOX" ] && ! ldd "$RT_BUSYBOX" >/dev/null 2>&1 ||
	skip "no static busybox at $RT_BUSYBOX (install busybox-static)"
command -v ping >/dev/null 2>&1 || command -v busybox >/dev/null 2>&1 ||
	skip "neither ping nor busybox (for ping) found"

require_refcni
guard_host_state
log "cnihook: $CNIHOOK"
log "refcni:  $REFCNI (libcni $LIBCNI_VERSION)"
log "suffix:  $uniq"

# ---------------------------------------------------------------- helpers
# hookconf [CONFDIR [CACHEDIR]]: the case's cnihook.json ($HOOKCONF): its
# networks, its cache (default: the CLI's of setup_case), a state directory
# of its own.
hookconf() {
	HOOKCONF=$DIR/cnihook.json
	mkdir -p "$DIR/state"
	cleanup_push "umount_under '$DIR/state'"
	jq -n --arg c "${1:-$NETCONFPATH}" --arg b "$PLUGINDIR" --arg k "${2:-$CNI_CACHE_DIR}" \
		--arg s "$DIR/state" \
		'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, log: {syslog: false}}' \
		>"$HOOKCONF"
}
hook() { capture "$CNIHOOK" --config "$HOOKCONF" "$@"; }

# fingerprint IP CID LEASE [NS|pid:PID] CACHEFILE...: everything gc could
# take from the attachment.
fingerprint() {
	local ip=$1 cid=$2 lease=$3 ns=${4:-}
	shift 4
	sha256sum "$@" "$lease"
	rules_of "$ip" "$cid"
	case $ns in
	"") ;;
	pid:*) nsenter -t "${ns#pid:}" -n ip -o addr show dev eth0 &&
		nsenter -t "${ns#pid:}" -n ip -o link show dev eth0 ;;
	*) ip -n "$ns" -o addr show dev eth0 && ip -n "$ns" -o link show dev eth0 ;;
	esac
}

# same_as BEFORE WHAT...: fingerprint WHAT... is BEFORE.
same_as() {
	local before=$1 after
	shift
	checking "untouched: lease, rules, cache entry, eth0"
	after=$(fingerprint "$@")
	if [ "$before" != "$after" ]; then
		diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") >&2 || true
		fail "gc changed the attachment (diff above)"
	fi
	ok "byte for byte as before ($(wc -l <<<"$after") lines)"
}

# gc_says DESCRIPTION TEXT [GC ARGS...]: gc with ARGS exits 0 and prints
# TEXT (a whole line's start), and nothing on stderr.
gc_says() {
	local desc=$1 text=$2
	shift 2
	checking "$desc"
	hook gc "$@"
	if [ "$RC" != 0 ] || ! grep -qF -- "$text" <<<"$OUT" || [ -n "$ERR" ]; then
		printf 'gc %s: status %s\nstdout: %s\nstderr: %s\nwant: %s\n' "$*" "$RC" "$OUT" \
			"$ERR" "$text" >&2
		fail "$desc"
	fi
	ok "$desc: $(grep -F -- "$text" <<<"$OUT")"
}

# gc_keeps TEXT WHAT...: gc --dry-run and gc say TEXT of the container, and
# leave fingerprint WHAT... as it was.
gc_keeps() {
	local text=$1 before
	shift
	before=$(fingerprint "$@")
	gc_says "gc --dry-run: kept, and why" "$text" --dry-run
	gc_says "gc: kept, and why" "$text"
	same_as "$before" "$@"
}

# refcni_add LETTER: a bridge/portmap/firewall network, a namespace, and
# refcni's ADD to it with a port mapping. Sets NS CID IP PORT ENTRY LEASE.
refcni_add() {
	setup_case "$1"
	hookconf
	write_list "$NETCONFPATH/10-net.conflist" "$NET" 1.0.0 bridge portmap firewall
	PORT=$((20000 + RANDOM % 10001))
	export CAP_ARGS="{\"portMappings\":[{\"hostPort\":$PORT,\"containerPort\":80,\"protocol\":\"tcp\"}]}"
	NS=gcn-$uniq-$1
	new_netns "$NS"
	export CNI_CONTAINERID=ref-$uniq-$1
	CID=$CNI_CONTAINERID
	expect_ok "refcni add (libcni $LIBCNI_VERSION)" ref add "$NET" "/run/netns/$NS"
	cleanup_push "'$REFCNI' del '$NET' '/run/netns/$NS'"
	IP=$(jq -r '.ips[0].address' <<<"$OUT")
	IP=${IP%/24}
	ENTRY=$CNI_CACHE_DIR/results/$NET-$CID-eth0
	LEASE=$(lease_of "$IP")
	assert_attached "$NS" "$IP" "$GW" "$CID"
	assert_portmap "$CID" "$PORT" "$IP"
}

# ---------------------------------------------------------------- cases
case_refcni_no_netns() {
	refcni_add a
	checking "refcni's cache entry has no \"netns\" (libcni 1.1, as cnitool)"
	jq -e 'has("netns") | not' "$ENTRY" >/dev/null || fail "it has: $(cat "$ENTRY")"
	ok "no netns"
	local before kept
	kept="gc: container \"$CID\": kept: the cache entry of network \"$NET\", interface \"eth0\" names no network namespace and cnihook has no record of it: nothing proves it gone"
	gc_keeps "$kept" "$IP" "$CID" "$LEASE" "$NS" "$ENTRY"
	checking "list: GC column kept:no-netns"
	hook list --no-trunc
	grep -Eq "^$CID +$NET +eth0 +$IP/24 +- +[0-9]+s +kept:no-netns +-$" <<<"$OUT" || fail "list: $OUT"
	ok "kept:no-netns"
	assert_attached "$NS" "$IP" "$GW" "$CID"

	# Its namespace deleted: the entry still proves nothing; the sandbox
	# its result names does, when the operator says it may count.
	ip netns delete "$NS"
	gc_keeps "$kept" "$IP" "$CID" "$LEASE" "" "$ENTRY"
	before=$(fingerprint "$IP" "$CID" "$LEASE" "" "$ENTRY")
	gc_says "gc --netns-from-result --dry-run: the result's sandbox is gone" \
		"gc: container \"$CID\": gone: would detach 1 attachment(s) and remove its state (no state of runc, crun or containerd; /run/netns/$NS does not exist (named by the sandbox of its cached result of network \"$NET\"))" \
		--dry-run --netns-from-result
	same_as "$before" "$IP" "$CID" "$LEASE" "" "$ENTRY"
	gc_says "gc --netns-from-result: detached" \
		"gc: container \"$CID\": gone: detached 1 attachment(s), state removed (" --netns-from-result
	teardown_and_check "" "$CID"
}

case_refcni_netns() {
	refcni_add b
	checking "the cache entry names its namespace (written in, as a newer libcni does)"
	jq --arg p "/run/netns/$NS" '. + {netns: $p}' "$ENTRY" >"$DIR/entry"
	cat "$DIR/entry" >"$ENTRY"
	jq -e --arg p "/run/netns/$NS" '.netns == $p' "$ENTRY" >/dev/null || fail "no netns"
	ok "netns /run/netns/$NS"
	local kept="gc: container \"$CID\": kept: /run/netns/$NS is a network namespace (named by its cache entry of network \"$NET\")"
	gc_says "gc --netns-from-result: kept, its namespace exists" "$kept" --netns-from-result
	gc_keeps "$kept" "$IP" "$CID" "$LEASE" "$NS" "$ENTRY"
	assert_attached "$NS" "$IP" "$GW" "$CID"
	ip netns delete "$NS"
	gc_says "namespace deleted, gc: gone, and what was checked" \
		"gc: container \"$CID\": gone: detached 1 attachment(s), state removed (no state of runc, crun or containerd; /run/netns/$NS does not exist (named by its cache entry of network \"$NET\"))"
	teardown_and_check "" "$CID"
}

case_cli_add() {
	setup_case c
	hookconf
	write_list "$NETCONFPATH/10-net.conflist" "$NET" 1.0.0 bridge portmap firewall
	local port=$((20000 + RANDOM % 10001)) ns=gcn-$uniq-c cid ip entry kept
	export CAP_ARGS="{\"portMappings\":[{\"hostPort\":$port,\"containerPort\":80,\"protocol\":\"tcp\"}]}"
	new_netns "$ns"
	cid=$(default_cid "/run/netns/$ns")
	expect_ok "cnihook add to /run/netns/$ns" cli add "$NET" "/run/netns/$ns"
	cleanup_push "'$CNIHOOK' del '$NET' '/run/netns/$ns'"
	ip=$(jq -r '.ips[0].address' <<<"$OUT")
	ip=${ip%/24}
	entry=$CNI_CACHE_DIR/results/$NET-$cid-eth0
	assert_portmap "$cid" "$port" "$ip"
	kept="gc: container \"$cid\": kept: /run/netns/$ns is a network namespace (named by its cache entry of network \"$NET\")"
	gc_keeps "$kept" "$ip" "$cid" "$(lease_of "$ip")" "$ns" "$entry"
	assert_attached "$ns" "$ip" "$GW" "$cid"
	expect_ok "cnihook del" cli del "$NET" "/run/netns/$ns"
	teardown_and_check "$ns" "$cid"
}

case_own_netns_deleted() {
	setup_case d
	hookconf
	write_list "$NETCONFPATH/10-net.conflist" "$NET" 1.0.0 bridge portmap firewall
	local port=$((20000 + RANDOM % 10001)) ns=gcn-$uniq-d cid=own-$uniq-d ip entry before sleeper
	new_netns "$ns"
	hook_attach "$cid" "/run/netns/$ns" "$port"
	ip=$(jq -r '.[0].ips[0]' "$DIR/state/$cid/network-status.json")
	ip=${ip%/24}
	entry=$CNI_CACHE_DIR/results/$NET-$cid-eth0
	assert_attached "$ns" "$ip" "$GW" "$cid"
	assert_portmap "$cid" "$port" "$ip"
	# The container's process.
	ip netns exec "$ns" sleep 300 &
	sleeper=$!
	cleanup_push "kill -9 $sleeper; wait $sleeper"
	wait_for 50 same_ns "/proc/$sleeper/ns/net" "/run/netns/$ns"
	before=$(fingerprint "$ip" "$cid" "$(lease_of "$ip")" "$ns" "$entry")
	gc_says "gc: kept while a process lives in it" \
		"gc: container \"$cid\": kept: process $sleeper lives in its pinned network namespace $DIR/state/$cid/netns"
	same_as "$before" "$ip" "$cid" "$(lease_of "$ip")" "$ns" "$entry"
	kill -9 "$sleeper"
	wait "$sleeper" 2>/dev/null || true
	ip netns delete "$ns"
	gc_says "namespace deleted, its process gone: gc detaches, and says what it checked" \
		"gc: container \"$cid\": gone: detached 1 attachment(s), state removed (no state of runc, crun or containerd; no process lives in its pinned network namespace $DIR/state/$cid/netns)"
	checking "the state directory holds nothing of it, the pin is unmounted"
	[ ! -e "$DIR/state/$cid" ] && [ ! -e "$DIR/state/$cid.lock" ] || fail "left: $(ls -A "$DIR/state")"
	! grep -qF "$DIR/state/$cid" /proc/self/mountinfo || fail "the pin is still mounted"
	[ -z "$(cat "$DIR"/state/ports/* 2>/dev/null)" ] || fail "port reservation left"
	ok "nothing of $cid in $DIR/state"
	teardown_and_check "" "$cid"
}

# pm ARGS...: podman with the case's storage and configuration, and runc
# with a state root of its own ($PM_RUNC): a runtime whose state gc cannot
# see, as with CRI-O's drop_infra_ctr, youki, Kata or gVisor.
pm() { podman --runtime "$PM_RUNC" "$@"; }

case_podman_cni() {
	setup_case e
	local podnet=$DIR/podnet name=gcn-$uniq-e cid pid ip entry lease before
	mkdir -p "$podnet" "$DIR/podcache/results"
	# runtime-lib's podman set-up (storage, image), with the CNI backend on
	# a configuration directory of the case's own.
	RT_ROOTFS=$DIR/rootfs
	make_rootfs "$RT_ROOTFS"
	pm_init
	printf '[network]\nnetwork_backend = "cni"\nnetwork_config_dir = "%s"\ncni_plugin_dirs = ["%s"]\n' \
		"$podnet" "$PLUGINDIR" >>"$CONTAINERS_CONF"
	PM_RUNC=$DIR/runc
	mkdir -p "$DIR/runc-root"
	printf '#!/bin/sh\nexec runc --root "%s" "$@"\n' "$DIR/runc-root" >"$PM_RUNC"
	chmod 755 "$PM_RUNC"
	# The shared CNI directories podman makes: removed at exit if this case
	# made them and they are empty (others may use them meanwhile).
	local d
	for d in /var/lib/cni /var/lib/cni/results /var/lib/cni/networks; do
		[ -e "$d" ] || cleanup_push "rmdir '$d'"
	done
	[ -e "/var/lib/cni/networks/$NET" ] || cleanup_push "rm -rf '/var/lib/cni/networks/$NET'"

	checking "podman network create (CNI backend, internal: no masquerade)"
	pm network create --internal --disable-dns --subnet "$SUB.0/24" "$NET" >/dev/null ||
		fail "podman network create failed"
	cleanup_push "podman network rm -f '$NET'"
	[ -n "$(ls "$podnet"/*.conflist 2>/dev/null)" ] || fail "no conflist in $podnet"
	# podman 4.3 names the bridge itself (cni-podmanN)
	BR=$(jq -r '.plugins[] | select(.type == "bridge") | .bridge' "$podnet"/*.conflist)
	cleanup_push "delete_link '$BR'"
	ok "$(basename "$podnet"/*.conflist), bridge $BR"
	checking "podman run --network $NET"
	cleanup_push "pm rm -f -t 0 '$name'"
	pm run -d --name "$name" --network "$NET" --ulimit nofile=20000:20000 \
		--ulimit nproc=32768:32768 "$PM_IMAGE" sleep 300 >/dev/null || fail "podman run failed"
	cid=$(podman inspect -f '{{.Id}}' "$name")
	pid=$(podman inspect -f '{{.State.Pid}}' "$name")
	ip=$(nsenter -t "$pid" -n ip -4 -o addr show dev eth0 | awk '{print $4}')
	ip=${ip%/24}
	entry=/var/lib/cni/results/$NET-$cid-eth0
	lease=/var/lib/cni/networks/$NET/$ip
	[ -f "$entry" ] && [ -f "$lease" ] || fail "no cache entry $entry or lease $lease"
	[ ! -e "/run/runc/$cid" ] && [ -d "$DIR/runc-root/$cid" ] ||
		fail "runc keeps its state in /run/runc, not in $DIR/runc-root"
	ok "container ${cid:0:12}, $ip, netns $(jq -r '.netns // "none"' "$entry"), runc state in $DIR/runc-root"
	# gc reads a copy of podman's entry (the host's /var/lib/cni may hold
	# the entries of other tests); a DEL would still act on podman's real
	# lease, rules and interface, which are compared.
	cp -p "$entry" "$DIR/podcache/results/"
	hookconf "$podnet" "$DIR/podcache"
	before=$(fingerprint "$ip" "$cid" "$lease" "pid:$pid" "$entry" "$DIR/podcache/results/${entry##*/}")
	[ -n "$(rules_of "$ip" "$cid")" ] || fail "podman's firewall made no rule for $ip"
	gc_says "gc --dry-run: podman's container is kept" "gc: container \"$cid\": kept: " --dry-run
	gc_says "gc: podman's container is kept" "gc: container \"$cid\": kept: "
	gc_says "gc --netns-from-result: podman's container is kept" "gc: container \"$cid\": kept: " \
		--netns-from-result
	same_as "$before" "$ip" "$cid" "$lease" "pid:$pid" "$entry" "$DIR/podcache/results/${entry##*/}"
	checking "podman's container still runs"
	[ "$(podman inspect -f '{{.State.Status}}' "$name")" = running ] || fail "not running"
	ok running
	checking "podman rm, podman network rm: podman tears down its own"
	pm rm -f -t 0 "$name" >/dev/null || fail "podman rm failed"
	pm network rm -f "$NET" >/dev/null || fail "podman network rm failed"
	[ ! -e "$entry" ] && [ ! -e "$lease" ] && [ -z "$(rules_of "$ip" "$cid")" ] ||
		fail "podman left its entry, lease or rules"
	ok "nothing left"
}

run_case "a: refcni (libcni 1.1, no netns in the entry): kept; --netns-from-result" case_refcni_no_netns
run_case "b: refcni with netns in the entry: kept while it exists" case_refcni_netns
run_case "c: cnihook add to a named namespace: kept" case_cli_add
run_case "d: the hook's own attachment: kept while alive; ip netns del, gc leaves nothing" case_own_netns_deleted
run_case "e: podman's own CNI backend: kept" case_podman_cni
finish
