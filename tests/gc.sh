#!/bin/bash
# The operator commands that look at everything attached (cnihook(8)):
# `cnihook gc [--dry-run]`, `cnihook list [--json]`, `cnihook status [--json]`,
# with the real hook binary, recording fake plugins and namespaces of our own.
#
# The containers of the test:
#   live     attached by the hook; a process lives in its namespace
#            (unshare -n sleep; config.json network path /proc/<pid>/ns/net)
#   gone     attached by the hook to a named namespace since deleted: only the
#            pin holds it, no process lives in it
#   wiped    attached by the hook, then its state directory wiped: only its
#            cache entry is left, naming a pin that no longer exists
#   cli      `cnihook add` to a named namespace that exists (cnitool's id)
#   clioff   `cnihook add` to a network with disableGC, same namespace
#   cligone  `cnihook add` to a named namespace since deleted
#   stale    only a lock file <stateDir>/<id>.lock
#   running  `cnihook add` to a named namespace since deleted, but runc has
#            state for it (/run/runc/<id>, made by the test): a container of
#            another engine whose cache entry names no namespace gc can see
# gc must remove gone, wiped, cligone and stale (state dir, pin, cache,
# ports, lock), keep the others, and send the spec 1.1.0 GC verb to the 1.1.0
# networks that do not disable it, with the live attachments as the valid ones.
# Checks are often eval'd single-quoted strings, expanded when run (so some
# variables are only used there).
# shellcheck disable=SC2016,SC2034
set -uo pipefail
: "${CNIHOOK:?}" "${FAKEPLUGIN:?}"

srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$srcdir/tests/lib.sh"
tap_init "mounts, network namespaces" ip jq unshare sha512sum
hook_binary

tmp=$T_TMP
show() { printf '%s\n' "$@" | sed '/^$/d; s/^/#   /'; } # show TEXT...: as comments

# ---------------------------------------------------------------- setup
bin=$tmp/bin conf=$tmp/net.d cache=$tmp/cache state=$tmp/state
mkdir -p "$bin" "$conf" "$tmp/bundles" "$tmp/run"
for p in ga gb gc gd; do cp "$FAKEPLUGIN" "$bin/$p"; done
cat >"$conf/10-g10.conflist" <<'EOF'
{"cniVersion":"1.0.0","name":"g10","plugins":[{"type":"ga","capabilities":{"portMappings":true}}]}
EOF
cat >"$conf/20-g11.conflist" <<'EOF'
{"cniVersion":"1.1.0","name":"g11","plugins":[{"type":"gb"},{"type":"gc"}]}
EOF
cat >"$conf/30-g11off.conflist" <<'EOF'
{"cniVersion":"1.1.0","name":"g11off","disableGC":true,"plugins":[{"type":"gd"}]}
EOF
cfg=$tmp/cnihook.json
jq -n --arg c "$conf" --arg b "$bin" --arg k "$cache" --arg s "$state" \
	'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, pluginTimeout: 10,
	  log: {syslog: false}}' >"$cfg"

runhook() { # runhook STDIN-TEXT ARGS...: the hook with --config $cfg
	local input=$1
	shift
	run_in "$input" "$HOOKBIN" --config "$cfg" "$@"
}
attach() { runhook "$(state "$1" creating)" createRuntime; }
poststop() { runhook "$(state "$1" stopped)" poststop; }
unset CNI_CONTAINERID CNI_IFNAME CNI_ARGS CAP_ARGS
cnihook_cli() { # cnihook_cli [VAR=VALUE...] add|del NETWORK NETNS: the operator CLI on our dirs
	local vars=()
	while [[ $1 == *=* ]]; do vars+=("$1"); shift; done
	env NETCONFPATH="$conf" CNI_PATH="$bin" CNI_CACHE_DIR="$cache" "${vars[@]}" \
		"$HOOKBIN" "$@" >"$tmp/run/out" 2>"$tmp/run/err"
	rc=$?
	out=$(cat "$tmp/run/out")
	err=$(cat "$tmp/run/err")
}

# dels ID: the DEL calls recorded for container ID, "NAME:IFNAME" sorted
dels() {
	local f b
	for f in "$bin"/rec/*-DEL.env; do
		{ [ -e "$f" ] && grep -qxF "CNI_CONTAINERID=$1" "$f"; } || continue
		b=${f##*/} b=${b#*-}
		echo "${b%-DEL.env}:$(sed -n 's/^CNI_IFNAME=//p' "$f")"
	done | sort | tr '\n' ' ' | sed 's/ $//'
}
ports_of() { cat "$state"/ports/* 2>/dev/null | awk -v id="$1" '$1 == id'; }
# left_more ID: for lib.sh's left: ID's port reservations
left_more() { ports_of "$1" | sed 's/^/port:/'; }
# snapshot: everything gc could change (files, mounts, port reservations)
snapshot() {
	(cd "$tmp" && find state cache -printf '%p %y %s %T@\n' 2>/dev/null | sort)
	awk -v p="$tmp/" 'index($5, p) == 1 {print $5}' /proc/self/mountinfo | sort
	cat "$state"/ports/* 2>/dev/null
}

# ---------------------------------------------------------------- the containers
echo "# setting up: live, gone, wiped (hook); cli, clioff, cligone (cnihook add); stale (a lock)"
unshare -n sleep 300 &
sleeper=$!
SLEEPERS+=("$sleeper")
wait_for 50 eval '[ "$(readlink /proc/$sleeper/ns/net)" != "$(readlink /proc/self/ns/net)" ]'
live=live-$uniq gone=gone-$uniq wiped=wiped-$uniq stale=stale-$uniq
bundle "$live" "$(annotations io.cnihook.networks g10,g11 io.cnihook.ports 18300:80)" "/proc/$sleeper/ns/net"
attach "$live"
check "live: attached (namespace of pid $sleeper)" test "$rc" = 0
ns_gone=cnihook-gc$uniq-gone ns_wiped=cnihook-gc$uniq-wiped
ns_cli=cnihook-gc$uniq-cli ns_cligone=cnihook-gc$uniq-cligone
for n in "$ns_gone" "$ns_wiped" "$ns_cli" "$ns_cligone"; do new_netns "$n"; done
bundle "$gone" "$(annotations io.cnihook.networks g10,g11 io.cnihook.ports 18301:80)" "/run/netns/$ns_gone"
attach "$gone"
check "gone: attached" test "$rc" = 0
bundle "$wiped" "$(annotations io.cnihook.networks g11)" "/run/netns/$ns_wiped"
attach "$wiped"
check "wiped: attached" test "$rc" = 0
cnihook_cli add g11 "/run/netns/$ns_cli"
cli_id=cnitool-$(printf %s "/run/netns/$ns_cli" | sha512sum | cut -c1-20)
check "cli: cnihook add g11 (container $cli_id)" eval '[ "$rc" = 0 ] && [ -f "$cache/results/g11-$cli_id-eth0" ]'
clioff=clioff-$uniq cligone=cligone-$uniq
cnihook_cli CNI_CONTAINERID="$clioff" add g11off "/run/netns/$ns_cli"
check "clioff: cnihook add g11off" eval '[ "$rc" = 0 ] && [ -f "$cache/results/g11off-$clioff-eth0" ]'
cnihook_cli CNI_CONTAINERID="$cligone" add g11 "/run/netns/$ns_cligone"
check "cligone: cnihook add g11" eval '[ "$rc" = 0 ] && [ -f "$cache/results/g11-$cligone-eth0" ]'
: >"$state/$stale.lock"
running=running-$uniq
cnihook_cli CNI_CONTAINERID="$running" add g11 "/run/netns/$ns_cligone"
check "running: cnihook add g11" eval '[ "$rc" = 0 ] && [ -f "$cache/results/g11-$running-eth0" ]'
# runc's state directory for it; /run/runc itself only if runc has none yet
# (and then removed again), never anything else of runc's.
if [ ! -d /run/runc ]; then
	mkdir -m 0700 /run/runc
	cleanup_push "rmdir /run/runc"
fi
mkdir -m 0700 "/run/runc/$running"
cleanup_push "rm -rf '/run/runc/$running'"
echo '{}' >"/run/runc/$running/state.json"

# ---------------------------------------------------------------- list, status
echo "# list and status show everything"
runhook "" list
show "$out"
check "list exits 0" test "$rc" = 0
check "list has a header CONTAINER NETWORK INTERFACE IPS NETNS AGE" \
	eval 'head -1 <<<"$out" | grep -Eq "^CONTAINER +NETWORK +INTERFACE +IPS +NETNS +AGE$"'
check "list has 9 entries" test "$(($(wc -l <<<"$out") - 1))" = 9
row() { # row ID NETWORK IFNAME NETNS: list has that row
	grep -Eq "^$1 +$2 +$3 +10\.99\.0\.2/24 +$4 +[0-9]+s\$" <<<"$out"
}
check "list: live, g10 and g11 (eth0, eth1) in its pin" \
	eval 'row "$live" g10 eth0 "$state/$live/netns" && row "$live" g11 eth1 "$state/$live/netns"'
check "list: gone, g10 and g11" eval 'row "$gone" g10 eth0 "$state/$gone/netns" && row "$gone" g11 eth1 "$state/$gone/netns"'
check "list: wiped, g11" row "$wiped" g11 eth0 "$state/$wiped/netns"
check "list: the CLI's entries (cli, clioff, cligone, running) in their named namespaces" \
	eval 'row "$cli_id" g11 eth0 "/run/netns/$ns_cli" && row "$clioff" g11off eth0 "/run/netns/$ns_cli" &&
	      row "$cligone" g11 eth0 "/run/netns/$ns_cligone" && row "$running" g11 eth0 "/run/netns/$ns_cligone"'
runhook "" list --json
check "list --json exits 0 and prints a JSON array of 9" \
	eval '[ "$rc" = 0 ] && jq -e "length == 9" <<<"$out" >/dev/null'
check "list --json: every entry has containerId, network, ifname, ips, netns, ageSeconds" \
	eval 'jq -e "all(.[]; (.containerId|type) == \"string\" and (.network|type) == \"string\" and
		(.ifname|type) == \"string\" and .ips == [\"10.99.0.2/24\"] and (.netns|type) == \"string\" and
		(.ageSeconds|type) == \"number\" and .ageSeconds >= 0)" <<<"$out" >/dev/null'
want=$(jq -cn --arg l "$live" --arg g "$gone" --arg w "$wiped" --arg c "$cli_id" --arg o "$clioff" \
	--arg x "$cligone" --arg r "$running" --arg s "$state" --arg nc "/run/netns/$ns_cli" \
	--arg nx "/run/netns/$ns_cligone" \
	'[[$l,"g10","eth0",($s+"/"+$l+"/netns")],[$l,"g11","eth1",($s+"/"+$l+"/netns")],
	  [$g,"g10","eth0",($s+"/"+$g+"/netns")],[$g,"g11","eth1",($s+"/"+$g+"/netns")],
	  [$w,"g11","eth0",($s+"/"+$w+"/netns")],[$c,"g11","eth0",$nc],[$o,"g11off","eth0",$nc],
	  [$x,"g11","eth0",$nx],[$r,"g11","eth0",$nx]] | sort')
check "list --json: exactly the 9 attachments (id, network, ifname, netns)" \
	eval '[ "$(jq -c "[.[] | [.containerId, .network, .ifname, .netns]] | sort" <<<"$out")" = "$want" ]'

runhook "" status
check "status (all) exits 0" test "$rc" = 0
check "status (all): header and the rows of live and gone (hook-attached), not the CLI's" \
	eval 'head -1 <<<"$out" | grep -Eq "^CONTAINER +NETWORK +INTERFACE +IPS +MAC +DEFAULT$" &&
	      grep -Eq "^$live +g10 +eth0 +10\.99\.0\.2 +- +yes$" <<<"$out" &&
	      grep -Eq "^$live +g11 +eth1 +10\.99\.0\.2 +- +no$" <<<"$out" &&
	      grep -Eq "^$gone +g10 +eth0 " <<<"$out" && grep -Eq "^$wiped +g11 +eth0 " <<<"$out" &&
	      ! grep -q -- "$cli_id" <<<"$out" && [ "$(wc -l <<<"$out")" = 6 ]'
runhook "" status --json
check "status --json (all): an object of live, gone, wiped, each its network-status" \
	eval '[ "$rc" = 0 ] && jq -e --arg l "$live" --arg g "$gone" --arg w "$wiped" \
		"keys == ([\$l, \$g, \$w] | sort) and
		 (.[\$l] | map([.name, .interface, .default])) == [[\"g10\",\"eth0\",true],[\"g11\",\"eth1\",false]]" \
		<<<"$out" >/dev/null'
check "status --json (all): the same bytes as the files" \
	eval '[ "$(jq -c --arg l "$live" ".[\$l]" <<<"$out")" = "$(jq -c . "$state/$live/network-status.json")" ]'

# Make the gone ones gone.
for n in "$ns_gone" "$ns_cligone"; do ip netns delete "$n"; done
for ((i = 0; i < 10; i++)); do is_mount "$state/$wiped/netns" && umount "$state/$wiped/netns"; done
rm -rf "${state:?}/$wiped"
ip netns delete "$ns_wiped"
check "(gone: only its pin holds its namespace; wiped: only its cache entry is left)" \
	eval 'is_mount "$state/$gone/netns" && [ ! -e "/run/netns/$ns_gone" ] && [ ! -e "$state/$wiped" ] &&
	      [ -f "$cache/results/g11-$wiped-eth0" ]'

# ---------------------------------------------------------------- dry run
echo "# gc --dry-run"
before=$(snapshot)
clear_rec
runhook "" gc --dry-run
show "$out"
check "gc --dry-run exits 0" test "$rc" = 0
for x in "$gone" "$wiped" "$cligone" "$stale"; do
	check "gc --dry-run lists $x as gone" has "gc: container \"$x\": gone: would detach" "$out"
done
check "gc --dry-run: 2 attachments of gone, 1 of wiped, 1 of cligone, 0 of stale" \
	eval 'has "\"$gone\": gone: would detach 2 " "$out" && has "\"$wiped\": gone: would detach 1 " "$out" &&
	      has "\"$cligone\": gone: would detach 1 " "$out" && has "\"$stale\": gone: would detach 0 " "$out"'
check "gc --dry-run does not list live, cli, clioff, running" \
	eval '! has "$live" "$out" && ! has "$cli_id" "$out" && ! has "$clioff" "$out" && ! has "$running" "$out"'
check "gc --dry-run: would send GC to g11 only (not g10: 1.0.0, not g11off: disableGC)" \
	eval 'has "gc: network \"g11\": would send GC" "$out" && ! has "\"g10\"" "$out" && ! has "g11off" "$out"'
check "gc --dry-run runs no plugin" no_plugin_ran
after=$(snapshot)
check "gc --dry-run changes nothing (files, mounts, ports)" test "$before" = "$after"

# ---------------------------------------------------------------- gc
echo "# gc"
runhook "" --log-level=info gc
show "$out" "$err"
check "gc exits 0" test "$rc" = 0
for x in "$gone" "$wiped" "$cligone" "$stale"; do
	check "gc says $x is gone and detached" has "gc: container \"$x\": gone: detached" "$out"
done
check "gc logs why live, cli, clioff, running are kept" \
	eval 'has "\"$live\": kept: a process lives in its network namespace" "$err" &&
	      has "\"$cli_id\": kept: its network namespace exists" "$err" &&
	      has "\"$clioff\": kept: its network namespace exists" "$err" &&
	      has "\"$running\": kept: its runtime has state for it" "$err"'
check_gone "gc removed gone: state dir, pin, cache, port reservation" "$gone"
check_gone "gc removed wiped (cache only)" "$wiped"
check_gone "gc removed cligone (CLI entry, namespace deleted)" "$cligone"
check_gone "gc removed the stale lock" "$stale"
check "gone's DELs: ga on eth0, gb and gc on eth1: $(dels "$gone")" \
	test "$(dels "$gone")" = "ga:eth0 gb:eth1 gc:eth1"
check "gone's DELs ran in its pin" \
	grep -qxF "CNI_NETNS=$state/$gone/netns" "$(rec ga DEL)"
check "wiped's and cligone's DELs: gb, gc on eth0" \
	eval '[ "$(dels "$wiped")" = "gb:eth0 gc:eth0" ] && [ "$(dels "$cligone")" = "gb:eth0 gc:eth0" ]'
check "live is kept: state, pin, cache, port" \
	eval 'is_mount "$state/$live/netns" && same_ns "$state/$live/netns" /proc/$sleeper/ns/net &&
	      [ -f "$state/$live/record.json" ] && [ -f "$cache/results/g10-$live-eth0" ] &&
	      [ -f "$cache/results/g11-$live-eth1" ] && [ -n "$(ports_of "$live")" ]'
check "the CLI's live entries are kept" \
	eval '[ -f "$cache/results/g11-$cli_id-eth0" ] && [ -f "$cache/results/g11off-$clioff-eth0" ]'
check "no DEL for live, cli, clioff, running" \
	eval '[ -z "$(dels "$live")$(dels "$cli_id")$(dels "$clioff")$(dels "$running")" ]'
check "running's cache entry is kept" test -f "$cache/results/g11-$running-eth0"
# SPEC 1.1.0 "GC: Clean up any stale resources": the runtime passes
# cni.dev/valid-attachments, the attachments it still knows of.
valid=$(jq -cn --arg l "$live" --arg c "$cli_id" --arg r "$running" \
	'[{containerID: $l, ifname: "eth1"}, {containerID: $c, ifname: "eth0"},
	  {containerID: $r, ifname: "eth0"}] | sort')
check "GC went to gb and gc of g11, after the DELs: $(calls)" \
	eval '[[ "$(calls)" == *"gb-GC gc-GC" ]] && [ -n "$(rec gb GC)" ] && [ -n "$(rec gc GC)" ]'
check "GC stdin: cni.dev/valid-attachments is exactly the live g11 attachments" \
	eval '[ "$(jq -c ".[\"cni.dev/valid-attachments\"] | sort" "$(rec gb GC stdin)")" = "$valid" ] &&
	      [ "$(jq -c ".[\"cni.dev/valid-attachments\"] | sort" "$(rec gc GC stdin)")" = "$valid" ]'
check "GC stdin is g11's configuration (name, cniVersion 1.1.0)" \
	jqe '.name == "g11" and .cniVersion == "1.1.0" and .type == "gb"' "$(rec gb GC stdin)"
check "no GC to ga (g10 is 1.0.0) or gd (g11off has disableGC)" \
	eval '[ -z "$(rec ga GC)" ] && [ -z "$(rec gd GC)" ]'
check "gc reports the GC verb" has "gc: network \"g11\": GC sent with 3 valid attachment(s)" "$out"
runhook "" list --json
check "list after gc: live (2), cli, clioff, running" \
	eval '[ "$(jq -c "[.[].containerId] | sort" <<<"$out")" = "$(jq -cn --arg l "$live" --arg c "$cli_id" \
		--arg o "$clioff" --arg r "$running" "[\$l, \$l, \$c, \$o, \$r] | sort")" ]'

clear_rec
runhook "" gc
check "gc again: exits 0, detaches nothing, sends GC again" \
	eval '[ "$rc" = 0 ] && ! has "gone" "$out" && [ "$(calls)" = "gb-GC gc-GC" ]'

# The live container's process exits: the next gc takes it.
echo "# the live container's process exits"
kill -9 "$sleeper"
wait "$sleeper" 2>/dev/null
clear_rec
runhook "" gc
check "gc after its process died: live is gone and detached" \
	eval '[ "$rc" = 0 ] && has "gc: container \"$live\": gone: detached 2 attachment(s)" "$out"'
check "... DELs ga eth0, gb and gc eth1: $(dels "$live")" test "$(dels "$live")" = "ga:eth0 gb:eth1 gc:eth1"
check_gone "... nothing left of it" "$live"
check "... the GC's valid attachments are the CLI's and running's only" \
	eval '[ "$(jq -c ".[\"cni.dev/valid-attachments\"] | sort" "$(rec gb GC stdin)")" = "$(jq -cn --arg c "$cli_id" --arg r "$running" \
		"[{containerID: \$c, ifname: \"eth0\"}, {containerID: \$r, ifname: \"eth0\"}] | sort")" ]'

# runc's state of the running container goes: the next gc takes it.
echo "# the running container's runtime state goes"
rm -rf "/run/runc/$running"
clear_rec
runhook "" gc
check "gc after its runtime state went: running is gone and detached" \
	eval '[ "$rc" = 0 ] && has "gc: container \"$running\": gone: detached 1 attachment(s)" "$out"'
check "... DELs gb and gc on eth0: $(dels "$running")" test "$(dels "$running")" = "gb:eth0 gc:eth0"
check_gone "... nothing left of it" "$running"

# ---------------------------------------------------------------- the end
cnihook_cli del g11 "/run/netns/$ns_cli"
cnihook_cli CNI_CONTAINERID="$clioff" del g11off "/run/netns/$ns_cli"
check "the CLI's entries deleted" test -z "$(ls -A "$cache/results" 2>/dev/null)"
echo "# nothing left"
check "the state directory holds nothing but the (empty) ports directory" \
	eval '[ -z "$(ls -A "$state" | grep -vx ports)" ] && [ -z "$(ls -A "$state/ports" 2>/dev/null)" ]'
for ((i = 0; i < 10; i++)); do is_mount "$state" && umount "$state"; done
check "no mount under the temp dir" \
	test -z "$(awk -v p="$tmp/" 'index($5, p) == 1 || $5 == substr(p, 1, length(p) - 1)' \
		/proc/self/mountinfo)"
for n in "${T_NETNS[@]}"; do [ -e "/run/netns/$n" ] && ip netns delete "$n"; done
check "the network namespaces are removed" eval '! ip netns list | grep -qF -- "$uniq"'

finish
