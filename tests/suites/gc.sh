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
#   stale    only a lock file <stateDir>/<id>.lock and a name link
#            <stateDir>/<id>.name (a directory wiped by hand)
#   running  `cnihook add` to a named namespace since deleted, but runc has
#            state for it (/run/runc/<id>, made by the test): a container of
#            another engine whose cache entry names no namespace gc can see
#   nons     an entry of another program (cli's, copied) without "netns", as
#            cnitool and libcni 1.1 write them; its result's sandbox exists
#   nonsgone the same, copied from cligone's: its result's sandbox is gone
#   ctrd     `cnihook add` as "<ns>-<id>" to a named namespace since deleted
#            while containerd's runc has state for it (/run/containerd/runc/
#            <ns>/<id>, made by the test), then without it
# gc must remove gone, wiped, cligone and stale (state dir, pin, cache,
# ports, lock), keep the others, say why for each (at the default log level),
# and send the spec 1.1.0 GC verb to the 1.1.0 networks that do not disable
# it, with the live attachments as the valid ones. nons and nonsgone are kept
# whatever happens (nothing proves them gone); with --netns-from-result, the
# sandbox of the cached result stands in for "netns" and nonsgone goes.
# Checks are often eval'd single-quoted strings, expanded when run (so some
# variables are only used there).
# shellcheck disable=SC2016,SC2034
set -uo pipefail
: "${CNIHOOK:?}" "${FAKEPLUGIN:?}"

srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
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
ln -s "stale/$uniq" "$state/$stale.name"
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
nons=nons-$uniq nonsgone=nonsgone-$uniq
jq --arg id "$nons" '.containerId = $id | del(.netns)' "$cache/results/g11-$cli_id-eth0" \
	>"$cache/results/g11-$nons-eth0"
jq --arg id "$nonsgone" '.containerId = $id | del(.netns)' "$cache/results/g11-$cligone-eth0" \
	>"$cache/results/g11-$nonsgone-eth0"
check "nons, nonsgone: entries without netns whose result names a sandbox" \
	eval 'jq -e "has(\"netns\") | not" "$cache/results/g11-$nons-eth0" >/dev/null &&
	      jq -e --arg p "/run/netns/$ns_cligone" ".result.interfaces[0].sandbox == \$p" \
		"$cache/results/g11-$nonsgone-eth0" >/dev/null'

# ---------------------------------------------------------------- list, status
echo "# list and status show everything"
runhook "" list --no-trunc
show "$out"
check "list exits 0" test "$rc" = 0
check "list has a header CONTAINER NETWORK INTERFACE IPS NETNS AGE GC MISSING" \
	eval 'head -1 <<<"$out" | grep -Eq "^CONTAINER +NETWORK +INTERFACE +IPS +NETNS +AGE +GC +MISSING$"'
check "list has 11 entries" test "$(($(wc -l <<<"$out") - 1))" = 11
row() { # row ID NETWORK IFNAME NETNS GC: list --no-trunc has that row, nothing missing
	grep -Eq "^$1 +$2 +$3 +10\.99\.0\.2/24 +$4 +[0-9]+s +$5 +-\$" <<<"$out"
}
check "list: live, g10 and g11 (eth0, eth1) in its pin, own" \
	eval 'row "$live" g10 eth0 "$state/$live/netns" own && row "$live" g11 eth1 "$state/$live/netns" own'
check "list: gone, g10 and g11" eval 'row "$gone" g10 eth0 "$state/$gone/netns" own && row "$gone" g11 eth1 "$state/$gone/netns" own'
check "list: wiped, g11" row "$wiped" g11 eth0 "$state/$wiped/netns" own
check "list: the CLI's entries (cli, clioff, cligone, running) in their named namespaces" \
	eval 'row "$cli_id" g11 eth0 "/run/netns/$ns_cli" netns && row "$clioff" g11off eth0 "/run/netns/$ns_cli" netns &&
	      row "$cligone" g11 eth0 "/run/netns/$ns_cligone" netns && row "$running" g11 eth0 "/run/netns/$ns_cligone" netns'
check "list: nons and nonsgone, no netns: kept by gc" \
	eval 'row "$nons" g11 eth0 - kept:no-netns && row "$nonsgone" g11 eth0 - kept:no-netns'
runhook "" list
check "list cuts ids to 12 characters, aligned; --no-trunc shows them whole" \
	eval 'grep -Eq "^${live:0:12} +g10 +eth0 +10\.99\.0\.2/24 " <<<"$out" && ! grep -q "^$live" <<<"$out" &&
	      [ "$(awk "{print index(\$0, \"NETWORK\")}" <<<"$(head -1 <<<"$out")")" = 15 ]'
runhook "" list --json
check "list --json exits 0 and prints a JSON array of 11" \
	eval '[ "$rc" = 0 ] && jq -e "length == 11" <<<"$out" >/dev/null'
check "list --json: every entry has containerId, network, ifname, ips, netns, ageSeconds, gc" \
	eval 'jq -e "all(.[]; (.containerId|type) == \"string\" and (.network|type) == \"string\" and
		(.ifname|type) == \"string\" and .ips == [\"10.99.0.2/24\"] and (.netns|type) == \"string\" and
		(.ageSeconds|type) == \"number\" and .ageSeconds >= 0 and
		(.gc | IN(\"own\", \"netns\", \"kept:no-netns\")) and .missing == [])" <<<"$out" >/dev/null'
want=$(jq -cn --arg l "$live" --arg g "$gone" --arg w "$wiped" --arg c "$cli_id" --arg o "$clioff" \
	--arg x "$cligone" --arg r "$running" --arg s "$state" --arg nc "/run/netns/$ns_cli" \
	--arg nx "/run/netns/$ns_cligone" --arg n "$nons" --arg ng "$nonsgone" \
	'[[$l,"g10","eth0",($s+"/"+$l+"/netns")],[$l,"g11","eth1",($s+"/"+$l+"/netns")],
	  [$g,"g10","eth0",($s+"/"+$g+"/netns")],[$g,"g11","eth1",($s+"/"+$g+"/netns")],
	  [$w,"g11","eth0",($s+"/"+$w+"/netns")],[$c,"g11","eth0",$nc],[$o,"g11off","eth0",$nc],
	  [$x,"g11","eth0",$nx],[$r,"g11","eth0",$nx],[$n,"g11","eth0",""],[$ng,"g11","eth0",""]] | sort')
check "list --json: exactly the 11 attachments (id, network, ifname, netns)" \
	eval '[ "$(jq -c "[.[] | [.containerId, .network, .ifname, .netns]] | sort" <<<"$out")" = "$want" ]'

runhook "" status --no-trunc
check "status (all) exits 0" test "$rc" = 0
check "status (all): header and the rows of live and gone (hook-attached), not the CLI's" \
	eval 'head -1 <<<"$out" | grep -Eq "^CONTAINER +NETWORK +INTERFACE +IPS +MAC +DEFAULT +GC +MISSING$" &&
	      grep -Eq "^$live +g10 +eth0 +10\.99\.0\.2 +- +yes +own +-$" <<<"$out" &&
	      grep -Eq "^$live +g11 +eth1 +10\.99\.0\.2 +- +no +own +-$" <<<"$out" &&
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
# A status file that is not JSON: named, with the place and the problem.
sf=$state/$gone/network-status.json
cp -p "$sf" "$tmp/status.saved"
printf '{' >"$sf"
runhook "" status "$gone"
check "status of a damaged status file: exit 1, the file, line and column named" \
	eval '[ "$rc" = 1 ] && has "$sf:1:" "$err"'
runhook "" status
check "status (all) with a damaged status file: the file, line and column named" \
	has "$sf:1:" "$err"
cp -p "$tmp/status.saved" "$sf"

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
check "gc --dry-run says why gone is gone: no runtime state, no process in its pin" \
	has "gc: container \"$gone\": gone: would detach 2 attachment(s) and remove its state (no state of runc, crun or containerd; no process lives in its pinned network namespace $state/$gone/netns)" "$out"
check "gc --dry-run says why wiped and cligone are gone: the namespace their entry names does not exist" \
	eval 'has "\"$wiped\": gone: would detach 1 attachment(s) and remove its state (no state of runc, crun or containerd; $state/$wiped/netns does not exist (named by its cache entry of network \"g11\"))" "$out" &&
	      has "\"$cligone\": gone: would detach 1 attachment(s) and remove its state (no state of runc, crun or containerd; /run/netns/$ns_cligone does not exist (named by its cache entry of network \"g11\"))" "$out"'
check "gc --dry-run says why stale is gone" \
	has "\"$stale\": gone: would detach 0 attachment(s) and remove its state (no state of runc, crun or containerd; nothing of it but its lock file or name link)" "$out"
check "gc --dry-run says, at the default log level, why live, cli, clioff, running are kept" \
	eval 'grep -Eq "^gc: container \"$live\": kept: process [0-9]+ lives in its pinned network namespace $state/$live/netns\$" <<<"$out" &&
	      has "\"$cli_id\": kept: /run/netns/$ns_cli is a network namespace (named by its cache entry of network \"g11\")" "$out" &&
	      has "\"$clioff\": kept: /run/netns/$ns_cli is a network namespace (named by its cache entry of network \"g11off\")" "$out" &&
	      has "\"$running\": kept: its runtime has state for it (/run/runc/$running)" "$out"'
no_proof() { # no_proof ID: gc says it keeps ID, whose entry names no namespace
	has "gc: container \"$1\": kept: the cache entry of network \"g11\", interface \"eth0\" names no network namespace and cnihook has no record of it: nothing proves it gone" "$out"
}
check "gc --dry-run keeps nons and nonsgone: their entry names no namespace, cnihook has no record" \
	eval 'no_proof "$nons" && no_proof "$nonsgone"'
check "gc --dry-run: one line per container, nothing on stderr" \
	eval '[ "$(grep -c "^gc: container " <<<"$out")" = 10 ] && [ -z "$err" ]'
check "gc --dry-run: would send GC to g11 only (not g10: 1.0.0, not g11off: disableGC)" \
	eval 'has "gc: network \"g11\": would send GC" "$out" && ! has "gc: network \"g10\"" "$out" && ! has "gc: network \"g11off\"" "$out"'
check "gc --dry-run: the GC it would send leaves out the gone, as gc's does (5 valid)" \
	has "gc: network \"g11\": would send GC with 5 valid attachment(s)" "$out"
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
check "gc says why live, cli, clioff, running, nons, nonsgone are kept" \
	eval 'has "\"$live\": kept: process " "$out" &&
	      has "\"$cli_id\": kept: /run/netns/$ns_cli is a network namespace" "$out" &&
	      has "\"$clioff\": kept: /run/netns/$ns_cli is a network namespace" "$out" &&
	      has "\"$running\": kept: its runtime has state for it" "$out" &&
	      has "\"$nons\": kept: the cache entry of network" "$out" &&
	      has "\"$nonsgone\": kept: the cache entry of network" "$out"'
check "gc says what it checked for the gone ones" \
	has "gc: container \"$cligone\": gone: detached 1 attachment(s), state removed (no state of runc, crun or containerd; /run/netns/$ns_cligone does not exist (named by its cache entry of network \"g11\"))" "$out"
check_gone "gc removed gone: state dir, pin, cache, port reservation" "$gone"
check_gone "gc removed wiped (cache only)" "$wiped"
check_gone "gc removed cligone (CLI entry, namespace deleted)" "$cligone"
check_gone "gc removed the stale lock and name link" "$stale"
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
check "no DEL for live, cli, clioff, running, nons, nonsgone" \
	eval '[ -z "$(dels "$live")$(dels "$cli_id")$(dels "$clioff")$(dels "$running")$(dels "$nons")$(dels "$nonsgone")" ]'
check "running's, nons' and nonsgone's cache entries are kept" \
	eval '[ -f "$cache/results/g11-$running-eth0" ] && [ -f "$cache/results/g11-$nons-eth0" ] &&
	      [ -f "$cache/results/g11-$nonsgone-eth0" ]'
# SPEC 1.1.0 "GC: Clean up any stale resources": the runtime passes
# cni.dev/valid-attachments, the attachments it still knows of.
valid=$(jq -cn --arg l "$live" --arg c "$cli_id" --arg r "$running" --arg n "$nons" --arg ng "$nonsgone" \
	'[{containerID: $l, ifname: "eth1"}, {containerID: $c, ifname: "eth0"},
	  {containerID: $r, ifname: "eth0"}, {containerID: $n, ifname: "eth0"},
	  {containerID: $ng, ifname: "eth0"}] | sort')
check "GC went to gb and gc of g11, after the DELs: $(calls)" \
	eval '[[ "$(calls)" == *"gb-GC gc-GC" ]] && [ -n "$(rec gb GC)" ] && [ -n "$(rec gc GC)" ]'
check "GC stdin: cni.dev/valid-attachments is exactly the live g11 attachments" \
	eval '[ "$(jq -c ".[\"cni.dev/valid-attachments\"] | sort" "$(rec gb GC stdin)")" = "$valid" ] &&
	      [ "$(jq -c ".[\"cni.dev/valid-attachments\"] | sort" "$(rec gc GC stdin)")" = "$valid" ]'
check "GC stdin is g11's configuration (name, cniVersion 1.1.0)" \
	jqe '.name == "g11" and .cniVersion == "1.1.0" and .type == "gb"' "$(rec gb GC stdin)"
check "no GC to ga (g10 is 1.0.0) or gd (g11off has disableGC)" \
	eval '[ -z "$(rec ga GC)" ] && [ -z "$(rec gd GC)" ]'
check "gc reports the GC verb" has "gc: network \"g11\": GC sent with 5 valid attachment(s)" "$out"
runhook "" list --json
check "list after gc: live (2), cli, clioff, running, nons, nonsgone" \
	eval '[ "$(jq -c "[.[].containerId] | sort" <<<"$out")" = "$(jq -cn --arg l "$live" --arg c "$cli_id" \
		--arg o "$clioff" --arg r "$running" --arg n "$nons" --arg ng "$nonsgone" \
		"[\$l, \$l, \$c, \$o, \$r, \$n, \$ng] | sort")" ]'

clear_rec
runhook "" gc
check "gc again: exits 0, detaches nothing, sends GC again" \
	eval '[ "$rc" = 0 ] && ! has "\": gone: " "$out" && [ "$(calls)" = "gb-GC gc-GC" ]'

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
check "... the GC's valid attachments are the CLI's, running's, nons' and nonsgone's only" \
	eval '[ "$(jq -c ".[\"cni.dev/valid-attachments\"] | sort" "$(rec gb GC stdin)")" = "$(jq -cn --arg c "$cli_id" --arg r "$running" \
		--arg n "$nons" --arg ng "$nonsgone" \
		"[\$c, \$r, \$n, \$ng] | map({containerID: ., ifname: \"eth0\"}) | sort")" ]'

# runc's state of the running container goes: the next gc takes it.
echo "# the running container's runtime state goes"
rm -rf "/run/runc/$running"
# A teardown that fails: the container's line says so, gc exits 1, and the
# next run takes it.
printf 'exit=1\nstdout={"cniVersion":"1.1.0","code":11,"msg":"try later"}\n' >"$bin/gb.DEL"
clear_rec
runhook "" gc
check "gc with gb's DEL failing: exit 1, running's line says its teardown failed" \
	eval '[ "$rc" = 1 ] && has "gc: container \"$running\": gone: teardown failed" "$out" &&
	      has "try later" "$err"'
rm -f "$bin/gb.DEL"
clear_rec
runhook "" gc
check "gc after its runtime state went: running is gone and detached" \
	eval '[ "$rc" = 0 ] && has "gc: container \"$running\": gone: detached 1 attachment(s)" "$out"'
check "... DELs gb and gc on eth0: $(dels "$running")" test "$(dels "$running")" = "gb:eth0 gc:eth0"
check_gone "... nothing left of it" "$running"

# containerd's runc keeps a container's state in /run/containerd/runc/<ns>/<id>;
# the hook knows it as "<ns>-<id>" (CONTAINER IDENTITY). Both may hold '-'.
echo "# a containerd container's runtime state: /run/containerd/runc/<ns>/<id> for <ns>-<id>"
ctrd_ns=k8s-$uniq ctrd_id=ctr-$uniq-x
ctrd=$ctrd_ns-$ctrd_id
ns_ctrd=cnihook-gc$uniq-ctrd
new_netns "$ns_ctrd"
cnihook_cli CNI_CONTAINERID="$ctrd" add g11 "/run/netns/$ns_ctrd"
check "ctrd: cnihook add g11 (container $ctrd)" eval '[ "$rc" = 0 ] && [ -f "$cache/results/g11-$ctrd-eth0" ]'
ip netns delete "$ns_ctrd"
for d in /run/containerd /run/containerd/runc; do
	if [ ! -d "$d" ]; then
		mkdir -m 0711 "$d"
		cleanup_push "rmdir '$d' 2>/dev/null || :"
	fi
done
mkdir -p -m 0711 "/run/containerd/runc/$ctrd_ns/$ctrd_id"
cleanup_push "rm -rf '/run/containerd/runc/$ctrd_ns'"
runhook "" gc --dry-run
check "gc --dry-run keeps ctrd: containerd's runc has state for it" \
	has "gc: container \"$ctrd\": kept: its runtime has state for it (/run/containerd/runc/$ctrd_ns/$ctrd_id)" "$out"
rm -rf "/run/containerd/runc/$ctrd_ns"
clear_rec
runhook "" gc
check "gc after its runtime state went: ctrd is gone and detached" \
	eval '[ "$rc" = 0 ] && has "gc: container \"$ctrd\": gone: detached 1 attachment(s)" "$out"'
check_gone "... nothing left of it" "$ctrd"

# A runtime state that is stopped: runc keeps a container's state after its
# init process died unseen (`runc run -d` and a kill -9, conmon killed), and
# never starts it again; with no process in its pin, it is gone.
echo "# a runc state whose init process is gone: stopped"
stopped=stopped-$uniq ns_stopped=cnihook-gc$uniq-stopped
new_netns "$ns_stopped"
bundle "$stopped" "$(annotations io.cnihook.networks g11)" "/run/netns/$ns_stopped"
attach "$stopped"
check "stopped: attached" test "$rc" = 0
ip netns delete "$ns_stopped"
mkdir -m 0700 "/run/runc/$stopped"
cleanup_push "rm -rf '/run/runc/$stopped'"
start_of() { awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$1/stat"; }
jq -n --argjson p "$$" --argjson s "$(start_of $$)" '{id: "x", init_process_pid: $p, init_process_start: $s}' \
	>"/run/runc/$stopped/state.json"
runhook "" gc --dry-run
check "gc --dry-run keeps stopped while the init process its runc state names lives" \
	has "gc: container \"$stopped\": kept: its runtime has state for it (/run/runc/$stopped), and its init process $$ lives" "$out"
sh -c 'exit 0' &
dead=$!
wait "$dead"
jq -n --argjson p "$dead" '{id: "x", init_process_pid: $p, init_process_start: 1}' >"/run/runc/$stopped/state.json"
clear_rec
runhook "" gc
check "gc: stopped is gone (its runc state is stopped, no process in its pin) and detached" \
	has "gc: container \"$stopped\": gone: detached 1 attachment(s), state removed (its runtime's state (/run/runc/$stopped) is stopped: its init process $dead is gone; no process lives in its pinned network namespace $state/$stopped/netns)" "$out"
check "... DELs gb and gc on eth0: $(dels "$stopped")" test "$(dels "$stopped")" = "gb:eth0 gc:eth0"
check_gone "... nothing left of it" "$stopped"
rm -rf "/run/runc/$stopped"

# ---------------------------------------------------------------- --netns-from-result
echo "# gc --netns-from-result: the sandbox of a cached result stands in for a missing netns"
before=$(snapshot)
clear_rec
runhook "" gc --dry-run --netns-from-result
show "$out"
check "gc --dry-run --netns-from-result: nonsgone would go, its result's sandbox does not exist" \
	has "gc: container \"$nonsgone\": gone: would detach 1 attachment(s) and remove its state (no state of runc, crun or containerd; /run/netns/$ns_cligone does not exist (named by the sandbox of its cached result of network \"g11\"))" "$out"
check "... nons is kept: its result's sandbox is a network namespace" \
	has "gc: container \"$nons\": kept: /run/netns/$ns_cli is a network namespace (named by the sandbox of its cached result of network \"g11\")" "$out"
check "... runs no plugin, changes nothing" eval 'no_plugin_ran && [ "$before" = "$(snapshot)" ]'
runhook "" gc --netns-from-result
check "gc --netns-from-result: nonsgone detached, nons kept" \
	eval '[ "$rc" = 0 ] && has "gc: container \"$nonsgone\": gone: detached 1 attachment(s)" "$out" &&
	      has "gc: container \"$nons\": kept: " "$out"'
check "... DELs gb and gc on eth0 for nonsgone, none for nons: $(dels "$nonsgone")" \
	eval '[ "$(dels "$nonsgone")" = "gb:eth0 gc:eth0" ] && [ -z "$(dels "$nons")" ]'
check_gone "... nothing left of nonsgone" "$nonsgone"

# ---------------------------------------------------------------- judged, then used again
# gc judges every container, then detaches those gone one after the other.
# While it detaches one (a DEL that takes a while), another one it judged
# gone is started again under its id (an engine restarting it) and its
# cache entry now names a live namespace: gc leaves that entry alone.
echo "# a container judged gone is started again before gc reaches it"
ra=ra-$uniq rb=rb-$uniq
ns_ra=cnihook-gc$uniq-ra ns_rb=cnihook-gc$uniq-rb ns_rb2=cnihook-gc$uniq-rb2
new_netns "$ns_ra"
new_netns "$ns_rb"
cnihook_cli CNI_CONTAINERID="$ra" add g10 "/run/netns/$ns_ra"
cnihook_cli CNI_CONTAINERID="$rb" add g10 "/run/netns/$ns_rb"
check "ra and rb attached by the CLI" \
	eval '[ -f "$cache/results/g10-$ra-eth0" ] && [ -f "$cache/results/g10-$rb-eth0" ]'
ip netns delete "$ns_ra"
ip netns delete "$ns_rb"
new_netns "$ns_rb2"
printf 'sleep-ms=1500\n' >"$bin/ga.DEL"
clear_rec
"$HOOKBIN" --config "$cfg" gc >"$tmp/race.out" 2>"$tmp/race.err" &
gc_pid=$!
SLEEPERS+=("$gc_pid")
wait_for 100 eval '[ -n "$(dels "$ra")" ]'
jq -c --arg n "/run/netns/$ns_rb2" '.netns = $n' "$cache/results/g10-$rb-eth0" >"$tmp/rb.new"
mv "$tmp/rb.new" "$cache/results/g10-$rb-eth0"
wait "$gc_pid"
rc=$?
rm -f "$bin/ga.DEL"
show "$(cat "$tmp/race.out")" "$(cat "$tmp/race.err")"
check "gc detached ra; rb, whose entry names a live namespace by then, is left alone" \
	eval '[ "$rc" = 0 ] && [ "$(dels "$ra")" = "ga:eth0" ] && [ -z "$(dels "$rb")" ] &&
	      [ ! -e "$cache/results/g10-$ra-eth0" ] && [ -f "$cache/results/g10-$rb-eth0" ]'
check "gc says so on rb's line" \
	grep -qF "gc: container \"$rb\": gone: detached 0 attachment(s) (the others name a live namespace by now: left alone)" "$tmp/race.out"
cnihook_cli CNI_CONTAINERID="$rb" del g10 "/run/netns/$ns_rb2"
check_gone "rb: nothing left once its owner deleted it" "$rb"
check_gone "ra: nothing left" "$ra"
ip netns delete "$ns_rb2"

# ---------------------------------------------------------------- GC while an attach runs
# SPEC 1.1.0, GC: what is not among the valid attachments a plugin may
# free. An attach whose plugins are still ADDing when gc is about to send
# the GC verb: gc waits for it (the result cache's lock) and counts it.
echo "# the GC verb waits for an attach in progress and counts it"
late=late-$uniq ns_late=cnihook-gc$uniq-late
new_netns "$ns_late"
bundle "$late" "$(annotations io.cnihook.networks g11)" "/run/netns/$ns_late"
printf 'sleep-ms=1500\n' >"$bin/gc.ADD"
clear_rec
"$HOOKBIN" --config "$cfg" createRuntime <<<"$(state "$late" creating)" \
	>"$tmp/late.out" 2>"$tmp/late.err" &
late_pid=$!
SLEEPERS+=("$late_pid")
wait_for 100 eval '[ -n "$(rec gc ADD)" ]'
runhook "" gc
gc_rc=$rc
wait "$late_pid"
late_rc=$?
rm -f "$bin/gc.ADD"
show "$out"
check "the attach and gc both succeed (gc: late is busy)" \
	eval '[ "$late_rc" = 0 ] && [ "$gc_rc" = 0 ] && has "gc: container \"$late\": kept: busy" "$out"'
check "the GC went out after the attach's ADDs, late among its valid attachments" \
	eval '[ -n "$(rec gb GC)" ] && [ "$(rec gb GC)" \> "$(rec gc ADD)" ] &&
	      jqe --arg l "$late" "[.[\"cni.dev/valid-attachments\"][] | select(.containerID == \$l)] | length == 1" \
		"$(rec gb GC stdin)"'
poststop "$late"
check_gone "late: poststop leaves nothing" "$late"
ip netns delete "$ns_late"

# ---------------------------------------------------------------- killed before its cache entry
# A hook SIGKILLed in the middle of an attach, after its record and its ADD
# journal (gb's ADD done, gc's running) and before any cache entry: list and
# status show it (cnihook(8), "UNFINISHED ATTACHES IN STATUS AND LIST"), with what
# is missing and gc's verdict, as gc itself judges it.
echo "# killed before its cache entry: list and status show it, and what gc would do"
killed=killed-$uniq ns_killed=cnihook-gc$uniq-killed
new_netns "$ns_killed"
bundle "$killed" "$(annotations io.cnihook.networks g11)" "/run/netns/$ns_killed"
printf 'sleep-ms=3000\n' >"$bin/gc.ADD"
clear_rec
"$HOOKBIN" --config "$cfg" createRuntime <<<"$(state "$killed" creating)" \
	>"$tmp/killed.out" 2>"$tmp/killed.err" &
killed_pid=$!
SLEEPERS+=("$killed_pid")
wait_for 100 eval '[ -n "$(rec gc ADD)" ]'
kill -9 "$killed_pid"
wait "$killed_pid" 2>/dev/null
rm -f "$bin/gc.ADD"
ip netns delete "$ns_killed"
check "killed: record and journal written, no cache entry, no status" \
	eval '[ -f "$state/$killed/record.json" ] && [ -f "$state/$killed/journal/g11:eth0" ] &&
	      [ ! -e "$cache/results/g11-$killed-eth0" ] && [ ! -e "$state/$killed/network-status.json" ]'
runhook "" list --no-trunc
show "$out"
check "list: killed's row, its address from the journal, missing cache and status, gc would detach" \
	grep -Eq "^$killed +g11 +eth0 +10\.99\.0\.2/24 +$state/$killed/netns +[0-9]+s +would-detach +cache,status\$" <<<"$out"
runhook "" list --json
check "list --json: killed with missing [cache, status], gc would-detach and the evidence" \
	jqe --arg k "$killed" '[.[] | select(.containerId == $k)] | length == 1 and
		(.[0] | .network == "g11" and .ifname == "eth0" and .missing == ["cache", "status"] and
		 .gc == "would-detach" and (.gcEvidence | test("no process lives in its pinned")))' <<<"$out"
runhook "" status --no-trunc
show "$out"
check "status: killed's row, missing cache and status, gc would detach" \
	grep -Eq "^$killed +g11 +eth0 +10\.99\.0\.2 +[-0-9a-f:]+ +yes +would-detach +cache,status\$" <<<"$out"
runhook "" status --json "$killed"
check "status --json ID: its network from the record, missing, gc" \
	jqe -n 'input | .[0] | .name == "g11" and .interface == "eth0" and .ips == ["10.99.0.2"] and
		.missing == ["cache", "status"] and .gc == "would-detach"' <<<"$out"
runhook "" gc --dry-run
check "gc --dry-run: gone, would detach" has "gc: container \"$killed\": gone: would detach" "$out"
clear_rec
runhook "" gc
check "gc detaches it: DEL of gc and gb on eth0 ($(dels "$killed"))" \
	eval 'has "gc: container \"$killed\": gone: detached" "$out" && [ "$(dels "$killed")" = "gb:eth0 gc:eth0" ]'
check_gone "killed: nothing left" "$killed"
runhook "" list --no-trunc
check "list: killed is gone from it" not grep -q "^$killed " <<<"$out"

# ---------------------------------------------------------------- the end
cnihook_cli CNI_CONTAINERID="$nons" del g11 "/run/netns/$ns_cli"
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
