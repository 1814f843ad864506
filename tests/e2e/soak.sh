#!/bin/bash
# The soak (docs/architecture.md, "The soak"): random container lifecycles
# under runc with the hook and Debian's real plugins, with the hook or one of
# its plugins SIGKILLed at random moments of createRuntime and poststop, then
# `cnihook gc` and a leak audit. Seeded and bounded in time:
#
#   CNIHOOK_SOAK_SECONDS  how long the lifecycles run (default 150: with the
#                         set-up and the audit about 3 minutes)
#   CNIHOOK_SOAK_SEED     the seed of bash's RANDOM (default: a random one);
#                         printed first, so that a failed run can be run
#                         again with the same choices (the kills land where
#                         the timing puts them, so a replay is close, not
#                         exact)
#   CNIHOOK_SOAK_FAULTS   per cent of stages with a fault (default 60)
#
# One network of the case's own (runtime-lib.sh's rt_add_net: bridge with
# host-local, portmap, firewall, tuning, a free 10.X.Y.0/24, no ipMasq, no
# default route); the plugins are run through wrappers (a directory of the
# case's own, given as the hook's binDirs), which run the real plugin unless
# the fault file names them. A fault is "COMMAND PLUGIN WHO DELAY": the first
# call of PLUGIN (bridge, host-local, portmap, firewall, tuning) with
# CNI_COMMAND=COMMAND claims it (a rename: once), starts the real plugin, and
# DELAY seconds later (0 to 0.15) SIGKILLs WHO: "hook" (the plugin's parent,
# the hook; for host-local, which bridge runs, not offered) or "plugin" (the
# real plugin itself), each only while it is still that program
# (/proc/PID/comm: the plugins run sandboxed and cannot read the hook's
# /proc/PID/exe), so that a kill after it ended hits nothing else.
#
# A quarter of the faults are rename faults instead: the first hook of the
# stage SIGKILLs itself between the temp file and the rename of a file of
# one of the directories it writes (CNIHOOK_TEST_KILL_BEFORE_RENAME, a
# target path pattern; a stage that writes no such file is not killed).
#
# Each step picks at random: start a container (at most 3 live at a time;
# runc runs createRuntime, and after a failed one poststop, as it does), stop
# one (runc kill, runc delete: poststop), or run `cnihook gc`, which must
# keep every live container's attachment. Each stage gets a fault with
# CNIHOOK_SOAK_FAULTS per cent. At the end every container is stopped,
# `cnihook gc` runs, and the audit compares the host with what it was before
# the first container, byte for byte: host-local's leases, the links on the
# bridge, every iptables rule naming the subnet or the case's names and the
# CNI chains they are in or jump to, the cache's files (results/, the
# attachment lists; not the port indexes, a digest of results/ that any
# start rewrites), and the state directory must hold nothing else (no record, journal, pin, lock, name
# link, port reservation, mount). A temp file (a dot name with ".tmp") in
# the cache or the state directory after any gc, in the middle or at the
# end, is a leak: a writer killed before its rename left it, and gc removes
# those at once (docs/architecture.md, "Temp files"). A foreign attachment made before the first
# container (`cnihook add` under another id, in the same cache, network and
# dataDir, its namespace alive throughout) is in that picture, so it must be
# byte-identical too.
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
T_NETPREFIX=sk
. "$srcdir/tests/harness/runtime-lib.sh"

SECONDS_WANTED=${CNIHOOK_SOAK_SECONDS:-150}
SEED=${CNIHOOK_SOAK_SEED:-$(((RANDOM << 15) | RANDOM))}
FAULTS=${CNIHOOK_SOAK_FAULTS:-60}
[[ $SECONDS_WANTED =~ ^[0-9]+$ ]] || fail "CNIHOOK_SOAK_SECONDS: not a number of seconds"
[[ $SEED =~ ^[0-9]+$ ]] || fail "CNIHOOK_SOAK_SEED: not a number"
[[ $FAULTS =~ ^[0-9]+$ ]] && [ "$FAULTS" -le 100 ] || fail "CNIHOOK_SOAK_FAULTS: not 0-100"

rt_init runc
CNIHOOK=${CNIHOOK:-${abs_top_builddir:-$srcdir}/hook/cnihook}
hook_binary
log "seed: $SEED (CNIHOOK_SOAK_SEED=$SEED CNIHOOK_SOAK_SECONDS=$SECONDS_WANTED to run it again)"

PLUGINS=(bridge host-local portmap firewall tuning)

# soak_wrappers: the plugin wrappers in $DIR/bin.
soak_wrappers() {
	local p real comm hookcomm
	hookcomm=$(basename "$HOOKBIN" | cut -c1-15)
	mkdir -p "$DIR/bin"
	for p in "${PLUGINS[@]}" loopback; do
		real=$(readlink -f "$PLUGINDIR/$p")
		[ -x "$real" ] || continue
		comm=$(basename "$real" | cut -c1-15)
		cat >"$DIR/bin/$p" <<EOF
#!/bin/sh
f='$DIR/fault'
if [ -e "\$f" ] && read -r cmd plugin who delay <"\$f" && [ "\$cmd" = "\$CNI_COMMAND" ] &&
	[ "\$plugin" = '$p' ] && mv "\$f" "\$f.\$\$" 2>/dev/null; then
	rm -f "\$f.\$\$"
	if [ "\$who" = hook ]; then t=\$PPID c='$hookcomm'; else t=\$\$ c='$comm'; fi
	echo "\$cmd $p \$who \$delay \$CNI_CONTAINERID" >>'$DIR/faults.log'
	(
		sleep "\$delay"
		[ "\$(cat "/proc/\$t/comm")" = "\$c" ] && kill -9 "\$t" &&
			echo "\$cmd $p \$who \$delay \$CNI_CONTAINERID" >>'$DIR/kills.log'
	) </dev/null >/dev/null 2>&1 &
fi
exec '$real' "\$@"
EOF
		chmod 755 "$DIR/bin/$p"
	done
}

# picture_rules TABLE: the rules of TABLE naming the subnet, the suffix of
# the case's names (portmap's and firewall's comments name the network and
# the container id) or the chains of their own those rules are in or jump
# to, and those chains' declarations (counters left out): what this soak's
# attachments can have made, and nothing of other programs' (of the chains
# every container shares, only the declaration).
picture_rules() {
	local t=$1 all mine chains
	all=$(iptables-save -t "$t" 2>/dev/null | sed 's/ \[[0-9]*:[0-9]*\]$//')
	mine=$(grep -E -e "(^|[^0-9])${SUB//./\\.}\\." -e "$uniq" <<<"$all" | grep '^-A ' || true)
	chains=$(grep -oE -e '^-A CNI-[^ ]+' -e '-j CNI-[^ ]+' <<<"$mine" | awk '{ print $2 }' | sort -u)
	for c in $chains; do
		# A chain every container shares (T_CNI_GLOBAL_CHAINS): only its
		# declaration and this soak's rules in it, not those of a test
		# running beside the soak.
		if [[ " $T_CNI_GLOBAL_CHAINS " == *" $c "* ]]; then
			grep -E "^:$c " <<<"$all" || true
			grep -E "^-A $c " <<<"$mine" || true
		else
			grep -E -e "^:$c " -e "^-A $c " -e "-j $c( |$)" <<<"$all" || true
		fi
	done | sort -u | sed "s/^/ipt $t /"
	grep -vE '^-A CNI-' <<<"$mine" | grep . | sed "s/^/ipt $t /" || true
}

# torn_leases: host-local's empty lease files. host-local makes a lease by
# creating the file named by the address, then writing the container id to
# it: a SIGKILL of host-local itself between the two leaves a file that
# names no container, which no DEL (host-local releases by container id)
# can release. That is host-local's own, and nothing of it tells the hook
# or gc whose it was: the audit lists these apart and removes them, and
# every other difference is a leak.
torn_leases() {
	find "$DATADIR" -type f -empty ! -name lock ! -name 'last_reserved_ip*' | sort
}

# picture: what the soak may not change, one line per item: leases (with
# their content), links on the bridge, picture_rules of every table, the
# cache's files but the port indexes (with a digest of each), the state
# directory's entries, the mounts under it.
picture() {
	local f t
	for f in $(find "$DATADIR" -type f ! -name lock ! -name 'last_reserved_ip*' | sort); do
		# A torn lease (torn_leases) names nothing: not in the picture.
		[ ! -s "$f" ] || printf 'lease %s %s\n' "${f#"$DATADIR"/}" "$(tr '\r\n' '  ' <"$f")"
	done
	ip -o link show master "$BR" 2>/dev/null | awk '{ print "link", $2 }' | sed 's/@.*//' | sort
	for t in filter nat mangle raw; do
		picture_rules "$t"
	done
	(cd "$CACHEDIR" && find . -type f ! -name cnihook-ports.index ! -name cnihook-ports.held -print0 |
		sort -z | xargs -0r sha256sum) |
		awk '{ print "cache", $2, $1 }'
	[ ! -d "$STATEDIR" ] || (cd "$STATEDIR" && find . -mindepth 1 ! \( -type d \( -name ports -o -name @pins \) \) | sort) |
		sed 's/^/state /'
	awk -v d="$STATEDIR/" 'index($5, d) == 1 { print "mount", $5 }' /proc/self/mountinfo
}

LIVE=()     # the live containers
N_LIFE=0    # containers started (a lifecycle each)
N_STAGES=0  # stages run
N_FAULTED=0 # stages given a fault
N_GC=0      # gc runs in the middle
N_TEMPS_GONE=0 # temp files of killed writers that gc removed
RENAMES=()     # the rename faults given
# Where a rename fault kills the hook: between the temp file and the rename
# of a file of each directory it writes (CNIHOOK_TEST_KILL_BEFORE_RENAME).
RENAME_POINTS=('*/results/*' '*/cnihook-attachments/*' '*/cnihook-ports.*' '*/record.json'
	'*/network-status.json' '*/ports' '*/journal/*')

# soak_fault STAGE: with FAULTS per cent, write a fault for STAGE (ADD at
# createRuntime, DEL at poststop).
soak_fault() {
	local cmd=$1 p who delay
	rm -f "$DIR/fault" "$DIR/rename-fault"
	[ $((RANDOM % 100)) -lt "$FAULTS" ] || return 0
	N_FAULTED=$((N_FAULTED + 1))
	if [ $((RANDOM % 4)) = 0 ]; then
		RENAMES+=("${RENAME_POINTS[RANDOM % ${#RENAME_POINTS[@]}]}")
		printf '%s\n' "${RENAMES[-1]}" >"$DIR/rename-fault"
		return 0
	fi
	p=${PLUGINS[RANDOM % ${#PLUGINS[@]}]}
	who=hook
	if [ "$p" = host-local ] || [ $((RANDOM % 3)) = 0 ]; then who=plugin; fi
	delay=$(printf '0.%03d' $((RANDOM % 4 == 0 ? 0 : RANDOM % 150)))
	printf '%s %s %s %s\n' "$cmd" "$p" "$who" "$delay" >"$DIR/fault"
}

# soak_wait_kills: the background killers of the last stage are done.
soak_wait_kills() {
	sleep 0.2
	rm -f "$DIR/fault" "$DIR/rename-fault"
}

soak_start() {
	local id
	id=$(rt_id "$N_LIFE")
	N_LIFE=$((N_LIFE + 1))
	N_STAGES=$((N_STAGES + 1))
	soak_fault ADD
	make_bundle "$DIR/bundle-$id" "$id" "$(annotations io.cnihook.networks "$NET" \
		io.cnihook.ports "$((20000 + RANDOM % 20000)):80")" "" "sleep 3600"
	cleanup_push "runc delete --force '$id' 2>/dev/null"
	if runc run -d --bundle "$DIR/bundle-$id" "$id" </dev/null >"$DIR/$id.out" 2>&1; then
		LIVE+=("$id")
		soak_wait_kills
		return 0
	fi
	soak_wait_kills
	# A failed start: runc ran poststop; the container may be left created
	# or stopped.
	runc delete --force "$id" >/dev/null 2>&1 || true
}

soak_stop() {
	local i=$1 id=${LIVE[$1]}
	LIVE=("${LIVE[@]:0:i}" "${LIVE[@]:i+1}")
	N_STAGES=$((N_STAGES + 1))
	soak_fault DEL
	runc kill "$id" KILL >/dev/null 2>&1 || true
	for ((i = 0; i < 50; i++)); do
		[ "$(rt_status "$id")" != running ] && break
		sleep 0.05
	done
	runc delete --force "$id" >/dev/null 2>&1 || true
	soak_wait_kills
}

# soak_temps: temp files in the cache and the state directory (cnihook's,
# and any other dot name with ".tmp": none may be left).
soak_temps() {
	{ find "$CACHEDIR" "$STATEDIR" -name '.*.tmp*' 2>/dev/null || true; } | sort
}

# soak_gc: gc in the middle; every live container keeps its cache entry, and
# no temp file of a writer killed before its rename is left (no stage runs
# beside gc: every writer is done or dead).
soak_gc() {
	local id temps
	N_GC=$((N_GC + 1))
	rm -f "$DIR/fault" "$DIR/rename-fault"
	"$HOOKBIN" --config "$HOOKCONF" gc >"$DIR/gc.out" 2>&1 ||
		log "  gc in the middle: exit status $? (a teardown failed): $(grep -v ': kept: ' "$DIR/gc.out" | head -5)"
	for id in "${LIVE[@]}"; do
		[ -f "$CACHEDIR/results/$NET-$id-eth0" ] ||
			fail "gc took the live container $id's attachment: $(cat "$DIR/gc.out")"
	done
	N_TEMPS_GONE=$((N_TEMPS_GONE + $(awk '/temp file\(s\) of writers killed/ { n += $(NF - 8) } END { print n + 0 }' "$DIR/gc.out")))
	temps=$(soak_temps)
	[ -z "$temps" ] || fail "leak: temp files left after gc in the middle: $temps; gc said: $(cat "$DIR/gc.out")"
}

soak_case() {
	local ns nspath fid capargs deadline r before after torn temps
	rt_setup_case s
	rt_add_net "$NET" "$BR" "$SUB"
	# The hook as runc runs it: exec keeps its pid (the plugins' parent).
	# A rename fault (soak_fault) is claimed by the first hook that starts.
	cat >"$DIR/hookbin" <<EOF
#!/bin/sh
f='$DIR/rename-fault'
if [ -e "\$f" ] && read -r pattern <"\$f" && mv "\$f" "\$f.\$\$" 2>/dev/null; then
	rm -f "\$f.\$\$"
	export CNIHOOK_TEST_KILL_BEFORE_RENAME="\$pattern"
fi
LD_LIBRARY_PATH='${LD_LIBRARY_PATH:-}' exec '$HOOKBIN' "\$@"
EOF
	chmod 755 "$DIR/hookbin"
	rt_write_shim "$DIR/hookbin"
	soak_wrappers
	jq --arg b "$DIR/bin" '.binDirs = [$b] | .log.level = "warn"' "$HOOKCONF" >"$HOOKCONF.new"
	mv "$HOOKCONF.new" "$HOOKCONF"
	forget_new_lease_dir "$DATADIR"
	# The foreign attachment: another program's, in the same cache.
	ns=fs-$uniq
	new_netns "$ns"
	nspath=/run/netns/$ns
	fid=foreign-$uniq
	# As with cnitool, the DEL is given the same CAP_ARGS (portmap finds
	# its rules by them).
	capargs="{\"portMappings\":[{\"hostPort\":$((40000 + RANDOM % 20000)),\"containerPort\":80,\"protocol\":\"tcp\"}]}"
	CNI_CONTAINERID=$fid CNI_PATH=$PLUGINDIR CNI_CACHE_DIR=$CACHEDIR NETCONFPATH=$DIR/net.d \
		CAP_ARGS=$capargs "$HOOKBIN" --config "$HOOKCONF" add "$NET" "$nspath" >"$DIR/foreign.out" 2>&1 ||
		fail "cnihook add of the foreign attachment failed: $(cat "$DIR/foreign.out")"
	cleanup_push "CNI_CONTAINERID='$fid' CNI_PATH='$PLUGINDIR' CNI_CACHE_DIR='$CACHEDIR' NETCONFPATH='$DIR/net.d' CAP_ARGS='$capargs' '$HOOKBIN' --config '$HOOKCONF' del '$NET' '$nspath' >/dev/null 2>&1"
	before=$(picture)
	grep -q "^cache ./results/$NET-$fid-eth0 " <<<"$before" ||
		fail "the foreign attachment has no cache entry: $before"
	ok "foreign attachment $fid made; the picture has $(wc -l <<<"$before") lines"

	RANDOM=$SEED
	deadline=$((SECONDS + SECONDS_WANTED))
	while [ "$SECONDS" -lt "$deadline" ]; do
		r=$((RANDOM % 10))
		if [ "$r" = 0 ]; then
			soak_gc
		elif [ ${#LIVE[@]} -gt 0 ] && { [ ${#LIVE[@]} -ge 3 ] || [ "$r" -ge 6 ]; }; then
			soak_stop $((RANDOM % ${#LIVE[@]}))
		else
			soak_start
		fi
	done
	while [ ${#LIVE[@]} -gt 0 ]; do
		soak_stop 0
	done
	local kills=0 plugin_kills
	[ ! -f "$DIR/kills.log" ] || kills=$(wc -l <"$DIR/kills.log")
	plugin_kills=$(grep -c ' plugin ' "$DIR/kills.log" 2>/dev/null || true)
	ok "$N_LIFE lifecycles, $N_STAGES stages, $N_FAULTED with a fault, $kills SIGKILL(s) landed (${plugin_kills:-0} of a plugin, the others of the hook), ${#RENAMES[@]} rename fault(s) given, $N_GC gc run(s) in the middle"
	if [ ${#RENAMES[@]} -gt 0 ]; then
		log "  rename faults given, by target:"
		printf '%s\n' "${RENAMES[@]}" | sort | uniq -c | sed 's/^/#    /'
	fi
	if [ -f "$DIR/kills.log" ]; then
		log "  kills by stage and plugin:"
		awk '{ print "    " $1, $2, $3 }' "$DIR/kills.log" | sort | uniq -c | sed 's/^/#/'
	fi

	rm -f "$DIR/fault" "$DIR/rename-fault"
	"$HOOKBIN" --config "$HOOKCONF" gc >"$DIR/gc.out" 2>&1 ||
		fail "the final gc failed: $(cat "$DIR/gc.out")"
	grep -q "container \"$fid\": kept" "$DIR/gc.out" ||
		fail "gc did not keep the foreign attachment: $(cat "$DIR/gc.out")"
	ok "the final gc: $(grep -c ': gone: detached' "$DIR/gc.out" || true) container(s) detached"
	N_TEMPS_GONE=$((N_TEMPS_GONE + $(awk '/temp file\(s\) of writers killed/ { n += $(NF - 8) } END { print n + 0 }' "$DIR/gc.out")))
	temps=$(soak_temps)
	if [ -n "$temps" ]; then
		log "temp files left after the final gc (writers killed before their rename):"
		printf '%s\n' "$temps" | sed 's/^/#   /'
		fail "leak audit: $(wc -l <<<"$temps") temp file(s) left after gc (seed $SEED)"
	fi
	ok "no temp file left after gc ($N_TEMPS_GONE of killed writers removed by gc over the soak)"
	after=$(picture)
	torn=$(torn_leases)
	if [ -n "$torn" ]; then
		log "host-local leases torn by a SIGKILL of host-local inside its own write (empty: they name no container, no DEL can release them; not cnihook's), removed:"
		printf '%s\n' "$torn" | sed 's/^/#   /'
		printf '%s\n' "$torn" | while read -r f; do rm -f "$f"; done
	fi
	if [ "$before" != "$after" ]; then
		log "leaks (- before the soak, + after gc):"
		diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | grep '^[<>]' |
			sed 's/^</-/; s/^>/+/; s/^/#   /' || true
		log "the final gc said:"
		sed 's/^/#   /' "$DIR/gc.out"
		fail "leak audit: the host is not as it was before the soak (seed $SEED)"
	fi
	ok "leak audit: leases, bridge ports, CNI chains and rules, cache, state as before the soak; the foreign attachment byte-identical ($(printf '%s' "$torn" | grep -c . || true) torn host-local lease(s) apart)"
	CNI_CONTAINERID=$fid CNI_PATH=$PLUGINDIR CNI_CACHE_DIR=$CACHEDIR NETCONFPATH=$DIR/net.d \
		CAP_ARGS=$capargs "$HOOKBIN" --config "$HOOKCONF" del "$NET" "$nspath" >"$DIR/foreign.out" 2>&1 ||
		fail "cnihook del of the foreign attachment failed: $(cat "$DIR/foreign.out")"
	ip netns delete "$ns"
	rt_teardown_and_check
}

run_case "soak: random lifecycles, SIGKILLs of the hook and its plugins, gc, leak audit (seed $SEED, ${SECONDS_WANTED}s)" soak_case
finish
