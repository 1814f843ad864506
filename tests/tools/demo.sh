#!/bin/bash
# The main job, by hand: attach a fresh network namespace to the network
# shipped in config/net.d with the real bridge, host-local, portmap, firewall
# and tuning plugins, show the result, detach, and show that nothing is left.
# Usage: tests/tools/demo.sh [BUILD_DIR]   (as root; BUILD_DIR defaults to .)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
# lib.sh: cleanups run at exit whatever happens; guard_host_state puts
# net.ipv4.ip_forward and the plugins' shared iptables chains back as they were.
. "$src/tests/harness/lib.sh"
build=$(cd "${1:-.}" && pwd)
cnihook=$build/hook/cnihook
[ "$(id -u)" = 0 ] || { echo "demo: run as root" >&2; exit 1; }
[ -x "$cnihook" ] || { echo "demo: $cnihook not built" >&2; exit 1; }

ns=cnihook-demo-$$
cache=$(mktemp -d)
bridge_existed=no
ip link show cnihook0 >/dev/null 2>&1 && bridge_existed=yes
cleanup() {
	"$cnihook" del cnihook /run/netns/$ns >/dev/null 2>&1 || true
	ip netns del $ns 2>/dev/null || true
	[ $bridge_existed = yes ] || ip link del cnihook0 2>/dev/null || true
	rm -rf "$cache"
}
# Pushed before the del of `cleanup`, which runs host-local again (its lock).
forget_new_lease_dir /var/lib/cni/networks/cnihook # host-local's default dataDir
guard_host_state
cleanup_push cleanup

export NETCONFPATH=$src/config/net.d CNI_PATH=/usr/lib/cni CNI_CACHE_DIR=$cache
export CNI_CONTAINERID=demo$$ CNI_IFNAME=eth0
export CAP_ARGS='{"portMappings":[{"hostPort":18080,"containerPort":80,"protocol":"tcp"}],"mac":"0a:58:0a:59:00:42"}'

ip netns add $ns
echo "== cnihook validate cnihook"
"$cnihook" validate cnihook
echo "== cnihook add cnihook /run/netns/$ns"
"$cnihook" add cnihook /run/netns/$ns
echo "== inside the namespace"
ip -n $ns -brief address show eth0
ip -n $ns -brief link show eth0
echo "== cnihook check"
"$cnihook" check cnihook /run/netns/$ns && echo ok
echo "== iptables rules for the container"
iptables-save | grep -c "demo$$" | sed 's/^/rules naming the container: /'
echo "== cnihook del"
"$cnihook" del cnihook /run/netns/$ns && echo ok
echo "== what is left"
left=0
if ip -n $ns link show eth0 >/dev/null 2>&1; then echo "eth0 still in the namespace"; left=1; fi
n=$(iptables-save | grep -c "demo$$" || true); echo "iptables rules naming the container: $n"; [ "$n" = 0 ] || left=1
l=$( (grep -rl "demo$$" /var/lib/cni/networks/cnihook 2>/dev/null || true) | wc -l); echo "IP leases: $l"; [ "$l" = 0 ] || left=1
c=$(ls "$cache/results" 2>/dev/null | wc -l); echo "cache files: $c"; [ "$c" = 0 ] || left=1
[ $left = 0 ] && echo "nothing left" || { echo "LEAK"; exit 1; }
