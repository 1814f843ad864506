#!/bin/bash
# The OCI hook stages (cnihook createRuntime|poststop, and the stage inferred
# from the state's "status") without a container runtime: OCI states made by
# hand on cnihook's stdin, bundles with a config.json of our own, networks of
# recording fake plugins, a real network namespace (ip netns) and a process in
# a namespace of its own (unshare -n). Checks the hook contract (docs/architecture.md
# "Attach" and "Detach", cnihook(8), cnihook-annotations(7), cnihook.json(5)):
# what the plugins are called with, the pin, the record, the network status,
# rollback, detach after the state directory was wiped, bad input refused
# before any plugin runs, and that nothing is left behind.
# Checks are often eval'd single-quoted strings, expanded when run.
# shellcheck disable=SC2016
set -uo pipefail
: "${CNIHOOK:?}" "${FAKEPLUGIN:?}"

srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
tap_init "mounts, network namespaces" ip jq unshare

tmp=$T_TMP
NS=cnihook-hk-$uniq # the containers' network namespace
NSPATH=/run/netns/$NS

# ---------------------------------------------------------------- setup
bin=$tmp/bin conf=$tmp/net.d cache=$tmp/cache state=$tmp/state
mkdir -p "$bin" "$conf" "$tmp/bundles" "$tmp/run"
for p in fa fb fc fd fe; do cp "$FAKEPLUGIN" "$bin/$p"; done
netlist net1 '{"type":"fa"}'
netlist net2 '{"type":"fb"}'
netlist two '{"type":"fa"}' '{"type":"fb"}'
netlist pm '{"type":"fc","capabilities":{"portMappings":true}}' '{"type":"fd"}'
netlist mc '{"type":"fe","capabilities":{"mac":true}}'
netlist bw '{"type":"fe","capabilities":{"bandwidth":true,"infinibandGUID":true}}'

cfg=$tmp/cnihook.json
cat >"$cfg" <<EOF
{
  /* the test's own directories; comments are allowed */
  "confDir": "$conf",
  "binDirs": ["$bin"],
  "cacheDir": "$cache",
  "stateDir": "$state", // the pins and records
  "log": {"syslog": false}
}
EOF
jq -n --arg c "$conf" --arg b "$bin" --arg k "$cache" --arg s "$state" \
	'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, log: {syslog: false},
	  defaultNetworks: ["net1"]}' >"$tmp/default.json"

new_netns "$NS"

# hookin STDIN-TEXT ARGS...: run cnihook ARGS with that stdin; rc, out, err
HOOKWRAP=() # a command the hook runs under (private_run for a bad cnihook.json)
hookin() {
	local input=$1
	shift
	run_in "$input" "${HOOKWRAP[@]}" "$CNIHOOK" "$@"
}
# hook ID STATUS ARGS...: cnihook --config $CFG ARGS with ID's state ($PID too)
CFG=$cfg PID=
hook() {
	local id=$1 st=$2
	shift 2
	hookin "$(state "$id" "$st" "$PID")" --config "$CFG" "$@"
}
attach() { hook "$1" creating createRuntime; }
poststop() { hook "$1" stopped poststop; }

count_calls() { # count_calls COMMAND: how many calls of COMMAND were recorded
	local f n=0
	for f in "$bin"/rec/*-"$1".stdin; do [ -e "$f" ] && n=$((n + 1)); done
	echo "$n"
}
# reset: whatever a failed case left, so that the next starts clean
reset() {
	local d
	for d in "$state"/*/; do
		[ -d "$d" ] || continue
		unmount_pin "${d}netns"
		rm -rf "$d"
	done
	rm -f "$state"/*.lock
	rm -rf "$cache/results" "$bin"/*.ADD "$bin"/*.DEL "$bin"/*.default
	clear_rec
	CFG=$cfg PID=
}

# ---------------------------------------------------------------- attach
echo "# attach one network (io.cnihook.networks=net1)"
id=one-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1)"
clear_rec
attach "$id"
check "attach exits 0" test "$rc" = 0
check "attach is quiet on stdout and stderr" test -z "$out$err"
check "the plugin was called once, ADD" test "$(calls)" = "fa-ADD"
check "CNI_COMMAND=ADD" has_env fa ADD "CNI_COMMAND=ADD"
check "CNI_CONTAINERID is the OCI id" has_env fa ADD "CNI_CONTAINERID=$id"
check "CNI_IFNAME=eth0" has_env fa ADD "CNI_IFNAME=eth0"
check "PATH is the hook's own (the caller's)" has_env fa ADD "PATH=$PATH"
pin=$state/$id/netns
check "CNI_NETNS is the pin <stateDir>/<id>/netns" has_env fa ADD "CNI_NETNS=$pin"
check "CNI_ARGS starts with IgnoreUnknown=1" \
	grep -qE '^CNI_ARGS=IgnoreUnknown=1(;|$)' "$(rec fa ADD)"
check "the pin is a mount" is_mount "$pin"
check "the pin is the container's namespace (stat -L)" same_ns "$pin" "$NSPATH"
check "record.json exists" test -s "$state/$id/record.json"
check "record.json names the network and the pin" \
	jqe --arg p "$pin" '.netns == $p and .attachments[0].network == "net1" and
		.attachments[0].ifname == "eth0"' "$state/$id/record.json"
check "network-status.json exists" test -s "$state/$id/network-status.json"
check "network-status: net1, eth0, [10.99.0.2], default" \
	jqe 'length == 1 and .[0].name == "net1" and .[0].interface == "eth0" and
		.[0].ips == ["10.99.0.2"] and .[0].default == true' \
	"$state/$id/network-status.json"
st_file=$(cat "$state/$id/network-status.json")
hookin "" --config "$cfg" status --json "$id"
check "cnihook status --json ID exits 0" test "$rc" = 0
check "cnihook status --json ID prints network-status.json" test -n "$st_file" -a "$out" = "$st_file"
hookin "" --config "$cfg" status "$id"
check "cnihook status ID prints a table row: id, network, interface, address, default" \
	eval 'printf "%s\n" "$out" | grep -Eq "^$id +net1 +eth0 +10\.99\.0\.2 +- +yes +own +-\$"'
hookin "" --config "$cfg" status --json
check "cnihook status --json (all) has the container" \
	eval 'printf "%s" "$out" | jq -e --arg id "$id" ".[\$id][0].interface == \"eth0\"" >/dev/null' 
check "the cache file <cacheDir>/results/net1-<id>-eth0 exists" \
	test -f "$cache/results/net1-$id-eth0"
hookin "" --config "$cfg" status "nosuch-$uniq"
check "cnihook status of an unknown id fails, naming it" \
	eval '[ "$rc" != 0 ] && has "nosuch-$uniq" "$err"'

clear_rec
poststop "$id"
check "poststop exits 0, quietly" test "$rc" = 0 -a -z "$out$err"
check "poststop called DEL once" test "$(calls)" = "fa-DEL"
check "DEL had CNI_NETNS the pin" has_env fa DEL "CNI_NETNS=$pin"
check "DEL had CNI_IFNAME=eth0" has_env fa DEL "CNI_IFNAME=eth0"
check_gone "poststop left nothing (state dir, lock, pin mount, cache)" "$id"
reset

# ---------------------------------------------------------------- two networks
echo "# two networks, NPWG JSON form with \"interface\""
id=two-$uniq
bundle "$id" "$(annotations k8s.v1.cni.cncf.io/networks \
	'[{"name":"net1","interface":"eth0"},{"name":"net2","interface":"eth1"}]')"
attach "$id"
check "attach of two networks exits 0, quietly" test "$rc" = 0 -a -z "$out$err"
check "ADD net1 then net2" test "$(calls)" = "fa-ADD fb-ADD"
check "net2 got CNI_IFNAME=eth1" has_env fb ADD "CNI_IFNAME=eth1"
check "two cache entries" \
	test -f "$cache/results/net1-$id-eth0" -a -f "$cache/results/net2-$id-eth1"
check "network-status lists both, only the first default" \
	jqe '[.[] | [.name, .interface, .default]] == [["net1","eth0",true],["net2","eth1",false]]' \
	"$state/$id/network-status.json"
pin=$state/$id/netns
clear_rec
poststop "$id"
check "poststop exits 0, quietly" test "$rc" = 0 -a -z "$out$err"
check "DEL in reverse order: net2, then net1" test "$(calls)" = "fb-DEL fa-DEL"
check "the pin is unmounted" not is_mount "$pin"
check "the pin is removed" test ! -e "$pin"
check "<stateDir>/<id> is gone" test ! -e "$state/$id"
check "<stateDir>/<id>.lock is gone" test ! -e "$state/$id.lock"
check "the cache files are gone" \
	test ! -e "$cache/results/net1-$id-eth0" -a ! -e "$cache/results/net2-$id-eth1"
clear_rec
poststop "$id"
check "poststop again exits 0" test "$rc" = 0
check "poststop again calls no plugin" no_plugin_ran
check_gone "poststop again leaves nothing" "$id"
poststop "never-$uniq"
check "poststop of an id never attached exits 0" test "$rc" = 0
check "... and calls no plugin" no_plugin_ran
check_gone "... and leaves nothing (no lock)" "never-$uniq"
reset

# ---------------------------------------------------------------- runtimes differ
echo "# annotations from the state; poststop as podman and runc run it"
id=rt-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1)"
hookin "$(state "$id" creating | jq -c '. + {annotations: {"io.cnihook.networks": "net2"}}')" \
	--config "$cfg" createRuntime
check "annotations in the state take precedence over config.json's" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fb-ADD" ]'
clear_rec
state "$id" stopped | env -i "$CNIHOOK" --config "$cfg" poststop >"$tmp/run/out" 2>&1
rc=$? out=$(cat "$tmp/run/out") err=
check "poststop with an empty environment (podman) exits 0 and DELs" \
	eval '[ "$rc" = 0 ] && [ -z "$out" ] && [ "$(calls)" = "fb-DEL" ]'
check_gone "... and leaves nothing" "$id"
attach "$id"
mv "$tmp/bundles/$id" "$tmp/bundles/$id.gone"
clear_rec
poststop "$id"
check "poststop with the bundle gone exits 0 and DELs" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-DEL" ]'
check_gone "... and leaves nothing" "$id"
bundle "$id" "$(annotations io.cnihook.networks net1)"
attach "$id"
check "(attached again, then its config.json damaged)" test "$rc" = 0
printf '{"ociVersion":"1.0.2",' >"$tmp/bundles/$id/config.json"
clear_rec
poststop "$id"
check "poststop with a damaged config.json exits 0 and DELs" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-DEL" ]'
check "... warning that config.json is not needed to detach" \
	eval 'has "config.json" "$err" && has "not needed to detach, going on" "$err" && one_line "$err"'
check_gone "... and leaves nothing" "$id"
clear_rec
attach "$id"
check "createRuntime with the damaged config.json fails before any plugin" \
	eval '[ "$rc" != 0 ] && has "config.json" "$err" && no_plugin_ran'
check_gone "... and leaves nothing" "$id"
reset

# ---------------------------------------------------------------- stage inference
echo "# stage inferred from the state's status; prestart"
id=infer-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1)"
hook "$id" creating
check "no stage, status creating: attaches" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-ADD" ] && is_mount "$state/$id/netns"'
clear_rec
hook "$id" stopped
check "no stage, status stopped: detaches" eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-DEL" ]'
check_gone "... and leaves nothing" "$id"
clear_rec
hook "$id" created
check "no stage, status created: attaches" eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-ADD" ]'
hook "$id" stopped
check "... (and detaches)" test "$rc" = 0
clear_rec
hook "$id" running
check "no stage, status running: an error" test "$rc" != 0
check "... naming the field \"status\"" has 'field "status"' "$err"
check "... one line" one_line
check "... and no plugin ran" no_plugin_ran
hook "$id" creating prestart
check "prestart attaches" eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-ADD" ]'
poststop "$id"
check "poststop after prestart" test "$rc" = 0
check_gone "... leaves nothing" "$id"
reset

# ---------------------------------------------------------------- rollback
echo "# rollback: the second network's plugin fails ADD"
id=rb-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1,net2)"
printf 'exit=1\nstdout={"cniVersion":"1.0.0","code":7,"msg":"no more addresses"}\n' \
	>"$bin/fb.ADD"
attach "$id"
check "the failed attach exits non-zero" test "$rc" != 0
check "one line on stderr" one_line
check "it names the id, stage, network, plugin, CNI error 7 and the message" \
	has "cnihook: $id createRuntime: network \"net2\": plugin \"fb\": CNI error 7: no more addresses" "$err"
# SPEC 1.0.0 section 3, "Lifecycle & Ordering": "A _delete_ must still be
# executed even if the _add_ fails."
check "the failed net2 was DELeted, then net1" test "$(calls)" = "fa-ADD fb-ADD fb-DEL fa-DEL"
check "the rollback DEL of net2 had the pin and eth1" \
	eval 'has_env fb DEL "CNI_NETNS=$state/$id/netns" && has_env fb DEL "CNI_IFNAME=eth1"'
check "the rollback DEL of net1 had the pin" has_env fa DEL "CNI_NETNS=$state/$id/netns"
check_gone "nothing left (state dir, pin mount, cache, lock)" "$id"
rm -f "$bin/fb.ADD"
reset

echo "# rollback: a DEL of the rollback fails too (a possible leak): a warning"
id=rbw-$uniq
bundle "$id" "$(annotations io.cnihook.networks two)"
printf 'exit=1\nstdout={"cniVersion":"1.0.0","code":7,"msg":"no more addresses"}\n' \
	>"$bin/fb.ADD"
printf 'exit=1\nstdout={"cniVersion":"1.0.0","code":11,"msg":"cannot remove the veth"}\n' \
	>"$bin/fa.DEL"
attach "$id"
check "the failed attach exits non-zero, naming the ADD's failure" \
	eval '[ "$rc" != 0 ] && has "plugin \"fb\": CNI error 7: no more addresses" "$err"'
check "the rollback's failure is logged at the default level, naming the plugin" \
	eval 'grep -q "the rollback DEL after the failed ADD failed too: network \"two\": plugin \"fa\": CNI error 11: cannot remove the veth" <<<"$err"'
rm -f "$bin/fb.ADD" "$bin/fa.DEL"
reset

# ---------------------------------------------------------------- bad input
echo "# bad input: refused before any plugin runs"
id=bad-$uniq
# bad NAME EXPECT-STATUS PATTERN...: the last hook call failed (with that status, or any
# non-zero one for "x"), one stderr line containing every PATTERN, no plugin ran
bad() {
	local name=$1 want=$2 p good=1
	shift 2
	if [ "$want" = x ]; then [ "$rc" != 0 ] || good=0; else [ "$rc" = "$want" ] || good=0; fi
	[ -n "$err" ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || good=0
	for p in "$@"; do has "$p" "$err" || good=0; done
	no_plugin_ran || good=0
	[ -z "$(left "$id")" ] || good=0
	if [ "$good" = 1 ]; then tap_ok "$name: $err"; else tap_not_ok "$name"; fi
	reset
}
clear_rec
hookin '{"ociVersion":"1.0.2","id":' --config "$cfg" createRuntime
bad "malformed state JSON" x "OCI state"
hookin "$(jq -cn --arg i "$id" '{ociVersion: "1.0.2", id: $i, status: "creating", pid: 1}')" \
	--config "$cfg" createRuntime
bad "a createRuntime state without bundle" x 'OCI state: field "bundle": missing'
bundle "$id" "$(annotations io.cnihook.networks net1)"
hook "$id" creating frobnicate
bad "unknown stage argument exits 2" 2 "frobnicate"
bundle "$id" "$(annotations io.cnihook.networks net1,nosuch)"
attach "$id"
bad "unknown network" x "$id createRuntime: " 'annotation "io.cnihook.networks"' nosuch
bundle "$id" "$(annotations io.cnihook.networks net1 io.cnihook.ports 80:99999)"
attach "$id"
bad "bad port" x 'annotation "io.cnihook.ports"' 99999
bundle "$id" "$(annotations io.cnihook.networks net1 io.cnihook.mac 02:00:00:00:00:zz)"
attach "$id"
bad "bad MAC" x 'annotation "io.cnihook.mac"' 02:00:00:00:00:zz
bundle "$id" "$(annotations io.cnihook.networks net1 io.cnihook.ips 10.1.2.300/24)"
attach "$id"
bad "bad IP" x 'annotation "io.cnihook.ips"' 10.1.2.300
# The short form is [namespace/]name[@ifname]: "net1@a/b" reads as namespace
# "net1@a", name "b"; refused either way.
bundle "$id" "$(annotations io.cnihook.networks 'net1@a/b')"
attach "$id"
bad "bad short form (net1@a/b)" x 'annotation "io.cnihook.networks"' 'net1@a/b'
bundle "$id" "$(annotations io.cnihook.networks 'net1@a:b')"
attach "$id"
bad "bad interface name (net1@a:b)" x 'annotation "io.cnihook.networks"' 'a:b'
bundle "$id" "$(annotations io.cnihook.networks 'net1@abcdefghijklmnop')"
attach "$id"
bad "interface name of 16 bytes" x 'annotation "io.cnihook.networks"' 'abcdefghijklmnop'
bundle "$id" "$(annotations k8s.v1.cni.cncf.io/networks '[{"name":"net1","interface":"a/b"}]')"
attach "$id"
bad "bad interface name (NPWG \"interface\": \"a/b\")" x \
	'annotation "k8s.v1.cni.cncf.io/networks"' 'a/b'
bundle "$id" "$(annotations io.cnihook.networks 'net1@eth3,net2@eth3')"
attach "$id"
bad "the same interface name twice" x 'annotation "io.cnihook.networks"' eth3
bundle "$id" "$(annotations io.cnihook.networks net1 k8s.v1.cni.cncf.io/networks net2)"
attach "$id"
bad "both selection annotations" x io.cnihook.networks k8s.v1.cni.cncf.io/networks
bundle "$id" "$(annotations io.cnihook.networks net1 io.cnihook.netns "$NSPATH")"
attach "$id"
bad "io.cnihook.netns refused by default" x 'annotation "io.cnihook.netns"' refused
bundle "$id" "$(annotations io.cnihook.networks net1)"
hookin "$(jq -cn --arg b "$tmp/bundles/$id" \
	'{ociVersion: "1.0.2", id: "../x", status: "creating", bundle: $b}')" \
	--config "$cfg" createRuntime
bad "container id ../x" x '../x'
check "... made nothing outside the state directory" test ! -e "$tmp/x" -a ! -e "$tmp/x.lock"
hookin "$(jq -cn --arg b "$tmp/bundles/$id" \
	'{ociVersion: "1.0.2", id: "../x", status: "stopped", bundle: $b}')" \
	--config "$cfg" poststop
bad "container id ../x at poststop" x '../x'

# ---------------------------------------------------------------- misspelt keys
# A misspelt key once went unseen: io.cnihook.port=18280:80 started the container with a network but
# no port mapping and no word; a container with only a misspelt key was left
# alone. An unknown io.cnihook.* key is refused before any plugin runs, with
# the nearest key; poststop never refuses a teardown over a key.
echo "# misspelt annotations: refused, not ignored"
id=typo-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1 io.cnihook.port 18280:80)"
attach "$id"
bad "io.cnihook.port beside a selection" x "$id createRuntime: " \
	'annotation "io.cnihook.port": unknown key; did you mean "io.cnihook.ports"? (known: io.cnihook.networks, io.cnihook.ports,'
bundle "$id" "$(annotations io.cnihook.port 18280:80)"
attach "$id"
bad "io.cnihook.port alone (no selection, no defaultNetworks)" x \
	'annotation "io.cnihook.port": unknown key; did you mean "io.cnihook.ports"?'
bundle "$id" "$(annotations io.cnihook.network net1)"
CFG=$tmp/default.json attach "$id"
bad "io.cnihook.network alone, with defaultNetworks" x \
	'annotation "io.cnihook.network": unknown key; did you mean "io.cnihook.networks"?'
bundle "$id" "$(annotations io.cnihook.networks net1 io.cnihook.colour red)"
attach "$id"
bad "a key near none: the known keys" x 'annotation "io.cnihook.colour": unknown key (known: '
bundle "$id" "$(annotations io.cnihook.networks pm io.cnihook.ports 18280:80:tcp)"
attach "$id"
bad "18280:80:tcp" x 'annotation "io.cnihook.ports": "18280:80:tcp"' \
	'did you mean "18280:80/tcp"?'
bundle "$id" "$(annotations org.example.port 18280:80 io.cnihookports 1)"
attach "$id"
check "no io.cnihook.* key and no defaultNetworks: left alone, exit 0, quiet" \
	eval '[ "$rc" = 0 ] && [ -z "$out$err" ] && no_plugin_ran && [ -z "$(left "$id")" ]'
poststop "$id"
reset
# A refused container's poststop (runtimes run it at delete): nothing to do.
bundle "$id" "$(annotations io.cnihook.networks net1 io.cnihook.port 18280:80)"
attach "$id"
clear_rec
poststop "$id"
check "poststop of the refused container: exit 0, no plugin, nothing left" \
	eval '[ "$rc" = 0 ] && no_plugin_ran && [ -z "$(left "$id")" ]'
# The key appears after the attach (in config.json and in the state):
# poststop still detaches everything.
bundle "$id" "$(annotations io.cnihook.networks net1)"
attach "$id"
check "(attached net1)" eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-ADD" ]'
bundle "$id" "$(annotations io.cnihook.networks net1 io.cnihook.port 18280:80)"
clear_rec
hookin "$(state "$id" stopped | jq -c '. + {annotations: {"io.cnihook.port": "18280:80"}}')" \
	--config "$cfg" poststop
check "poststop with a misspelt key: exit 0, DEL net1" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-DEL" ]'
check_gone "... and nothing left (state dir, lock, pin, cache)" "$id"
reset

# ---------------------------------------------------------------- capabilities
echo "# capability arguments and CNI_ARGS"
id=cap-$uniq
bundle "$id" "$(annotations io.cnihook.networks pm io.cnihook.ports 8080:80)"
attach "$id"
check "attach with io.cnihook.ports exits 0" test "$rc" = 0
check "the portMappings plugin got runtimeConfig.portMappings" \
	jqe '.runtimeConfig.portMappings == [{hostPort: 8080, containerPort: 80, protocol: "tcp"}]' \
	"$(rec fc ADD stdin)"
check "the plugin without the capability got no runtimeConfig.portMappings" \
	jqe '.runtimeConfig.portMappings == null' "$(rec fd ADD stdin)"
clear_rec
poststop "$id"
check "DEL got the same portMappings (from the cache)" \
	jqe '.runtimeConfig.portMappings == [{hostPort: 8080, containerPort: 80, protocol: "tcp"}]' \
	"$(rec fc DEL stdin)"
check_gone "... and left nothing" "$id"
reset

bundle "$id" "$(annotations io.cnihook.networks net1 io.cnihook.mac 02:00:00:00:00:01)"
attach "$id"
check "io.cnihook.mac, chain without mac: CNI_ARGS=IgnoreUnknown=1;MAC=..." \
	has_env fa ADD "CNI_ARGS=IgnoreUnknown=1;MAC=02:00:00:00:00:01"
check "... and no runtimeConfig.mac" jqe '.runtimeConfig.mac == null' "$(rec fa ADD stdin)"
poststop "$id"
check "... poststop" test "$rc" = 0
reset
bundle "$id" "$(annotations io.cnihook.networks mc io.cnihook.mac 02:00:00:00:00:01)"
attach "$id"
check "io.cnihook.mac, chain with mac: runtimeConfig.mac" \
	jqe '.runtimeConfig.mac == "02:00:00:00:00:01"' "$(rec fe ADD stdin)"
check "... and no MAC= in CNI_ARGS" has_env fe ADD "CNI_ARGS=IgnoreUnknown=1"
poststop "$id"
reset
# cnihook-annotations(7) CAPABILITY ARGUMENTS: bandwidth and infinibandGUID.
bundle "$id" "$(annotations io.cnihook.networks bw \
	io.cnihook.bandwidth '{"ingressRate":100000,"ingressBurst":10000,"egressRate":200000,"egressBurst":20000}')"
attach "$id"
check "io.cnihook.bandwidth: runtimeConfig.bandwidth as given" \
	jqe '.runtimeConfig.bandwidth == {ingressRate: 100000, ingressBurst: 10000, egressRate: 200000, egressBurst: 20000}' \
	"$(rec fe ADD stdin)"
poststop "$id"
reset
bundle "$id" "$(annotations k8s.v1.cni.cncf.io/networks \
	'[{"name":"bw","bandwidth":{"egressRate":300000,"egressBurst":30000},"infiniband-guid":"c2:11:22:33:44:55:66:77"},{"name":"net1","interface":"eth1","default-route":["10.99.0.1"]}]')"
attach "$id"
check "NPWG bandwidth and infiniband-guid: runtimeConfig.bandwidth and .infinibandGUID" \
	jqe '.runtimeConfig.bandwidth == {egressRate: 300000, egressBurst: 30000} and
	     .runtimeConfig.infinibandGUID == "c2:11:22:33:44:55:66:77"' "$(rec fe ADD stdin)"
check "NPWG default-route: that attachment is the default one in the network status" \
	jqe '[.[] | [.name, .interface, .default]] == [["bw","eth0",false],["net1","eth1",true]]' \
	"$state/$id/network-status.json"
poststop "$id"
reset
bundle "$id" "$(annotations io.cnihook.networks net1 io.cnihook.ips 10.1.2.3/24 \
	io.cnihook.args 'FOO=bar;X=1')"
attach "$id"
check "io.cnihook.ips without the ips capability and io.cnihook.args: CNI_ARGS" \
	has_env fa ADD "CNI_ARGS=IgnoreUnknown=1;IP=10.1.2.3;FOO=bar;X=1"
poststop "$id"
reset
bundle "$id" "$(annotations k8s.v1.cni.cncf.io/networks '[{"name":"two","cni-args":{"foo":"bar","n":1}}]')"
attach "$id"
check "NPWG cni-args: exits 0" test "$rc" = 0
check "cni-args in the first plugin's args.cni" \
	jqe '.args.cni == {foo: "bar", n: 1}' "$(rec fa ADD stdin)"
check "cni-args in the second plugin's args.cni" \
	jqe '.args.cni == {foo: "bar", n: 1}' "$(rec fb ADD stdin)"
clear_rec
poststop "$id"
check "cni-args at DEL too" \
	jqe '.args.cni == {foo: "bar", n: 1}' "$(rec fa DEL stdin)"
check_gone "... and left nothing" "$id"
reset

# ---------------------------------------------------------------- stale cache entry
echo "# an existing cache entry is DELeted before the new ADD"
id=stale-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1)"
attach "$id"
check "first attach" test "$rc" = 0
unmount_pin "$state/$id/netns"
rm -rf "${state:?}/$id"
clear_rec
attach "$id"
check "attach again with the same id exits 0" test "$rc" = 0
check "the stale entry was DELeted before the new ADD" test "$(calls)" = "fa-DEL fa-ADD"
check "the new attachment is pinned" is_mount "$state/$id/netns"
clear_rec
poststop "$id"
check "poststop after that exits 0 and DELs once" eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-DEL" ]'
check_gone "... and leaves nothing" "$id"
reset

# ---------------------------------------------------------------- state dir wiped
echo "# poststop after the state directory was wiped (a reboot)"
id=wiped-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1,net2)"
attach "$id"
check "attach" test "$rc" = 0
unmount_pin "$state/$id/netns"
rm -rf "${state:?}/$id"
clear_rec
poststop "$id"
check "poststop exits 0" test "$rc" = 0
check "the DELs ran, found from the cache, in reverse order" test "$(calls)" = "fb-DEL fa-DEL"
check "DEL had an empty CNI_NETNS" has_env fa DEL "CNI_NETNS="
check "the cache is empty afterwards" test -z "$(ls "$cache/results" 2>/dev/null)"
check_gone "... and nothing is left" "$id"
reset

# The same with 11 interfaces: the reverse order from the cache is the
# natural order of the interface names, eth10 before eth9.
id=wiped11-$uniq
jq -n --arg c "$conf" --arg b "$bin" --arg k "$cache" --arg s "$state" \
	'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, log: {syslog: false},
	  policy: {maxAttachments: 16}}' >"$tmp/cnihook-11.json"
bundle "$id" "$(annotations k8s.v1.cni.cncf.io/networks \
	"$(jq -cn '[range(0; 11) | {name: "net1", interface: ("eth" + tostring)}]')")"
CFG=$tmp/cnihook-11.json attach "$id"
check "attach of 11 interfaces" test "$rc" = 0
unmount_pin "$state/$id/netns"
rm -rf "${state:?}/$id"
clear_rec
CFG=$tmp/cnihook-11.json poststop "$id"
order=$(for f in $(ls "$bin"/rec/*-fa-DEL.env | sort); do sed -n 's/^CNI_IFNAME=//p' "$f"; done | xargs)
check "11 DELs from the cache, eth10 down to eth0: $order" \
	test "$order" = "eth10 eth9 eth8 eth7 eth6 eth5 eth4 eth3 eth2 eth1 eth0"
check_gone "... and nothing is left" "$id"
reset

# ---------------------------------------------------------------- pin no longer a netns
echo "# poststop when the pin is no longer a namespace"
id=unpinned-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1)"
attach "$id"
check "attach" test "$rc" = 0
unmount_pin "$state/$id/netns"
check "(the pin file is still there, unmounted)" \
	eval '[ -f "$state/$id/netns" ] && ! is_mount "$state/$id/netns"'
clear_rec
poststop "$id"
check "poststop exits 0" test "$rc" = 0
check "DEL ran with an empty CNI_NETNS" \
	eval '[ "$(calls)" = "fa-DEL" ] && has_env fa DEL "CNI_NETNS="'
check "a warning says the pin is not a network namespace" \
	eval 'has "$state/$id/netns" "$err" && has "not a network namespace" "$err"'
check_gone "... and nothing is left" "$id"
reset

# ---------------------------------------------------------------- pid
echo "# namespace from the pid (config.json network entry without a path)"
# osleep: SLEEPER is a new process in a network namespace of its own
osleep() {
	local i
	unshare -n sleep 300 </dev/null >/dev/null 2>&1 &
	SLEEPER=$!
	SLEEPERS+=("$SLEEPER")
	for ((i = 0; i < 50; i++)); do
		[ "$(readlink "/proc/$SLEEPER/ns/net")" != "$(readlink /proc/self/ns/net)" ] && break
		sleep 0.1
	done
}
osleep
sleeper=$SLEEPER
id=pid-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1)" new
PID=$sleeper attach "$id"
check "attach with the pid exits 0, quietly" test "$rc" = 0 -a -z "$out$err"
check "the pin is /proc/<pid>/ns/net" same_ns "$state/$id/netns" "/proc/$sleeper/ns/net"
check "the pin is not the test's own namespace" \
	eval 'is_mount "$state/$id/netns" && ! same_ns "$state/$id/netns" /proc/self/ns/net'
clear_rec
PID=0 poststop "$id"
check "poststop with pid 0 (crun) exits 0 and DELs" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-DEL" ] && has_env fa DEL "CNI_NETNS=$state/$id/netns"'
check_gone "... and leaves nothing" "$id"
clear_rec
attach "$id"
check "attach without a pid and no netns path fails" test "$rc" != 0
check "... naming the field \"pid\"" has 'field "pid"' "$err"
check "... before any plugin" no_plugin_ran
reset
kill "$sleeper" 2>/dev/null
wait "$sleeper" 2>/dev/null

# ---------------------------------------------------------------- left alone
echo "# containers left alone"
id=ctr-$uniq
bundle "$id" "$(annotations io.kubernetes.cri-o.ContainerType container io.cnihook.networks net1)"
attach "$id"
check "ContainerType=container: exit 0, no plugin" eval '[ "$rc" = 0 ] && no_plugin_ran'
check_gone "... nothing made" "$id"
bundle "$id" "$(annotations io.kubernetes.cri.container-type container io.cnihook.networks net1)"
attach "$id"
check "containerd container-type=container: exit 0, no plugin" \
	eval '[ "$rc" = 0 ] && no_plugin_ran'
reset
id=host-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1)" host
attach "$id"
check "no network namespace entry + selection: exit non-zero" test "$rc" != 0
check "... saying it shares the host's namespace" has "shares the host" "$err"
check "... no plugin ran" no_plugin_ran
check_gone "... nothing made" "$id"
reset
bundle "$id" '{}' host
CFG=$tmp/default.json attach "$id"
check "defaultNetworks only and no network namespace entry: exit 0, no plugin" \
	eval '[ "$rc" = 0 ] && no_plugin_ran'
check_gone "... nothing made" "$id"
reset

id=first-$uniq
id2=joiner-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1)"
attach "$id"
check "first container attached" test "$rc" = 0
bundle "$id2" "$(annotations io.cnihook.networks net2)" "$NSPATH"
clear_rec
attach "$id2"
check "a container joining the first one's namespace: exit 0, no plugin" \
	eval '[ "$rc" = 0 ] && no_plugin_ran'
check_gone "... nothing made for it" "$id2"
check "the first container's attachment is untouched" \
	eval 'is_mount "$state/$id/netns" && [ -f "$state/$id/record.json" ] && [ -f "$cache/results/net1-$id-eth0" ]'
poststop "$id2"
check "poststop of the joiner: exit 0, no plugin" eval '[ "$rc" = 0 ] && no_plugin_ran'
check "... the first one still attached" is_mount "$state/$id/netns"
poststop "$id"
check "poststop of the first" eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-DEL" ]'
check_gone "... leaves nothing" "$id"
reset

# ---------------------------------------------------------------- defaultNetworks
echo "# defaultNetworks"
id=def-$uniq
bundle "$id" '{}'
CFG=$tmp/default.json attach "$id"
check "no annotation, defaultNetworks [net1]: attached" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-ADD" ] && has_env fa ADD "CNI_IFNAME=eth0"'
check "... as eth0 in the cache" test -f "$cache/results/net1-$id-eth0"
CFG=$tmp/default.json poststop "$id"
check_gone "... poststop leaves nothing" "$id"
reset

# ---------------------------------------------------------------- Kubernetes
echo "# Kubernetes annotations -> K8S_POD_* in CNI_ARGS"
id=k8s-$uniq
bundle "$id" "$(annotations io.kubernetes.cri-o.ContainerType sandbox io.kubernetes.pod.name p \
	io.kubernetes.pod.namespace ns io.kubernetes.pod.uid u io.cnihook.networks net1)"
attach "$id"
check "CRI-O sandbox: exit 0" test "$rc" = 0
check "CNI_ARGS has K8S_POD_NAME, _NAMESPACE, _UID, _INFRA_CONTAINER_ID" \
	has_env fa ADD "CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAME=p;K8S_POD_NAMESPACE=ns;K8S_POD_UID=u;K8S_POD_INFRA_CONTAINER_ID=$id"
clear_rec
poststop "$id"
check "DEL gets the same CNI_ARGS" \
	has_env fa DEL "CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAME=p;K8S_POD_NAMESPACE=ns;K8S_POD_UID=u;K8S_POD_INFRA_CONTAINER_ID=$id"
reset
bundle "$id" "$(annotations io.kubernetes.cri.container-type sandbox io.kubernetes.cri.sandbox-name p \
	io.kubernetes.cri.sandbox-namespace ns io.kubernetes.cri.sandbox-uid u \
	io.kubernetes.cri.sandbox-id "$id" io.cnihook.networks net1)"
attach "$id"
check "containerd sandbox: K8S_POD_* in CNI_ARGS" \
	has_env fa ADD "CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAME=p;K8S_POD_NAMESPACE=ns;K8S_POD_UID=u;K8S_POD_INFRA_CONTAINER_ID=$id"
poststop "$id"
reset

# ---------------------------------------------------------------- cnihook.json
echo "# cnihook.json errors and CNIHOOK_CONFIG"
# A broken file is logged to the default stateDir: a private one.
HOOKWRAP=(private_run)
id=cfg-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1)"
jq '. + {bogusField: 1}' "$tmp/default.json" >"$tmp/unknown.json"
CFG=$tmp/unknown.json attach "$id"
check "unknown field: exit non-zero naming the field" \
	eval '[ "$rc" != 0 ] && has "\"bogusField\"" "$err" && no_plugin_ran'
jq '. + {confDir: 5}' "$tmp/default.json" >"$tmp/wrongtype.json"
CFG=$tmp/wrongtype.json attach "$id"
check "wrong type: exit non-zero naming the field" \
	eval '[ "$rc" != 0 ] && has "\"confDir\"" "$err" && no_plugin_ran'
jq '. + {pluginTimeout: "60"}' "$tmp/default.json" >"$tmp/wrongtype2.json"
CFG=$tmp/wrongtype2.json attach "$id"
check "pluginTimeout as a string: exit non-zero naming the field" \
	eval '[ "$rc" != 0 ] && has "\"pluginTimeout\"" "$err" && no_plugin_ran'
CFG=$tmp/missing.json attach "$id"
check "--config to a missing file: an error naming it" \
	eval '[ "$rc" != 0 ] && has "$tmp/missing.json" "$err" && no_plugin_ran'
HOOKWRAP=()
check_gone "... none made anything" "$id"
attach "$id"
check "(attach for CNIHOOK_CONFIG)" test "$rc" = 0
CNIHOOK_CONFIG=$cfg "$CNIHOOK" status --json "$id" >"$tmp/run/out" 2>"$tmp/run/err"
rc=$? out=$(cat "$tmp/run/out") err=$(cat "$tmp/run/err")
check "CNIHOOK_CONFIG is honoured (status reads our stateDir)" \
	eval '[ "$rc" = 0 ] && [ -n "$out" ] && [ "$out" = "$(cat "$state/$id/network-status.json")" ]'
state "$id" stopped | CNIHOOK_CONFIG=$tmp/unknown.json private_run "$CNIHOOK" poststop \
	>/dev/null 2>"$tmp/run/err"
check "CNIHOOK_CONFIG naming a bad file: the error names it" \
	grep -qF "$tmp/unknown.json" "$tmp/run/err"
clear_rec
state "$id" stopped | CNIHOOK_CONFIG=$cfg "$CNIHOOK" poststop >/dev/null 2>&1
check "poststop through CNIHOOK_CONFIG detaches" \
	eval '[ "$(calls)" = "fa-DEL" ] && [ -z "$(left "$id")" ]'
reset

# ---------------------------------------------------------------- owners
echo "# one id, two owners: containerd namespaces, two runc roots"
# ostate BUNDLE STATUS [PID]: the OCI state of container $id in BUNDLE
ostate() {
	jq -cn --arg id "$id" --arg st "$2" --arg b "$1" --arg pid "${3-}" \
		'{ociVersion: "1.0.2", id: $id, status: $st, bundle: $b} +
		 (if $pid == "" then {} else {pid: ($pid | tonumber)} end)'
}
# obundle BUNDLE: a bundle at BUNDLE for $id (a namespace from the pid)
obundle() {
	mkdir -p "$1"
	cp "$tmp/bundles/$id/config.json" "$1/config.json"
}
# ohook BUNDLE STAGE [PID] [CONFIG]
ohook() { hookin "$(ostate "$1" "$([ "$2" = poststop ] && echo stopped || echo creating)" "${3-}")" \
	--config "${4:-$cfg}" "$2"; }
jq -n --arg c "$conf" --arg b "$bin" --arg k "$cache" --arg s "$state" \
		'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s,
		  log: {syslog: false, level: "info"}}' >"$tmp/info.json"
id=web-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1)" new
osleep
s1=$SLEEPER
osleep
s2=$SLEEPER

# containerd: the namespace is in the bundle's path; a-web and b-web are
# two containers, each with its own CNI_CONTAINERID and state.
ca=nsa-$uniq cb=nsb-$uniq
ba=$tmp/ctd/io.containerd.runtime.v2.task/$ca/$id
bb=$tmp/ctd/io.containerd.runtime.v2.task/$cb/$id
obundle "$ba"
obundle "$bb"
clear_rec
ohook "$ba" createRuntime "$s1"
check "containerd $ca/$id: attach exits 0" test "$rc" = 0
check "... CNI_CONTAINERID is <namespace>-<id>" has_env fa ADD "CNI_CONTAINERID=$ca-$id"
check "... its state directory is <stateDir>/<namespace>-<id>" \
	jqe --arg b "$ba" --arg n "$ca/$id" '.bundle == $b and .name == $n' "$state/$ca-$id/record.json"
clear_rec
ohook "$bb" createRuntime "$s2"
check "containerd $cb/$id beside it: attach exits 0, nothing detached" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-ADD" ] && has_env fa ADD "CNI_CONTAINERID=$cb-$id"'
check "... two pins, each its container's namespace" \
	eval 'same_ns "$state/$ca-$id/netns" "/proc/$s1/ns/net" && same_ns "$state/$cb-$id/netns" "/proc/$s2/ns/net"'
hookin "" --config "$cfg" status "$ca/$id"
check "cnihook status <namespace>/<id> shows it by that name" \
	eval '[ "$rc" = 0 ] && printf "%s\n" "$out" | grep -Eq "^$ca/${id:0:12} +net1 +eth0 "'
hookin "" --config "$cfg" status --no-trunc "$cb-$id"
check "... and by its CNI_CONTAINERID" \
	eval '[ "$rc" = 0 ] && printf "%s\n" "$out" | grep -Eq "^$cb/$id +net1 +eth0 "'
hookin "" --config "$cfg" list --no-trunc
check "cnihook list names both <namespace>/<id>" \
	eval 'printf "%s\n" "$out" | grep -Eq "^$ca/$id +net1 " && printf "%s\n" "$out" | grep -Eq "^$cb/$id +net1 "'
clear_rec
ohook "$ba" poststop
check "poststop of $ca/$id detaches it alone" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-DEL" ] && has_env fa DEL "CNI_CONTAINERID=$ca-$id" &&
		[ -z "$(left "$ca-$id")" ] && [ -f "$state/$cb-$id/record.json" ] &&
		same_ns "$state/$cb-$id/netns" "/proc/$s2/ns/net"'
ohook "$bb" poststop
check_gone "poststop of $cb/$id leaves nothing" "$cb-$id"

# Two runc --roots: the same id, the state shows nothing but the bundles.
b1=$tmp/root1/$id b2=$tmp/root2/$id
obundle "$b1"
obundle "$b2"
clear_rec
ohook "$b1" createRuntime "$s1"
check "runc root 1: $id attaches" test "$rc" = 0
check "... the record holds its bundle and pid" \
	jqe --arg b "$b1" --argjson p "$s1" '.bundle == $b and .pid == $p and (has("name") | not)' \
		"$state/$id/record.json"
clear_rec
ohook "$b2" createRuntime "$s2"
check "runc root 2: the same id while the first runs is refused" test "$rc" != 0
check "... the message names both bundles" eval 'has "$b1" "$err" && has "$b2" "$err"'
check "... no plugin ran, the first is attached as it was" \
	eval 'no_plugin_ran && same_ns "$state/$id/netns" "/proc/$s1/ns/net" &&
		jqe --arg b "$b1" ".bundle == \$b" "$state/$id/record.json" &&
		[ -f "$cache/results/net1-$id-eth0" ]'
ohook "$b2" poststop "" "$tmp/info.json"
check "poststop of the second: exit 0, the first left alone, said at info level" \
	eval '[ "$rc" = 0 ] && no_plugin_ran && has "left alone" "$err" && has "$b1" "$err" &&
		same_ns "$state/$id/netns" "/proc/$s1/ns/net" && [ -f "$cache/results/net1-$id-eth0" ]'
ohook "$b2" poststop
check "... quiet at the default level" test "$rc" = 0 -a -z "$out$err"
ohook "$b1" poststop
check "poststop of the first detaches it" eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-DEL" ]'
check_gone "... and nothing is left" "$id"

# A record whose container is gone (its process left the pinned namespace)
# is replaced as before: detached first.
ohook "$b1" createRuntime "$s1"
kill "$s1" 2>/dev/null
wait "$s1" 2>/dev/null
clear_rec
ohook "$b2" createRuntime "$s2"
check "the first's process gone: the second replaces its attachment" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-DEL fa-ADD" ] && has "detaching that first" "$err" &&
		same_ns "$state/$id/netns" "/proc/$s2/ns/net"'
# A record of an older cnihook (no bundle, pid or name) reads as before.
jq 'del(.bundle, .pid, .name)' "$state/$id/record.json" >"$tmp/run/old.json"
cat "$tmp/run/old.json" >"$state/$id/record.json"
clear_rec
ohook "$b1" poststop
check "a record without a bundle is detached by the id's poststop" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-DEL" ]'
check_gone "... and nothing is left" "$id"
kill "$s2" 2>/dev/null
wait "$s2" 2>/dev/null
reset

# ---------------------------------------------------------------- concurrency
echo "# 10 containers attached and detached in parallel"
# in_parallel STAGE INPUT: cnihook STAGE for the 10 at once, each with its
# $tmp/run/parI.INPUT; bad_rc=1 when one of them failed (its output shown)
in_parallel() {
	local i pids=()
	for i in 0 1 2 3 4 5 6 7 8 9; do
		"$CNIHOOK" --config "$cfg" "$1" <"$tmp/run/par$i.$2" >"$tmp/run/par$i.out" 2>&1 &
		pids+=($!)
	done
	bad_rc=0
	for i in 0 1 2 3 4 5 6 7 8 9; do
		wait "${pids[i]}" || { bad_rc=1; echo "# par$i: $(cat "$tmp/run/par$i.out")"; }
	done
}
ids=()
for i in 0 1 2 3 4 5 6 7 8 9; do
	new_netns "$NS-p$i"
	ids+=("par$i-$uniq")
	bundle "par$i-$uniq" "$(annotations io.cnihook.networks net1,net2)" "/run/netns/$NS-p$i"
	state "par$i-$uniq" creating >"$tmp/run/par$i.create"
	state "par$i-$uniq" stopped >"$tmp/run/par$i.stop"
done
in_parallel createRuntime create
check "10 parallel attaches all succeed" test "$bad_rc" = 0
n=0
for i in 0 1 2 3 4 5 6 7 8 9; do
	[ -f "$cache/results/net1-par$i-$uniq-eth0" ] && [ -f "$cache/results/net2-par$i-$uniq-eth1" ] &&
		same_ns "$state/par$i-$uniq/netns" "/run/netns/$NS-p$i" && n=$((n + 1))
done
check "20 distinct cache entries, each pin its own namespace" \
	eval '[ "$n" = 10 ] && [ "$(ls "$cache/results" | wc -l)" = 20 ]'
check "20 ADDs recorded" test "$(count_calls ADD)" = 20
in_parallel poststop stop
check "10 parallel poststops all succeed" test "$bad_rc" = 0
check "20 DELs recorded" test "$(count_calls DEL)" = 20
l=
for i in 0 1 2 3 4 5 6 7 8 9; do l+=$(left "par$i-$uniq"); done
check "nothing left of the 10" test -z "$l"
reset

# ---------------------------------------------------------------- another program's interface
echo "# another program's interface in the namespace (an engine's own eth0)"
# A veth pair as an engine's own network makes one: eth0 in the namespace,
# its peer on the host. cnihook never hands that name to a plugin: a failed
# ADD would be rolled back with a DEL of it.
new_netns "$NS-eng"
ENGPEER=ck${uniq:0:8}e
ip link add "$ENGPEER" type veth peer name eth0 netns "$NS-eng" || fail "ip link add veth"
cleanup_push "ip link delete '$ENGPEER' 2>/dev/null"
# Its default route leaves by it (no address, nothing is sent).
ip link set "$ENGPEER" up && ip -n "$NS-eng" link set eth0 up &&
	ip -n "$NS-eng" route add default dev eth0 || fail "the engine's default route"
eng_before=$(ip -n "$NS-eng" -o link show eth0 | cut -d: -f2-)
id=eng1-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1@eth0)" "/run/netns/$NS-eng"
clear_rec
attach "$id"
check "a name the annotation gave that another program's interface has: refused" test "$rc" != 0
check "the refusal names the interface and the fix" \
	eval 'grep -q "interface \"eth0\" exists in the container.s network namespace already" <<<"$err" &&
		grep -q "net1@net1" <<<"$err"'
check "no plugin ran (nothing to roll back)" no_plugin_ran
check "the other interface and its host peer are untouched" \
	eval '[ "$(ip -n "$NS-eng" -o link show eth0 | cut -d: -f2-)" = "$eng_before" ] &&
		ip link show "$ENGPEER" >/dev/null'
check "nothing left of the refused container" test -z "$(left "$id")"
reset
id=eng2-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1,net2)" "/run/netns/$NS-eng"
clear_rec
attach "$id"
check "names cnihook chooses beside another program's interface: attached" test "$rc" = 0
check "they come from net1, net2 (CNI_IFNAME=net1, then net2)" \
	eval 'has_env fa ADD CNI_IFNAME=net1 && has_env fb ADD CNI_IFNAME=net2'
check "the record and network-status name net1 and net2" \
	jqe '[.attachments[].ifname] == ["net1", "net2"]' "$state/$id/record.json"
check "it says so at info level only (quiet at the default level)" test -z "$err"
check "network-status: the default is the engine's eth0 (it holds the default route), not net1" \
	jqe '[.[] | select(.default)] == []' "$state/$id/network-status.json"
hookin "" --config "$cfg" status "$id"
check "cnihook status shows net1 and no DEFAULT yes" eval '[ "$rc" = 0 ] && grep -q net1 <<<"$out" && ! grep -q yes <<<"$out"'

poststop "$id"
check "poststop detaches them" eval '[ "$rc" = 0 ] && [ "$(count_calls DEL)" = 2 ]'
check "the other interface is still there" \
	eval '[ "$(ip -n "$NS-eng" -o link show eth0 | cut -d: -f2-)" = "$eng_before" ]'
check "nothing left" test -z "$(left "$id")"
reset
id=eng3-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1)"
clear_rec
attach "$id"
check "a namespace with only lo: the first name is eth0, as before" \
	eval '[ "$rc" = 0 ] && has_env fa ADD CNI_IFNAME=eth0'
poststop "$id"
reset

# ---------------------------------------------------------------- podman pods
echo "# podman pod members: the pod's networks, once, under its infra container's id"
# podman marks a pod's members as CRI-O does (ContainerType container, the
# infra container as SandboxID) and says it is podman (io.container.manager).
podann() { # podann SANDBOX NETWORKS: a member's annotations
	annotations io.container.manager libpod io.kubernetes.cri-o.ContainerType container \
		io.kubernetes.cri-o.SandboxID "$1" io.cnihook.networks "$2"
}
sbx=$(printf '%s' "pod-$uniq" | sha256sum | cut -c1-64)
bundle "pma-$uniq" "$(podann "$sbx" net1)"
bundle "pmb-$uniq" "$(podann "$sbx" net1)"
bundle "pmc-$uniq" "$(podann "$sbx" net2)"
bundle "pmd-$uniq" "$(annotations io.container.manager libpod io.kubernetes.cri-o.ContainerType container \
	io.kubernetes.cri-o.SandboxID "$sbx")"
clear_rec
attach "pma-$uniq"
check "the first annotated member attaches the pod's networks" test "$rc" = 0
check "under the pod's id (CNI_CONTAINERID = the infra container's id)" \
	eval 'has_env fa ADD "CNI_CONTAINERID=$sbx" && [ -f "$cache/results/net1-$sbx-eth0" ]'
check "the pod's members file names the member" grep -qx "member pma-$uniq" "$state/$sbx/pod-members"
check "nothing is kept under the member's own id" test -z "$(left "pma-$uniq")"
attach "pmb-$uniq"
check "a second member asking the same joins: no plugin runs again" \
	eval '[ "$rc" = 0 ] && [ "$(count_calls ADD)" = 1 ]'
check "the members file names both" \
	eval 'grep -qx "member pma-$uniq" "$state/$sbx/pod-members" && grep -qx "member pmb-$uniq" "$state/$sbx/pod-members"'
attach "pmc-$uniq"
check "a member asking other networks is refused, saying why" \
	eval '[ "$rc" != 0 ] && grep -q "every annotated member of a podman pod must ask the same" <<<"$err"'
check "no plugin ran for it" test "$(count_calls ADD)" = 1
attach "pmd-$uniq"
check "a member without a network annotation is left alone" \
	eval '[ "$rc" = 0 ] && [ "$(count_calls ADD)" = 1 ] && [ -z "$(left "pmd-$uniq")" ]'
poststop "pmd-$uniq"
poststop "pmc-$uniq"
poststop "pma-$uniq"
check "the first member stops: the pod keeps its networks for the other" \
	eval '[ "$rc" = 0 ] && [ "$(count_calls DEL)" = 0 ] && [ -f "$cache/results/net1-$sbx-eth0" ]'
poststop "pmb-$uniq"
check "the last member stops: the pod's networks are detached" \
	eval '[ "$rc" = 0 ] && [ "$(count_calls DEL)" = 1 ]'
check "nothing left of the pod" test -z "$(left "$sbx")"
reset

# ---------------------------------------------------------------- rootless
echo "# root of a user namespace (rootless podman): a clear refusal, nothing touched"
if command -v setpriv >/dev/null; then
	pubdir=$(mktemp -d)
	cleanup_push "rm -rf '$pubdir'"
	chmod 755 "$pubdir"
	cp "$cfg" "$pubdir/cnihook.json"
	# a copy of the binary: the build tree may be under a directory only
	# root can enter
	cp "$CNIHOOK" "$pubdir/cnihook"
	chmod 755 "$pubdir/cnihook"
	chmod 644 "$pubdir/cnihook.json"
	id=rl-$uniq
	mkdir -p "$pubdir/bundles/$id"
	printf '{"ociVersion":"1.0.2","process":{"args":["sh"]},"root":{"path":"rootfs"},"annotations":%s,"linux":{"namespaces":[{"type":"network"}]}}\n' \
		"$(annotations io.cnihook.networks net1)" >"$pubdir/bundles/$id/config.json"
	chmod -R a+rX "$pubdir/bundles"
	rlstate() { jq -cn --arg id "$id" --arg st "$1" --arg b "$pubdir/bundles/$id" \
		'{ociVersion: "1.0.2", id: $id, status: $st, bundle: $b, pid: 1}'; }
	rootless() { # rootless STAGE: the hook as uid 0 of a user namespace (host uid 65534)
		run_in "$(rlstate "$2")" setpriv --reuid=65534 --regid=65534 --clear-groups \
			unshare --user --map-root-user "$pubdir/cnihook" --config "$pubdir/cnihook.json" "$1"
	}
	before=$(ls -A "$state")
	clear_rec
	rootless createRuntime creating
	check "createRuntime in a user namespace: refused (the container does not start without its network)" \
		test "$rc" != 0
	check "one line on stderr saying user namespace, the host uid, and what to do" \
		eval 'one_line && grep -q "runs in a user namespace (its uid 0 is host uid 65534)" <<<"$err" &&
			grep -q "ROOTLESS" <<<"$err"'
	check "no plugin ran, the state directory untouched" \
		eval 'no_plugin_ran && [ "$(ls -A "$state")" = "$before" ]'
	rootless poststop stopped
	check "poststop of a container it never attached: exit 0" test "$rc" = 0
else
	check "setpriv (util-linux) runs the hook as another user" false
fi

# ---------------------------------------------------------------- the end
echo "# nothing left"
check "the state directory is empty" test -z "$(ls -A "$state")"
check "the cache holds no result" test -z "$(ls -A "$cache/results" 2>/dev/null)"
check "no mount under the state directory but itself (the shared bind mount)" \
	test -z "$(awk -v p="$state/" 'index($5, p) == 1' /proc/self/mountinfo)"
# The state directory stays a mount point (as /run/netns does for ip netns);
# it is ours to remove.
for ((i = 0; i < 10; i++)); do is_mount "$state" && umount "$state"; done
check "no mount under the temp dir" \
	test -z "$(awk -v p="$tmp/" 'index($5, p) == 1 || $5 == substr(p, 1, length(p) - 1)' \
		/proc/self/mountinfo)"
for n in "${T_NETNS[@]}"; do ip netns delete "$n"; done
check "the network namespaces are removed" \
	eval '! ip netns list | grep -qF -- "$uniq" && [ ! -e "$NSPATH" ]'
check "no process of ours is left" eval '! kill -0 "$sleeper" 2>/dev/null'

finish
