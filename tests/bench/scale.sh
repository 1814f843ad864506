#!/bin/bash
# The cost of the hook as the host fills up (docs/benchmarks.md
# "Scale"). Not a test, and not in `make check`: it prints figures and exits
# 0 whatever they are (2 when it cannot run at all).
#
#   tests/bench/scale.sh BUILD_DIR
#
# For each N of $NS it builds N live attachments, made by the hook itself,
# and times, with a plugin that costs nothing (tests/plugins/echoplugin, one
# plugin in the network "scale", cniVersion 1.1.0, capability portMappings),
# the rows of the table (medians of REPS runs, ms):
#
#   pid      createRuntime + poststop of one more container, its network
#            namespace from the pid (config.json: a "network" entry without
#            a path), no port
#   path     the same, the namespace named by path in config.json (a bind
#            mount of the container process's namespace, as podman's
#            /run/netns/cni-... files are)
#   port     the same as path, with one port mapping (io.cnihook.ports)
#   wiped    poststop alone after the container's state directory
#            (<stateDir>/<id>: record, status, pin) was removed: the hook
#            finds the attachment in the cache
#   ports    createRuntime + poststop as in pid, with stateDir and cacheDir
#            on ext4 (under EXT4_BASE) holding N port reservation files
#   status / list   `cnihook status` and `cnihook list` (output discarded)
#   gc       `cnihook gc --dry-run` with nothing to collect, and `cnihook gc`
#            with nothing to collect and GC_OTHERS more processes on the
#            host; the number of processes /proc shows is printed with it.
#
# How the N attachments are made:
#   - Each N runs in a phase of its own: `unshare --mount --pid --fork
#     --mount-proc --kill-child`, the phase's files on a tmpfs mounted in
#     that private mount namespace. When the phase ends (normally, on an
#     error, on ^C, or when the script is killed), the kernel ends every
#     process of the private pid namespace and drops every mount of the
#     private mount namespace: the pins, the tmpfs, the network namespaces
#     they held. The phase also kills its helpers by pid and the script
#     checks afterwards that nothing is left (last line of the output). On
#     SIGINT or SIGTERM it stops the phase, cleans up, prints what it has and
#     exits 130; killed outright (SIGKILL), it can only leave its two temp
#     directories behind (setpriv --pdeathsig ends the phase with it).
#   - The containers' processes: tests/bench/scalehelp.c (compiled here with
#     cc) forks N+1 sleeping children, each of which unshare(CLONE_NEWNET)s
#     a network namespace of its own: N+1 live namespaces, each with one
#     process, as containers have (gc finds them alive by that process).
#     `unshare -n sleep` per container costs an exec more per namespace.
#   - The attachments: the hook's own createRuntime for each of them (the
#     OCI state with the child's pid, config.json with a "network" entry
#     without path, annotation io.cnihook.networks=scale), PAR at a time
#     (xargs -P). So each has its record, status, pin (a bind mount of its
#     namespace in <stateDir>/<id>/netns), lock and cache entry as the hook
#     writes them. None of them has a port mapping.
#   - The ext4 state of the ports row is a clone: the tmpfs stateDir and
#     cacheDir copied by tar (the pins excluded; the pin paths in records
#     and cache entries rewritten by sed), the pins bind-mounted again from
#     the tmpfs ones (scalehelp bind), and N port reservation files
#     written as hook/state/port-reservations.c writes them (<stateDir>/ports/tcp-<port>, one
#     line "<holder> *", holders the N attachments, ports 20000 + i) rather
#     than by N createRuntimes with a port each, which cost O(N) each today.
#   - GC_OTHERS other processes (scalehelp procs ... plain, in the host's
#     network namespace) are forked before the containers' processes, so
#     that they come first in /proc as a host's daemons do; they exist for
#     the `gc` row only and are killed (by pid) before the `gc --dry-run` row.
#
# Each run is timed by `scalehelp run` (fork to wait4 of the hook, stdin
# from a file): the wall time, and the CPU time (user + system) of the hook
# and the plugins it waited for, from wait4's rusage. Two tables follow:
# wall-time medians, then CPU-time medians of the same runs; the second
# moves much less when other work loads the machine. The one container
# timed (ids m-*) runs in the (N+1)th namespace; by path, config.json names
# a bind mount of it on the phase's tmpfs.
#
# The private pid namespace makes /proc show only the phase's processes:
# the process counts printed are exact, and smaller than a busy host's.
#
# Environment (all optional):
#   NS         the values of N (default "0 1000 10000")
#   REPS       timed runs of each row (default 21); WARMUP untimed (default 2)
#   PAR        createRuntimes run at once while building (default: nproc)
#   GC_OTHERS  other processes for the gc row (default 10000; 0: no such row)
#   GC_REPS    timed runs of each gc row (default REPS); a gc row stops
#              early once its runs took GC_BUDGET seconds (default 60)
#   GC_TIMEOUT one gc run longer than this (seconds, default 900) is killed
#              and shown as ">TIMEOUT"
#   EXT4_BASE  where the ext4 state of the ports row goes (default /var/tmp;
#              a new directory under it, removed at the end)
#   CNIHOOK, ECHOPLUGIN   the binaries (default under BUILD_DIR)
#   CC         the C compiler for scalehelp.c (default cc)
#   NETNS_GROUP  containers' processes per network namespace (default 1):
#              G > 1 builds N attachments with N/G namespaces (plus one of
#              its own for the timed container), G times fewer of the
#              kernel's slow namespace creations; each attachment still has
#              its own pin, record and cache entry
#   TMPDIR     where the phase's tmpfs is mounted (a new directory)
# Needs root (mounts, namespaces), util-linux's unshare (--kill-child) and
# setpriv (--pdeathsig), jq, tar, a C compiler.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self=$here/$(basename "${BASH_SOURCE[0]}")

# median: the median of the numbers on stdin, or "-" when there are none.
median() {
	sort -g | awk '{ v[NR - 1] = $1 } END {
		if (NR == 0) { print "-"; exit }
		m = NR % 2 ? v[(NR - 1) / 2] : (v[NR / 2 - 1] + v[NR / 2]) / 2
		printf "%.1f\n", m }'
}
ms_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", (b - a) * 1000 }'; }

# =================================================================== phase
# Runs as pid 1 of a private pid namespace, in a private mount namespace:
#   scale.sh --phase N TMP EXT4DIR RESULTS
phase() {
	local N=$1 TMP=$2 EXT=$3 RES=$4
	local T=$TMP/phase S C cfg helper_pids=()
	local mpid oth_pid farm_pid
	: >"$RES"
	result() { printf '%s %s\n' "$1" "$2" >>"$RES"; }
	files() { { find "$1" -type f 2>/dev/null || true; } | wc -l; } # files DIR: how many
	note() { printf 'note %s\n' "N=$N: $*" >>"$RES"; }
	phase_end() {
		local p
		for p in "${helper_pids[@]}"; do kill "$p" 2>/dev/null || true; done
		for p in "${helper_pids[@]}"; do wait "$p" 2>/dev/null || true; done
	}
	trap 'phase_end; exit 130' INT TERM
	trap 'phase_end' EXIT
	trap 'note "stopped at line $LINENO: $BASH_COMMAND"' ERR
	result pidns "$(readlink /proc/self/ns/pid)"

	mkdir -p "$T"
	mount -t tmpfs -o mode=0700 cnihook-scale "$T"
	S=$T/state C=$T/cache
	mkdir -p "$T/net.d" "$T/bin" "$C" "$S" "$T/bundles" "$T/netns"
	cp "$ECHOPLUGIN" "$T/bin/echo"
	printf '{"cniVersion":"1.1.0","name":"scale","plugins":[{"type":"echo","capabilities":{"portMappings":true}}]}\n' \
		>"$T/net.d/10-scale.conflist"
	# conf FILE STATEDIR CACHEDIR
	conf() {
		jq -n --arg c "$T/net.d" --arg b "$T/bin" --arg k "$3" --arg s "$2" \
			'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, pluginTimeout: 10,
			  log: {syslog: false}}' >"$1"
	}
	cfg=$T/cnihook.json
	conf "$cfg" "$S" "$C"
	# bundle NAME NAMESPACES-JSON ANNOTATIONS-JSON
	bundle() {
		mkdir -p "$T/bundles/$1"
		printf '{"ociVersion":"1.0.2","process":{"args":["sh"]},"root":{"path":"rootfs"},"annotations":%s,"linux":{"namespaces":%s}}\n' \
			"$3" "$2" >"$T/bundles/$1/config.json"
	}
	local ann='{"io.cnihook.networks":"scale"}'
	local annport='{"io.cnihook.networks":"scale","io.cnihook.ports":"18999:80"}'
	local frompid='[{"type":"mount"},{"type":"network"}]'
	local bypath
	bypath=$(jq -cn --arg p "$T/netns/measured" '[{type: "mount"}, {type: "network", path: $p}]')
	bundle pid "$frompid" "$ann"
	bundle path "$bypath" "$ann"
	bundle port "$bypath" "$annport"

	# ---------------------------------------------------- processes
	# farm KEY COUNT net|plain FILE: COUNT sleeping processes (scalehelp
	# procs), their pids in FILE, the time taken as KEY; the helper's pid
	# in $started.
	farm() {
		local t0=$EPOCHREALTIME
		"$SCALEHELP" procs "$2" "$3" "$4" &
		started=$!
		helper_pids+=("$started")
		while [ ! -e "$4" ]; do
			kill -0 "$started" 2>/dev/null || { note "scalehelp procs $2 $3 failed"; return 1; }
			sleep 0.1
		done
		result "$1" "$(ms_since "$t0")"
	}
	local t0 pids=$T/pids started
	if [ "$GC_OTHERS" -gt 0 ]; then
		farm t_others "$GC_OTHERS" plain "$T/others"
		oth_pid=$started
	fi
	farm t_netns "$((N + 1))" net "$pids"
	farm_pid=$started
	mpid=$(tail -n 1 "$pids")
	# The namespaces made, for the final check that none is left.
	sed 's|.*|/proc/&/ns/net|' "$pids" | xargs -r readlink | sort -u >"$TMP/netns-$N"
	if [ "$(wc -l <"$TMP/netns-$N")" != "$((N + 1))" ]; then
		note "only $(wc -l <"$TMP/netns-$N") distinct network namespaces for $((N + 1)) processes"
	fi
	touch "$T/netns/measured"
	mount --bind "/proc/$mpid/ns/net" "$T/netns/measured"

	# ---------------------------------------------------- the N attachments
	export HOOKBIN cfg T
	t0=$EPOCHREALTIME
	head -n "$N" "$pids" | awk '{ printf "%05d %s\n", NR, $1 }' |
		xargs -r -P "$PAR" -n 200 bash -c '
			while [ $# -gt 0 ]; do
				printf "{\"ociVersion\":\"1.0.2\",\"id\":\"bg-%s\",\"status\":\"creating\",\"pid\":%s,\"bundle\":\"%s\"}" \
					"$1" "$2" "$T/bundles/pid" |
					"$HOOKBIN" --config "$cfg" createRuntime 2>>"$T/build.log" >/dev/null ||
					echo "bg-$1" >>"$T/build.failed"
				shift 2
			done' _
	result t_build "$(ms_since "$t0")"
	local pins entries
	pins=$(find "$S" -mindepth 2 -maxdepth 2 -name netns | wc -l)
	entries=$(files "$C/results")
	result pins "$pins"
	result entries "$entries"
	if [ -e "$T/build.failed" ]; then
		note "$(wc -l <"$T/build.failed") createRuntime(s) of the N failed: $(tail -n 2 "$T/build.log" | tr '\n' ' ')"
	fi

	# ---------------------------------------------------- timing
	state() { # state ID STATUS BUNDLE
		printf '{"ociVersion":"1.0.2","id":"%s","status":"%s","pid":%s,"bundle":"%s"}' \
			"$1" "$2" "$mpid" "$T/bundles/$3"
	}
	# hook CONFIG STDIN ARGS...: one run, "WALL CPU" (ms; CPU: the hook's
	# and its plugins' user + system time) in $ms
	hook() {
		local c=$1
		printf '%s' "$2" >"$T/stdin"
		shift 2
		ms=$("$SCALEHELP" run 0 "$T/stdin" /dev/null "$T/hook.log" "$HOOKBIN" --config "$c" "$@") ||
			return 1
	}
	# pair CONFIG ID BUNDLE: createRuntime + poststop, "WALL CPU" in $ms
	pair() {
		local a
		hook "$1" "$(state "$2" creating "$3")" createRuntime || return 1
		a=$ms
		hook "$1" "$(state "$2" stopped "$3")" poststop || return 1
		ms=$(awk -v a="$a" -v b="$ms" 'BEGIN { split(a, x, " "); split(b, y, " ")
			printf "%.3f %.3f", x[1] + y[1], x[2] + y[2] }')
	}
	# wiped ID: createRuntime, the container's state directory removed,
	# then poststop alone, timed.
	wiped() {
		hook "$cfg" "$(state "$1" creating pid)" createRuntime || return 1
		umount "$S/$1/netns"
		rm -rf "${S:?}/$1" "$S/$1.lock"
		hook "$cfg" "$(state "$1" stopped pid)" poststop
	}
	# record NAME FILE: the medians of FILE's lines "WALL CPU" as NAME and
	# NAME_cpu.
	record() {
		result "$1" "$(awk '{ print $1 }' "$2" | median)"
		result "$1_cpu" "$(awk '{ print $2 }' "$2" | median)"
	}
	# row NAME REPS CMD...: WARMUP + REPS runs of CMD (which sets $ms),
	# the medians in the results as NAME and NAME_cpu ("fail" after a
	# failure).
	row() {
		local name=$1 reps=$2 r
		shift 2
		: >"$T/times"
		for ((r = -WARMUP; r < reps; r++)); do
			if ! "$@"; then
				note "$name: a run failed: $(tail -n 3 "$T/hook.log" | tr '\n' ' ')"
				result "$name" fail
				return 0
			fi
			[ "$r" -lt 0 ] || echo "$ms" >>"$T/times"
		done
		record "$name" "$T/times"
	}
	row pid "$REPS" pair "$cfg" m-pid pid
	row path "$REPS" pair "$cfg" m-path path
	row port "$REPS" pair "$cfg" m-port port
	row wiped "$REPS" wiped m-wiped
	row status "$REPS" hook "$cfg" "" status
	row list "$REPS" hook "$cfg" "" list

	procs() { # how many processes /proc shows
		local n=0 p
		for p in /proc/[0-9]*; do n=$((n + 1)); done
		echo "$n"
	}
	# gcrow NAME ARGS...: budgeted runs of cnihook gc ARGS, nothing to
	# collect.
	gcrow() {
		local name=$1 r spent=0
		shift
		result "${name}_procs" "$(procs)"
		: >"$T/times"
		for ((r = 0; r < GC_REPS; r++)); do
			if ! ms=$("$SCALEHELP" run "$GC_TIMEOUT" /dev/null "$T/gc.out" "$T/hook.log" \
				"$HOOKBIN" --config "$cfg" gc "$@"); then
				if [ "$ms" = timeout ]; then
					result "$name" ">$((GC_TIMEOUT * 1000))"
				else
					note "$name: gc failed: $(tail -n 3 "$T/hook.log" | tr '\n' ' ')"
					result "$name" fail
				fi
				return 0
			fi
			echo "$ms" >>"$T/times"
			if grep -q 'gone' "$T/gc.out"; then
				note "$name: gc found something to collect: $(grep -m 2 gone "$T/gc.out" | tr '\n' ' ')"
			fi
			spent=$(awk -v s="$spent" -v m="${ms%% *}" 'BEGIN { print s + m / 1000 }')
			awk -v s="$spent" -v b="$GC_BUDGET" 'BEGIN { exit !(s >= b) }' && break
		done
		record "$name" "$T/times"
		result "${name}_runs" "$(wc -l <"$T/times")"
	}
	if [ "$GC_OTHERS" -gt 0 ]; then
		gcrow gcothers
		kill "$oth_pid"
		wait "$oth_pid" 2>/dev/null || true
		helper_pids=("$farm_pid")
		# Its children die with it (PR_SET_PDEATHSIG); wait until this
		# shell, pid 1 here, has reaped them.
		for ((r = 0; r < 300; r++)); do
			[ "$(procs)" -gt "$((N + 10))" ] || break
			sleep 0.1
		done
	fi
	gcrow gcdry --dry-run
	local left
	left=$(files "$C/results")
	[ "$left" = "$entries" ] || note "the cache held $entries entries before the gc rows, $left after"

	# ---------------------------------------------------- ext4, N port files
	local E=$EXT/$N ecfg=$T/cnihook-ext4.json
	mkdir -p "$E/state/ports" "$E/cache"
	tar -C "$S" --exclude=netns -cf - . | tar -C "$E/state" -xf -
	tar -C "$C" -cf - . | tar -C "$E/cache" -xf -
	# The pin paths the records and cache entries name: the clone's own.
	find "$E/state" "$E/cache" -type f -print0 | xargs -0 -r sed -i "s|$S/|$E/state/|g"
	local bound
	bound=$(find "$S" -mindepth 2 -maxdepth 2 -name netns -printf '%h\n' |
		awk -v s="$S" -v e="$E/state" '{ id = substr($0, length(s) + 2)
			print s "/" id "/netns " e "/" id "/netns" }' | "$SCALEHELP" bind)
	[ "$bound" = "$pins" ] || note "ext4 clone: $bound pins bound again for $pins"
	awk -v d="$E/state/ports" -v n="$N" 'BEGIN { for (i = 1; i <= n; i++) {
		f = sprintf("%s/tcp-%d", d, 20000 + i); printf "bg-%05d *\n", i > f; close(f) } }'
	result ext4_fs "$(df --output=fstype "$E" | tail -n 1)"
	result portfiles "$(files "$E/state/ports")"
	conf "$ecfg" "$E/state" "$E/cache"
	row ports "$REPS" pair "$ecfg" m-ext4 pid
	[ "$(files "$E/state/ports")" = "$N" ] ||
		note "ports row: $(files "$E/state/ports") port files after, $N before"
	result finished 1
}

if [ "${1-}" = --phase ]; then
	shift
	phase "$@"
	exit 0
fi

# =================================================================== main
builddir=${1:-${abs_top_builddir:-}}
if [ -z "$builddir" ] || [ ! -d "$builddir" ]; then
	echo "usage: $0 BUILD_DIR   (the top of a build tree where make ran)" >&2
	exit 2
fi
builddir=$(cd "$builddir" && pwd)
CNIHOOK=${CNIHOOK:-$builddir/hook/cnihook}
ECHOPLUGIN=${ECHOPLUGIN:-$builddir/tests/plugins/echoplugin}
NS=${NS:-"0 1000 10000"}
REPS=${REPS:-21}
WARMUP=${WARMUP:-2}
PAR=${PAR:-$(nproc)}
GC_OTHERS=${GC_OTHERS:-10000}
GC_REPS=${GC_REPS:-$REPS}
GC_BUDGET=${GC_BUDGET:-60}
GC_TIMEOUT=${GC_TIMEOUT:-900}
EXT4_BASE=${EXT4_BASE:-/var/tmp}

if [ "$(id -u)" != 0 ]; then
	echo "$0: needs root (mounts and namespaces)" >&2
	exit 2
fi
for c in unshare setpriv jq tar "${CC:-cc}"; do
	command -v "$c" >/dev/null 2>&1 || {
		echo "$0: $c not found" >&2
		exit 2
	}
done
unshare --help 2>&1 | grep -q -- --kill-child || {
	echo "$0: this unshare has no --kill-child (util-linux 2.32 or later needed)" >&2
	exit 2
}
for b in "$CNIHOOK" "$ECHOPLUGIN"; do
	[ -x "$b" ] || {
		echo "$0: $b: not found (make hook/cnihook tests/plugins/echoplugin)" >&2
		exit 2
	}
done
# In a build tree hook/cnihook may be libtool's wrapper script: time the
# binary, with the library path the wrapper would set.
HOOKBIN=$CNIHOOK
if [ "$(head -c 2 "$CNIHOOK")" = '#!' ] && grep -q 'Generated by libtool' "$CNIHOOK" &&
	[ -x "$(dirname "$CNIHOOK")/.libs/cnihook" ]; then
	HOOKBIN=$(cd "$(dirname "$CNIHOOK")" && pwd)/.libs/cnihook
	export LD_LIBRARY_PATH=$builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cnihook-scale.XXXXXX")
ext=$(mktemp -d "$EXT4_BASE/cnihook-scale.XXXXXX")
phase_pid=
interrupted=0
# Kill the running phase and wait for it: its unshare, which ignores SIGINT
# and SIGTERM while it waits, by SIGKILL; --kill-child then kills the
# phase's pid 1, and with it the whole private pid namespace.
stop_phase() {
	if [ -n "$phase_pid" ]; then
		kill -KILL "$phase_pid" 2>/dev/null || true
		wait "$phase_pid" 2>/dev/null || true
		phase_pid=
	fi
}
trap 'interrupted=1; stop_phase' INT TERM
trap 'stop_phase; rm -rf "$tmp" "$ext"' EXIT

SCALEHELP=$tmp/scalehelp
export SCALEHELP_NETNS_GROUP=${NETNS_GROUP:-1}
if ! "${CC:-cc}" -O2 -o "$SCALEHELP" "$here/scalehelp.c" 2>"$tmp/cc.log"; then
	echo "$0: cannot compile $here/scalehelp.c: $(head -n 3 "$tmp/cc.log")" >&2
	exit 2
fi
export HOOKBIN ECHOPLUGIN SCALEHELP REPS WARMUP PAR GC_OTHERS GC_REPS GC_BUDGET GC_TIMEOUT

echo "cnihook at scale: medians of $REPS runs (after $WARMUP untimed), ms"
echo "  hook: $HOOKBIN"
echo "  machine: $(nproc) cores, $(uname -sr), $(free -g | awk '/^Mem:/ { print $2 " GB" }'), load at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  phase files: tmpfs in a private mount namespace under $tmp; ext4 row: $ext ($(df --output=fstype "$ext" | tail -n 1))"
for N in $NS; do
	[ "$interrupted" = 0 ] || break
	echo "phase N=$N: building $N attachments (load $(cut -d' ' -f1 /proc/loadavg)) ..." >&2
	# setpriv --pdeathsig: should this script be killed outright, its
	# phase dies with it rather than running on.
	setpriv --pdeathsig KILL -- \
		unshare --mount --pid --fork --mount-proc --propagation private --kill-child \
		-- bash "$self" --phase "$N" "$tmp" "$ext" "$tmp/results-$N" &
	phase_pid=$!
	rc=0
	wait "$phase_pid" || rc=$?
	phase_pid=
	[ "$rc" = 0 ] || [ "$interrupted" = 1 ] || echo "note: phase N=$N ended with status $rc" >>"$tmp/notes"
	echo "load $(cut -d' ' -f1-3 /proc/loadavg) after N=$N" >>"$tmp/loads"
done

# ------------------------------------------------------------- the table
get() { # get N KEY
	local v
	v=$(awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$tmp/results-$1" 2>/dev/null)
	printf '%s\n' "${v:--}"
}
rowline() { # rowline LABEL VALUES...
	local label=$1
	shift
	printf '| %s |' "$label"
	printf ' %s |' "$@"
	printf '\n'
}
show_row() { # show_row LABEL KEY
	local N vals=()
	for N in $NS; do vals+=("$(get "$N" "$2")"); done
	rowline "$1" "${vals[@]}"
}
# table SUFFIX: the rows, from the keys NAME (wall) or NAME_cpu.
table() {
	local x=$1 N vals cols=() seps=()
	for N in $NS; do
		cols+=("N=$N")
		seps+=(---)
	done
	rowline "operation (ms)" "${cols[@]}"
	rowline --- "${seps[@]}"
	show_row "createRuntime + poststop, namespace from the pid, no port" "pid$x"
	show_row "the same, namespace named by path in config.json" "path$x"
	show_row "the same (by path) with one port mapping" "port$x"
	show_row "poststop after the container's state directory was removed" "wiped$x"
	vals=()
	for N in $NS; do vals+=("$(get "$N" "ports$x") ($(get "$N" portfiles) files)"); done
	rowline "createRuntime + poststop, no port, with N port reservation files (ext4)" "${vals[@]}"
	vals=()
	for N in $NS; do vals+=("$(get "$N" "status$x") / $(get "$N" "list$x")"); done
	rowline '`status` / `list`' "${vals[@]}"
	vals=()
	for N in $NS; do vals+=("$(get "$N" "gcdry$x") ($(get "$N" gcdry_procs) procs)"); done
	rowline '`gc --dry-run`, nothing to collect' "${vals[@]}"
	if [ "$GC_OTHERS" -gt 0 ]; then
		vals=()
		for N in $NS; do vals+=("$(get "$N" "gcothers$x") ($(get "$N" gcothers_procs) procs)"); done
		rowline "\`gc\`, nothing to collect, $GC_OTHERS other processes" "${vals[@]}"
	fi
}
echo
echo "Wall time, ms (median of $REPS runs; gc rows: of the runs made, see below):"
echo
table ""
echo
echo "CPU time (user + system) of the hook and its plugins, ms, medians of the same runs"
echo "(steadier than wall time while other work loads the machine):"
echo
table _cpu
echo
echo "Set-up of each phase (s): forking the other processes / the containers' processes"
echo "with their namespaces / the N createRuntimes ($PAR at a time); pins, cache entries:"
for N in $NS; do
	printf '  N=%s: %s / %s / %s s; %s pins, %s cache entries; gc runs: %s, %s; ext4 row on %s\n' "$N" \
		"$(get "$N" t_others | awk '$1 != "-" { printf "%.1f", $1 / 1000; next } { print }')" \
		"$(get "$N" t_netns | awk '$1 != "-" { printf "%.1f", $1 / 1000; next } { print }')" \
		"$(get "$N" t_build | awk '$1 != "-" { printf "%.1f", $1 / 1000; next } { print }')" \
		"$(get "$N" pins)" "$(get "$N" entries)" "$(get "$N" gcothers_runs)" \
		"$(get "$N" gcdry_runs)" "$(get "$N" ext4_fs)"
done
sed 's/^/  /' "$tmp/loads" 2>/dev/null || true
for N in $NS; do
	grep '^note ' "$tmp/results-$N" 2>/dev/null | sed 's/^note /note: /' || true
	[ "$(get "$N" finished)" = 1 ] || echo "note: phase N=$N did not finish"
done
cat "$tmp/notes" 2>/dev/null || true

# ------------------------------------------------------------- the host
# Nothing of the phases may be left: no process in their pid namespaces, no
# mount of their directories, no reference to their network namespaces.
stop_phase
leftover=()
ourns=$(cat "$tmp"/netns-* 2>/dev/null | sort -u)
pidns=$(for N in $NS; do get "$N" pidns; done | grep -v '^-$' | sort -u)
{ readlink /proc/[0-9]*/ns/pid /proc/[0-9]*/ns/net 2>/dev/null || true; } | sort -u >"$tmp/host-ns"
awk '$9 == "nsfs" { print $4 }' /proc/self/mountinfo | sed 's|^/||' | sort -u >>"$tmp/host-ns"
n=$(comm -12 <(sort -u "$tmp/host-ns") <(printf '%s\n' "$ourns" "$pidns" | sort -u) | grep -c . || true)
[ "$n" = 0 ] || leftover+=("$n of its namespaces still referenced")
n=$(awk -v a="$tmp" -v b="$ext" 'index($5, a) == 1 || index($5, b) == 1' /proc/self/mountinfo | wc -l)
[ "$n" = 0 ] || leftover+=("$n mounts under $tmp or $ext")
rm -rf "$tmp" "$ext"
[ ! -e "$tmp" ] && [ ! -e "$ext" ] || leftover+=("$tmp or $ext could not be removed")
if [ "${#leftover[@]}" = 0 ]; then
	echo "host: as before (no process, mount, namespace or file of the benchmark left)"
else
	echo "host: NOT as before: ${leftover[*]}"
fi
[ "$interrupted" = 0 ] || exit 130
exit 0
