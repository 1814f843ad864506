#!/bin/bash
# cnihook beside the engine's own network: podman with the netavark backend
# (podman 5 and 6 have no other), runc, the shipped hooks.d files. A
# container on a network of podman's own has netavark's eth0 when cnihook's
# createRuntime runs; cnihook must never hand that name to a plugin (a
# failed ADD's rollback DEL would delete it) and must leave netavark's
# teardown whole. Storage, podman's network configuration and the image are
# the test's own (runtime-lib.sh's podman set-up, netavark on a network
# configuration directory of the test's); podman's networks are --internal
# (no masquerade, no route out).
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/runtime-lib.sh"
NETAVARK=${NETAVARK:-/usr/lib/podman/netavark}
[ -x "$NETAVARK" ] || skip "netavark not found at $NETAVARK (apt-get install netavark)"
rt_init podman
PM_NETDIR=$T_TMP/podman-networks
mkdir -p "$PM_NETDIR"
# A pod's infra container and kube play's take no --ulimit: the defaults
# this machine's runc needs (as for every podman container here).
printf '[network]\nnetwork_backend = "netavark"\nnetwork_config_dir = "%s"\n[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]\n' \
	"$PM_NETDIR" >>"$CONTAINERS_CONF"
[ "$(podman info --format '{{.Host.NetworkBackend}}')" = netavark ] ||
	fail "podman does not use netavark with $CONTAINERS_CONF"

# pnet_create: a network of podman's own, PNET on PSUB.0/24, bridge PBR.
pnet_create() {
	PNET=pnet-$uniq-$1
	PSUB=$(random_subnet)
	checking "podman network create $PNET ($PSUB.0/24, internal, no DNS)"
	pm network create --internal --disable-dns --subnet "$PSUB.0/24" "$PNET" >/dev/null ||
		fail "podman network create failed"
	cleanup_push "podman network rm -f '$PNET' >/dev/null 2>&1"
	PBR=$(jq -r .network_interface "$PM_NETDIR/$PNET.json")
	ok "netavark's bridge $PBR"
}

# netavark_left_nothing: podman tore its own network down whole: no port on
# its bridge, no firewall rule naming its subnet.
netavark_left_nothing() {
	checking "netavark's teardown was whole: no port on $PBR, no rule naming $PSUB.0/24"
	[ -z "$(ip -o link show master "$PBR" 2>/dev/null)" ] ||
		fail "ports left on $PBR: $(ip -o link show master "$PBR")"
	! iptables-save | grep -F -- "$PSUB." || fail "netavark's rules for $PSUB.0/24 are left"
	ok "nothing of netavark's left"
	pm network rm -f "$PNET" >/dev/null || fail "podman network rm $PNET failed"
}

# 1. A container on podman's network and on cnihook's: netavark's eth0,
# cnihook's net1 (its choice beside another program's interface), the
# default route netavark's.
case_beside() {
	local id cid pip ip st
	rt_setup_case a
	rt_add_net "$NET" "$BR" "$SUB"
	pnet_create a
	id=$(rt_id)
	rt_start_ok "start $id on $PNET with io.cnihook.networks=$NET" \
		"$id" "$(annotations io.cnihook.networks "$NET")" "net:$PNET"
	cid=$RT_CID
	checking "eth0 is netavark's (an address of $PSUB.0/24)"
	pip=$(container_addr "$id" eth0) || true
	[[ $pip == "$PSUB".*/24 ]] || fail "eth0: $(rt_exec "$id" ip -o addr 2>&1)"
	ok "eth0 $pip"
	checking "net1 is cnihook's (an address of $SUB.0/24, leased, cached)"
	ip=$(assert_attached_to "$id" "$cid" "$NET" net1 "$SUB")
	ok "net1 $ip"
	checking "network-status: net1, not the default (netavark's eth0 is the first)"
	st=$(hook_status "$cid") || fail "cnihook status $cid failed"
	jq -e 'length == 1 and .[0].interface == "net1" and (.[0].default | not)' \
		<<<"$st" >/dev/null || fail "network-status: $st"
	ok "$(jq -c '.[0] | {interface, default}' <<<"$st")"
	checking "the container pings cnihook's gateway $GW through net1"
	rt_exec "$id" ping -c1 -W2 "$GW" >/dev/null || fail "no reply from $GW"
	ok "gateway answers"
	rt_stop "$id"
	netavark_left_nothing
	rt_teardown_and_check
}

# 2. The annotation names eth0, which netavark's interface has: refused
# before any plugin runs; netavark's eth0 and its teardown untouched.
case_named_eth0() {
	local id out
	rt_setup_case b
	rt_add_net "$NET" "$BR" "$SUB"
	pnet_create b
	id=$(rt_id)
	checking "start $id on $PNET with io.cnihook.networks=$NET@eth0: refused"
	if rt_start "$id" "$(annotations io.cnihook.networks "$NET@eth0")" "net:$PNET"; then
		fail "the container started"
	fi
	out=$(cat "$DIR/$id.out")
	grep -q 'interface \\\?"eth0\\\?" exists in the container.s network namespace already' <<<"$out" ||
		fail "podman's output does not name the taken eth0: $out"
	ok "refused: $(grep -o 'interface .*' <<<"$out" | head -1 | cut -c1-160)"
	checking "no plugin ran: no lease, no cache entry, no port on $BR"
	[ -z "$(find "$DATADIR" -type f ! -name 'last_reserved_ip*' ! -name lock)" ] ||
		fail "a lease was taken"
	[ -z "$(ls -A "$CACHEDIR/results" 2>/dev/null)" ] || fail "a cache entry was written"
	[ -z "$(ip -o link show master "$BR" 2>/dev/null)" ] || fail "a port on $BR"
	ok "none"
	checking "podman rm -f: netavark tears down its own"
	rt_force_remove "$id"
	ok "removed"
	netavark_left_nothing
	rt_teardown_and_check
}

# pod_infra POD: the id of POD's infra container, the owner of the namespace
# its members share and the id the pod's networks are attached under.
pod_infra() { podman pod inspect "$1" --format '{{.InfraContainerID}}'; }

# 3. A podman pod: its annotated members give it cnihook's network, once,
# in the namespace they share, with their port; the last one to stop
# detaches it.
case_pod() {
	local pod=pod-$uniq-c a b sbx port ip
	rt_setup_case c
	rt_add_net "$NET" "$BR" "$SUB"
	port=$((20000 + RANDOM % 10001))
	checking "podman pod create $pod (--network none: the infra container's namespace has lo)"
	cleanup_push "podman pod rm -f '$pod' >/dev/null 2>&1"
	pm pod create --network none --name "$pod" >/dev/null || fail "podman pod create failed"
	sbx=$(pod_infra "$pod")
	RT_IDS+=("$sbx")
	ok "infra container ${sbx:0:12}"
	a=$(rt_id)
	rt_start_ok "start $a in $pod with io.cnihook.networks=$NET io.cnihook.ports=$port:80" \
		"$a" "$(annotations io.cnihook.networks "$NET" io.cnihook.ports "$port:80")" "pod:$pod"
	checking "the pod's namespace has eth0 on $SUB.0/24, leased and cached under the pod's id"
	ip=$(assert_attached_to "$a" "$sbx" "$NET" eth0 "$SUB")
	ok "eth0 $ip"
	assert_page "http://127.0.0.1:$port/"
	b=$a-2
	rt_start_ok "start $b in $pod asking the same: it joins" \
		"$b" "$(annotations io.cnihook.networks "$NET" io.cnihook.ports "$port:80")" "pod:$pod" \
		"sleep 300"
	checking "$b sees the same eth0; one lease, one cache entry"
	[ "$(container_addr "$b" eth0)" = "$ip/24" ] || fail "$b: $(rt_exec "$b" ip -o addr)"
	[ "$(find "$DATADIR/$NET" -type f -name '10.*' | wc -l)" = 1 ] || fail "leases: $(ls "$DATADIR/$NET")"
	ok "shared"
	checking "a member asking another network is refused, saying why"
	if rt_start "$a-3" "$(annotations io.cnihook.networks "$NET@net9")" "pod:$pod" "sleep 300"; then
		fail "it started"
	fi
	grep -q "every annotated member of a podman pod must ask the same" "$DIR"/*.out ||
		fail "no refusal naming the rule"
	ok "refused"
	rt_stop "$a"
	checking "the pod keeps its network while $b runs"
	rt_exec "$b" ip -o addr show dev eth0 | grep -qF "$ip/24" || fail "eth0 is gone"
	ok "kept"
	rt_stop "$b"
	checking "the last member stopped: the pod's network is detached"
	[ -z "$(ls -A "$CACHEDIR/results" 2>/dev/null)" ] || fail "cache: $(ls "$CACHEDIR/results")"
	ok "detached"
	pm pod rm -f "$pod" >/dev/null || fail "podman pod rm failed"
	rt_teardown_and_check
}

# 4. podman kube play: the pod's annotations name the network (kube play
# puts them on its containers); kube play --down leaves nothing.
case_kube_play() {
	local yaml sbx ip
	rt_setup_case d
	rt_add_net "$NET" "$BR" "$SUB"
	yaml=$DIR/pod.yaml
	cat >"$yaml" <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: kube-$uniq
  annotations:
    io.cnihook.networks: $NET
spec:
  containers:
  - name: web
    image: $PM_IMAGE
    command: ["/bin/busybox", "httpd", "-f", "-p", "80", "-h", "/www"]
EOF
	pm_hooks_dir
	checking "podman kube play $yaml (--network none)"
	cleanup_push "podman kube play --down '$yaml' >/dev/null 2>&1"
	pm kube play --network none "$yaml" >"$DIR/play.out" 2>&1 || fail "kube play: $(cat "$DIR/play.out")"
	sbx=$(pod_infra "kube-$uniq")
	RT_IDS+=("$sbx")
	ok "pod kube-$uniq, infra ${sbx:0:12}"
	checking "its container is on $NET, under the pod's id"
	# (kube play gives the imported image no PATH: ip runs from the host)
	local pid
	pid=$(podman inspect -f '{{.State.Pid}}' "kube-$uniq-web" 2>&1) || fail "inspect: $pid"
	ip=$(nsenter -t "$pid" -n ip -4 -o addr show dev eth0 2>&1 | awk '{print $4}') || true
	[[ $ip == "$SUB".*/24 ]] || fail "eth0 has no address of $SUB.0/24: $ip"
	[ -f "$CACHEDIR/results/$NET-$sbx-eth0" ] || fail "no cache entry under the pod's id"
	ok "eth0 $ip"
	checking "podman kube play --down: nothing left"
	pm kube play --down "$yaml" >"$DIR/down.out" 2>&1 || fail "kube play --down: $(cat "$DIR/down.out")"
	wait_for 50 eval '[ -z "$(ls -A "$CACHEDIR/results" 2>/dev/null)" ]' ||
		fail "cache: $(ls "$CACHEDIR/results")"
	ok "down"
	rt_teardown_and_check
}

# 5. A start that fails after createRuntime (a mistyped command): podman
# leaves the container "Created" and runs no poststop, so its attachment
# stays; the corrected run with the same host port finds the holder
# provably gone (gc's rules), collects it first and attaches.
case_failed_start() {
	local bad=bad-$uniq good=good-$uniq port badid out
	rt_setup_case e
	rt_add_net "$NET" "$BR" "$SUB"
	port=$((20000 + RANDOM % 10001))
	pm_hooks_dir
	checking "podman run $bad with io.cnihook.ports=$port:80 and command /nonexistent: fails"
	cleanup_push "pm rm -f -t 0 '$bad' >/dev/null 2>&1"
	if pm run -d --name "$bad" --network none --ulimit nofile=20000:20000 \
		--ulimit nproc=32768:32768 --annotation "io.cnihook.networks=$NET" \
		--annotation "io.cnihook.ports=$port:80" "$PM_IMAGE" /nonexistent \
		</dev/null >"$DIR/$bad.out" 2>&1; then
		fail "podman run /nonexistent succeeded"
	fi
	badid=$(podman inspect -f '{{.Id}}' "$bad" 2>/dev/null) || badid=
	[ -n "$badid" ] || fail "podman forgot $bad: $(cat "$DIR/$bad.out")"
	RT_IDS+=("$badid")
	rt_hook_log
	ok "failed, $bad is $(podman inspect -f '{{.State.Status}}' "$bad")"
	checking "its attachment stayed (no poststop): a port reservation of $port names it"
	grep -rqF -- "$badid" "$STATEDIR/ports" 2>/dev/null ||
		fail "no reservation left: the case reproduces nothing"
	ok "reserved for ${badid:0:12}"
	rt_start_ok "start $good with the same port: the gone holder is collected first" \
		"$good" "$(annotations io.cnihook.networks "$NET" io.cnihook.ports "$port:80")"
	checking "the hook's log names the collected container and gc's evidence"
	grep -F "collected container \"$badid\"" "$HOOKLOG" | grep -qF "no process lives in its pinned network namespace" ||
		fail "no such line in $HOOKLOG: $(cat "$HOOKLOG")"
	ok "$(grep -F "collected container \"$badid\"" "$HOOKLOG" | head -1 | cut -c1-200)"
	assert_page "http://127.0.0.1:$port/"
	rt_stop "$good"
	pm rm -f -t 0 "$bad" >/dev/null 2>&1 || fail "podman rm -f $bad failed"
	rt_teardown_and_check
}

# 6. The same with a static IP and a MAC (io.cnihook.ips, io.cnihook.mac):
# the failed start's attachment holds them (host-local's lease, its cached
# result), so host-local would refuse the corrected run's IP; cnihook finds
# the holder provably gone, collects it first, and the corrected run gets
# the IP and the MAC.
case_failed_start_ip_mac() {
	local bad=bad-$uniq-f good=good-$uniq-f ip mac badid cid
	rt_setup_case f
	rt_add_net "$NET" "$BR" "$SUB"
	ip=$SUB.77
	mac=$(printf '02:cb:%02x:%02x:%02x:%02x' $((RANDOM % 256)) $((RANDOM % 256)) \
		$((RANDOM % 256)) $((RANDOM % 256)))
	pm_hooks_dir
	checking "podman run $bad with io.cnihook.ips=$ip/24, io.cnihook.mac=$mac, command /nonexistent: fails"
	cleanup_push "pm rm -f -t 0 '$bad' >/dev/null 2>&1"
	if pm run -d --name "$bad" --network none --ulimit nofile=20000:20000 \
		--ulimit nproc=32768:32768 --annotation "io.cnihook.networks=$NET" \
		--annotation "io.cnihook.ips=$ip/24" --annotation "io.cnihook.mac=$mac" \
		"$PM_IMAGE" /nonexistent </dev/null >"$DIR/$bad.out" 2>&1; then
		fail "podman run /nonexistent succeeded"
	fi
	badid=$(podman inspect -f '{{.Id}}' "$bad" 2>/dev/null) || badid=
	[ -n "$badid" ] || fail "podman forgot $bad: $(cat "$DIR/$bad.out")"
	RT_IDS+=("$badid")
	rt_hook_log
	ok "failed, $bad is $(podman inspect -f '{{.State.Status}}' "$bad")"
	checking "its attachment stayed (no poststop): the lease of $ip and the cache name it"
	grep -qF -- "$badid" "$DATADIR/$NET/$ip" 2>/dev/null ||
		fail "no lease of $ip for it: the case reproduces nothing"
	[ -f "$CACHEDIR/results/$NET-$badid-eth0" ] || fail "no cache entry of it"
	ok "leased to ${badid:0:12}"
	rt_start_ok "start $good with the same IP and MAC: the gone holder is collected first" \
		"$good" "$(annotations io.cnihook.networks "$NET" io.cnihook.ips "$ip/24" \
			io.cnihook.mac "$mac")"
	cid=$RT_CID
	checking "the hook's log names the collected container, the IP and gc's evidence"
	grep -F "collected container \"$badid\" first, which held the IP $ip asked for on network \"$NET\"" "$HOOKLOG" |
		grep -qF "no process lives in its pinned network namespace" ||
		fail "no such line in $HOOKLOG: $(cat "$HOOKLOG")"
	ok "$(grep -F "collected container \"$badid\"" "$HOOKLOG" | head -1 | cut -c1-200)"
	checking "$good has $ip (leased to it) and $mac on eth0"
	[ "$(assert_attached_to "$good" "$cid" "$NET" eth0 "$SUB")" = "$ip" ] ||
		fail "eth0: $(rt_exec "$good" ip -o addr 2>&1)"
	[ "$(container_mac "$good" eth0)" = "$mac" ] ||
		fail "eth0's MAC is $(container_mac "$good" eth0), not $mac"
	ok "eth0 $ip $mac"
	rt_stop "$good"
	pm rm -f -t 0 "$bad" >/dev/null 2>&1 || fail "podman rm -f $bad failed"
	rt_teardown_and_check
}

run_case "1. beside podman's netavark network: cnihook's net1, netavark's eth0 and route" \
	case_beside
run_case "2. a name netavark's eth0 has: refused before any plugin runs, netavark whole" \
	case_named_eth0
run_case "3. a podman pod: annotated members share the pod's network, the last detaches it" \
	case_pod
run_case "4. podman kube play with the network in the pod's annotations" case_kube_play
run_case "5. a start that failed after createRuntime: its gone holder of the port is collected" \
	case_failed_start
run_case "6. the same with a static IP and a MAC: their gone holder is collected" \
	case_failed_start_ip_mac
log "--- whole script"
assert_nothing_left
finish
