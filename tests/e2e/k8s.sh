#!/bin/bash
# The Kubernetes path: cnihook as a chained CNI plugin at the end of the
# cluster network's list, under Debian's containerd and its CRI plugin, driven
# by the CRI calls a kubelet makes (tests/e2e/cri: our own runtime.v1 .proto
# and a small Python client). containerd runs with a private configuration
# (root, state, socket, plugin and configuration directories in a temporary
# directory); the pod's sandbox image is a busybox image built here.
# Cases: a pod selecting two networks (a static IP and a MAC; a port mapping
# reached from the host) gets eth0 from the cluster network and net1/net2, an
# application container of the pod sees them, Stop/RemovePodSandbox leave
# nothing; a failing secondary fails RunPodSandbox with cnihook's message and
# leaves nothing; a pod without the annotation is left as it was.
# Checks are often eval'd single-quoted strings, expanded when run.
# shellcheck disable=SC2016
set -uo pipefail
: "${CNIHOOK:?}"

srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
PY=/usr/bin/python3
PLUGINDIR=${PLUGINDIR:-/usr/lib/cni}
tap_init "containerd, network namespaces, iptables" containerd ctr runc jq ip nsenter "$PY"
"$PY" -c 'import grpc, grpc_tools' 2>/dev/null ||
	skip "Debian's python3-grpcio and python3-grpc-tools are needed for the CRI client"
[ -x "$PLUGINDIR/bridge" ] || skip "the CNI plugins ($PLUGINDIR) are needed"
[ -x /bin/busybox ] || skip "busybox-static is needed for the pod's image"
guard_host_state
hook_binary

tmp=$T_TMP
SOCK=$tmp/containerd.sock
IMAGE=localhost/cnihook-e2e-busybox:$uniq

# ---------------------------------------------------------------- the CRI client
mkdir -p "$tmp/py"
"$PY" -m grpc_tools.protoc -I "$srcdir/tests/e2e/cri" --python_out="$tmp/py" \
	--grpc_python_out="$tmp/py" "$srcdir/tests/e2e/cri/api.proto" ||
	fail "grpc_tools.protoc failed on tests/e2e/cri/api.proto"
export CRI_PYDIR=$tmp/py
# cri CALL [JSON]: one RuntimeService call; rc, out, err
cri() { run_in "" "$PY" "$srcdir/tests/e2e/cri/cri.py" "$SOCK" "$@"; }

# ---------------------------------------------------------------- networks
CSUB=$(random_subnet) ASUB=$(random_subnet) BSUB=$(random_subnet) XSUB=$(random_subnet)
CBR=ckc$uniq ABR=cka$uniq BBR=ckb$uniq XBR=ckx$uniq
CLUSTER=k8s-$uniq NETA=sec-a-$uniq NETB=sec-b-$uniq NETX=sec-bad-$uniq
for br in "$CBR" "$ABR" "$BBR" "$XBR"; do cleanup_push "delete_link '$br'"; done
for s in "$CSUB" "$ASUB" "$BSUB" "$XSUB"; do
	cleanup_push "purge_iptables '$uniq' '(^|[^0-9])${s//./\\.}\\.'"
done
# containerd's libcni writes its cache in /var/lib/cni (not configurable in
# its CRI): our cluster network's entries go at the end, whatever happens,
# and the directories too when this script made them and they are empty
# (others may use them meanwhile).
for d in /var/lib/cni /var/lib/cni/results; do
	[ -e "$d" ] || cleanup_push "rmdir '$d' 2>/dev/null || true"
done
cleanup_push "rm -f /var/lib/cni/results/$CLUSTER-*"
PORT=$((20000 + RANDOM % 20000))

cnibin=$tmp/cni-bin cniconf=$tmp/cni-conf conf=$tmp/net.d
mkdir -p "$cnibin" "$cniconf" "$conf" "$tmp/logs"
for p in "$PLUGINDIR"/*; do ln -s "$p" "$cnibin/"; done
ln -s "$HOOKBIN" "$cnibin/cnihook"
bridge() { # bridge BRIDGE SUBNET DATADIR: a bridge plugin with host-local
	jq -cn --arg br "$1" --arg sub "$2.0/24" --arg dd "$3" \
		'{type: "bridge", bridge: $br, isGateway: true, ipMasq: false,
		  ipam: {type: "host-local", dataDir: $dd, ranges: [[{subnet: $sub}]]}}'
}
# The cluster list: the test's bridge, then cnihook's entry as the shipped
# example config/k8s/10-cluster.conflist writes it (the README shows it),
# with this test's cnihook.json.
jq -n --arg n "$CLUSTER" --argjson b "$(bridge "$CBR" "$CSUB" "$tmp/ipam-c")" \
	--arg cfg "$tmp/cnihook.json" --slurpfile ex "$srcdir/config/k8s/10-cluster.conflist" \
	'($ex[0].plugins | map(select(.type == "cnihook"))) as $hook
	 | if ($hook | length) != 1 then error("no cnihook entry in the example") else . end
	 | {cniVersion: "1.0.0", name: $n, plugins: [$b, $hook[0] + {config: $cfg}]}' \
	>"$cniconf/10-cluster.conflist" || fail "the cluster list from config/k8s/10-cluster.conflist"
jq -n --arg n "$NETA" --arg br "$ABR" \
	'{cniVersion: "1.0.0", name: $n, plugins: [
	  {type: "bridge", bridge: $br, capabilities: {ips: true}, ipam: {type: "static"}},
	  {type: "tuning", capabilities: {mac: true}}]}' >"$conf/$NETA.conflist"
# NETB's result carries dns (the bridge plugin returns its configuration's):
# in plugin mode cnihook still writes neither /etc/resolv.conf nor
# /etc/hosts (cnihook(8), NAMES).
jq -n --arg n "$NETB" --argjson b "$(bridge "$BBR" "$BSUB" "$tmp/ipam-b")" \
	--arg ns "$BSUB.1" \
	'{cniVersion: "1.0.0", name: $n, plugins: [($b | .dns = {nameservers: [$ns], search: ["names.test"]}),
	  {type: "portmap", capabilities: {portMappings: true}}]}' >"$conf/$NETB.conflist"
jq -n --arg n "$NETX" --argjson b "$(bridge "$XBR" "$XSUB" "$tmp/ipam-x")" \
	'{cniVersion: "1.0.0", name: $n, plugins: [$b,
	  {type: "tuning", sysctl: {"net.cnihook.nosuchsysctl": "1"}}]}' >"$conf/$NETX.conflist"
jq -n --arg c "$conf" --arg b "$PLUGINDIR" --arg k "$tmp/cache" --arg s "$tmp/state" \
	'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s,
	  log: {syslog: false, level: "info"}}' >"$tmp/cnihook.json"

# ---------------------------------------------------------------- containerd
cat >"$tmp/containerd.toml" <<EOF
version = 2
root = "$tmp/root"
state = "$tmp/run"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$tmp/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$IMAGE"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$cnibin"
    conf_dir = "$cniconf"
    max_conf_num = 1
EOF
containerd --config "$tmp/containerd.toml" >"$tmp/containerd.log" 2>&1 &
CTRD=$!
stop_containerd() {
	kill "$CTRD" 2>/dev/null && wait "$CTRD" 2>/dev/null
	# The shims of pods a failed case left behind.
	local p
	for p in $(pgrep -f "containerd-shim-runc-v2 .*-address $SOCK" || true); do kill -9 "$p"; done
}
cleanup_push stop_containerd
ctr_() { ctr -a "$SOCK" -n k8s.io "$@"; }
wait_for 300 eval 'cri Version && [ "$rc" = 0 ]' ||
	fail "containerd did not answer on $SOCK: $(tail -20 "$tmp/containerd.log")"
check "containerd's CRI answers Version (runtime.v1)" eval 'jq -e ".runtimeName" <<<"$out" >/dev/null'

# ---------------------------------------------------------------- the image
# An OCI image archive of busybox-static: the sandbox ("pause": sleep) and the
# application container (httpd serving /www on port 8080).
img=$tmp/image rootfs=$tmp/image-rootfs
mkdir -p "$img/blobs/sha256" "$rootfs/bin" "$rootfs/www" "$rootfs/proc" "$rootfs/sys" \
	"$rootfs/dev" "$rootfs/tmp" "$rootfs/etc"
cp /bin/busybox "$rootfs/bin/busybox"
for a in sh sleep ip httpd cat; do ln -s busybox "$rootfs/bin/$a"; done
echo "cnihook-k8s-$uniq" >"$rootfs/www/index.html"
tar -C "$rootfs" --numeric-owner --owner=0 --group=0 -cf "$tmp/layer.tar" .
blob() { # blob FILE MEDIATYPE: store FILE as a blob, print its descriptor
	local d
	d=$(sha256sum "$1" | cut -d' ' -f1)
	cp "$1" "$img/blobs/sha256/$d"
	jq -cn --arg m "$2" --arg d "sha256:$d" --argjson s "$(stat -c %s "$1")" \
		'{mediaType: $m, digest: $d, size: $s}'
}
layer=$(blob "$tmp/layer.tar" application/vnd.oci.image.layer.v1.tar)
jq -cn --arg diff "$(jq -r .digest <<<"$layer")" \
	'{architecture: "amd64", os: "linux", rootfs: {type: "layers", diff_ids: [$diff]},
	  config: {Entrypoint: ["/bin/sleep", "1000000"], Env: ["PATH=/bin"]}}' >"$tmp/config.json"
config=$(blob "$tmp/config.json" application/vnd.oci.image.config.v1+json)
jq -cn --argjson c "$config" --argjson l "$layer" \
	'{schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
	  config: $c, layers: [$l]}' >"$tmp/manifest.json"
manifest=$(blob "$tmp/manifest.json" application/vnd.oci.image.manifest.v1+json)
jq -cn --argjson m "$manifest" --arg n "$IMAGE" \
	'{schemaVersion: 2, manifests: [$m + {annotations: {"io.containerd.image.name": $n},
	  platform: {architecture: "amd64", os: "linux"}}]}' >"$img/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' >"$img/oci-layout"
tar -C "$img" -cf "$tmp/image.tar" .
run_in "" ctr -a "$SOCK" -n k8s.io images import --snapshotter native "$tmp/image.tar"
ctr_ images ls -q >"$tmp/images" 2>&1
check "the busybox image is imported (ctr -n k8s.io images import)" \
	grep -qxF "$IMAGE" "$tmp/images"

# ---------------------------------------------------------------- helpers
# pod NAME ANNOTATIONS-JSON: a RunPodSandboxRequest
pod() {
	jq -cn --arg n "$1" --arg u "uid-$uniq-$1" --argjson a "$2" --arg l "$tmp/logs/$1" \
		'{config: {metadata: {name: $n, uid: $u, namespace: "cnihook-e2e"}, hostname: $n,
		  log_directory: $l, annotations: $a, linux: {}}}'
}
SANDBOXES=()
forget_pod() { # the sandbox is gone: no cleanup needed any more
	local i
	for i in "${!SANDBOXES[@]}"; do [ "${SANDBOXES[i]}" != "$1" ] || unset 'SANDBOXES[i]'; done
}
remove_pods() {
	local s
	for s in "${SANDBOXES[@]}"; do
		cri StopPodSandbox "{\"pod_sandbox_id\":\"$s\"}"
		cri RemovePodSandbox "{\"pod_sandbox_id\":\"$s\"}"
	done
}
cleanup_push remove_pods
# run_pod NAME ANNOTATIONS-JSON: RunPodSandbox; SB is the sandbox id
run_pod() {
	mkdir -p "$tmp/logs/$1"
	cri RunPodSandbox "$(pod "$1" "$2")"
	SB=$(jq -r '.podSandboxId // empty' <<<"$out" 2>/dev/null)
	[ -z "$SB" ] || SANDBOXES+=("$SB")
}
# netns_of SANDBOX: its network namespace path (PodSandboxStatus verbose)
netns_of() {
	cri PodSandboxStatus "{\"pod_sandbox_id\":\"$1\",\"verbose\":true}"
	jq -r '.info.info | fromjson | .runtimeSpec.linux.namespaces[] |
		select(.type == "network") | .path' <<<"$out"
}
in_pod() { nsenter --net="$NSP" "$@"; }
addr_of() { # addr_of IFNAME: its IPv4 address/prefix in the pod
	in_pod ip -4 -o addr show dev "$1" 2>/dev/null | awk '{print $4}'
}
# leftovers SANDBOX: what is left of the pod's networks
leftovers() {
	local s=$1
	[ ! -e "$tmp/state/$s" ] || echo "cnihook state: $tmp/state/$s"
	ls "$tmp/cache/results" 2>/dev/null | sed 's/^/cnihook cache: /'
	ls /var/lib/cni/results 2>/dev/null | grep -F -- "$s" | sed 's/^/containerd cache: /'
	find "$tmp"/ipam-* -type f -regex '.*/[0-9.]+' 2>/dev/null | sed 's/^/lease: /'
	(iptables-save -t nat 2>/dev/null || true) | grep -F -- "$s" | sed 's/^/iptables: /'
	(iptables-save -t nat 2>/dev/null || true) | grep -F -- "dport $PORT " | sed 's/^/iptables: /'
	[ ! -e "${NSP:-/nonexistent}" ] || echo "netns: $NSP"
	return 0
}
check_nothing_left() { # check_nothing_left NAME SANDBOX
	local l
	l=$(leftovers "$2")
	if [ -z "$l" ]; then tap_ok "$1"; else tap_not_ok "$1" "$l"; fi
}

# ---------------------------------------------------------------- a pod with two networks
echo "# a pod selecting two networks: a static IP and a MAC; a port mapping"
MAC=02:42:0a:$(printf '%02x' "$((RANDOM % 256))"):00:32
ann=$(jq -cn --arg a "$NETA" --arg b "$NETB" --arg ip "$ASUB.50/24" --arg mac "$MAC" \
	--argjson port "$PORT" '{"k8s.v1.cni.cncf.io/networks":
	([{name: $a, ips: [$ip], mac: $mac},
	  {name: $b, portMappings: [{hostPort: $port, containerPort: 8080, protocol: "tcp"}]}]
	 | tojson), "app": "web"}')
run_pod web "$ann"
check "RunPodSandbox succeeds" eval '[ "$rc" = 0 ] && [ -n "$SB" ]'
NSP=$(netns_of "$SB")
check "the sandbox has a network namespace" test -n "$NSP" -a -e "$NSP"
check "eth0 is the cluster network's (bridge + host-local)" \
	eval '[[ $(addr_of eth0) == "$CSUB".* ]]'
check "net1 has the static IP" test "$(addr_of net1)" = "$ASUB.50/24"
check "net1 has the MAC" \
	eval 'in_pod ip -o link show dev net1 | grep -qF "link/ether $MAC "'
check "net2 has an address of the second network" eval '[[ $(addr_of net2) == "$BSUB".* ]]'
cri PodSandboxStatus "{\"pod_sandbox_id\":\"$SB\"}"
check "the pod IP is the cluster network's (eth0)" \
	eval 'jq -e --arg p "$CSUB." ".status.network.ip | startswith(\$p)" <<<"$out" >/dev/null'
st=$tmp/state/$SB/network-status.json
check "network-status: eth0 of $CLUSTER first, the default; net1 and net2 not" \
	jqe --arg c "$CLUSTER" '.[0].name == $c and .[0].interface == "eth0" and .[0].default and
		.[1].interface == "net1" and (.[1].default | not) and .[2].interface == "net2" and
		(.[2].default | not)' "$st"
check "the K8S_POD_* arguments reached the secondaries' cache entries" \
	eval 'grep -q "K8S_POD_NAME" "$tmp/cache/results/$NETA-$SB-net1"'

# An application container of the pod: httpd on port 8080, in the pod's namespace.
ctr_json=$(jq -cn --arg s "$SB" --arg i "$IMAGE" --argjson sc "$(pod web "$ann" | jq .config)" \
	'{pod_sandbox_id: $s, config: {metadata: {name: "httpd"}, image: {image: $i},
	  command: ["/bin/httpd", "-f", "-p", "8080", "-h", "/www"], log_path: "httpd.log"},
	  sandbox_config: $sc}')
cri CreateContainer "$ctr_json"
CID=$(jq -r '.containerId // empty' <<<"$out" 2>/dev/null)
check "CreateContainer succeeds" test -n "$CID"
cri StartContainer "{\"container_id\":\"$CID\"}"
check "StartContainer succeeds" test "$rc" = 0
cri exec "$CID" ip -o link
check "the application container sees eth0, net1 and net2" \
	eval '[ "$rc" = 0 ] && has " eth0@" "$out" && has " net1@" "$out" && has " net2@" "$out"'
check "net2's result carries dns (the bridge plugin's)" \
	eval 'jq -e ".result.dns.nameservers | index(\"$BSUB.1\") != null" "$tmp/cache/results/$NETB-$SB-net2" >/dev/null'
cri exec "$CID" cat /etc/resolv.conf /etc/hosts
check "the pod's /etc/resolv.conf and /etc/hosts are the CRI's: no server of net2, no block of cnihook's" \
	eval '[ "$rc" = 0 ] && ! has "$BSUB.1" "$out" && ! has "cnihook" "$out" &&
		[ ! -e "$tmp/state/$SB/resolv.conf" ] && [ ! -e "$tmp/state/$SB/hosts" ]'
# (busybox 1.35's wget crashes with -T: timeout(1) bounds it.)
wait_for 30 eval 'timeout 3 busybox wget -q -O "$tmp/page" "http://$BSUB.1:$PORT/" 2>/dev/null'
check "the port mapping of net2 serves the container's page to the host" \
	eval 'grep -qxF "cnihook-k8s-$uniq" "$tmp/page"'
cri StopContainer "{\"container_id\":\"$CID\",\"timeout\":2}"
cri RemoveContainer "{\"container_id\":\"$CID\"}"
check "the container is stopped and removed" test "$rc" = 0
cri StopPodSandbox "{\"pod_sandbox_id\":\"$SB\"}"
check "StopPodSandbox succeeds" test "$rc" = 0
check "after StopPodSandbox: cnihook's state and cache of the pod are gone" \
	eval '[ ! -e "$tmp/state/$SB" ] && [ -z "$(ls -A "$tmp/cache/results" 2>/dev/null)" ]'
cri RemovePodSandbox "{\"pod_sandbox_id\":\"$SB\"}"
check "RemovePodSandbox succeeds" test "$rc" = 0
forget_pod "$SB"
check_nothing_left "nothing is left of the pod (state, caches, leases, rules, netns)" "$SB"

# ---------------------------------------------------------------- a failing secondary
echo "# a failing secondary"
NSP=
ann=$(jq -cn --arg a "$NETA" --arg x "$NETX" --arg ip "$ASUB.51/24" \
	'{"k8s.v1.cni.cncf.io/networks": ([{name: $a, ips: [$ip]}, {name: $x}] | tojson)}')
run_pod bad "$ann"
check "RunPodSandbox fails" test "$rc" != 0
check "with cnihook's message naming the network and the plugin" \
	eval 'has "network \"$NETX\"" "$err" && has "plugin \"tuning\"" "$err"'
cri ListPodSandbox '{}'
check "no sandbox is ready" \
	eval '! jq -e ".items[]? | select(.state != \"SANDBOX_NOTREADY\" and .metadata.name == \"bad\")" <<<"$out" >/dev/null'
for s in $(jq -r '.items[]? | .id' <<<"$out"); do
	cri RemovePodSandbox "{\"pod_sandbox_id\":\"$s\"}"
done
check "no cnihook state, cache or lease is left" \
	eval '[ -z "$(ls -A "$tmp/state" 2>/dev/null | grep -v "^ports$")" ] &&
		[ -z "$(leftovers none)" ]'
check "no veth is left on the secondaries' bridges" \
	eval '[ -z "$(ip -o link show master "$ABR" 2>/dev/null)$(ip -o link show master "$XBR" 2>/dev/null)" ]'

# ---------------------------------------------------------------- no annotation
echo "# a pod without the annotation"
run_pod plain '{"app":"plain"}'
check "RunPodSandbox succeeds" eval '[ "$rc" = 0 ] && [ -n "$SB" ]'
NSP=$(netns_of "$SB")
check "the pod has lo and eth0 only" \
	eval '[ "$(in_pod ip -o link | awk -F": " "{sub(/@.*/, \"\", \$2); print \$2}" | sort | tr "\n" " ")" = "eth0 lo " ]'
check "eth0 is the cluster network's" eval '[[ $(addr_of eth0) == "$CSUB".* ]]'
check "cnihook kept no state for it" test ! -e "$tmp/state/$SB"
cri StopPodSandbox "{\"pod_sandbox_id\":\"$SB\"}"
cri RemovePodSandbox "{\"pod_sandbox_id\":\"$SB\"}"
check "Stop and RemovePodSandbox succeed" test "$rc" = 0
forget_pod "$SB"
check_nothing_left "nothing is left of the plain pod" "$SB"

# ---------------------------------------------------------------- the end
stop_containerd
check "containerd stopped" eval '! kill -0 "$CTRD" 2>/dev/null'
finish
