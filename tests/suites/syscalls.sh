#!/bin/bash
# The hook's system call budget (docs/benchmarks.md, "A budget CI can
# hold"). Timings cannot hold a shared machine to anything, but the system
# calls cnihook makes can be counted: under `strace -f`, one ADD and one DEL
# of `cnihook add`/`del` on chains of 1 and 10 tests/plugins/echoplugin, and
# one createRuntime and one poststop of a container on the same chains.
# Counted are the calls of the hook's own processes and those of each
# plugin's process up to and including its execve(2) (the setup, the
# sandbox); what the plugin itself does after execve is not the hook's.
# Per plugin: (calls on 10 - calls on 1) / 9; fixed: calls on 1 minus that
# and minus the start-up of the binary (those of `cnihook --version`: a
# dynamically linked build's loader makes dozens more than a static one).
# Each must stay within the budget below, which is the count measured when
# the budget was written, with some room; a change that needs more changes
# the budget here, in the same commit, and says why.
# Checks are often eval'd single-quoted strings, expanded when run.
# shellcheck disable=SC2016
set -uo pipefail
: "${CNIHOOK:?}" "${ECHOPLUGIN:?}"

# The budgets, in system calls. Measured when written (a static build, whose
# start-up is 23 calls): add 96 per plugin and 112 fixed, del 94 and 66,
# createRuntime 106 and 183, poststop 97 and 117. Of a plugin's calls, about 72 are in its own process before execve
# (60 of them set every signal's disposition to the default, lib/exec.c);
# the sandbox takes 3 of them (docs/architecture.md, "Sandbox"), where one
# prctl per capability of the kernel took 37 more.
BUDGET_CLI_PER_PLUGIN=104
BUDGET_CLI_FIXED=150
BUDGET_STAGE_PER_PLUGIN=114
BUDGET_STAGE_FIXED=240

srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
tap_init "network namespaces, the stages' mounts" ip jq strace
hook_binary

tmp=$T_TMP
NS=cnihook-sc-$uniq
new_netns "$NS"
cleanup_push "umount_under '$tmp'"
mkdir -p "$tmp/bin"
for ((i = 1; i <= 10; i++)); do cp "$ECHOPLUGIN" "$tmp/bin/echo$i"; done

# calls FILE: the system calls of an `strace -f -o FILE` that are the hook's:
# every call of a process until it has executed something (the hook's own
# process was executed before strace saw it), the execve(2) included. A
# call that another process's line split in two ("<unfinished ...>", then
# "<... NAME resumed>") is joined first and counts once.
calls() {
	awk '
		/ <unfinished \.\.\.>$/ { sub(/ <unfinished \.\.\.>$/, ""); held[$1] = $0; next }
		$2 == "<..." && ($1 in held) { line = held[$1]; delete held[$1]
			sub(/^[^)]*resumed>/, ""); print line $0; next }
		{ print }
	' "$1" | awk '
		NR == 1 { hook = $1 }
		$2 ~ /^(\+\+\+|---)/ || done[$1] { next }
		{ n++ }
		$1 != hook && $2 ~ /^execve\(/ && / = 0$/ { done[$1] = 1 }
		END { print n + 0 }
	'
}

# traced FILE CMD...: CMD under strace -f, its calls in FILE.
traced() {
	local f=$1
	shift
	strace -f -qq -o "$f" "$@" >"$f.out" 2>"$f.err"
}

# The chain of N echo plugins, as network scN.
for n in 1 10; do
	mkdir -p "$tmp/net.d$n" "$tmp/cache$n" "$tmp/state$n" "$tmp/bundle$n"
	jq -n --argjson n "$n" '{cniVersion: "1.0.0", name: "sc",
		plugins: [range(1; $n + 1) | {type: "echo\(.)"}]}' >"$tmp/net.d$n/10-sc.conflist"
	jq -n --arg c "$tmp/net.d$n" --arg b "$tmp/bin" --arg k "$tmp/cache$n" \
		--arg s "$tmp/state$n" \
		'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, log: {syslog: false}}' \
		>"$tmp/cnihook$n.json"
	jq -n --arg p "/run/netns/$NS" '{ociVersion: "1.0.2", process: {args: ["sh"]},
		root: {path: "rootfs"}, annotations: {"io.cnihook.networks": "sc"},
		linux: {namespaces: [{type: "mount"}, {type: "network", path: $p}]}}' \
		>"$tmp/bundle$n/config.json"
	for st in creating stopped; do
		jq -cn --arg b "$tmp/bundle$n" --arg s "$st" --arg id "sc-$uniq-$n" \
			'{ociVersion: "1.0.2", id: $id, status: $s, bundle: $b}' >"$tmp/$st$n.json"
	done
done

# The binary's start-up.
traced "$tmp/version" "$HOOKBIN" --version
check "cnihook --version, traced" test $? = 0
startup=$(calls "$tmp/version")

# budget WHAT C1 C10 PER FIXED: the check of one operation's counts.
budget() {
	local what=$1 c1=$2 c10=$3 per_max=$4 fixed_max=$5 per fixed
	per=$(((c10 - c1) / 9))
	fixed=$((c1 - per - startup))
	log "$what: $c1 calls on 1 plugin, $c10 on 10: $per per plugin, $fixed fixed (and a start-up of $startup)"
	check "$what: at most $per_max system calls per plugin ($per)" test "$per" -le "$per_max"
	check "$what: at most $fixed_max system calls beside the plugins ($fixed)" \
		test "$fixed" -le "$fixed_max"
}

# The operator commands (the environment of the CNI tool).
declare -A n_add n_del
for n in 1 10; do
	(
		export CNI_PATH=$tmp/bin CNI_IFNAME=eth0 CNI_CACHE_DIR=$tmp/cache$n \
			NETCONFPATH=$tmp/net.d$n
		unset CNI_ARGS CAP_ARGS CNI_NETNS CNI_CONTAINERID CNI_COMMAND
		traced "$tmp/add$n" "$HOOKBIN" add sc "/run/netns/$NS" &&
			traced "$tmp/del$n" "$HOOKBIN" del sc "/run/netns/$NS"
	)
	rc=$?
	check "cnihook add and del on $n plugins, traced" test "$rc" = 0 ||
		log "$(cat "$tmp/add$n.err" "$tmp/del$n.err" 2>/dev/null)"
	n_add[$n]=$(calls "$tmp/add$n")
	n_del[$n]=$(calls "$tmp/del$n")
done
budget "cnihook add" "${n_add[1]}" "${n_add[10]}" $BUDGET_CLI_PER_PLUGIN $BUDGET_CLI_FIXED
budget "cnihook del" "${n_del[1]}" "${n_del[10]}" $BUDGET_CLI_PER_PLUGIN $BUDGET_CLI_FIXED

# The stages.
declare -A n_cr n_ps
for n in 1 10; do
	traced "$tmp/cr$n" "$HOOKBIN" --config "$tmp/cnihook$n.json" createRuntime \
		<"$tmp/creating$n.json" &&
		traced "$tmp/ps$n" "$HOOKBIN" --config "$tmp/cnihook$n.json" poststop \
			<"$tmp/stopped$n.json"
	rc=$?
	check "createRuntime and poststop on $n plugins, traced" test "$rc" = 0 ||
		log "$(cat "$tmp/cr$n.err" "$tmp/ps$n.err" 2>/dev/null)"
	n_cr[$n]=$(calls "$tmp/cr$n")
	n_ps[$n]=$(calls "$tmp/ps$n")
	check "no record left of the container on $n plugins" test ! -e "$tmp/state$n/sc-$uniq-$n"
done
budget createRuntime "${n_cr[1]}" "${n_cr[10]}" $BUDGET_STAGE_PER_PLUGIN $BUDGET_STAGE_FIXED
budget poststop "${n_ps[1]}" "${n_ps[10]}" $BUDGET_STAGE_PER_PLUGIN $BUDGET_STAGE_FIXED
finish
