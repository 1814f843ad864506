#!/bin/bash
# cnihook as a chained CNI plugin (cnihook(8), PLUGIN MODE), run as a
# container runtime runs it: CNI_* in the environment, the cluster network's
# configuration (with runtimeConfig's pod annotations and the prevResult) on
# stdin, no argument. The secondaries are networks of recording fake plugins;
# the pod's namespace is a real one (ip netns). Checks: VERSION, STATUS, the
# pass-through without annotations (without even reading cnihook.json), ADD
# of a selection (net1, named interfaces, K8S_POD_* passed on, network-status
# with eth0 the default), CHECK, DEL (in reverse, from the record or the
# cache, idempotent, the cluster's own cache entry untouched), a failing
# secondary rolled back with a CNI error naming network, plugin, code and
# message, refusals before any plugin runs, GC, and nothing left behind.
# Checks are often eval'd single-quoted strings, expanded when run.
# shellcheck disable=SC2016
set -uo pipefail
: "${CNIHOOK:?}" "${FAKEPLUGIN:?}"

srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
tap_init "network namespaces" ip jq
hook_binary

tmp=$T_TMP
NS=cnihook-pl-$uniq
NSPATH=/run/netns/$NS

bin=$tmp/bin conf=$tmp/net.d cache=$tmp/cache state=$tmp/state
mkdir -p "$bin" "$conf"
for p in fa fb fc; do cp "$FAKEPLUGIN" "$bin/$p"; done
netlist n1 '{"type":"fa","capabilities":{"ips":true,"mac":true}}'
netlist n2 '{"type":"fb","capabilities":{"portMappings":true}}'
netlist n3 '{"type":"fc"}'
cfg=$tmp/cnihook.json
jq -n --arg c "$conf" --arg b "$bin" --arg k "$cache" --arg s "$state" \
	'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, log: {syslog: false}}' >"$cfg"
new_netns "$NS"

PREV=$(jq -cn --arg ns "$NSPATH" '{cniVersion: "1.0.0",
	interfaces: [{name: "eth0", mac: "0a:58:0a:f4:00:05", sandbox: $ns}],
	ips: [{address: "10.244.0.5/24", gateway: "10.244.0.1", interface: 0}],
	routes: [{dst: "0.0.0.0/0", gw: "10.244.0.1"}]}')
# conf ANNOTATIONS-JSON [CONFIG] [VERSION]: the cluster list's configuration
# for cnihook, as the runtime writes it
conf() {
	jq -cn --argjson a "$1" --arg c "${2-$cfg}" --arg v "${3-1.0.0}" --argjson p "$PREV" \
		'{cniVersion: $v, name: "cluster", type: "cnihook", config: $c,
		  runtimeConfig: {"io.kubernetes.cri.pod-annotations": $a}, prevResult: $p}'
}
POD_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=pod1;K8S_POD_INFRA_CONTAINER_ID=X;K8S_POD_UID=u1"
# cni COMMAND ID STDIN: cnihook run as the plugin; rc, out, err
cni() {
	run_in "$3" env CNI_COMMAND="$1" CNI_CONTAINERID="$2" CNI_NETNS="${NETNS-$NSPATH}" \
		CNI_IFNAME=eth0 CNI_ARGS="$POD_ARGS" CNI_PATH="$bin" "$CNIHOOK"
}
count_calls() {
	local f n=0
	for f in "$bin"/rec/*-"$1".stdin; do [ -e "$f" ] && n=$((n + 1)); done
	echo "$n"
}
reset() {
	rm -rf "$state" "$cache" "$bin"/*.ADD "$bin"/*.DEL "$bin"/*.default
	clear_rec
}
is_prev() { jq -e --argjson p "$PREV" '. == $p' <<<"$out" >/dev/null 2>&1; }
cni_error() { # cni_error CODE: stdout is a CNI error of that code
	jq -e --argjson c "$1" '.code == $c and (.msg | length > 0) and .cniVersion != null' \
		<<<"$out" >/dev/null 2>&1
}
# a cache entry of the cluster network itself, as the runtime's libcni writes it
cluster_entry() {
	mkdir -p "$cache/results"
	jq -cn --arg id "$1" --argjson p "$PREV" --arg c "$(conf '{}' | base64 -w0)" \
		'{kind: "cniCacheV1", containerId: $id, config: $c, ifName: "eth0",
		  networkName: "cluster", result: $p}' >"$cache/results/cluster-$1-eth0"
}

# ---------------------------------------------------------------- VERSION, STATUS
echo "# VERSION and STATUS"
cni VERSION "" '{"cniVersion":"1.1.0"}'
check "VERSION exits 0" test "$rc" = 0
check "VERSION lists 0.4.0, 1.0.0 and 1.1.0" \
	eval 'jq -e ".cniVersion == \"1.1.0\" and (.supportedVersions | index(\"1.1.0\") and
		index(\"1.0.0\") and index(\"0.4.0\"))" <<<"$out" >/dev/null'
cni VERSION "" ''
check "VERSION with an empty stdin answers too" eval '[ "$rc" = 0 ] && jq -e .supportedVersions <<<"$out" >/dev/null'
cni STATUS "" "$(conf '{}')"
check "STATUS exits 0 with nothing on stdout" test "$rc" = 0 -a -z "$out"
cni FROB x "$(conf '{}')"
check "an unknown CNI_COMMAND is a CNI error 4 naming it" \
	eval '[ "$rc" = 1 ] && cni_error 4 && has FROB "$out"'
cni FROB x '{"cniVersion":'
check "an unknown CNI_COMMAND with undecodable stdin: still error 4, the command named" \
	eval '[ "$rc" = 1 ] && cni_error 4 && has FROB "$out"'

# ---------------------------------------------------------------- no annotation
echo "# a pod without cnihook's annotations: the prevResult, nothing else"
id=plain-$uniq
cni ADD "$id" "$(conf '{"app":"web"}' /nonexistent/cnihook.json)"
check "ADD exits 0" test "$rc" = 0
check "stdout is exactly the prevResult" is_prev
check "stderr is empty" test -z "$err"
check "no plugin ran, no state, not even cnihook.json was read" \
	eval 'no_plugin_ran && [ ! -e "$state" ]'
cni ADD "$id" "$(jq -c 'del(.runtimeConfig)' <<<"$(conf '{}')")"
check "without runtimeConfig at all: the prevResult" eval '[ "$rc" = 0 ] && is_prev'
# The list's own version: a prevResult converted as the spec asks of a chained plugin.
cni ADD "$id" "$(conf '{}' "$cfg" 0.4.0)"
check "a 0.4.0 list gets the prevResult converted to 0.4.0" \
	eval '[ "$rc" = 0 ] && jq -e ".cniVersion == \"0.4.0\" and .ips[0].version == \"4\" and
		.ips[0].address == \"10.244.0.5/24\"" <<<"$out" >/dev/null'
cni ADD "$id" "$(jq -c 'del(.prevResult)' <<<"$(conf '{}')")"
check "no prevResult: a CNI error 7 (cnihook is chained)" \
	eval '[ "$rc" = 1 ] && cni_error 7 && has prevResult "$out"'
# What the pass-through costs of its own: the CPU time (user + system, which
# the kernel accounts exactly, unlike wall time on a loaded host) of ADD
# without annotation against VERSION: the same static binary started, the
# same stdin read and parsed.
cpu_over_version() { # cpu_over_version STDIN: microseconds a call
	/usr/bin/python3 - "$HOOKBIN" "$1" <<'PY'
import os, resource, subprocess, sys
binary, data = sys.argv[1], sys.argv[2].encode()
def run(command):
    env = dict(os.environ, CNI_COMMAND=command, CNI_CONTAINERID="x", CNI_IFNAME="eth0")
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([binary], input=data, env=env, stdout=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
n, add, ver = 100, 0.0, 0.0
for _ in range(n):
    add += run("ADD")
    ver += run("VERSION")
print(int((add - ver) / n * 1e6))
PY
}
own=$(cpu_over_version "$(conf '{"app":"web","io.kubernetes.pod.name":"web-0"}' /nonexistent/cnihook.json)")
check "the pass-through costs well under 1 ms of its own (${own} us of CPU a call over VERSION)" \
	test "${own:-1000}" -lt 300
cni DEL "$id" "$(conf '{}')"
check "DEL of a pod that never had secondaries exits 0, quietly" \
	eval '[ "$rc" = 0 ] && [ -z "$out" ] && no_plugin_ran'
check_gone "nothing is left of the plain pod" "$id"
reset

# ---------------------------------------------------------------- ADD, CHECK, DEL
echo "# ADD of a selection: net1 with a static IP and a MAC, n2 as blue with a port"
id=pod-$uniq
ann=$(jq -cn '{"k8s.v1.cni.cncf.io/networks":
	"[{\"name\":\"n1\",\"ips\":[\"10.77.0.9/24\"],\"mac\":\"02:00:00:00:77:09\"},{\"name\":\"n2\",\"interface\":\"blue\",\"portMappings\":[{\"hostPort\":18090,\"containerPort\":80,\"protocol\":\"tcp\"}]}]"}')
cni ADD "$id" "$(conf "$ann")"
check "ADD exits 0" test "$rc" = 0
check "stdout is the prevResult, unchanged" is_prev
check "n1 then n2 were added" test "$(calls)" = "fa-ADD fb-ADD"
check "n1 is net1 in CNI_NETNS" \
	eval 'has_env fa ADD "CNI_IFNAME=net1" && has_env fa ADD "CNI_NETNS=$NSPATH"'
check "n2 is the requested interface blue" has_env fb ADD "CNI_IFNAME=blue"
check "CNI_CONTAINERID is the runtime's" has_env fa ADD "CNI_CONTAINERID=$id"
check "K8S_POD_* are passed on in CNI_ARGS" \
	grep -q '^CNI_ARGS=IgnoreUnknown=1.*K8S_POD_NAMESPACE=ns1.*K8S_POD_NAME=pod1' "$(rec fa ADD)"
check "the static IP and MAC reach n1 as capability arguments" \
	jqe '.runtimeConfig.ips == ["10.77.0.9/24"] and .runtimeConfig.mac == "02:00:00:00:77:09"' \
	"$(rec fa ADD stdin)"
check "the port mapping reaches n2" \
	jqe '.runtimeConfig.portMappings[0].hostPort == 18090' "$(rec fb ADD stdin)"
ns_file=$state/$id/network-status.json
check "network-status: eth0 of the cluster network first, the default" \
	jqe '.[0].name == "cluster" and .[0].interface == "eth0" and .[0].default == true and
		.[0].ips == ["10.244.0.5"] and .[0].mac == "0a:58:0a:f4:00:05"' "$ns_file"
check "network-status: net1 and blue, not default" \
	jqe 'length == 3 and .[1].interface == "net1" and .[1].default == false and
		.[2].name == "n2" and .[2].interface == "blue" and .[2].default == false' "$ns_file"
check "the record names the cluster network and the runtime's namespace" \
	jqe --arg p "$NSPATH" '.clusterNetwork == "cluster" and .netns == $p' "$state/$id/record.json"
check "nothing is pinned by cnihook (the runtime owns the namespace)" test ! -e "$state/$id/netns"
check "cache entries n1-ID-net1 and n2-ID-blue" \
	test -f "$cache/results/n1-$id-net1" -a -f "$cache/results/n2-$id-blue"
hookin() { run_in "" "$CNIHOOK" --config "$cfg" "$@"; }
hookin status --json "$id"
check "cnihook status shows the pod's network-status" eval '[ "$rc" = 0 ] && has blue "$out"'

clear_rec
cni CHECK "$id" "$(conf "$ann")"
check "CHECK exits 0 and checks both" eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-CHECK fb-CHECK" ]'
fail_json='{"cniVersion":"1.0.0","code":7,"msg":"the interface is gone"}'
printf 'exit=1\nstdout=%s\n' "$fail_json" >"$bin/fb.CHECK"
cni CHECK "$id" "$(conf "$ann")"
check "CHECK fails as the secondary's CHECK failed, naming it" \
	eval '[ "$rc" = 1 ] && cni_error 7 && has "n2" "$out" && has "the interface is gone" "$out"'
rm -f "$bin/fb.CHECK"

clear_rec
cluster_entry "$id"
cni DEL "$id" "$(conf '{}')"
check "DEL without annotations exits 0, quietly on stdout" test "$rc" = 0 -a -z "$out"
check "DEL detached in reverse: n2 then n1" test "$(calls)" = "fb-DEL fa-DEL"
check "DEL of n1 has the runtime's CNI_NETNS" has_env fa DEL "CNI_NETNS=$NSPATH"
check "the cluster network's own cache entry is untouched" test -f "$cache/results/cluster-$id-eth0"
rm -f "$cache/results/cluster-$id-eth0"
check_gone "nothing is left of the pod" "$id"
clear_rec
cni DEL "$id" "$(conf "$ann")"
check "DEL again: exit 0, no plugin ran" eval '[ "$rc" = 0 ] && [ -z "$out" ] && no_plugin_ran'
NETNS='' cni DEL "$id" "$(conf "$ann")"
check "DEL with an empty CNI_NETNS: exit 0" test "$rc" = 0
reset

echo "# DEL after cnihook's state directory was wiped: from the cache"
id=wiped-$uniq
cni ADD "$id" "$(conf '{"k8s.v1.cni.cncf.io/networks":"n1,n3"}')"
check "ADD exits 0" test "$rc" = 0
cluster_entry "$id"
rm -rf "${state:?}/$id"
clear_rec
cni DEL "$id" "$(conf '{}')"
check "DEL exits 0" test "$rc" = 0
check "both secondaries deleted from the cache, newest first" test "$(calls)" = "fc-DEL fa-DEL"
check "the cluster network's cache entry is untouched" test -f "$cache/results/cluster-$id-eth0"
rm -f "$cache/results/cluster-$id-eth0"
check_gone "nothing is left" "$id"
reset

echo "# DEL with neither record nor attachment list: nothing proves an entry is cnihook's"
id=nolist-$uniq
cni ADD "$id" "$(conf '{"k8s.v1.cni.cncf.io/networks":"n1"}')"
check "ADD exits 0" test "$rc" = 0
cluster_entry "$id"
rm -rf "${state:?}/$id" "$cache/cnihook-attachments/$id"
clear_rec
cni DEL "$id" "$(conf '{}')"
check "DEL exits 0, runs no plugin, leaves the entries of the pod's id to their owners" \
	eval '[ "$rc" = 0 ] && no_plugin_ran && [ -f "$cache/results/n1-$id-net1" ] &&
		[ -f "$cache/results/cluster-$id-eth0" ]'
rm -f "$cache/results/cluster-$id-eth0" "$cache/results/n1-$id-net1"
check_gone "nothing else is left" "$id"
reset

echo "# default-route asked by a secondary"
id=dr-$uniq
cni ADD "$id" "$(conf '{"k8s.v1.cni.cncf.io/networks":"[{\"name\":\"n1\",\"default-route\":[\"10.99.0.1\"]}]"}')"
check "ADD exits 0" test "$rc" = 0
check "network-status: net1 is the default, eth0 is not" \
	jqe '.[0].interface == "eth0" and .[0].default == false and .[1].interface == "net1" and
		.[1].default == true' "$state/$id/network-status.json"
cni DEL "$id" "$(conf '{}')"
check_gone "DEL leaves nothing" "$id"
reset

# ---------------------------------------------------------------- failures
echo "# a failing secondary: the ones before it detached, a CNI error"
id=fail-$uniq
printf 'exit=1\nstdout={"cniVersion":"1.0.0","code":11,"msg":"no address left","details":"pool n2"}\n' \
	>"$bin/fb.ADD"
cni ADD "$id" "$(conf '{"k8s.v1.cni.cncf.io/networks":"n1,n2"}')"
check "ADD exits 1" test "$rc" = 1
check "stdout is one CNI error with the plugin's code 11" cni_error 11
check "the message names network, plugin, code and message" \
	eval 'jq -e ".msg | contains(\"network \\\"n2\\\"\") and contains(\"plugin \\\"fb\\\"\") and
		contains(\"11\") and contains(\"no address left\")" <<<"$out" >/dev/null'
check "n1 was added, then deleted" test "$(calls)" = "fa-ADD fb-ADD fb-DEL fa-DEL"
check "the log on stderr says the same" has "no address left" "$err"
check_gone "nothing is left" "$id"
reset

echo "# refusals before any plugin runs"
refused() { # refused NAME ANNOTATIONS NEEDLE [CODE]
	local id=ref-$uniq needle=$3 code=${4-7}
	clear_rec
	cni ADD "$id" "$(conf "$2")"
	check "$1: exit 1, CNI error $code" eval '[ "$rc" = 1 ] && cni_error "$code"'
	check "$1: the message says \"$needle\"" \
		eval 'jq -e --arg n "$needle" ".msg | contains(\$n)" <<<"$out" >/dev/null'
	check "$1: no plugin ran" no_plugin_ran
	check_gone "$1: nothing is left" "$id"
}
refused "invalid NPWG JSON" '{"k8s.v1.cni.cncf.io/networks":"[{\"name\":\"n1\""}' \
	'annotation "k8s.v1.cni.cncf.io/networks"'
refused "an unknown network" '{"k8s.v1.cni.cncf.io/networks":"nosuch"}' 'nosuch' 999
refused "the cluster interface requested" '{"k8s.v1.cni.cncf.io/networks":"n1@eth0"}' \
	'interface "eth0" is the cluster network'"'"'s'
refused "io.cnihook.netns in a pod" '{"io.cnihook.networks":"n1","io.cnihook.netns":"/run/netns/x"}' \
	'io.cnihook.netns'
jq '.policy = {networks: ["n3"]}' "$cfg" >"$tmp/policy.json"
clear_rec
cni ADD "pol-$uniq" "$(conf '{"k8s.v1.cni.cncf.io/networks":"n1"}' "$tmp/policy.json")"
check "the policy applies (networks allowed: n3): refused, naming n1" \
	eval '[ "$rc" = 1 ] && cni_error 7 && has n1 "$out" && no_plugin_ran'
# The same annotation, the same message as the hook's.
mkdir -p "$tmp/bundles/h"
jq -n --arg p "$NSPATH" '{ociVersion: "1.0.2", process: {args: ["sh"]}, root: {path: "r"},
	annotations: {"k8s.v1.cni.cncf.io/networks": "[{\"name\":\"n1\""},
	linux: {namespaces: [{type: "network", path: $p}]}}' >"$tmp/bundles/h/config.json"
plugin_msg=$(cni ADD "same-$uniq" "$(conf '{"k8s.v1.cni.cncf.io/networks":"[{\"name\":\"n1\""}')" &&
	jq -r .msg <<<"$out")
run_in "$(jq -cn --arg b "$tmp/bundles/h" '{ociVersion: "1.0.2", id: "h", status: "creating", bundle: $b, pid: 1}')" \
	"$CNIHOOK" --config "$cfg" createRuntime
check "the hook refuses the same annotation with the same message" \
	eval '[ -n "$plugin_msg" ] && has "$plugin_msg" "$err"'
NETNS='' cni ADD "nons-$uniq" "$(conf '{"k8s.v1.cni.cncf.io/networks":"n1"}')"
check "ADD with an empty CNI_NETNS: CNI error 4" eval '[ "$rc" = 1 ] && cni_error 4'
run_in "$(conf '{"k8s.v1.cni.cncf.io/networks":"n1"}')" env CNI_COMMAND=ADD \
	CNI_CONTAINERID=../x CNI_NETNS="$NSPATH" CNI_IFNAME=eth0 "$CNIHOOK"
check "a CNI_CONTAINERID that would leave the state directory: CNI error 4" \
	eval '[ "$rc" = 1 ] && cni_error 4 && [ ! -e "$tmp/x" ]'
cni ADD "bad-$uniq" '{"cniVersion":"1.0.0",'
check "invalid JSON on stdin: CNI error 6" eval '[ "$rc" = 1 ] && cni_error 6'
# The answer is made before anything is attached: without a prevResult, or
# with one that cannot be converted, nothing is attached to undo.
for k in missing empty; do
	clear_rec
	case $k in
	missing) f='del(.prevResult)' ;;
	empty) f='.prevResult = {}' ;;
	esac
	cni ADD "prev$k-$uniq" "$(jq -c "$f" <<<"$(conf '{"k8s.v1.cni.cncf.io/networks":"n1"}')")"
	check "a selection with the prevResult $k: refused, naming prevResult" \
		eval '[ "$rc" = 1 ] && jq -e ".code > 0" <<<"$out" >/dev/null && has prevResult "$out"'
	check "the prevResult $k: no plugin ran" no_plugin_ran
	check_gone "the prevResult $k: nothing is left" "prev$k-$uniq"
done
cni ADD "bad-$uniq" "$(conf '{"k8s.v1.cni.cncf.io/networks":"n1"}' relative.json)"
check "a relative \"config\": CNI error 7 naming the field" \
	eval '[ "$rc" = 1 ] && cni_error 7 && has "field \\\"config" "$out"'
reset

# ---------------------------------------------------------------- GC
echo "# GC: secondaries of sandboxes not among the valid attachments"
cni ADD "gca-$uniq" "$(conf '{"k8s.v1.cni.cncf.io/networks":"n1"}')"
cni ADD "gcb-$uniq" "$(conf '{"k8s.v1.cni.cncf.io/networks":"n3"}')"
check "two pods attached" test -e "$state/gca-$uniq/record.json" -a -e "$state/gcb-$uniq/record.json"
clear_rec
gc_conf=$(jq -c --arg a "gca-$uniq" '. + {cniVersion: "1.1.0",
	"cni.dev/valid-attachments": [{containerID: $a, ifname: "eth0"}]} | del(.prevResult)' \
	<<<"$(conf '{}')")
cni GC "" "$(jq -c 'del(."cni.dev/valid-attachments")' <<<"$gc_conf")"
check "GC without cni.dev/valid-attachments: exit 0, no pod taken for gone" \
	eval '[ "$rc" = 0 ] && no_plugin_ran && [ -e "$state/gca-$uniq/record.json" ] &&
		[ -e "$state/gcb-$uniq/record.json" ]'
check "GC without the list: a warning says so" has "no cni.dev/valid-attachments" "$err"
# cni.dev/attachments, the field's first name in spec 1.1.0, sent alone.
cni ADD "gcd-$uniq" "$(conf '{"k8s.v1.cni.cncf.io/networks":"n1"}')"
clear_rec
cni GC "" "$(jq -c --arg a "gca-$uniq" --arg b "gcb-$uniq" 'del(."cni.dev/valid-attachments") |
	."cni.dev/attachments" = [{containerID: $a, ifname: "eth0"}, {containerID: $b, ifname: "eth0"}]' \
	<<<"$gc_conf")"
check "GC with cni.dev/attachments alone: the pod not in it is detached" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fa-DEL" ] && [ -e "$state/gcb-$uniq/record.json" ]'
check_gone "nothing is left of that pod" "gcd-$uniq"
clear_rec
cni GC "" "$gc_conf"
check "GC exits 0" test "$rc" = 0
check "GC deleted the invalid pod's secondary only" test "$(calls)" = "fc-DEL"
check_gone "nothing is left of the invalid pod" "gcb-$uniq"
check "the valid pod is still attached" test -e "$state/gca-$uniq/record.json"
cni GC "" "$(jq -c '.name = "other" | ."cni.dev/valid-attachments" = []' <<<"$gc_conf")"
check "GC of another cluster network leaves the pod alone" \
	eval '[ "$rc" = 0 ] && [ -e "$state/gca-$uniq/record.json" ]'
clear_rec
run_in "" "$CNIHOOK" --config "$cfg" gc
check "cnihook gc (the timer's) leaves a live pod's secondaries alone" \
	eval '[ "$rc" = 0 ] && no_plugin_ran && [ -e "$state/gca-$uniq/record.json" ] &&
		[ -e "$cache/results/n1-gca-$uniq-net1" ]'
cni DEL "gca-$uniq" "$(conf '{}')"
check_gone "DEL leaves nothing of the valid pod" "gca-$uniq"
# A pod whose runtime never sent DEL: once its namespace is gone, gc cleans up.
new_netns "$NS-2"
NETNS=/run/netns/$NS-2 cni ADD "gcc-$uniq" "$(conf '{"k8s.v1.cni.cncf.io/networks":"n3"}')"
ip netns delete "$NS-2"
clear_rec
run_in "" "$CNIHOOK" --config "$cfg" gc
check "cnihook gc detaches a pod whose namespace is gone" \
	eval '[ "$rc" = 0 ] && [ "$(calls)" = "fc-DEL" ]'
check_gone "nothing is left of it" "gcc-$uniq"
reset

# ---------------------------------------------------------------- the end
echo "# nothing left"
check "no pod state" test -z "$(ls -A "$state" 2>/dev/null | grep -v '^ports$')"
check "no cache entry" test -z "$(ls -A "$cache/results" 2>/dev/null)"
for n in "${T_NETNS[@]}"; do ip netns delete "$n" 2>/dev/null; done
check "the network namespaces are removed" test ! -e "$NSPATH" -a ! -e "$NSPATH-2"

finish
