#!/bin/bash
# cnihook under runc, many containers at once: the hook takes a lock
# per container, never a global one.
#
#  1. N containers (default 50) started in parallel (`runc run -d`, each
#     `sleep 300`) on one bridge network (bridge + host-local, a /24 of
#     10.x): all run, all get eth0 with an address, all addresses distinct,
#     N cache entries, N leases; then all stopped and deleted in parallel;
#     then nothing is left of any of them (runtime-lib.sh's checks), and the
#     host-local dataDir holds nothing but lock and last_reserved_ip*.
#  2. createRuntime (runc run -d) and a poststop by hand racing on the same
#     id, the poststop started at different delays: every time, the outcome
#     is one of the two consistent ones (attached, with a record, cache file,
#     lease and eth0 that agree; or nothing at all), never a torn record;
#     afterwards nothing is left. The network's chain ends with a plugin
#     that sleeps, so that createRuntime holds the container's lock long
#     enough for the poststop to arrive in the middle of it.
#  3. The lock of one container held (by this script) does not hold up the
#     start of another; the container whose lock is held waits for it, then
#     starts attached.
#
# Prints the figures: containers, wall time to start all, wall time to tear
# down all, leaks found (must be 0).
#
# Environment: as for tests/harness/runtime-lib.sh (CNIHOOK, CNI_PLUGIN_DIR,
# CNIHOOK_BUSYBOX, CNIHOOK_NO_SKIP), and
#   CNIHOOK_PARALLEL_N   number of containers of case 1 (default 50)
#   CNIHOOK_E2E_SHIM     default 0 here: the hook entry is $CNIHOOK itself
#                        (100 runs of the shim's extra shell and sed cost
#                        time and the log would be hundreds of lines; a
#                        failing hook's stderr is in runc's error anyway)
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
CNIHOOK_E2E_SHIM=${CNIHOOK_E2E_SHIM:-0}
T_NETPREFIX=par
. "$srcdir/tests/harness/runtime-lib.sh"

PAR_N=${CNIHOOK_PARALLEL_N:-50}
rt_init runc

# Last safety net: every runc container of this script, in parallel.
par_delete_ours() {
	local id pids=()
	for id in $(runc list -q 2>/dev/null | grep -F -- "cnh-$uniq-"); do
		runc delete --force "$id" >/dev/null 2>&1 &
		pids+=($!)
	done
	for id in "${pids[@]}"; do wait "$id" || true; done
}
cleanup_push par_delete_ours

# par_delete_ids FILE: runc delete --force every container listed in FILE
# (one id a line), in parallel; those already gone are fine.
par_delete_ids() {
	local id pids=() p
	[ -f "$1" ] || return 0
	while IFS= read -r id; do
		runc delete --force "$id" >/dev/null 2>&1 &
		pids+=($!)
	done <"$1"
	for p in "${pids[@]}"; do wait "$p" || true; done
}

# par_add_net NAME BRIDGE SUBNET [SLOWPLUGIN]: bridge + host-local only (a
# 50-container start with five plugins each would take minutes on two
# cores), optionally followed by a plugin type that sleeps.
par_add_net() {
	local slow=${4:-}
	jq -n --arg n "$1" --arg br "$2" --arg sub "$3.0/24" --arg dd "$DATADIR" --arg slow "$slow" '
		{cniVersion: "1.0.0", name: $n, plugins: ([
			{type: "bridge", bridge: $br, isGateway: true, ipMasq: false,
			 ipam: {type: "host-local", dataDir: $dd, ranges: [[{subnet: $sub}]],
				routes: []}}]
			+ if $slow != "" then [{type: $slow}] else [] end)}' >"$DIR/net.d/50-$1.conflist"
}

# par_bundle ID [COMMAND]: a bundle for container ID on network $NET; the id
# goes to $DIR/ids (for the cleanup) and RT_IDS (for the final checks).
par_bundle() {
	local id=$1 cmd=${2:-sleep 300} ann
	ann=$(annotations io.cnihook.networks "$NET")
	make_bundle "$DIR/bundle-$id" "$id" "$ann" "" "$cmd"
	RT_BUNDLE[$id]=$DIR/bundle-$id
	RT_ANN[$id]=$ann
	RT_IDS+=("$id")
	printf '%s\n' "$id" >>"$DIR/ids"
}

# par_stop ID: kill the container, wait until it stopped, delete it (runc
# runs poststop); runc's output in $DIR/ID.stop.
par_stop() {
	local id=$1 i
	{
		runc kill "$id" KILL || return 1
		for ((i = 0; i < 100; i++)); do
			[ "$(rt_status "$id")" != running ] && break
			sleep 0.1
		done
		runc delete "$id"
	} >"$DIR/$id.stop" 2>&1
}

# ms_since T0: milliseconds since $EPOCHREALTIME was T0.
ms_since() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", (b - a) * 1000 }'
}

# par_leaks ID...: count what is left of the containers: state directory,
# lock, cache file, pin mount, lease naming the id (one each), ports on the
# case's bridge, lease files in the dataDir.
par_leaks() {
	local id n=0 f
	for id in "$@"; do
		[ ! -e "$STATEDIR/$id" ] || n=$((n + 1))
		[ ! -e "$STATEDIR/$id.lock" ] || n=$((n + 1))
		[ -z "$(find "$CACHEDIR" -type f -name "*-$id-*" 2>/dev/null)" ] || n=$((n + 1))
		! grep -rqF -- "$id" "$DATADIR" 2>/dev/null || n=$((n + 1))
	done
	n=$((n + $(awk -v d="$STATEDIR/" 'index($5, d) == 1' /proc/self/mountinfo | wc -l)))
	n=$((n + $(ip -o link show master "$BR" 2>/dev/null | wc -l)))
	f=$(find "$DATADIR" -type f ! -name 'last_reserved_ip*' ! -name lock | wc -l)
	echo $((n + f))
}

# ---------------------------------------------------------------- case 1
par_case_many() {
	local i id ids=() pids=() t0 start_ms stop_ms bad=0 cidr ip st leaks
	local -A seen=()
	rt_setup_case a
	par_add_net "$NET" "$BR" "$SUB"
	cleanup_push "par_delete_ids '$DIR/ids'"
	for ((i = 0; i < PAR_N; i++)); do
		id=$(rt_id "$i")
		ids+=("$id")
		par_bundle "$id"
	done

	checking "start $PAR_N containers at once on $NET (runc run -d, all in the background)"
	t0=$EPOCHREALTIME
	for id in "${ids[@]}"; do
		runc run -d --bundle "$DIR/bundle-$id" "$id" </dev/null >"$DIR/$id.out" 2>&1 &
		pids+=($!)
	done
	for ((i = 0; i < PAR_N; i++)); do
		if ! wait "${pids[i]}"; then
			printf '    runc| %s: %s\n' "${ids[i]}" "$(tr '\n' ' ' <"$DIR/${ids[i]}.out")"
			bad=$((bad + 1))
		fi
	done
	start_ms=$(ms_since "$t0")
	[ "$bad" = 0 ] || fail "$bad of $PAR_N runc run -d failed"
	ok "all $PAR_N started in $start_ms ms"

	checking "all $PAR_N are running"
	for id in "${ids[@]}"; do
		st=$(rt_status "$id")
		[ "$st" = running ] || fail "container $id is $st"
	done
	ok "running"

	checking "each has eth0 with an address of $SUB.0/24, its lease, its cache file, its status"
	for id in "${ids[@]}"; do
		cidr=$(container_addr "$id" eth0) || true
		[[ $cidr == "$SUB".*/24 ]] ||
			fail "eth0 in $id has no address of $SUB.0/24: $(rt_exec "$id" ip -o addr 2>&1)"
		ip=${cidr%/24}
		[ -z "${seen[$ip]:-}" ] || fail "$id and ${seen[$ip]} both have $ip"
		seen[$ip]=$id
		grep -qF -- "$id" "$DATADIR/$NET/$ip" 2>/dev/null ||
			fail "no lease $DATADIR/$NET/$ip naming $id"
		[ -f "$CACHEDIR/results/$NET-$id-eth0" ] || fail "no cache file $NET-$id-eth0"
		st=$(hook_status "$id") || fail "cnihook status --json $id failed"
		jq -e --arg n "$NET" --arg ip "$ip" 'length == 1 and .[0].name == $n and
			.[0].interface == "eth0" and (.[0].ips | index($ip) != null)' <<<"$st" \
			>/dev/null || fail "cnihook status $id: $(jq -c . <<<"$st"), want $ip on eth0"
	done
	[ "${#seen[@]}" = "$PAR_N" ] || fail "${#seen[@]} distinct addresses for $PAR_N containers"
	ok "$PAR_N distinct addresses, each with its lease, cache file and status"

	checking "$PAR_N cache entries, $PAR_N leases, $PAR_N ports on $BR"
	i=$(find "$CACHEDIR/results" -type f | wc -l)
	[ "$i" = "$PAR_N" ] || fail "$i cache files, want $PAR_N: $(ls "$CACHEDIR/results")"
	i=$(find "$DATADIR/$NET" -type f -regex '.*/[0-9.]*' | wc -l)
	[ "$i" = "$PAR_N" ] || fail "$i leases, want $PAR_N: $(ls "$DATADIR/$NET")"
	i=$(ip -o link show master "$BR" | wc -l)
	[ "$i" = "$PAR_N" ] || fail "$i ports on $BR, want $PAR_N"
	ok "$PAR_N of each"

	checking "stop and delete all $PAR_N at once (runc kill, runc delete: poststop)"
	pids=()
	t0=$EPOCHREALTIME
	for id in "${ids[@]}"; do
		par_stop "$id" &
		pids+=($!)
	done
	bad=0
	for ((i = 0; i < PAR_N; i++)); do
		if ! wait "${pids[i]}"; then
			printf '    runc| %s: %s\n' "${ids[i]}" "$(tr '\n' ' ' <"$DIR/${ids[i]}.stop")"
			bad=$((bad + 1))
		fi
	done
	stop_ms=$(ms_since "$t0")
	[ "$bad" = 0 ] || fail "$bad of $PAR_N could not be stopped and deleted"
	for id in "${ids[@]}"; do
		[ "$(rt_status "$id")" = gone ] || fail "container $id still exists"
	done
	ok "all $PAR_N gone in $stop_ms ms"

	leaks=$(par_leaks "${ids[@]}")
	log "  figures: containers $PAR_N, start all $start_ms ms, tear down all $stop_ms ms, leaks found $leaks"
	[ "$leaks" = 0 ] || log "  (leaks: see the checks below)"
	rt_teardown_and_check
}

# ---------------------------------------------------------------- case 2
# A plugin that sleeps on ADD (so that createRuntime holds the lock for a
# while), then hands on its prevResult; does nothing for the other commands.
par_slow_plugin() {
	local dir=$1 jq
	jq=$(command -v jq)
	mkdir -p "$dir"
	cat >"$dir/slow-$uniq" <<EOF
#!/bin/sh
conf=\$(cat)
case \$CNI_COMMAND in
ADD)
	sleep 0.5
	printf '%s' "\$conf" | '$jq' -c .prevResult
	;;
VERSION) echo '{"cniVersion":"1.0.0","supportedVersions":["0.4.0","1.0.0","1.1.0"]}' ;;
esac
exit 0
EOF
	chmod 755 "$dir/slow-$uniq"
}

# par_consistent ID: the container is either attached (record, network-status
# and cache file are valid JSON and agree, the lease names it, eth0 has the
# address) or not at all; prints "attached" or "detached".
par_consistent() {
	local id=$1 rec ip cidr
	rec=$STATEDIR/$id/record.json
	if [ -e "$rec" ]; then
		jq -e --arg id "$id" '.id == $id' "$rec" >/dev/null ||
			fail "$rec is not a valid record of $id: $(head -c 300 "$rec")"
		jq -e 'length == 1' "$STATEDIR/$id/network-status.json" >/dev/null ||
			fail "bad network-status.json: $(cat "$STATEDIR/$id/network-status.json" 2>&1)"
		jq -e --arg id "$id" '.containerId == $id' "$CACHEDIR/results/$NET-$id-eth0" \
			>/dev/null || fail "record without a valid cache file $NET-$id-eth0"
		grep -qF " $STATEDIR/$id/netns " /proc/self/mountinfo || fail "record without a pin"
		cidr=$(container_addr "$id" eth0) || true
		[[ $cidr == "$SUB".*/24 ]] || fail "record, but no address on eth0 in $id"
		ip=${cidr%/24}
		jq -e --arg ip "$ip" '.[0].ips | index($ip) != null' \
			"$STATEDIR/$id/network-status.json" >/dev/null ||
			fail "network-status does not name $ip"
		grep -qF -- "$id" "$DATADIR/$NET/$ip" 2>/dev/null || fail "no lease of $ip for $id"
		echo attached
	else
		[ ! -e "$STATEDIR/$id" ] || fail "no record but $(find "$STATEDIR/$id")"
		[ -z "$(find "$CACHEDIR" -type f -name "*-$id-*")" ] ||
			fail "no record but a cache file: $(find "$CACHEDIR" -type f -name "*-$id-*")"
		! grep -rqF -- "$id" "$DATADIR" || fail "no record but a lease names $id"
		! rt_exec "$id" ip link show eth0 >/dev/null 2>&1 || fail "no record but $id has eth0"
		echo detached
	fi
}

par_case_race() {
	local i id delay rpid ppid t0 tr tp out att=0 det=0 overlap=0 late=0
	rt_setup_case b
	par_slow_plugin "$DIR/bin"
	jq --arg d "$DIR/bin" '.binDirs += [$d]' "$HOOKCONF" >"$HOOKCONF.new"
	mv "$HOOKCONF.new" "$HOOKCONF"
	par_add_net "$NET" "$BR" "$SUB" "slow-$uniq"
	cleanup_push "par_delete_ids '$DIR/ids'"
	# Delays (ms) of the poststop after `runc run -d` began: before
	# createRuntime, in the middle of it (its last plugin sleeps 0.5 s),
	# around its end.
	for delay in 0 150 300 450 600 900; do
		i=$delay
		id=$(rt_id "r$i")
		par_bundle "$id"
		checking "runc run -d $id and, $delay ms later, cnihook poststop $id"
		t0=$EPOCHREALTIME
		runc run -d --bundle "$DIR/bundle-$id" "$id" </dev/null >"$DIR/$id.out" 2>&1 &
		rpid=$!
		(
			sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
			echo "$EPOCHREALTIME" >"$DIR/$id.ps-start"
			exec "$CNIHOOK" --config "$HOOKCONF" poststop <<<"$(rt_poststop_state "$id")"
		) >"$DIR/$id.ps" 2>&1 &
		ppid=$!
		wait "$rpid" || fail "runc run -d $id: $(cat "$DIR/$id.out")"
		tr=$EPOCHREALTIME
		wait "$ppid" || fail "poststop $id failed: $(cat "$DIR/$id.ps")"
		tp=$(cat "$DIR/$id.ps-start")
		[ "$(rt_status "$id")" = running ] || fail "$id is $(rt_status "$id")"
		out=$(par_consistent "$id")
		case $out in
		attached) att=$((att + 1)) ;;
		detached) det=$((det + 1)) ;;
		esac
		# The poststop began while runc was still in createRuntime, and
		# detached: it waited for createRuntime's lock.
		if awk -v p="$tp" -v r="$tr" 'BEGIN { exit !(p < r) }'; then
			overlap=$((overlap + 1))
			[ "$out" = attached ] || late=$((late + 1))
		fi
		ok "$out (runc run -d took $(awk -v a="$t0" -v b="$tr" 'BEGIN { printf "%.0f", (b - a) * 1000 }') ms, poststop began at $(awk -v a="$t0" -v b="$tp" 'BEGIN { printf "%.0f", (b - a) * 1000 }') ms)"
		rt_stop "$id"
		rt_nothing_left_for "$id"
	done
	log "  figures: 6 races: $att attached (poststop first), $det detached (poststop after createRuntime); $overlap poststops began during runc run -d, $late of them detached"
	checking "at least one poststop arrived during createRuntime and detached after it"
	[ "$late" -ge 1 ] || fail "no poststop overlapped createRuntime: the race was never run"
	ok "$late"
	rt_teardown_and_check
}

# ---------------------------------------------------------------- case 3
par_case_lock_held() {
	local a b fd t0 pid ms
	rt_setup_case c
	par_add_net "$NET" "$BR" "$SUB"
	cleanup_push "par_delete_ids '$DIR/ids'"
	a=$(rt_id a)
	b=$(rt_id b)
	par_bundle "$a"
	par_bundle "$b"
	mkdir -p "$STATEDIR"
	checking "hold the hook's lock of $b ($STATEDIR/$b.lock)"
	exec {fd}>>"$STATEDIR/$b.lock"
	# Released before the containers' cleanup (which would wait for it).
	cleanup_push "exec $fd>&-"
	flock -x "$fd"
	ok "held"
	checking "$a starts meanwhile, attached"
	t0=$EPOCHREALTIME
	timeout 60 runc run -d --bundle "$DIR/bundle-$a" "$a" </dev/null >"$DIR/$a.out" 2>&1 {fd}>&- ||
		fail "runc run -d $a: $(cat "$DIR/$a.out")"
	ms=$(ms_since "$t0")
	[ "$(par_consistent "$a")" = attached ] || fail "$a is not attached"
	ok "started in $ms ms"
	checking "$b waits for its lock"
	runc run -d --bundle "$DIR/bundle-$b" "$b" </dev/null >"$DIR/$b.out" 2>&1 {fd}>&- &
	pid=$!
	sleep 2
	kill -0 "$pid" 2>/dev/null || fail "runc run -d $b returned while its lock was held: $(cat "$DIR/$b.out")"
	ok "still starting after 2 s"
	checking "released: $b starts, attached"
	exec {fd}>&-
	wait "$pid" || fail "runc run -d $b: $(cat "$DIR/$b.out")"
	[ "$(par_consistent "$b")" = attached ] || fail "$b is not attached"
	ok "started"
	rt_stop "$a"
	rt_stop "$b"
	rt_teardown_and_check
}

run_case "1. $PAR_N containers started in parallel on one bridge: distinct addresses, all torn down" \
	par_case_many
run_case "2. createRuntime and poststop racing on one id: never a torn record" par_case_race
run_case "3. a held lock of one container holds up that container only" par_case_lock_held
log "--- whole script"
assert_nothing_left
finish
