#!/bin/bash
# What a podman user pays for the network (docs/benchmarks.md, "Podman: the
# network's share of a container start"). Not a test: it prints figures and
# exits 0 whatever they are (and also when it cannot run: not root, no
# podman, ...).
#
#   tests/bench/podman.sh BUILD_DIR
#
# Times `podman run --rm IMAGE true` (busybox, `podman import`ed into a
# private vfs storage) ROUNDS times in each of these variants, taking turns
# round by round (each round starting one variant further), so that load
# from elsewhere weighs on all of them alike:
#
#   F  --network none: the floor, no network at all
#   A  a netavark network (network_backend = "netavark"), -p HOSTPORT:80
#   B  podman's CNI backend (network_backend = "cni"), a bridge network
#      podman generated, -p HOSTPORT:80
#   C  --network none plus cnihook (BUILD_DIR's hook/cnihook, through an
#      oci-hooks(5) directory given with --hooks-dir: the shipped
#      config/hooks.d files, createRuntime and poststop), running a copy of
#      the very conflist podman generated for B, the port through the
#      annotations io.cnihook.networks=NET, io.cnihook.ports=HOSTPORT:80
#   D  as C, the conflist reduced to bridge + portmap (its own bridge and
#      subnet)
#   E  as C, the conflist reduced to bridge + portmap + firewall (its own
#      bridge and subnet)
#
# Each variant with a port has its own host port. The networks are made with
# `podman network create --internal --disable-dns --subnet 10.X.Y.0/24`
# (NETWORKS=internal, the default): no gateway address on the bridge, no
# default route, no masquerading, no aardvark-dns; there netavark (A) skips
# its NAT and firewall work, where the CNI chain (B, and C, which runs the
# same file) still runs portmap and firewall. NETWORKS=ordinary makes them
# with `--disable-dns` only, like for like: netavark sets up the bridge's
# gateway address, the default route, masquerading, its firewall rules and
# the port forwarding, and the CNI chain podman generates does the same
# (isGateway, ipMasq, portmap, firewall). The container runs `true` and
# sends nothing; every rule names this run's own subnet and goes with it
# (the chains are checked at the end). The bridge podman named (podmanN, cni-podmanN) is renamed in
# the generated file to one that carries this run's suffix (the copy C runs
# is the renamed file). podman's configuration is private: storage.conf
# (vfs, graphroot and runroot in the temp dir) and one containers.conf per
# backend (runc, default_ulimits, network_config_dir in the temp dir),
# switched per variant by CONTAINERS_CONF; F, C, D and E use the netavark
# one (with --network none podman calls no backend). podman's host-wide
# networks are not touched; every variant gets the same --hooks-dir (the
# hooks run only for containers with an io.cnihook.* annotation).
#
# It prints, per variant, the median wall time of `podman run`, its network
# share (the median minus F's median), the median of the round-by-round
# differences to F, and, with CPU=1, the median CPU time of the whole
# process tree of `podman run` (perf stat -e task-clock, which follows every
# descendant: conmon, runc, the hooks, netavark, the plugins; what systemd
# or kernel workers do for it is not counted); then C/B and C/A, and in how
# many rounds C was below B.
#
# Environment (all optional):
#   ROUNDS      timed rounds (default 12)
#   WARMUP      untimed rounds before them (default 1)
#   CPU         1 (default, when perf works): CPU time by perf stat; 0: none
#   REDUCED     1 (default): the variants D and E; 0: F A B C only
#   NETWORKS    internal (default) or ordinary: how the networks are made
#               (see above)
#   HOOK_LOG    1: each hook entry through `sh -c 'exec cnihook ... 2>>LOG'`
#               (about 1 ms more per stage), and the medians of the hook's
#               info lines (total, plugins, own) per network and stage
#   CNIHOOK_BIN the hook binary (default BUILD_DIR/hook/cnihook, or the
#               binary behind libtool's wrapper)
#   CNI_PLUGIN_DIR, CNIHOOK_BUSYBOX, TMPDIR   as for tests/harness/runtime-lib.sh
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=${abs_top_srcdir:-$(cd "$here/../.." && pwd)}
builddir=${1:-${abs_top_builddir:-}}
if [ -z "$builddir" ] || [ ! -d "$builddir" ]; then
	echo "usage: $0 BUILD_DIR   (the top of a build tree where make ran)" >&2
	exit 2
fi
builddir=$(cd "$builddir" && pwd)
ROUNDS=${ROUNDS:-12}
WARMUP=${WARMUP:-1}
CPU=${CPU:-1}
REDUCED=${REDUCED:-1}
NETWORKS=${NETWORKS:-internal}
case $NETWORKS in
internal) NET_OPTS=(--internal --disable-dns) ;;
ordinary) NET_OPTS=(--disable-dns) ;;
*)
	echo "$0: NETWORKS must be internal or ordinary, not $NETWORKS" >&2
	exit 2
	;;
esac

T_NETPREFIX=pb
if [ -n "${CNIHOOK_BIN:-}" ]; then
	CNIHOOK=$CNIHOOK_BIN
else
	CNIHOOK=$builddir/hook/cnihook # static, or libtool's wrapper:
	if [ -f "$CNIHOOK" ] && [ "$(head -c 2 "$CNIHOOK")" = '#!' ]; then
		CNIHOOK=$builddir/hook/.libs/cnihook
		export LD_LIBRARY_PATH=$builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	fi
fi
# The hook entries' path is the binary itself, not the test suite's shim.
CNIHOOK_E2E_SHIM=0
export abs_top_builddir=$builddir
. "$srcdir/tests/harness/runtime-lib.sh"

# A benchmark: whatever happened (a skip, a failed check), clean up and exit 0.
t_on_exit() {
	local rc=$?
	trap - EXIT
	run_cleanups
	[ "$rc" = 0 ] || echo "note: the benchmark ended early (status $rc); figures above, if any"
	exit 0
}
trap t_on_exit EXIT

notes=()
require_root
# Recorded before anything of ours runs: the iptables chains (netavark's
# and the CNI plugins' shared ones are checked against it at the end).
chains_before=$( (iptables-save 2>/dev/null || true; ip6tables-save 2>/dev/null || true) |
	sed -n 's/^:\([^ ]*\) .*/\1/p' | sort -u)
# rt_init: root, tools, the host-state guard, the busybox rootfs, and
# pm_init: private storage.conf and containers.conf, the image.
rt_init podman
require_cmd awk sort
log "hook binary: $CNIHOOK"

# ------------------------------------------------------------- podman's configuration
NETDIR_NV=$PM_DIR/networks-netavark
NETDIR_CNI=$PM_DIR/networks-cni
mkdir -p "$NETDIR_NV" "$NETDIR_CNI"
# pm_conf BACKEND NETDIR: a containers.conf on stdout.
pm_conf() {
	cat <<EOF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
tmp_dir = "$PM_DIR/tmp"
events_logger = "file"
events_logfile_path = "$PM_DIR/events.log"

[network]
network_backend = "$1"
network_config_dir = "$2"
cni_plugin_dirs = ["$PLUGINDIR"]
EOF
}
CONF_NV=$PM_DIR/containers-netavark.conf
CONF_CNI=$PM_DIR/containers-cni.conf
pm_conf netavark "$NETDIR_NV" >"$CONF_NV"
pm_conf cni "$NETDIR_CNI" >"$CONF_CNI"
export CONTAINERS_CONF=$CONF_NV

# The CNI backend's and host-local's shared directories: what this script
# makes in them goes at exit (the guard removes /var/lib/cni itself if it
# was not there and is empty).
for d in /var/lib/cni /var/lib/cni/results /var/lib/cni/networks; do
	[ -e "$d" ] || cleanup_push "rmdir '$d'"
done

# ------------------------------------------------------------- networks
# cnihook's case: confDir, cacheDir, stateDir under $DIR (rt_setup_case).
# Its names (NET, BR, SUB) are B's network, which C runs too.
rt_setup_case c
NET_B=$NET SUB_B=$SUB BR_B=$BR
# One more name, bridge and subnet: pb_net SUFFIX sets NET2 BR2 SUB2.
pb_net() {
	local i
	NET2=$NET-$1
	BR2=cnt$uniq$1
	for ((i = 0; i < 20; i++)); do
		SUB2=$(random_subnet)
		[[ " ${RT_SUBNETS[*]} " == *" $SUB2 "* ]] || break
	done
	RT_BRIDGES+=("$BR2")
	RT_SUBNETS+=("$SUB2")
	cleanup_push "delete_link '$BR2'"
	cleanup_push "purge_iptables '(^|[^0-9])${SUB2//./\\.}\\.'"
}

# A: netavark. podman names the bridge podmanN: it becomes BR_A.
pb_net a
NET_A=$NET2 BR_A=$BR2 SUB_A=$SUB2
cleanup_push "CONTAINERS_CONF='$CONF_NV' podman network rm -f '$NET_A'"
CONTAINERS_CONF=$CONF_NV podman network create "${NET_OPTS[@]}" \
	--subnet "$SUB_A.0/24" "$NET_A" >/dev/null || fail "podman network create (netavark) failed"
f=$NETDIR_NV/$NET_A.json
[ -f "$f" ] || fail "no $f"
jq --arg br "$BR_A" '.network_interface = $br' "$f" >"$f.new" && mv "$f.new" "$f"
log "  A: netavark network $NET_A, bridge $BR_A, subnet $SUB_A.0/24"

# B: the CNI backend.
cleanup_push "CONTAINERS_CONF='$CONF_CNI' podman network rm -f '$NET_B'"
cleanup_push "rm -rf '/var/lib/cni/networks/$NET_B'"
CONTAINERS_CONF=$CONF_CNI podman network create "${NET_OPTS[@]}" \
	--subnet "$SUB_B.0/24" "$NET_B" >/dev/null || fail "podman network create (cni) failed"
CONF_B=$NETDIR_CNI/$NET_B.conflist
[ -f "$CONF_B" ] || fail "no $CONF_B"
jq --arg br "$BR_B" '(.plugins[] | select(.type == "bridge") | .bridge) = $br' "$CONF_B" \
	>"$CONF_B.new" && mv "$CONF_B.new" "$CONF_B"
log "  B: CNI network $NET_B, bridge $BR_B, subnet $SUB_B.0/24: $(jq -c '[.plugins[].type]' "$CONF_B")"

# C: the same file in cnihook's confDir.
cp "$CONF_B" "$DIR/net.d/"
log "  C: cnihook, $DIR/net.d/$(basename "$CONF_B")"

# D, E: the same with fewer plugins, each on its own bridge and subnet.
# pb_reduced LETTER TYPES: the conflist keeping the plugins of TYPES (a jq
# array); sets NET_<LETTER>.
pb_reduced() {
	local l=$1 types=$2 u
	pb_net "$l"
	u=${l^^}
	printf -v "NET_$u" %s "$NET2"
	cleanup_push "rm -rf '/var/lib/cni/networks/$NET2'"
	jq --arg n "$NET2" --arg br "$BR2" --arg sub "$SUB2.0/24" --argjson keep "$types" '
		.name = $n
		| .plugins |= map(select(.type as $t | $keep | index($t)))
		| (.plugins[] | select(.type == "bridge")) |= (.bridge = $br
			| .ipam.ranges = [[{subnet: $sub}]])' "$CONF_B" >"$DIR/net.d/$NET2.conflist"
	log "  $u: cnihook, $NET2, bridge $BR2, subnet $SUB2.0/24: $(jq -c '[.plugins[].type]' "$DIR/net.d/$NET2.conflist")"
}
VARIANTS=(F A B C)
if [ "$REDUCED" = 1 ]; then
	pb_reduced d '["bridge", "portmap"]'
	pb_reduced e '["bridge", "portmap", "firewall"]'
	VARIANTS+=(D E)
fi
pm_hooks_dir
# HOOK_LOG=1: each hook entry through sh, its stderr (the info line with the
# hook's own and its plugins' time) appended to $DIR/hook.log.
if [ "${HOOK_LOG:-0}" = 1 ]; then
	for f in "$DIR"/hooks.d/*.json; do
		jq --arg log "$DIR/hook.log" '.hook |= (.args = ["sh", "-c",
			"exec \"$0\" \"$@\" 2>>\"" + $log + "\"", .path] + .args[1:] | .path = "/bin/sh")' \
			"$f" >"$f.new" && mv "$f.new" "$f"
	done
fi

# Host ports: one per variant, from a random base.
PORT_BASE=$((20000 + RANDOM % 20000))
declare -A V_PORT=() V_CONF=() V_DESC=()
i=0
for v in "${VARIANTS[@]}"; do
	V_PORT[$v]=$((PORT_BASE + i))
	i=$((i + 1))
done
V_CONF=([F]=$CONF_NV [A]=$CONF_NV [B]=$CONF_CNI [C]=$CONF_NV [D]=$CONF_NV [E]=$CONF_NV)
V_DESC=([F]="--network none" [A]="netavark, -p ${V_PORT[A]}:80" [B]="CNI backend, -p ${V_PORT[B]}:80"
	[C]="none + cnihook, B's conflist" [D]="none + cnihook, bridge+portmap"
	[E]="none + cnihook, bridge+portmap+firewall")

# v_args V: the variant's podman run options, one a line.
v_args() {
	case $1 in
	F) printf '%s\n' --network none ;;
	A) printf '%s\n' --network "$NET_A" -p "${V_PORT[A]}:80" ;;
	B) printf '%s\n' --network "$NET_B" -p "${V_PORT[B]}:80" ;;
	C | D | E)
		local n=NET_$1
		[ "$1" != C ] || n=NET_B
		printf '%s\n' --network none --annotation "io.cnihook.networks=${!n}" \
			--annotation "io.cnihook.ports=${V_PORT[$1]}:80"
		;;
	esac
}

PERF=()
if [ "$CPU" = 1 ]; then
	if command -v perf >/dev/null 2>&1 &&
		perf stat -x, -e task-clock -o "$T_TMP/perf.try" -- true >/dev/null 2>&1; then
		PERF=(perf stat -x ',' -e task-clock)
	else
		CPU=0
		notes+=("perf stat -e task-clock does not work here: no CPU figures")
	fi
fi

# run_variant V [ROUND]: one `podman run --rm` of V; appends "ROUND ms cpu_ms"
# to $DIR/times-V; returns podman's status.
run_variant() {
	local v=$1 round=${2:--} t0 t1 rc=0 args=() name cpu=- p=()
	mapfile -t args < <(v_args "$v")
	name=pb-$uniq-$v
	[ "$CPU" != 1 ] || p=("${PERF[@]}" -o "$DIR/perf-$v" --)
	t0=$EPOCHREALTIME
	CONTAINERS_CONF=${V_CONF[$v]} "${p[@]}" podman --runtime runc --hooks-dir "$DIR/hooks.d" \
		run --rm --name "$name" "${args[@]}" "$PM_IMAGE" true </dev/null >"$DIR/$v.out" 2>&1 || rc=$?
	t1=$EPOCHREALTIME
	if [ "$rc" = 0 ]; then
		[ "$CPU" != 1 ] || cpu=$(awk -F, '$3 == "task-clock" { print $1 }' "$DIR/perf-$v")
		awk -v r="$round" -v a="$t0" -v b="$t1" -v c="${cpu:--}" \
			'BEGIN { printf "%s %.3f %s\n", r, (b - a) * 1000, c }' >>"$DIR/times-$v"
	else
		CONTAINERS_CONF=${V_CONF[$v]} podman --runtime runc --hooks-dir "$DIR/hooks.d" \
			rm -f -t 0 "$name" >/dev/null 2>&1 || true
	fi
	return "$rc"
}

# ------------------------------------------------------------- timing
echo
echo "podman run --rm IMAGE true: $ROUNDS timed rounds (after $WARMUP untimed), variants interleaved"
echo "  networks: $NETWORKS (podman network create ${NET_OPTS[*]})"
echo "  machine: $(nproc) cores, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  $(podman --version), $(runc --version | head -n 1), netavark $(/usr/lib/podman/netavark --version 2>/dev/null | awk '{print $2}')"
for v in "${VARIANTS[@]}"; do
	printf '  %s  %s\n' "$v" "${V_DESC[$v]}"
done

# A trial run of each variant: one that fails is left out, with its error.
ok_variants=()
for v in "${VARIANTS[@]}"; do
	if run_variant "$v"; then
		ok_variants+=("$v")
	else
		notes+=("$v: podman run failed, left out: $(tr '\n' ' ' <"$DIR/$v.out" | cut -c1-300)")
	fi
done
VARIANTS=("${ok_variants[@]}")
[[ " ${VARIANTS[*]} " == *" F "* ]] || fail "the floor (F) does not run: $(head -c 300 "$DIR/F.out")"
failures=0
for ((r = -WARMUP; r < ROUNDS; r++)); do
	if [ "$r" = 0 ]; then
		for v in "${VARIANTS[@]}"; do : >"$DIR/times-$v"; done
	fi
	for ((k = 0; k < ${#VARIANTS[@]}; k++)); do
		v=${VARIANTS[(k + r + WARMUP) % ${#VARIANTS[@]}]}
		if ! run_variant "$v" "$r"; then
			failures=$((failures + 1))
			notes+=("$v, round $r: podman run failed: $(tr '\n' ' ' <"$DIR/$v.out" | cut -c1-200)")
		fi
	done
done
[ "$failures" = 0 ] || notes+=("$failures podman run(s) failed in the timed rounds, left out")

# stats FILE [COLUMN]: "median p90 n" of a column of numbers, or "- - 0".
stats() {
	local file=$1 col=${2:-1}
	awk -v c="$col" '$c != "-" { print $c }' "$file" 2>/dev/null | sort -g |
		awk '{ v[NR - 1] = $1 } END {
		if (NR == 0) { print "- - 0"; exit }
		m = NR % 2 ? v[(NR - 1) / 2] : (v[NR / 2 - 1] + v[NR / 2]) / 2
		printf "%.1f %.1f %d\n", m, v[int(NR * 9 / 10)], NR }'
}
# paired A B [COLUMN]: A's figure minus B's, round by round.
paired() {
	awk -v c="${3:-2}" 'NR == FNR { b[$1] = $c; next } ($1 in b) && $c != "-" && b[$1] != "-" {
		printf "%.3f\n", $c - b[$1] }' "$DIR/times-$2" "$DIR/times-$1"
}
has() { [[ " ${VARIANTS[*]} " == *" $1 "* ]]; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.1f", a - b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'; }

declare -A MED=() SHARE=() CMED=() CSHARE=()
read -r f_med _ _ < <(stats "$DIR/times-F" 2)
read -r f_cpu _ _ < <(stats "$DIR/times-F" 3)
echo
echo "podman run wall time, ms (share: median - F's median; d-F: median of the"
echo "round-by-round differences to F; cpu: the process tree's task-clock, median)"
printf '%-3s %-40s %8s %7s %7s %7s %7s %7s %4s\n' "" variant median p90 share d-F cpu cpu-F n
printf '%-3s %-40s %8s %7s %7s %7s %7s %7s %4s\n' "" ------- ------ --- ----- --- --- ----- -
for v in "${VARIANTS[@]}"; do
	read -r med p90 n < <(stats "$DIR/times-$v" 2)
	read -r cpu _ _ < <(stats "$DIR/times-$v" 3)
	read -r dmed _ _ < <(paired "$v" F | stats /dev/stdin)
	MED[$v]=$med CMED[$v]=$cpu
	SHARE[$v]=$(minus "$med" "$f_med")
	CSHARE[$v]=$(minus "$cpu" "$f_cpu")
	printf '%-3s %-40s %8s %7s %7s %7s %7s %7s %4s\n' "$v" "${V_DESC[$v]}" "$med" "$p90" \
		"${SHARE[$v]}" "$dmed" "$cpu" "${CSHARE[$v]}" "$n"
done

echo
if has C; then
	for o in B A; do
		has "$o" || continue
		printf 'C/%s: wall %s, network share %s, CPU %s, CPU share %s\n' "$o" \
			"$(ratio "${MED[C]}" "${MED[$o]}")" "$(ratio "${SHARE[C]}" "${SHARE[$o]}")" \
			"$(ratio "${CMED[C]}" "${CMED[$o]}")" "$(ratio "${CSHARE[C]}" "${CSHARE[$o]}")"
	done
	if has B; then
		paired C B >"$DIR/diff"
		read -r dcb _ _ < <(stats "$DIR/diff")
		printf 'C below B in %s of %s rounds (median of C - B, round by round: %s ms)\n' \
			"$(awk '$1 < 0' "$DIR/diff" | wc -l)" "$(wc -l <"$DIR/diff")" "$dcb"
	fi
fi
for v in D E; do
	if ! has "$v" || ! has C; then continue; fi
	paired C "$v" >"$DIR/diff"
	read -r d _ _ < <(stats "$DIR/diff")
	printf 'C - %s, round by round (what the plugins %s leaves out cost): median %s ms\n' "$v" "$v" "$d"
done

# ------------------------------------------------------------- clean-up check
echo
if [ "${HOOK_LOG:-0}" = 1 ]; then
	echo "The hook's log (HOOK_LOG=1), per network and stage, medians in ms of every run"
	echo "(trial and warm-up runs included): total = plugins + own"
	printf '  %-22s %-13s %8s %8s %8s %4s\n' network stage total plugins own n
	# "ID createRuntime: network "NET" attached as eth0", then the
	# timing lines of both stages, which name the container only.
	sed -n 's/^cnihook: \([0-9a-f]*\) createRuntime: network "\([^"]*\)" attached.*/\1 \2/p' \
		"$DIR/hook.log" >"$DIR/hook.nets"
	sed -n 's/^cnihook: \([0-9a-f]*\) \([a-zA-Z]*\): [a-z]* [0-9]* network(s) in \([0-9.]*\) ms (plugins \([0-9.]*\) ms, own \([0-9.]*\) ms).*/\1 \2 \3 \4 \5/p' \
		"$DIR/hook.log" | awk 'NR == FNR { net[$1] = $2; next } ($1 in net) {
			print net[$1], $2, $3, $4, $5 }' "$DIR/hook.nets" - >"$DIR/hook.times"
	for n in "$NET_B" "${NET_D:-}" "${NET_E:-}"; do
		[ -n "$n" ] || continue
		for stage in createRuntime poststop; do
			awk -v n="$n" -v s="$stage" '$1 == n && $2 == s' "$DIR/hook.times" >"$DIR/hook.sel"
			read -r t _ c < <(stats "$DIR/hook.sel" 3)
			read -r p _ _ < <(stats "$DIR/hook.sel" 4)
			read -r o _ _ < <(stats "$DIR/hook.sel" 5)
			printf '  %-22s %-13s %8s %8s %8s %4s\n' "$n" "$stage" "$t" "$p" "$o" "$c"
		done
	done
	echo
fi
CONTAINERS_CONF=$CONF_CNI podman network rm -f "$NET_B" >/dev/null 2>&1 || true
CONTAINERS_CONF=$CONF_NV podman network rm -f "$NET_A" >/dev/null 2>&1 || true
checking "no container left in the private storage"
left=$(podman ps -aq 2>/dev/null || true)
[ -z "$left" ] || fail "containers left: $left"
ok "no container left"
checking "no lease of our networks in /var/lib/cni/networks, no cache entry in /var/lib/cni/results"
for n in "$NET_B" "${NET_D:-}" "${NET_E:-}"; do
	[ -n "$n" ] || continue
	f=$(find "/var/lib/cni/networks/$n" -type f ! -name 'last_reserved_ip*' ! -name lock 2>/dev/null || true)
	[ -z "$f" ] || fail "host-local leases left: $f"
	rm -rf "/var/lib/cni/networks/$n"
	f=$(find /var/lib/cni/results -name "$n-*" 2>/dev/null || true)
	[ -z "$f" ] || fail "cache entries left: $f"
done
ok "no lease, no cache entry"
checking "no iptables chain of netavark's made by this run"
# shellcheck disable=SC2086 # one -e per shared CNI chain
chains_after=$( (iptables-save 2>/dev/null || true; ip6tables-save 2>/dev/null || true) |
	sed -n 's/^:\([^ ]*\) .*/\1/p' | sort -u)
new=$(comm -13 <(printf '%s\n' "$chains_before") <(printf '%s\n' "$chains_after") |
	grep -v -x -F -e NETAVARK_FORWARD -e NETAVARK-HOSTPORT-DNAT -e NETAVARK-HOSTPORT-MASQ \
		-e NETAVARK-HOSTPORT-SETMARK -e ${T_CNI_GLOBAL_CHAINS// / -e } || true)
[ -z "$new" ] || fail "new iptables chains: $new"
ok "no new chain but the shared ones"
rt_teardown_and_check
echo
for note in "${notes[@]}"; do
	echo "note: $note"
done
exit 0
