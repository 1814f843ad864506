#!/bin/bash
# Fault injection for the OCI hook: what goes wrong around
# `cnihook createRuntime|poststop|gc` must never leave anything behind.
#
# Each case drives the real hook binary with OCI states made by hand, a
# bundle of our own, networks of recording fake plugins (tests/plugins/
# fakeplugin: "chain" = fa -> fb -> fc, fa declaring portMappings; "second" =
# fd) and a network namespace of its own (ip netns add). After every case the
# same check as the end-to-end tests: no <stateDir>/<id>, no pin mount under
# it, no <id>.lock, no port reservation line for the id, no cache file naming
# the id, and every plugin that got an ADD for the id got a DEL after it.
#
# Cases: SIGKILL of the hook at five points of an attach (blocked on the port
# reservation lock before the record; record written but blocked before the
# pin and the first plugin; during fb; during fc; during the second network)
# each followed by poststop and, separately, by gc; plugin faults (non-zero
# exit in the middle of the chain, hang past pluginTimeout with a pipe-holding
# child, killed by a signal, 20 MiB of output, invalid JSON); the cache on a
# full tmpfs and on a read-only one; corrupt and zero-byte cache files; the
# network configuration deleted or changed between createRuntime and
# poststop; the state directory wiped while the container runs; the plugin
# binary held open for writing (ETXTBSY); poststop with a reused pid;
# createRuntime and poststop racing on one id; host port reservations; static
# IPs and MACs held by another container (collected when gone); SIGKILL
# between an index update and the state it indexes, and a damaged index of
# other runtimes' port mappings; SIGKILL between a temp file and its rename
# in every directory cnihook writes (the next gc or poststop removes it,
# other programs' temp-looking files are left).
#
# Checks are often eval'd single-quoted strings, expanded when run.
# shellcheck disable=SC2016
set -uo pipefail
: "${CNIHOOK:?}" "${FAKEPLUGIN:?}"

srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
tap_init "mounts, network namespaces" ip jq unshare flock
# The pid we kill must be the hook's.
hook_binary

tmp=$T_TMP
ORPHANS=() # pids of plugins left running by a killed hook

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# alive PID: a running process (not a zombie)
alive() {
	local s
	s=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$s" ] && [ "$s" != Z ]
}
# kill_ours PID: SIGKILL a fake plugin we caused to run (only if it is one)
kill_ours() {
	local exe
	exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 0
	[[ $exe == "$tmp/"* ]] || return 0
	kill -9 "$1" 2>/dev/null
	wait_for 30 not alive "$1"
}
kill_orphans() {
	local p
	for p in "${ORPHANS[@]}" $(cat "$tmp"/*.pid 2>/dev/null); do kill_ours "$p"; done
}
cleanup_push kill_orphans
del_netns() { ip netns delete "$1" 2>/dev/null; }

# ---------------------------------------------------------------- setup
bin=$tmp/bin conf=$tmp/net.d cache=$tmp/cache state=$tmp/state
mkdir -p "$bin" "$conf" "$cache" "$tmp/bundles" "$tmp/run"
for p in fa fb fc fd fe; do cp "$FAKEPLUGIN" "$bin/$p"; done
chain_v1='{"cniVersion":"1.0.0","name":"chain","plugins":[
 {"type":"fa","capabilities":{"portMappings":true},"marker":"v1"},{"type":"fb"},{"type":"fc"}]}'
printf '%s\n' "$chain_v1" >"$conf/10-chain.conflist"
echo '{"cniVersion":"1.0.0","name":"second","plugins":[{"type":"fd"}]}' >"$conf/20-second.conflist"

cfg=$tmp/cnihook.json
jq -n --arg c "$conf" --arg b "$bin" --arg k "$cache" --arg s "$state" \
	'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, pluginTimeout: 2,
	  log: {syslog: false}}' >"$cfg"

# runhook STDIN-TEXT ARGS...: the hook with --config $cfg; rc, out, err
runhook() {
	local input=$1
	shift
	run_in "$input" "$HOOKBIN" --config "$cfg" "$@"
}
PID=
attach() { runhook "$(state "$1" creating "$PID")" createRuntime; }
poststop() { runhook "$(state "$1" stopped "$PID")" poststop; }
gc() { runhook "" gc; }

# has_rec NAME COMMAND: the fake plugin NAME recorded a COMMAND call
has_rec() { [ -n "$(rec "$1" "$2")" ]; }

# unbalanced ID: ADD calls for ID with no DEL of the same plugin and
# interface after them
unbalanced() {
	local id=$1 f g b name seq gs ifn found
	for f in "$bin"/rec/*-ADD.env; do
		[ -e "$f" ] || continue
		grep -qxF "CNI_CONTAINERID=$id" "$f" || continue
		b=${f##*/} seq=${b%%-*} name=${b#*-}
		name=${name%-ADD.env}
		ifn=$(grep -m1 '^CNI_IFNAME=' "$f")
		found=0
		for g in "$bin"/rec/*-"$name"-DEL.env; do
			[ -e "$g" ] || continue
			gs=${g##*/}
			gs=${gs%%-*}
			if [ $((10#$gs)) -gt $((10#$seq)) ] && grep -qxF "CNI_CONTAINERID=$id" "$g" &&
				grep -qxF -- "$ifn" "$g"; then
				found=1
				break
			fi
		done
		[ "$found" = 1 ] || echo "ADD-without-DEL:$b"
	done
}
# left_more ID: for lib.sh's left: ID's port reservations, pin index entries
# and unbalanced ADDs
left_more() {
	local f
	for f in "$state"/ports/*; do
		[ -f "$f" ] && awk -v id="$1" '$1 == id {print "port:" FILENAME ": " $0}' "$f"
	done
	for f in "$state"/@pins/*; do
		[ -L "$f" ] && [ "$(readlink "$f")" = "$1" ] && echo "pin-index:$f"
	done
	unbalanced "$1"
}
# reset: whatever a failed case left, so that the next starts clean
reset() {
	local d p
	for p in "${ORPHANS[@]}"; do kill_ours "$p"; done
	ORPHANS=()
	for d in "$state"/*/; do
		[ -d "$d" ] || continue
		[ "$d" = "$state/ports/" ] && continue
		unmount_pin "${d}netns"
		rm -rf "$d"
	done
	rm -rf "$state"/*.lock "$state/ports" "$cache/results" "$bin"/*.ADD "$bin"/*.DEL \
		"$bin"/*.default "$tmp"/*.pid
	clear_rec
	PID=
}
# begin_case NAME ANNOTATIONS-JSON: id=NAME-$uniq, its own netns, its bundle
begin_case() {
	id=$1-$uniq
	ns=cnihook-f$uniq-$1
	ns=${ns:0:60}
	new_netns "$ns"
	bundle "$id" "$2" "/run/netns/$ns"
}
end_case() { del_netns "$ns"; reset; }

# ---------------------------------------------------------------- SIGKILL
# The record is written before the first ADD: a hook killed with SIGKILL
# anywhere in an attach leaves state from which poststop (or gc) removes
# everything.
#
# kill_at POINT MODE. POINT is where the hook is killed:
#   ports  blocked on the port reservation lock: <id>/ made, no record yet
#   pin    record and attachment list (beside the cache) written, blocked
#          on the state directory's lock in netns_pin: no pin, no plugin yet
#   fb     during fb's ADD (fa done; chain not cached)
#   fc     during fc's ADD
#   fd     during the second network (chain cached, fd not)
# MODE: poststop, or gc (the named netns deleted first: only the pin is left).
kill_at() {
	local point=$1 mode=$2 port=$3 hpid lfd='' pidfile=$tmp/$1.pid plugin t0 what
	begin_case "k-$point-$mode" "$(annotations io.cnihook.networks chain,second io.cnihook.ports "$port:80")"
	echo "# SIGKILL of the hook: $point, then $mode"
	mkdir -p "$state/ports"
	case $point in
	ports)
		: >>"$state/ports/tcp-$port"
		exec {lfd}<>"$state/ports/tcp-$port"
		flock -x "$lfd"
		;;
	pin)
		exec {lfd}<"$state"
		flock -x "$lfd"
		;;
	*)
		plugin=$point
		printf 'sleep-ms=20000\npid-file=%s\n' "$pidfile" >"$bin/$plugin.ADD"
		;;
	esac
	state "$id" creating >"$tmp/run/create"
	"$HOOKBIN" --config "$cfg" createRuntime <"$tmp/run/create" >"$tmp/run/out" 2>"$tmp/run/err" &
	hpid=$!
	SLEEPERS+=("$hpid")
	t0=$(now_ms)
	case $point in
	ports) wait_for 50 test -d "$state/$id" && sleep 0.3 ;;
	pin) wait_for 50 test -s "$state/$id/record.json" && sleep 0.3 ;;
	*) wait_for 50 test -s "$pidfile" ;;
	esac
	check "the pid we kill is the hook itself ($HOOKBIN)" \
		test "$(readlink "/proc/$hpid/exe")" = "$HOOKBIN"
	case $point in
	ports) what='<id>/ made, no record, blocked on the reservation lock' ;;
	pin) what='record and attachment list written, no pin, no plugin ran' ;;
	*) what="$plugin is running its ADD" ;;
	esac
	case $point in
	ports)
		check "before the kill: $what" eval 'alive $hpid && [ -d "$state/$id" ] &&
			[ ! -e "$state/$id/record.json" ] && no_plugin_ran'
		;;
	pin)
		check "before the kill: $what" eval 'alive $hpid &&
			jqe ".attachments | length == 2" "$state/$id/record.json" &&
			[ "$(wc -l <"$cache/cnihook-attachments/$id")" = 2 ] &&
			! is_mount "$state/$id/netns" && no_plugin_ran'
		;;
	*)
		check "before the kill: the record exists and $what" eval 'alive $hpid &&
			jqe ".attachments | length == 2" "$state/$id/record.json" &&
			is_mount "$state/$id/netns" && has_rec $plugin ADD'
		;;
	esac
	kill -9 "$hpid"
	wait "$hpid" 2>/dev/null
	rc=$?
	out=$(cat "$tmp/run/out") err=$(cat "$tmp/run/err")
	check "the hook died of SIGKILL (status $rc) $(($(now_ms) - t0)) ms after start" test "$rc" = 137
	if [ -n "$lfd" ]; then
		flock -u "$lfd"
		exec {lfd}>&-
	fi
	if [ -s "$pidfile" ]; then
		local op
		op=$(head -1 "$pidfile")
		ORPHANS+=("$op")
		if alive "$op"; then
			echo "# note: plugin $plugin (pid $op) outlives the SIGKILLed hook (its own" \
				"process group, no parent-death signal); killed by the test"
		fi
		kill_ours "$op"
		rm -f "$bin/$plugin.ADD"
	fi
	echo "# left after the kill: $(left "$id" | tr '\n' ' ')"
	if [ "$mode" = poststop ]; then
		poststop "$id"
		check "poststop after the kill exits 0" test "$rc" = 0
	else
		del_netns "$ns"
		gc
		check "gc after the kill exits 0" test "$rc" = 0
		check "gc says the container is gone and was detached" \
			has "gc: container \"$id\": gone: detached" "$out"
	fi
	case $point in
	ports) check "no plugin ran (no record, nothing to DEL): $(calls)" no_plugin_ran ;;
	pin) check "the plugins got DEL (no ADD ran): $(calls)" \
		test "$(calls)" = "fd-DEL fc-DEL fb-DEL fa-DEL" ;;
	fb) check "calls: ADD fa fb, then DEL second and the chain: $(calls)" \
		test "$(calls)" = "fa-ADD fb-ADD fd-DEL fc-DEL fb-DEL fa-DEL" ;;
	fc) check "calls: ADD fa fb fc, then DELs: $(calls)" \
		test "$(calls)" = "fa-ADD fb-ADD fc-ADD fd-DEL fc-DEL fb-DEL fa-DEL" ;;
	fd) check "calls: ADD chain and fd, then DELs in reverse: $(calls)" \
		test "$(calls)" = "fa-ADD fb-ADD fc-ADD fd-ADD fd-DEL fc-DEL fb-DEL fa-DEL" ;;
	esac
	case $point in
	fb | fc | fd) check "the DELs ran in the pinned namespace" \
		eval 'has_env fa DEL "CNI_NETNS=$state/$id/netns" &&
		      has_env fd DEL "CNI_NETNS=$state/$id/netns"' ;;
	esac
	check_gone "after the kill ($point) and $mode: nothing left" "$id"
	end_case
}
port=18100
for point in ports pin fb fc fd; do
	for mode in poststop gc; do
		kill_at "$point" "$mode" "$port"
		port=$((port + 1))
	done
done

# ---------------------------------------------------------------- plugin faults
# plugin_fault NAME CONTROL-TEXT PATTERN...: fb's ADD does what CONTROL-TEXT
# says; createRuntime fails with one line naming the plugin, leaves nothing.
plugin_fault() {
	local name=$1 control=$2 p good=1
	shift 2
	begin_case "pf-$name" "$(annotations io.cnihook.networks chain)"
	printf '%s\n' "$control" >"$bin/fb.ADD"
	local t0
	t0=$(now_ms)
	attach "$id"
	elapsed=$(($(now_ms) - t0))
	check "$name: createRuntime fails (status $rc, $elapsed ms)" test "$rc" != 0 -a "$rc" -lt 128
	check "$name: one line on stderr naming the id, network \"chain\" and plugin \"fb\"" \
		eval 'one_line && has "cnihook: $id createRuntime: network \"chain\": plugin \"fb\"" "$err"'
	for p in "$@"; do has "$p" "$err" || good=0; done
	check "$name: the message says why ($*): $err" test "$good" = 1
	check "$name: fa, fb ADDed, the chain DELeted in reverse: $(calls)" \
		test "$(calls)" = "fa-ADD fb-ADD fc-DEL fb-DEL fa-DEL"
	check_gone "$name: nothing left" "$id"
}
echo "# plugin faults in the middle of the chain (fb)"
plugin_fault exit 'exit=3
stdout={"cniVersion":"1.0.0","code":11,"msg":"no more addresses"}' "CNI error 11" "no more addresses"
end_case

plugin_fault hang "sleep-ms=60000
child-sleep-ms=60000
pid-file=$tmp/hang.pid" "timed out"
check "hang: killed by the timeout (2 s): took $elapsed ms, 2000 <= t < 10000" \
	test "$elapsed" -ge 2000 -a "$elapsed" -lt 10000
if [ -s "$tmp/hang.pid" ]; then
	mapfile -t hp <"$tmp/hang.pid"
	ORPHANS+=("${hp[@]}")
	check "hang: the plugin (pid ${hp[0]}) and its child (pid ${hp[1]:-none}) are gone" \
		eval '[ ${#hp[@]} = 2 ] && wait_for 20 not alive ${hp[0]} && wait_for 20 not alive ${hp[1]}'
else
	tap_not_ok "hang: the plugin wrote its pid file"
fi
end_case

plugin_fault signal 'signal=9' "killed by signal 9"
end_case

# 20 MiB of output, over the 16 MiB cap (libcnirt's default): the hook stops
# reading at its cap and kills the plugin; it must not grow to the size of
# the output. (100 MB took the plugin longer than the 2 s plugin timeout to
# build on a loaded machine, which then failed the case for the wrong
# reason.) Its peak RSS (VmHWM) is sampled
# while it runs (the plugin itself buffers the 20 MiB, so getrusage of the
# hook's children would count the plugin).
echo "# plugin prints 20 MiB"
begin_case pf-flood "$(annotations io.cnihook.networks chain)"
echo "flood=20971520" >"$bin/fb.ADD"
state "$id" creating >"$tmp/run/create"
t0=$(now_ms)
"$HOOKBIN" --config "$cfg" createRuntime <"$tmp/run/create" >"$tmp/run/out" 2>"$tmp/run/err" &
hpid=$!
SLEEPERS+=("$hpid")
hwm=0
while alive "$hpid"; do
	h=$(awk '/^VmHWM:/ {print $2}' "/proc/$hpid/status" 2>/dev/null)
	[ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
	sleep 0.01
done
wait "$hpid"
rc=$?
elapsed=$(($(now_ms) - t0))
out=$(cat "$tmp/run/out") err=$(cat "$tmp/run/err")
check "flood: createRuntime fails (status $rc, not a crash) in $elapsed ms (< 60 s)" \
	test "$rc" != 0 -a "$rc" -lt 128 -a "$elapsed" -lt 60000
check "flood: one line naming the plugin and the cap" \
	eval 'one_line && has "network \"chain\": plugin \"fb\"" "$err" && has "exceeds" "$err"'
check "flood: the hook's peak RSS stayed under 64 MiB (sampled: $hwm kB)" test "$hwm" -lt 65536
check "flood: the chain DELeted: $(calls)" test "$(calls)" = "fa-ADD fb-ADD fc-DEL fb-DEL fa-DEL"
check_gone "flood: nothing left" "$id"
end_case

plugin_fault badjson 'stdout={"cniVersion":"1.0.0", this is not JSON' "fb"
end_case

# ---------------------------------------------------------------- cache faults
echo "# the cache directory on a full tmpfs (ENOSPC)"
begin_case enospc "$(annotations io.cnihook.networks chain)"
# (the results directory alone: the attachment list beside it is written
# before any plugin runs)
mkdir -p "$cache/results"
mount -t tmpfs -o size=64k,mode=0700 "cnihook-f$uniq" "$cache/results"
dd if=/dev/zero of="$cache/results/.fill" bs=4k 2>/dev/null
check "(the tmpfs is full)" not eval 'echo x >"$cache/results/.probe" 2>/dev/null'
rm -f "$cache/results/.probe"
attach "$id"
check "ENOSPC: createRuntime fails cleanly (status $rc)" test "$rc" != 0 -a "$rc" -lt 128
check "ENOSPC: one line naming the cache and ENOSPC: $err" \
	eval 'one_line && has "No space left on device" "$err" && has "$cache" "$err"'
check "ENOSPC: the plugins that ran got DEL: $(calls)" \
	test "$(calls)" = "fa-ADD fb-ADD fc-ADD fc-DEL fb-DEL fa-DEL"
check "ENOSPC: no file (temp or entry) left in the cache" \
	test -z "$(ls -A "$cache/results" | grep -vx .fill)"
check_gone "ENOSPC: nothing left" "$id"
umount "$cache/results"
end_case

echo "# the cache directory read-only"
begin_case rocache "$(annotations io.cnihook.networks chain)"
mount -t tmpfs -o ro,size=64k,mode=0700 "cnihook-f$uniq" "$cache"
attach "$id"
check "read-only: createRuntime fails cleanly (status $rc)" test "$rc" != 0 -a "$rc" -lt 128
check "read-only: one line naming the cache and EROFS: $err" \
	eval 'one_line && has "Read-only file system" "$err" && has "$cache" "$err"'
check "read-only: found before the first plugin, none ran: $(calls)" \
	test -z "$(calls)"
check_gone "read-only: nothing left" "$id"
umount "$cache"
end_case

for kind in corrupt zero; do
	echo "# a $kind cache file"
	begin_case "cache-$kind" "$(annotations io.cnihook.networks chain,second)"
	attach "$id"
	check "$kind: attach" test "$rc" = 0
	f=$cache/results/chain-$id-eth0
	if [ "$kind" = corrupt ]; then
		printf '{"kind":"cniCacheV1","config":"%s' "$(head -c 300 /dev/urandom | base64 -w0)" >"$f"
	else
		: >"$f"
	fi
	clear_rec
	poststop "$id"
	check "$kind: poststop exits 0 (status $rc)" test "$rc" = 0
	check "$kind: DELs from the record for the chain, the cache for second: $(calls)" \
		test "$(calls)" = "fd-DEL fc-DEL fb-DEL fa-DEL"
	check "$kind: the chain's DEL had the pin" has_env fa DEL "CNI_NETNS=$state/$id/netns"
	check "$kind: a warning names the cache file" has "chain-$id-eth0" "$err"
	check "$kind: the $kind file is removed" test ! -e "$f"
	check_gone "$kind: nothing left" "$id"
	end_case
done

# ---------------------------------------------------------------- config changes
for kind in deleted changed; do
	echo "# the network configuration $kind between createRuntime and poststop"
	begin_case "conf-$kind" "$(annotations io.cnihook.networks chain)"
	attach "$id"
	check "$kind: attach" test "$rc" = 0
	if [ "$kind" = deleted ]; then
		rm "$conf/10-chain.conflist"
	else
		echo '{"cniVersion":"1.0.0","name":"chain","plugins":[{"type":"fe","marker":"v2"}]}' \
			>"$conf/10-chain.conflist"
	fi
	clear_rec
	poststop "$id"
	check "$kind: poststop exits 0 (status $rc)" test "$rc" = 0
	check "$kind: DEL went to the plugins named at ADD time: $(calls)" \
		test "$(calls)" = "fc-DEL fb-DEL fa-DEL"
	check "$kind: fa's DEL stdin is the old configuration (marker v1)" \
		jqe '.marker == "v1"' "$(rec fa DEL stdin)"
	check_gone "$kind: nothing left" "$id"
	printf '%s\n' "$chain_v1" >"$conf/10-chain.conflist"
	end_case
done

# ---------------------------------------------------------------- state dir wiped
echo "# the state directory wiped (a reboot) while the container runs"
begin_case wiped "$(annotations io.cnihook.networks chain,second io.cnihook.ports 18200:80)"
attach "$id"
check "wiped: attach" test "$rc" = 0
unmount_pin "$state/$id/netns"
rm -rf "${state:?}"/*
check "wiped: the attachment list beside the cache is there" \
	eval '[ "$(wc -l <"$cache/cnihook-attachments/$id")" = 2 ] &&
		grep -q "^chain	eth0\$" "$cache/cnihook-attachments/$id"'
clear_rec
poststop "$id"
check "wiped: poststop exits 0 (status $rc)" test "$rc" = 0
check "wiped: DEL from the cache, in reverse: $(calls)" test "$(calls)" = "fd-DEL fc-DEL fb-DEL fa-DEL"
check "wiped: DEL had an empty CNI_NETNS" eval 'has_env fa DEL "CNI_NETNS=" && has_env fd DEL "CNI_NETNS="'
check "wiped: the DEL still had the portMappings (cached)" \
	jqe '.runtimeConfig.portMappings[0].hostPort == 18200' "$(rec fa DEL stdin)"
check "wiped: the log says why" has "state directory was wiped" "$err"
check_gone "wiped: nothing left" "$id"
end_case
# The same with the attachment list gone too (written by an older cnihook,
# say): the cache's names are read.
begin_case wipedall "$(annotations io.cnihook.networks chain,second)"
attach "$id"
check "wiped, no list: attach" test "$rc" = 0
unmount_pin "$state/$id/netns"
rm -rf "${state:?}"/* "$cache/cnihook-attachments"
clear_rec
poststop "$id"
check "wiped, no list: poststop exits 0 (status $rc)" test "$rc" = 0
check "wiped, no list: DEL from the cache, in reverse: $(calls)" \
	test "$(calls)" = "fd-DEL fc-DEL fb-DEL fa-DEL"
check_gone "wiped, no list: nothing left" "$id"
end_case
# Another program's entry of the same container id (as podman's own
# network's, here the CLI's): with no record and no attachment list,
# poststop takes only the entries whose namespace is the container's pin,
# and a new attach does not replace the other program's entry.
begin_case foreign "$(annotations io.cnihook.networks chain)"
run_in "" env NETCONFPATH="$conf" CNI_PATH="$bin" CNI_CACHE_DIR="$cache" CNI_CONTAINERID="$id" \
	"$HOOKBIN" add second "/run/netns/$ns"
check "foreign: another program's attachment of the id (network second)" \
	eval '[ "$rc" = 0 ] && [ -f "$cache/results/second-$id-eth0" ]'
attach "$id"
check "foreign: attach (network chain)" test "$rc" = 0
unmount_pin "$state/$id/netns"
rm -rf "${state:?}"/* "$cache/cnihook-attachments"
clear_rec
poststop "$id"
check "foreign: poststop exits 0, DELs its own chain only: $(calls)" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fc-DEL fb-DEL fa-DEL" ] &&
		[ ! -e "$cache/results/chain-$id-eth0" ] && [ -f "$cache/results/second-$id-eth0" ]'
bundle "$id" "$(annotations io.cnihook.networks second)" "/run/netns/$ns"
clear_rec
attach "$id"
check "foreign: an attach with the other program's names fails, naming it, runs nothing" \
	eval '[ "$rc" = 1 ] && has "another program'"'"'s attachment" "$err" && no_plugin_ran &&
		[ -f "$cache/results/second-$id-eth0" ]'
run_in "" env NETCONFPATH="$conf" CNI_PATH="$bin" CNI_CACHE_DIR="$cache" CNI_CONTAINERID="$id" \
	"$HOOKBIN" del second "/run/netns/$ns"
check_gone "foreign: nothing left once its owner deleted it" "$id"
end_case
# The list names an entry that is damaged: the others are deleted, the
# damaged one is left (gc reports it), poststop says so and succeeds.
begin_case wipeddmg "$(annotations io.cnihook.networks chain,second)"
attach "$id"
check "wiped, a damaged entry: attach" test "$rc" = 0
unmount_pin "$state/$id/netns"
rm -rf "${state:?}"/*
dmg=$(ls "$cache/results" | grep -e "^second-$id-")
printf 'garbage' >"$cache/results/$dmg"
clear_rec
poststop "$id"
check "wiped, a damaged entry: poststop exits 0 (status $rc) and names it: $err" \
	eval '[ "$rc" = 0 ] && has "left to gc" "$err" && has "$dmg" "$err"'
check "wiped, a damaged entry: the chain got its DELs: $(calls)" \
	test "$(calls)" = "fc-DEL fb-DEL fa-DEL"
check "wiped, a damaged entry: it is left, the list is gone" \
	eval '[ -e "$cache/results/$dmg" ] && [ ! -e "$cache/cnihook-attachments/$id" ]'
rm -f "$cache/results/$dmg"
check_gone "wiped, a damaged entry: nothing else left" "$id"
end_case

# ---------------------------------------------------------------- ETXTBSY
# hold FILE MS: open FILE for writing for MS ms in the background; returns
# once it is open; $tmp/held.closed gets the time (ns) just before it was
# closed (taken before the close, so that nothing can run in between)
hold() {
	rm -f "$tmp/held.open" "$tmp/held.closed"
	(
		exec 3>>"$1"
		: >"$tmp/held.open"
		sleep "$(printf '0.%03d' "$2")"
		date +%s%N >"$tmp/held.closed"
		exec 3>&-
	) &
	holder=$!
	SLEEPERS+=("$holder")
	wait_for 50 test -e "$tmp/held.open"
}
echo "# the plugin binary being replaced (ETXTBSY)"
hold "$bin/fb" 300
check "(exec of fb while it is open for writing fails: Text file busy)" \
	eval '! "$bin/fb" </dev/null 2>"$tmp/run/etx" && grep -q "Text file busy" "$tmp/run/etx"'
wait "$holder"
clear_rec
begin_case etxtbsy "$(annotations io.cnihook.networks chain)"
hold "$bin/fb" 200
attach "$id"
wait "$holder"
check "ETXTBSY: createRuntime succeeds (status $rc; the library retries)" test "$rc" = 0 -a -z "$err"
# (file times come from the kernel's coarse clock: allow it 10 ms)
check "ETXTBSY: fb ran once the writer had closed it" \
	eval '[ "$(( $(date -r "$(rec fb ADD)" +%s%N) + 10000000 ))" -ge "$(cat "$tmp/held.closed")" ]'
check "ETXTBSY: the chain ran once: $(calls)" test "$(calls)" = "fa-ADD fb-ADD fc-ADD"
poststop "$id"
check_gone "ETXTBSY: poststop leaves nothing" "$id"
end_case

begin_case etxtbsy-long "$(annotations io.cnihook.networks chain)"
hold "$bin/fb" 999
attach "$id"
wait "$holder"
check "ETXTBSY past the retries (1 s): createRuntime fails (status $rc)" test "$rc" != 0 -a "$rc" -lt 128
# The rollback's DEL of fb may be busy too (the file is held for 1 s): a
# warning line then says so (a failed rollback DEL is a possible leak).
check "... one error line naming the plugin and ETXTBSY (and the rollback's warning): $err" \
	eval 'has "plugin \"fb\"" "$err" && has "Text file busy" "$err" &&
		[ "$(grep -vc "the rollback DEL after the failed ADD failed too" <<<"$err")" = 1 ]'
check "... fa was DELeted: $(calls)" eval '[[ "$(calls)" == "fa-ADD "*"fa-DEL" ]]'
check_gone "... nothing left" "$id"
end_case

# ---------------------------------------------------------------- pid reuse
echo "# poststop with the pid reused by another process"
netns_of() { readlink "/proc/$1/ns/net"; }
start_sleeper() { # start_sleeper: $sleeper = a process in a new network namespace
	unshare -n sleep 300 &
	sleeper=$!
	SLEEPERS+=("$sleeper")
	wait_for 50 eval '[ "$(netns_of $sleeper)" != "$(netns_of $$)" ]'
}
start_sleeper
P=$sleeper
A=$(ns_ino "/proc/$P/ns/net")
id=pidreuse-$uniq ns=
bundle "$id" "$(annotations io.cnihook.networks chain)" new
PID=$P attach "$id"
check "pid: attach with the pid of P (in namespace A) exits 0" test "$rc" = 0
check "pid: the pin is A" eval '[ "$(ns_ino "$state/$id/netns")" = "$A" ]'
kill -9 "$P"
wait "$P" 2>/dev/null
# Q gets P's pid if we can make it (ns_last_pid), else any pid.
Q=
for ((try = 0; try < 5; try++)); do
	echo $((P - 1)) >/proc/sys/kernel/ns_last_pid 2>/dev/null
	start_sleeper
	[ "$sleeper" = "$P" ] && { Q=$sleeper; break; }
	kill -9 "$sleeper"
	wait "$sleeper" 2>/dev/null
done
if [ -z "$Q" ]; then
	echo "# (could not get pid $P again; the state carries Q's pid instead)"
	start_sleeper
	Q=$sleeper
fi
B=$(ns_ino "/proc/$Q/ns/net")
check "pid: Q (pid $Q, P was $P) lives in another namespace B" test -n "$B" -a "$B" != "$A"
clear_rec
PID=$Q poststop "$id"
check "pid: poststop with Q's pid exits 0" test "$rc" = 0
check "pid: the DEL ran in the pin, never /proc/<pid>" \
	eval 'has_env fa DEL "CNI_NETNS=$state/$id/netns" && ! grep -q "/proc/" "$(rec fa DEL)"'
check "pid: all three DELs, none with Q's namespace: $(calls)" \
	eval '[ "$(calls)" = "fc-DEL fb-DEL fa-DEL" ] && ! grep -l "CNI_NETNS=/proc" "$bin"/rec/*.env'
check "pid: Q is alive and still in B" eval 'alive $Q && [ "$(ns_ino /proc/$Q/ns/net)" = "$B" ]'
check_gone "pid: nothing left" "$id"
kill -9 "$Q"
wait "$Q" 2>/dev/null
reset

# ---------------------------------------------------------------- race
echo "# createRuntime and poststop racing on one id, 20 times"
begin_case race "$(annotations io.cnihook.networks chain,second)"
state "$id" creating >"$tmp/run/create"
state "$id" stopped >"$tmp/run/stop"
rm -f "$tmp/race.stop" "$tmp"/race.bad.*
(
	n=0
	while [ ! -e "$tmp/race.stop" ]; do
		if c=$(cat "$state/$id/record.json" 2>/dev/null); then
			n=$((n + 1))
			jq -e . >/dev/null 2>&1 <<<"$c" || printf '%s\n' "$c" >"$tmp/race.bad.$n"
		fi
	done
	echo "$n" >"$tmp/race.reads"
) &
watcher=$!
SLEEPERS+=("$watcher")
attached=0 gone=0 badrc=0 inconsistent=0 notclean=0
for ((i = 0; i < 20; i++)); do
	"$HOOKBIN" --config "$cfg" createRuntime <"$tmp/run/create" >"$tmp/run/c.out" 2>&1 &
	p1=$!
	"$HOOKBIN" --config "$cfg" poststop <"$tmp/run/stop" >"$tmp/run/p.out" 2>&1 &
	p2=$!
	SLEEPERS+=("$p1" "$p2")
	wait "$p1" || { badrc=$((badrc + 1)); echo "# createRuntime: $(cat "$tmp/run/c.out")"; }
	wait "$p2" || { badrc=$((badrc + 1)); echo "# poststop: $(cat "$tmp/run/p.out")"; }
	if [ -e "$state/$id" ]; then
		if jqe '.attachments | length == 2' "$state/$id/record.json" &&
			[ -f "$cache/results/chain-$id-eth0" ] && [ -f "$cache/results/second-$id-eth1" ] &&
			same_ns "$state/$id/netns" "/run/netns/$ns" &&
			jqe 'length == 2' "$state/$id/network-status.json" && [ ! -e "$state/$id.lock" ]; then
			attached=$((attached + 1))
		else
			inconsistent=$((inconsistent + 1))
			echo "# round $i: inconsistent: $(left "$id" | tr '\n' ' ')"
		fi
	elif [ -z "$(left "$id")" ]; then
		gone=$((gone + 1))
	else
		inconsistent=$((inconsistent + 1))
		echo "# round $i: partly gone: $(left "$id" | tr '\n' ' ')"
	fi
	poststop "$id"
	[ "$rc" = 0 ] && [ -z "$(left "$id")" ] || notclean=$((notclean + 1))
done
: >"$tmp/race.stop"
wait "$watcher"
check "race: every createRuntime and poststop exited 0 ($badrc failures)" test "$badrc" = 0
check "race: each round ended attached-and-consistent ($attached) or fully gone ($gone)" \
	test "$inconsistent" = 0 -a $((attached + gone)) = 20
check "race: the record parsed every time it was read ($(cat "$tmp/race.reads") reads)" \
	test -z "$(ls "$tmp"/race.bad.* 2>/dev/null)"
check "race: the final poststop of every round left nothing ($notclean did not)" test "$notclean" = 0
check_gone "race: nothing left" "$id"
end_case

# ---------------------------------------------------------------- host ports
echo "# host port reservations"
port_case() { # port_case NAME PORTS: setup and attach; id in $id
	begin_case "$1" "$(annotations io.cnihook.networks chain io.cnihook.ports "$2")"
	nss+=("$ns")
	attach "$id"
}
reserved() { # reserved PROTO-PORT ID: a reservation line for ID
	awk -v id="$2" '$1 == id {f = 1} END {exit !f}' "$state/ports/$1" 2>/dev/null
}
refused_for() { # the last attach was refused before any plugin ran, naming HOLDER
	[ "$rc" != 0 ] && one_line && has "\"$1\"" "$err" && has "host port" "$err" && no_plugin_ran &&
		[ -z "$(left "$id")" ]
}
# live_in NS: a process in the namespace, so that its container is alive by
# gc's rules (a holder whose pinned namespace has no process is provably
# gone, and an attach asking its port collects it: below).
port_live=()
live_in() {
	ip netns exec "$1" sleep 600 &
	port_live+=("$!")
	SLEEPERS+=("$!")
}
nss=()
port_case pA 18080:80
A_id=$id
live_in "$ns"
check "ports: A (18080:80) attached" eval '[ "$rc" = 0 ] && reserved tcp-18080 "$A_id"'
clear_rec
port_case pB 18080:80
B_id=$id
check "ports: B asking 18080:80 is refused before any plugin runs, naming A: $err" refused_for "$A_id"
clear_rec
bundle "$B_id" "$(annotations io.cnihook.networks chain io.cnihook.ports 18081:80)" "/run/netns/$ns"
attach "$B_id"
check "ports: B asking 18081:80 works" eval '[ "$rc" = 0 ] && reserved tcp-18081 "$B_id"'
poststop "$A_id"
check_gone "ports: A's poststop releases 18080" "$A_id"
port_case pC 18080:80
C_id=$id
check "ports: after A's poststop, C takes 18080" eval '[ "$rc" = 0 ] && reserved tcp-18080 "$C_id"'
for x in "$B_id" "$C_id"; do poststop "$x"; done
check "ports: B and C detached, their reservations gone" \
	eval '[ -z "$(left "$B_id")$(left "$C_id")" ]'

mkdir -p "$state/ports"
echo "ghost-$uniq *" >"$state/ports/tcp-18082"
clear_rec
port_case pD 18082:80
D_id=$id
check "ports: a stale reservation (holder with no state, no cache) does not block (empty cache)" \
	eval '[ "$rc" = 0 ] && reserved tcp-18082 "$D_id" && ! reserved tcp-18082 "ghost-$uniq"'
poststop "$D_id"
rm -f "$state/ports/tcp-18082"

port_case pE 10.1.2.3:18083:80
E_id=$id
live_in "$ns"
check "ports: E holds 10.1.2.3:18083/tcp" eval '[ "$rc" = 0 ] && reserved tcp-18083 "$E_id"'
clear_rec
port_case pF 0.0.0.0:18083:80
check "ports: 0.0.0.0:18083 vs E's 10.1.2.3:18083: refused, naming E: $err" refused_for "$E_id"
clear_rec
port_case pG 10.1.2.3:18083:80
check "ports: 10.1.2.3:18083 again: refused, naming E" refused_for "$E_id"
clear_rec
port_case pH 10.1.2.4:18083:80
H_id=$id
check "ports: 10.1.2.4:18083 does not overlap 10.1.2.3" eval '[ "$rc" = 0 ] && reserved tcp-18083 "$H_id"'
port_case pI 10.1.2.3:18083:80/udp
I_id=$id
check "ports: 10.1.2.3:18083/udp does not overlap tcp" eval '[ "$rc" = 0 ] && reserved udp-18083 "$I_id"'
port_case pJ 18084:80
J_id=$id
live_in "$ns"
echo "ghost2-$uniq *" >"$state/ports/tcp-18086"
port_case pM 18086:80
M_id=$id
check "ports: a stale reservation does not block (cache holding other containers)" \
	eval '[ "$rc" = 0 ] && reserved tcp-18086 "$M_id" && ! reserved tcp-18086 "ghost2-$uniq"'
poststop "$M_id"
rm -f "$state/ports/tcp-18086"
clear_rec
port_case pK 10.1.2.3:18084:80
check "ports: 10.1.2.3:18084 vs J's 0.0.0.0 (any): refused, naming J" refused_for "$J_id"
for x in "$E_id" "$H_id" "$I_id" "$J_id"; do poststop "$x"; done
check "ports: all detached, no reservation left" \
	eval '[ -z "$(left "$E_id")$(left "$H_id")$(left "$I_id")$(left "$J_id")" ] &&
	      [ -z "$(cat "$state"/ports/* 2>/dev/null)" ]'

for p in "${port_live[@]}"; do kill_child "$p"; done

# A holder whose container is provably gone by gc's rules (no runtime state,
# no process in its pinned namespace: a start that failed after
# createRuntime, which runs no poststop) is collected first, and the log
# says so with gc's evidence.
port_case pN 18087:80
N_id=$id
check "ports: N holds 18087, no process in its namespace" eval '[ "$rc" = 0 ] && reserved tcp-18087 "$N_id"'
clear_rec
port_case pO 18087:80
O_id=$id
check "ports: O asking 18087 collects N first, saying why: $err" \
	eval '[ "$rc" = 0 ] && reserved tcp-18087 "$O_id" && ! reserved tcp-18087 "$N_id" &&
	      has "collected container \"$N_id\" first, which held a host port asked for: gone, as gc would find it (no state of runc, crun or containerd; no process lives in its pinned network namespace $state/$N_id/netns); detached 1 attachment(s)" "$err" &&
	      [ -z "$(left "$N_id")" ]'
poststop "$O_id"
check "ports: O detached, nothing left of N or O" eval '[ -z "$(left "$N_id")$(left "$O_id")" ]'

# A port held by another runtime's attachment (a cache entry without cnihook
# state, here made by `cnihook add`).
ns_cli=cnihook-f$uniq-cli
new_netns "$ns_cli"
NETCONFPATH=$conf CNI_PATH=$bin CNI_CACHE_DIR=$cache CNI_CONTAINERID=other-$uniq \
	CAP_ARGS='{"portMappings":[{"hostPort":18085,"containerPort":80,"protocol":"tcp"}]}' \
	"$HOOKBIN" add chain "/run/netns/$ns_cli" >/dev/null 2>&1
check "(cnihook add with portMappings 18085 cached)" test -f "$cache/results/chain-other-$uniq-eth0"
clear_rec
port_case pL 18085:80
check "ports: 18085 held by another runtime's cache entry: refused, naming it: $err" \
	refused_for "other-$uniq"
NETCONFPATH=$conf CNI_PATH=$bin CNI_CACHE_DIR=$cache CNI_CONTAINERID=other-$uniq \
	"$HOOKBIN" del chain "/run/netns/$ns_cli" >/dev/null 2>&1
check "(cnihook del removed it)" test ! -e "$cache/results/chain-other-$uniq-eth0"
for n in "${nss[@]}" "$ns_cli"; do del_netns "$n"; done
reset

# ------------------------------------------------- static IPs and MACs held
# A static IP (io.cnihook.ips) or MAC (io.cnihook.mac) that the cached
# result of another container's attachment to the same network holds: the
# holder is collected first when it is cnihook's and provably gone by gc's
# rules (no runtime state, no process in its pinned namespace), and the log
# says so; a holder that runs, or another program's, refuses the attach
# before any plugin runs, naming the address, the network and the holder.
# fa answers a result with the address and the MAC (fb and fc pass it on).
echo "# static IPs and MACs held by another container"
addr_ip=10.1.2.3 addr_mac=02:cb:00:00:00:01
printf 'stdout={"cniVersion":"1.0.0","interfaces":[{"name":"eth0","mac":"%s","sandbox":"/run/netns/x"}],"ips":[{"address":"%s/24","interface":0}]}\n' \
	"$addr_mac" "$addr_ip" >"$bin/fa.ADD"
addr_case() { # addr_case NAME KEY VALUE: setup and attach asking KEY=VALUE; id in $id
	begin_case "$1" "$(annotations io.cnihook.networks chain "$2" "$3")"
	nss+=("$ns")
	attach "$id"
}
nss=() port_live=()
for kind in ips mac; do
	key=io.cnihook.$kind val=$addr_ip/24 what="IP $addr_ip"
	[ "$kind" = mac ] && val=$addr_mac what="MAC $addr_mac"
	clear_rec
	addr_case "a$kind-P" "$key" "$val"
	P_id=$id
	check "$kind: P holds the $what, no process in its namespace" test "$rc" = 0
	clear_rec
	addr_case "a$kind-Q" "$key" "$val"
	Q_id=$id
	check "$kind: Q asking the $what collects P first, saying why: $err" \
		eval '[ "$rc" = 0 ] &&
		      has "collected container \"$P_id\" first, which held the $what asked for on network \"chain\": gone, as gc would find it (no state of runc, crun or containerd; no process lives in its pinned network namespace $state/$P_id/netns); detached 1 attachment(s)" "$err" &&
		      [ -z "$(left "$P_id")" ]'
	live_in "$ns"
	clear_rec
	addr_case "a$kind-R" "$key" "$val"
	check "$kind: R asking the $what while Q runs: refused before any plugin runs, naming it: $err" \
		eval '[ "$rc" != 0 ] && one_line && no_plugin_ran && [ -z "$(left "$id")" ] &&
		      has "network \"chain\": the $what asked for is held by container \"$Q_id\" (its interface eth0, in the result cache), not collected: process " "$err"'
	poststop "$Q_id"
	check "$kind: Q detached, nothing left" eval '[ -z "$(left "$Q_id")" ]'
done
for p in "${port_live[@]}"; do kill_child "$p"; done
# Another program's attachment (here the CLI's) holds the IP: refused,
# never collected, whatever its namespace.
ns_cli=cnihook-f$uniq-acli
new_netns "$ns_cli"
NETCONFPATH=$conf CNI_PATH=$bin CNI_CACHE_DIR=$cache CNI_CONTAINERID=aother-$uniq \
	"$HOOKBIN" add chain "/run/netns/$ns_cli" >/dev/null 2>&1
check "(cnihook add cached the IP $addr_ip)" test -f "$cache/results/chain-aother-$uniq-eth0"
clear_rec
addr_case aips-S io.cnihook.ips "$addr_ip/24"
check "ips: the IP held by another program's attachment: refused, naming it: $err" \
	eval '[ "$rc" != 0 ] && one_line && no_plugin_ran && [ -z "$(left "$id")" ] &&
	      has "the IP $addr_ip asked for is held by container \"aother-$uniq\"" "$err" &&
	      has "another program" "$err"'
NETCONFPATH=$conf CNI_PATH=$bin CNI_CACHE_DIR=$cache CNI_CONTAINERID=aother-$uniq \
	"$HOOKBIN" del chain "/run/netns/$ns_cli" >/dev/null 2>&1
check "(cnihook del removed it)" test ! -e "$cache/results/chain-aother-$uniq-eth0"
for n in "${nss[@]}" "$ns_cli"; do del_netns "$n"; done
reset

# ------------------------------------------------- SIGKILL around the indexes
# The scale indexes (docs/architecture.md, "Indexes"): the hook killed
# between an index update and the state it indexes, then poststop or gc
# leave nothing, index entries included (left_more checks the pin index and
# the container's port list). The attach side is covered above: "ports"
# kills after the container's port list was written and before its line in
# the reservation file, "pin" after the pin index entry and the record and
# before the pin. Here the detach side: poststop killed after the DELs and
# the release of the first of two ports, blocked on the second's lock (the
# port list and the record still there, one reservation line gone).
kill_release() {
	local mode=$1 p1=$2 p2=$3 hpid lfd t0
	begin_case "k-release-$mode" "$(annotations io.cnihook.networks chain io.cnihook.ports "$p1:80,$p2:81")"
	echo "# SIGKILL of poststop while it releases its ports, then $mode"
	attach "$id"
	check "attached with two ports (the list names both)" \
		eval '[ "$rc" = 0 ] && reserved tcp-$p1 "$id" && reserved tcp-$p2 "$id" &&
		      [ "$(cat "$state/$id/ports" 2>/dev/null | wc -l)" = 2 ]'
	exec {lfd}<>"$state/ports/tcp-$p2"
	flock -x "$lfd"
	state "$id" stopped >"$tmp/run/stop"
	"$HOOKBIN" --config "$cfg" poststop <"$tmp/run/stop" >"$tmp/run/out" 2>"$tmp/run/err" &
	hpid=$!
	SLEEPERS+=("$hpid")
	t0=$(now_ms)
	wait_for 300 eval '! reserved tcp-$p1 "$id"' && sleep 0.3
	check "before the kill: the first port released, the second held, the list kept" \
		eval 'alive $hpid && ! reserved tcp-$p1 "$id" && reserved tcp-$p2 "$id" &&
		      [ -s "$state/$id/ports" ]'
	kill -9 "$hpid"
	wait "$hpid" 2>/dev/null
	rc=$?
	check "the hook died of SIGKILL (status $rc) $(($(now_ms) - t0)) ms after start" test "$rc" = 137
	flock -u "$lfd"
	exec {lfd}>&-
	echo "# left after the kill: $(left "$id" | tr '\n' ' ')"
	if [ "$mode" = poststop ]; then
		poststop "$id"
		check "poststop after the kill exits 0" test "$rc" = 0
	else
		del_netns "$ns"
		gc
		check "gc after the kill exits 0" test "$rc" = 0
	fi
	check_gone "after the kill (release) and $mode: nothing left" "$id"
	end_case
}
kill_release poststop 18120 18121
kill_release gc 18122 18123

# The index of other runtimes' port mappings damaged or stale: rebuilt, and
# the mapping still refused.
index_case() {
	local how=$1 ns_o
	ns_o=cnihook-f$uniq-ix
	new_netns "$ns_o"
	NETCONFPATH=$conf CNI_PATH=$bin CNI_CACHE_DIR=$cache CNI_CONTAINERID=otherix-$uniq \
		CAP_ARGS='{"portMappings":[{"hostPort":18130,"containerPort":80,"protocol":"tcp"}]}' \
		"$HOOKBIN" add chain "/run/netns/$ns_o" >/dev/null 2>&1
	case $how in
	garbage)
		printf 'cnihook-ports-index 2 0 0 0 0 1/0\n\x01\x02 junk\n' >"$cache/cnihook-ports.index"
		printf 'cnihook-ports-held 2 0 0 0 0 1/0\n\x01\x02 junk\n' >"$cache/cnihook-ports.held"
		;;
	truncated) : >"$cache/cnihook-ports.index" && : >"$cache/cnihook-ports.held" ;;
	esac
	clear_rec
	port_case "ix$how" 18130:80
	check "ports: cache index $how: 18130 held by another runtime still refused: $err" \
		refused_for "otherix-$uniq"
	NETCONFPATH=$conf CNI_PATH=$bin CNI_CACHE_DIR=$cache CNI_CONTAINERID=otherix-$uniq \
		"$HOOKBIN" del chain "/run/netns/$ns_o" >/dev/null 2>&1
	clear_rec
	attach "$id"
	check "ports: cache index $how: once the other is gone, 18130 is ours" \
		eval '[ "$rc" = 0 ] && reserved tcp-18130 "$id"'
	poststop "$id"
	check_gone "ports: cache index $how: nothing left" "$id"
	del_netns "$ns_o"
	for n in "${nss[@]}"; do del_netns "$n"; done
	nss=()
	reset
}
index_case garbage
index_case truncated

# The indexes follow the cache (index_get()): the hook's own starts and
# stops leave them as they were (the names give the same digest), a file
# that comes is indexed and refuses, a file removed is forgotten.
foreign() { # foreign add|del NAME PORT
	local ns_f=cnihook-f$uniq-$2
	[ "$1" = add ] && new_netns "$ns_f"
	NETCONFPATH=$conf CNI_PATH=$bin CNI_CACHE_DIR=$cache CNI_CONTAINERID=$2-$uniq \
		CAP_ARGS="{\"portMappings\":[{\"hostPort\":$3,\"containerPort\":80,\"protocol\":\"tcp\"}]}" \
		"$HOOKBIN" "$1" chain "/run/netns/$ns_f" >/dev/null 2>&1
	[ "$1" = del ] && del_netns "$ns_f"
	return 0
}
foreign add frA 18131
clear_rec
port_case ixsync 18132:80
check "ports: index: 18132 ours beside the other runtime's 18131" \
	eval '[ "$rc" = 0 ] && grep -q "frA-$uniq" "$cache/cnihook-ports.index" &&
		grep -q "frA-$uniq" "$cache/cnihook-ports.held"'
poststop "$id"
ix_ino=$(stat -c %i "$cache/cnihook-ports.index")
clear_rec
port_case ixsame 18132:80
check "ports: index: our own start and stop again: the full index is not written again" \
	eval '[ "$rc" = 0 ] && [ "$(stat -c %i "$cache/cnihook-ports.index")" = "$ix_ino" ]'
poststop "$id"
foreign del frA 18131
clear_rec
port_case ixgone 18131:80
check "ports: index: the other runtime's entry removed: 18131 is ours, the indexes forget it" \
	eval '[ "$rc" = 0 ] && reserved tcp-18131 "$id" &&
		! grep -q "frA-$uniq" "$cache/cnihook-ports.index" "$cache/cnihook-ports.held"'
poststop "$id"
foreign add frB 18133
clear_rec
port_case ixcame 18133:80
check "ports: index: a file that came after is indexed and refuses 18133: $err" refused_for "frB-$uniq"
foreign del frB 18133
check_gone "ports: index: nothing left" "$id"
for n in "${nss[@]}"; do del_netns "$n"; done
nss=()
reset

# ---------------------------------------------------------------- torn writes
# Every file is written as a temp file beside it, then renamed
# (docs/architecture.md, "Temp files"). The hook SIGKILLs itself between the
# two when the target path matches CNIHOOK_TEST_KILL_BEFORE_RENAME (the fault
# point of common/file.c), once for each directory cnihook writes; the next
# gc (or poststop) leaves no temp file, and files of other programs in
# results/ that look like temp files are never touched.
echo "# SIGKILL between a temp file and its rename"
# temps: cnihook's temp files under the state directory and the cache (not
# the other program's below)
temps() { find "$state" "$cache" -name '.*.tmp.cnihook.*' ! -name '*-other-*' 2>/dev/null; }
# Another program's files in results/ that look like temp files, cnihook's
# old or new names among them (another pid namespace's, a short random part).
foreign_tmp=(".chain-other-eth0.tmpAbCdEf" ".chain-other-eth0.tmp.cnihook.1.2.3.AbCdEf"
	"chain-other-eth0.tmp" ".chain-other-eth0.tmp.cnihook.4026531836.1.0.Ab")
# torn NAME PATTERN THEN: attach with the kill at PATTERN (a shell pattern
# of the target path); THEN is gc (the namespace deleted first: the
# container is gone), gc-live (a process in the namespace: the container is
# kept, only the temp file goes) or poststop.
torn() {
	local name=$1 pattern=$2 then=$3 t0
	begin_case "torn-$name" "$(annotations io.cnihook.networks chain,second io.cnihook.ports "$port:80")"
	port=$((port + 1))
	[ "$then" != gc-live ] || live_in "$ns"
	mkdir -p "$cache/results"
	for f in "${foreign_tmp[@]}"; do echo '{' >"$cache/results/$f"; done
	foreign_sum=$(cd "$cache/results" && sha256sum -- "${foreign_tmp[@]}")
	t0=$(now_ms)
	input=$(state "$id" creating)
	CNIHOOK_TEST_KILL_BEFORE_RENAME=$pattern runhook "$input" createRuntime
	check "$name: the hook killed itself before the rename of ${pattern#"$tmp/"} (status $rc, $(($(now_ms) - t0)) ms)" \
		test "$rc" = 137
	check "$name: a temp file is left: $(temps | tr '\n' ' ')" test -n "$(temps)"
	case $then in
	poststop)
		poststop "$id"
		check "$name: poststop exits 0" test "$rc" = 0
		;;
	gc-live)
		gc
		check "$name: gc exits 0 and keeps the live container" \
			eval '[ "$rc" = 0 ] && has "gc: container \"$id\": kept" "$out" && [ -d "$state/$id" ]'
		check "$name: gc says it removed the temp file" has "removed 1 temp file(s)" "$out"
		poststop "$id"
		;;
	*)
		del_netns "$ns"
		gc
		check "$name: gc exits 0, the container gone and detached" \
			eval '[ "$rc" = 0 ] && has "gc: container \"$id\": gone: detached" "$out"'
		;;
	esac
	check "$name: no temp file left: $(temps | tr '\n' ' ')" test -z "$(temps)"
	check "$name: the other program's temp-looking files in results/ are untouched" \
		eval '[ "$(cd "$cache/results" && sha256sum -- "${foreign_tmp[@]}")" = "$foreign_sum" ]'
	(cd "$cache/results" && rm -f -- "${foreign_tmp[@]}")
	check_gone "$name: after $then, nothing left" "$id"
	end_case
}
port=18140
t_torn=$(now_ms)
torn record "$state/*/record.json" gc
torn list "$cache/cnihook-attachments/*" gc
torn ports-list "$state/*/ports" gc
torn journal "$state/*/journal/*" gc
torn results "$cache/results/second-*" gc
torn index "$cache/cnihook-ports.*" gc
torn status "$state/*/network-status.json" gc-live
torn status-poststop "$state/*/network-status.json" poststop
for p in "${port_live[@]}"; do kill_child "$p"; done
port_live=()
echo "# torn writes: $(($(now_ms) - t_torn)) ms"

# ---------------------------------------------------------------- the end
echo "# nothing left"
check "no orphaned plugin of ours is running" \
	eval '! for p in /proc/[0-9]*; do readlink "$p/exe" 2>/dev/null; done | grep -qF "$bin/"'
check "the state directory holds nothing" test -z "$(ls -A "$state")"
check "the cache holds no result" test -z "$(ls -A "$cache/results" 2>/dev/null)"
for ((i = 0; i < 10; i++)); do is_mount "$state" && umount "$state"; done
check "no mount under the temp dir" \
	test -z "$(awk -v p="$tmp/" 'index($5, p) == 1 || $5 == substr(p, 1, length(p) - 1)' \
		/proc/self/mountinfo)"
for n in "${T_NETNS[@]}"; do del_netns "$n"; done
check "the network namespaces are removed" eval '! ip netns list | grep -qF -- "$uniq"'

finish
