#!/bin/bash
# The hook in a container start (docs/benchmarks.md, "The hook in a container
# start"). Not a test: it prints figures and exits 0 whatever they are (and
# also when it cannot run: not root, no runc, ...).
#
#   tests/bench/hook.sh BUILD_DIR
#
# Times `runc run` of a trivial container (busybox `true`, in a network
# namespace of its own; runc runs it in the foreground, it exits at once,
# runc deletes it) REPS times in each of these variants, taking turns round
# by round so that load from elsewhere weighs on all of them alike:
#
#   none        no hooks at all
#   true-hooks  createRuntime and poststop entries that run /bin/true: what
#               runc itself pays for running two hooks
#   bridge      the hook at createRuntime and poststop, one network:
#               bridge + host-local (dataDir under the temp dir, a 10.x /24,
#               isGateway, ipMasq false)
#   full        the same with the shipped-like chain: bridge + host-local +
#               portmap + firewall + tuning (its own bridge and subnet)
#   bridge+log, full+log, echo+log
#               the hook entry is `sh -c 'exec cnihook ... 2>>LOG'`, so that
#               the hook's info line "attached N network(s) in X ms (plugins
#               Y ms, own Z ms)" (and "detached ...") reaches a file: runc
#               keeps a successful hook's stderr in a buffer and drops it.
#               echo: a network of one tests/plugins/echoplugin, a plugin
#               that costs about a millisecond and touches nothing, so that
#               the hook's own time dominates.
#
# The wall-time variants (none, bridge, full) run the hook binary directly:
# the hook entry's path is the installed cnihook, its env sets
# LD_LIBRARY_PATH; the +log variants pay for the shell on top, which the
# script measures on its own (cnihook with and without the wrapper, timed by
# tests/bench/floor) and reports. The log's figures are the hook's own clock
# and do not include the wrapper in any case.
#
# The hook under test is `make -C BUILD_DIR install DESTDIR=<temp dir>`, the
# binary as it is installed (libcnirt from the same staging directory; make
# first rebuilds whatever is out of date in BUILD_DIR); if that fails,
# BUILD_DIR/hook/.libs/cnihook with BUILD_DIR/lib/.libs.
#
# It prints, for each variant, the median and p90 of the `runc run` wall
# time and the median of its round-by-round differences to "none"; from the
# hook's log, the median of its total, plugins and own time at createRuntime
# and at poststop, with PASS/MISS against the target (own <= 1 ms per
# stage); the hook's whole cost beyond its plugins as runc sees it; the
# wrapper's and the start-up's cost; and a system-call breakdown of
# createRuntime and poststop on the echo network (strace -c -w of the hook
# process only, not its plugins, summed over STRACE_RUNS runs).
#
# Environment (all optional):
#   REPS         timed rounds (default 30)
#   WARMUP       untimed rounds before them (default 3)
#   CNIHOOK_BIN  the hook binary to time instead of an install of BUILD_DIR
#                (CNIHOOK_LIBDIR: where its libcnirt is, if not installed)
#   STRACE_RUNS  runs of the system-call breakdown (default 10; 0: none)
#   ECHOPLUGIN, FLOOR   default BUILD_DIR/tests/plugins/echoplugin,
#                BUILD_DIR/tests/bench/floor (`make check` builds both);
#                without them the echo variant / the wrapper and start-up
#                figures are left out, with a note
#   STATEDIR_BASE, CACHEDIR_BASE   put the hook's stateDir / cacheDir in a
#                new directory under these (default: the temp dir, with the
#                host-local dataDir). The hook syncs its files: its own time
#                depends mostly on these file systems (docs/benchmarks.md)
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
REPS=${REPS:-30}
WARMUP=${WARMUP:-3}
ECHOPLUGIN=${ECHOPLUGIN:-$builddir/tests/plugins/echoplugin}
FLOOR=${FLOOR:-$builddir/tests/bench/floor}
# The target: the hook's own time, beyond its plugins', per stage.
TARGET_OWN=1.0

T_NETPREFIX=hb
# rt_init below uses $CNIHOOK; it is set once the binary is known. The
# shipped hook files (runtime-lib.sh's rt_shipped) are BUILD_DIR's.
CNIHOOK=${CNIHOOK_BIN:-/bin/true}
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

# ------------------------------------------------------------- the binary
HOOKBIN='' HOOKLIBS=''
if [ -n "${CNIHOOK_BIN:-}" ]; then
	HOOKBIN=$CNIHOOK_BIN
	HOOKLIBS=${CNIHOOK_LIBDIR:-}
	how="CNIHOOK_BIN"
elif make -C "$builddir" install DESTDIR="$T_TMP/inst" >"$T_TMP/install.log" 2>&1 &&
	HOOKBIN=$(find "$T_TMP/inst" -type f -path '*/bin/cnihook' -print -quit) &&
	[ -n "$HOOKBIN" ]; then
	HOOKLIBS=$(find "$T_TMP/inst" -name 'libcnirt.so.0' -printf '%h\n' -quit)
	how="make install DESTDIR=$T_TMP/inst"
else
	notes+=("make install DESTDIR failed ($(tail -n 2 "$T_TMP/install.log" | tr '\n' ' ')); timing the build tree's binary")
	HOOKBIN=$builddir/hook/cnihook # static, or libtool's wrapper:
	if [ "$(head -c 2 "$HOOKBIN")" = '#!' ]; then
		HOOKBIN=$builddir/hook/.libs/cnihook
	fi
	HOOKLIBS=$builddir/lib/.libs
	how="build tree"
fi
[ -x "$HOOKBIN" ] || fail "no hook binary at $HOOKBIN"
CNIHOOK=$HOOKBIN
HOOKENV=(PATH=/usr/sbin:/usr/bin:/sbin:/bin)
[ -z "$HOOKLIBS" ] || HOOKENV+=("LD_LIBRARY_PATH=$HOOKLIBS")
# hookbin ARGS...: the hook as the runtime runs it.
hookbin() { env "${HOOKENV[@]}" "$HOOKBIN" "$@"; }

# The hook entries are this script's own (below), not runtime-lib's shim.
CNIHOOK_E2E_SHIM=0
rt_init runc
require_cmd awk sort
log "hook binary: $HOOKBIN ($how)${HOOKLIBS:+, LD_LIBRARY_PATH=$HOOKLIBS}"
hookbin version >/dev/null 2>&1 || hookbin --help >/dev/null 2>&1 ||
	fail "$HOOKBIN does not run: $(hookbin --help 2>&1 | head -n 2)"

# ------------------------------------------------------------- networks
# a: bridge + host-local only; f: the shipped-like chain (rt_add_net's full
# kind: bridge + host-local, portmap, firewall, tuning); echo: one echo plugin.
rt_setup_case a
NET_BRIDGE=$NET
jq -n --arg n "$NET" --arg br "$BR" --arg sub "$SUB.0/24" --arg dd "$DATADIR" '
	{cniVersion: "1.0.0", name: $n, plugins: [
		{type: "bridge", bridge: $br, isGateway: true, ipMasq: false,
		 ipam: {type: "host-local", dataDir: $dd, ranges: [[{subnet: $sub}]],
			routes: []}}]}' >"$DIR/net.d/50-$NET.conflist"
rt_more_net f full
NET_FULL=$NET2
# stateDir and cacheDir elsewhere than the temp dir, when asked.
if [ -n "${STATEDIR_BASE:-}" ]; then
	x=$(mktemp -d "$STATEDIR_BASE/cnihook-bench.XXXXXX")
	cleanup_push "rm -rf '$x'"
	STATEDIR=$x/state
	cleanup_push "rt_umount_under '$STATEDIR'"
fi
if [ -n "${CACHEDIR_BASE:-}" ]; then
	x=$(mktemp -d "$CACHEDIR_BASE/cnihook-bench.XXXXXX")
	cleanup_push "rm -rf '$x'"
	CACHEDIR=$x/cache
fi
jq --arg s "$STATEDIR" --arg c "$CACHEDIR" '.stateDir = $s | .cacheDir = $c' "$HOOKCONF" \
	>"$HOOKCONF.new"
mv "$HOOKCONF.new" "$HOOKCONF"
log "  network $NET_BRIDGE: bridge + host-local; $NET_FULL: + portmap, firewall, tuning"
NET_ECHO=
if [ -x "$ECHOPLUGIN" ]; then
	NET_ECHO=$NET-echo
	mkdir -p "$DIR/echobin"
	cp "$ECHOPLUGIN" "$DIR/echobin/echo"
	printf '{"cniVersion":"1.0.0","name":"%s","plugins":[{"type":"echo"}]}\n' "$NET_ECHO" \
		>"$DIR/net.d/60-$NET_ECHO.conflist"
	jq --arg d "$DIR/echobin" '.binDirs += [$d]' "$HOOKCONF" >"$HOOKCONF.new"
	mv "$HOOKCONF.new" "$HOOKCONF"
	log "  network $NET_ECHO: one echo plugin ($ECHOPLUGIN)"
else
	notes+=("no echo plugin at $ECHOPLUGIN (make tests/plugins/echoplugin): echo+log left out")
fi

# ------------------------------------------------------------- bundles
# hook_entry STAGE MODE [FILE]: one hook entry as JSON. MODE direct: the
# binary itself; log: sh -c 'exec ... 2>>FILE'; strace: strace -c -w -o FILE.
hook_entry() {
	local stage=$1 mode=$2 file=${3:-} args env
	args=$(jq -cn --arg c "$HOOKCONF" --arg s "$stage" '["--config", $c, "--log-level=info", $s]')
	env=$(printf '%s\n' "${HOOKENV[@]}" | jq -R . | jq -cs .)
	case $mode in
	direct)
		jq -n --arg p "$HOOKBIN" --argjson a "$args" --argjson env "$env" \
			'{path: $p, args: (["cnihook"] + $a), env: $env}'
		;;
	log)
		jq -n --arg p "$HOOKBIN" --arg f "$file" --argjson a "$args" --argjson env "$env" \
			'{path: "/bin/sh", args: (["sh", "-c", "exec \"$0\" \"$@\" 2>>\"" + $f + "\"", $p]
				+ $a), env: $env}'
		;;
	true)
		jq -n '{path: "/bin/true", args: ["true"]}'
		;;
	strace)
		# One summary file per run: FILE.<pid> (sh's pid, kept by exec).
		jq -n --arg p "$HOOKBIN" --arg f "$file" --argjson a "$args" --argjson env "$env" \
			--arg strace "$(command -v strace)" \
			'{path: "/bin/sh", args: (["sh", "-c",
				"exec \"$0\" -c -w -o \"" + $f + ".$$\" -- \"$@\"", $strace, $p] + $a),
			 env: $env}'
		;;
	esac
}

# bench_bundle VARIANT NETWORK MODE: the bundle of a variant, in
# $DIR/bundle-VARIANT, its container id in V_ID, its hook log in V_LOG (MODE
# log; MODE strace: $DIR/VARIANT-STAGE); NETWORK empty: no hooks.
declare -A V_ID=() V_LOG=()
bench_bundle() {
	local v=$1 net=$2 mode=$3 id ann=() hooks='{}' b=$DIR/bundle-$1 c p
	id=$(rt_id "${#V_ID[@]}")
	V_ID[$v]=$id
	V_LOG[$v]=$DIR/log-$v
	: >"${V_LOG[$v]}"
	RT_IDS+=("$id")
	cleanup_push "runc delete --force '$id'"
	[ -z "$net" ] || ann=(io.cnihook.networks "$net")
	if [ -n "$net" ] || [ "$mode" = true ]; then
		case $mode in
		log)
			c=${V_LOG[$v]}
			p=${V_LOG[$v]}
			;;
		*)
			c=$DIR/$v-createRuntime
			p=$DIR/$v-poststop
			;;
		esac
		hooks=$(jq -n --argjson c "$(hook_entry createRuntime "$mode" "$c")" \
			--argjson p "$(hook_entry poststop "$mode" "$p")" \
			'{createRuntime: [$c], poststop: [$p]}')
	fi
	make_bundle "$b" "$id" "$(annotations "${ann[@]}")" "" true
	jq --argjson hooks "$hooks" '.process.args = ["true"]
		| if $hooks == {} then del(.hooks) else .hooks = $hooks end' \
		"$b/config.json" >"$b/config.json.new"
	mv "$b/config.json.new" "$b/config.json"
}

VARIANTS=(none true-hooks bridge full bridge+log full+log)
bench_bundle none "" direct
bench_bundle true-hooks "" true
bench_bundle bridge "$NET_BRIDGE" direct
bench_bundle full "$NET_FULL" direct
bench_bundle bridge+log "$NET_BRIDGE" log
bench_bundle full+log "$NET_FULL" log
if [ -n "$NET_ECHO" ]; then
	VARIANTS+=(echo+log)
	bench_bundle echo+log "$NET_ECHO" log
fi

# run_variant V [ROUND]: one `runc run` of V; appends "ROUND ms" (its wall
# time) to $DIR/times-V; returns runc's status.
run_variant() {
	local v=$1 round=${2:--} t0 t1 rc=0
	t0=$EPOCHREALTIME
	runc run --bundle "$DIR/bundle-$v" "${V_ID[$v]}" </dev/null >"$DIR/$v.out" 2>&1 || rc=$?
	t1=$EPOCHREALTIME
	if [ "$rc" = 0 ]; then
		awk -v r="$round" -v a="$t0" -v b="$t1" 'BEGIN { printf "%s %.3f\n", r, (b - a) * 1000 }' \
			>>"$DIR/times-$v"
	else
		runc delete --force "${V_ID[$v]}" >/dev/null 2>&1 || true
	fi
	return "$rc"
}

# ------------------------------------------------------------- timing
echo
echo "cnihook in a container start: $REPS timed rounds (after $WARMUP untimed) of runc run"
echo "  machine: $(nproc) cores, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)"
fstype() { stat -f -c %T "$(dirname "$1")"; }
echo "  stateDir $STATEDIR ($(fstype "$STATEDIR"))"
echo "  cacheDir $CACHEDIR ($(fstype "$CACHEDIR"))"
echo "  host-local dataDir $DATADIR ($(fstype "$DATADIR"))"

# A trial run of each variant: one that fails is left out, with its error.
ok_variants=()
for v in "${VARIANTS[@]}"; do
	if run_variant "$v"; then
		ok_variants+=("$v")
	else
		notes+=("$v: runc run failed, left out: $(tr '\n' ' ' <"$DIR/$v.out" | cut -c1-300)")
	fi
done
VARIANTS=("${ok_variants[@]}")
failures=0
for ((r = -WARMUP; r < REPS; r++)); do
	if [ "$r" = 0 ]; then
		for v in "${VARIANTS[@]}"; do
			: >"$DIR/times-$v"
			: >"${V_LOG[$v]}"
		done
	fi
	# Each round starts one variant further: none follows the same
	# variant every time (the kernel cleans up a network namespace after
	# its last user is gone, partly in the background).
	for ((k = 0; k < ${#VARIANTS[@]}; k++)); do
		v=${VARIANTS[(k + r + WARMUP) % ${#VARIANTS[@]}]}
		if ! run_variant "$v" "$r"; then
			failures=$((failures + 1))
			notes+=("$v, round $r: runc run failed: $(tr '\n' ' ' <"$DIR/$v.out" | cut -c1-200)")
		fi
	done
done
[ "$failures" = 0 ] || notes+=("$failures runc run(s) failed in the timed rounds, left out")

# stats FILE [COLUMN]: "median p90 n" of a column of numbers (p90 as
# tests/bench/floor computes it), or "- - 0".
stats() {
	local file=$1 col=${2:-1}
	[ -s "$file" ] || {
		echo "- - 0"
		return
	}
	awk -v c="$col" '{ print $c }' "$file" | sort -g | awk '{ v[NR - 1] = $1 } END {
		m = NR % 2 ? v[(NR - 1) / 2] : (v[NR / 2 - 1] + v[NR / 2]) / 2
		printf "%.2f %.2f %d\n", m, v[int(NR * 9 / 10)], NR }'
}
# paired A B: A's wall time minus B's, round by round (the rounds both
# have): the variants of a round ran within a second of each other, so the
# differences move less with the machine's load than the medians do.
paired() {
	awk 'NR == FNR { b[$1] = $2; next } ($1 in b) { printf "%.3f\n", $2 - b[$1] }' \
		"$DIR/times-$2" "$DIR/times-$1"
}
has() { [[ " ${VARIANTS[*]} " == *" $1 "* ]]; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.2f", a - b }'; }

echo
echo "runc run wall time, ms"
echo "(d-none: the median of the round-by-round differences to none)"
printf '%-12s %8s %8s %8s %5s\n' variant median p90 d-none n
printf '%-12s %8s %8s %8s %5s\n' ------- ------ --- ------ -
for v in "${VARIANTS[@]}"; do
	read -r med p90 n < <(stats "$DIR/times-$v" 2)
	paired "$v" none >"$DIR/diff"
	read -r dmed _ _ < <(stats "$DIR/diff")
	printf '%-12s %8s %8s %8s %5s\n' "$v" "$med" "$p90" "$dmed" "$n"
done

# The hook's log lines: per run "total plugins own" for each stage.
for v in "${VARIANTS[@]}"; do
	sed -n 's/.* createRuntime: attached [0-9]* network(s) in \([0-9.]*\) ms (plugins \([0-9.]*\) ms, own \([0-9.]*\) ms).*/\1 \2 \3/p' \
		"${V_LOG[$v]}" >"$DIR/own-$v-createRuntime"
	sed -n 's/.* poststop: detached [0-9]* network(s) in \([0-9.]*\) ms (plugins \([0-9.]*\) ms[,)].*/\1 \2/p' \
		"${V_LOG[$v]}" | awk '{ printf "%s %s %.1f\n", $1, $2, $1 - $2 }' >"$DIR/own-$v-poststop"
	# Both stages of one run together: plugins of both.
	paste -d' ' "$DIR/own-$v-createRuntime" "$DIR/own-$v-poststop" 2>/dev/null |
		awk 'NF == 6 { printf "%.1f %.1f\n", $2 + $5, $3 + $6 }' >"$DIR/own-$v-both"
done

echo
echo "The hook's own timing, from its log line (median ms of the runs; own = total - plugins)"
printf '%-12s %-13s %8s %8s %8s %7s %-5s %5s\n' network stage total plugins own target time n
printf '%-12s %-13s %8s %8s %8s %7s %-5s %5s\n' ------- ----- ----- ------- --- ------ ---- -
for v in "${VARIANTS[@]}"; do
	[[ $v == *+log ]] || continue
	for stage in createRuntime poststop; do
		read -r tot _ n < <(stats "$DIR/own-$v-$stage" 1)
		read -r plg _ _ < <(stats "$DIR/own-$v-$stage" 2)
		read -r own _ _ < <(stats "$DIR/own-$v-$stage" 3)
		verdict=-
		[ "$own" = - ] || verdict=$(awk -v o="$own" -v t="$TARGET_OWN" 'BEGIN { print (o <= t) ? "PASS" : "MISS" }')
		printf '%-12s %-13s %8s %8s %8s %7s %-5s %5s\n' "${v%+log}" "$stage" "$tot" "$plg" \
			"$own" "$TARGET_OWN" "$verdict" "$n"
		[ "$n" = "$REPS" ] || [ "$n" = 0 ] ||
			notes+=("$v $stage: $n log lines for $REPS rounds")
		[ "$n" != 0 ] || notes+=("$v $stage: no log line found in ${V_LOG[$v]}")
	done
done

# The hook seen from runc: what a container start pays for it beyond its
# plugins: runc's handling of two hooks (true-hooks: both entries /bin/true),
# then cnihook's start-up (exec, dynamic loading, configuration) and the
# in-process own time of the log line.
echo
echo "The whole hook beyond its plugins, seen from runc (medians, ms; d: round by round):"
paired true-hooks none >"$DIR/diff"
read -r dtrue _ _ < <(stats "$DIR/diff")
printf '  runc running two hooks that do nothing (/bin/true): d(true-hooks - none) = %s\n' "$dtrue"
for net in bridge full; do
	if ! has "$net" || ! has "$net+log"; then continue; fi
	paired "$net" true-hooks >"$DIR/diff"
	read -r dnet _ _ < <(stats "$DIR/diff")
	read -r plg _ _ < <(stats "$DIR/own-$net+log-both" 1)
	read -r own2 _ _ < <(stats "$DIR/own-$net+log-both" 2)
	printf '  %-6s d(%s - true-hooks) - plugins (both stages, log) = %s - %s = %s;' \
		"$net" "$net" "$dnet" "$plg" "$(minus "$dnet" "$plg")"
	printf ' in-process own (log): %s\n' "$own2"
done

# The wrapper of the +log variants, and the hook's start-up, with the floor's
# timer (fork to wait4, interleaved).
echo
if [ -x "$FLOOR" ]; then
	: >"$T_TMP/wrap.log"
	mkdir -p "$T_TMP/empty-state"
	jq --arg s "$T_TMP/empty-state" '.stateDir = $s' "$HOOKCONF" >"$T_TMP/empty.json"
	if env "${HOOKENV[@]}" "$FLOOR" time -w 20 300 \
		-- /bin/true \
		-- "$HOOKBIN" --config "$T_TMP/empty.json" list \
		-- /bin/sh -c "exec \"\$0\" \"\$@\" 2>>'$T_TMP/wrap.log'" "$HOOKBIN" --config \
		"$T_TMP/empty.json" list \
		>"$T_TMP/floor.out" 2>"$T_TMP/floor.err" </dev/null; then
		{ read -r t_true _; read -r t_hook _; read -r t_wrap _; } <"$T_TMP/floor.out"
		echo "Start-up (floor's timer, median of 300, ms):"
		printf '  /bin/true %s; cnihook --config CFG list (empty state dir) %s;' "$t_true" "$t_hook"
		printf ' the same through the sh wrapper %s\n' "$t_wrap"
		printf '  the wrapper costs %s ms per hook run, %s ms per container (two hook runs)\n' \
			"$(minus "$t_wrap" "$t_hook")" \
			"$(awk -v a="$t_wrap" -v b="$t_hook" 'BEGIN { printf "%.2f", 2 * (a - b) }')"
	else
		notes+=("floor time failed: $(tail -n 2 "$T_TMP/floor.err" | tr '\n' ' ')")
	fi
else
	notes+=("no floor at $FLOOR (make tests/bench/floor): wrapper and start-up figures left out")
fi

# A breakdown of the hook's own time: the hook process's system calls (not
# its plugins'), wall time in each (strace -c -w), summed over STRACE_RUNS
# runs on the echo network (else the bridge one), where the hook's own time
# dominates.
STRACE_RUNS=${STRACE_RUNS:-10}
snet=$NET_ECHO sname=echo
[ -n "$snet" ] || snet=$NET_BRIDGE sname=bridge
if command -v strace >/dev/null 2>&1 && [ "$STRACE_RUNS" -gt 0 ]; then
	bench_bundle strace "$snet" strace
	ok_runs=0
	for ((r = 0; r < STRACE_RUNS; r++)); do
		! run_variant strace || ok_runs=$((ok_runs + 1))
	done
	if [ "$ok_runs" -gt 0 ]; then
		for stage in createRuntime poststop; do
			echo
			echo "System calls of the hook process alone at $stage, $sname network"
			echo "(strace -c -w, $ok_runs runs: wall time in each call, per run; the plugin's run"
			echo " shows as clone/poll/wait4; strace slows every call: proportions, not sums)"
			printf '  %-16s %8s %9s %6s\n' syscall calls ms %time
			# strace -c lines: % time, seconds, usecs/call, calls, [errors,] name.
			cat "$DIR/strace-$stage".* | awk -v n="$ok_runs" '
				$1 ~ /^[0-9.]+$/ && $NF != "total" { t[$NF] += $2; c[$NF] += $4; all += $2 }
				END { for (k in t) printf "%s %.1f %.3f %.1f\n", k, c[k] / n,
					t[k] * 1000 / n, all ? 100 * t[k] / all : 0 }' |
				sort -k3,3 -g -r | head -n 12 |
				awk '{ printf "  %-16s %8s %9s %6s\n", $1, $2, $3, $4 }'
			awk '$NF == "total" { t += $2 } END { printf "  %-16s %8s %9.3f\n", "all", "", t * 1000 / '"$ok_runs"' }' \
				"$DIR/strace-$stage".*
		done
	else
		notes+=("the strace runs failed: $(tr '\n' ' ' <"$DIR/strace.out" | cut -c1-200)")
	fi
else
	notes+=("strace not found (or STRACE_RUNS=0): no system-call breakdown")
fi

# ------------------------------------------------------------- clean-up check
echo
for v in "${!V_ID[@]}"; do
	runc delete --force "${V_ID[$v]}" >/dev/null 2>&1 || true
done
rt_teardown_and_check
echo
echo "Target: the hook's own time (total - plugins, from its log line) <= $TARGET_OWN ms per stage."
for note in "${notes[@]}"; do
	echo "note: $note"
done
exit 0
