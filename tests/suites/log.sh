#!/bin/bash
# Where the hook's lines go on a host without a syslog daemon:
# cnihook(8) and cnihook.json(5), FILES and "log.syslog". Every run of the
# hook here is in a mount namespace of its own where neither /dev/log nor
# journald's socket takes a line (an empty file is bind-mounted over either
# when the host has it: connect() is refused, as when a daemon died; on a
# host without them, as this one and CI, nothing needs hiding). Then the
# lines must be in <stateDir>/cnihook.log: a stage's failure, a broken
# cnihook.json at poststop (with its file, line and column, in the default
# /run/cnihook, on a private tmpfs here), hooks failing in parallel; a
# successful stage opens no file; status and list answer on the terminal
# only; gc does not take the log for a container.
# Checks are often eval'd single-quoted strings, expanded when run.
# shellcheck disable=SC2016
set -uo pipefail
: "${CNIHOOK:?}" "${FAKEPLUGIN:?}"

srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
tap_init "mount namespaces, network namespaces" ip jq unshare

tmp=$T_TMP
NS=cnihook-lg-$uniq
NSPATH=/run/netns/$NS

bin=$tmp/bin conf=$tmp/net.d cache=$tmp/cache state=$tmp/state
mkdir -p "$bin" "$conf" "$tmp/bundles"
cp "$FAKEPLUGIN" "$bin/fa"
jq -n '{cniVersion: "1.0.0", name: "net1", plugins: [{type: "fa"}]}' >"$conf/net1.conflist"
# config STATEDIR: a configuration with syslog on (the default) and STATEDIR
config() {
	jq -n --arg c "$conf" --arg b "$bin" --arg k "$cache" --arg s "$1" \
		'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s}'
}
config "$state" >"$tmp/cnihook.json"
: >"$tmp/empty"
new_netns "$NS"

# no_syslog CMD...: run CMD where no syslog socket takes a line; with
# PRIVATE_RUN=1, on a tmpfs over /run (so that the hook makes /run/cnihook
# itself, even while another suite's hook uses the host's), whose
# cnihook.log is copied to $tmp/run-cnihook.log (and whose listing to
# $tmp/run-cnihook.ls) before the namespace goes.
PRIVATE_RUN=0
no_syslog() {
	# shellcheck disable=SC2016
	unshare -m --propagation private sh -c '
		tmp=$1 private=$2
		shift 2
		for p in /dev/log /run/systemd/journal/socket; do
			if [ -e "$p" ] || [ -L "$p" ]; then
				mount --bind "$tmp/empty" "$p" || exit 125
			fi
		done
		if [ "$private" = 1 ]; then
			mount -t tmpfs tmpfs /run || exit 125
			rm -f "$tmp/run-cnihook.log" "$tmp/run-cnihook.ls"
		fi
		"$@"
		rc=$?
		if [ "$private" = 1 ]; then
			stat -c "%a %F" /run/cnihook >"$tmp/run-cnihook.ls" 2>/dev/null
			cp /run/cnihook/cnihook.log "$tmp/run-cnihook.log" 2>/dev/null
		fi
		exit $rc
	' sh "$tmp" "$PRIVATE_RUN" "$@"
}
# hook CONFIG ID STATUS STAGE: that stage of container ID, no syslog
hook() {
	run_in "$(state "$2" "$3")" no_syslog "$CNIHOOK" --config "$1" "$4"
}
# line_re LEVEL: the start of a line of the file, up to the message
line_re() { printf '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z cnihook\\[[0-9]+\\]: %s: ' "$1"; }
# in_file FILE LEVEL TEXT: FILE has a well-formed line LEVEL: TEXT
in_file() {
	[ -f "$1" ] && grep -E "$(line_re "$2")" "$1" | grep -qF -- ": $2: $3"
}

# ---------------------------------------------------------------- a failure
echo "# a stage that fails: its line is in <stateDir>/cnihook.log"
id=fail-$uniq
bundle "$id" "$(annotations io.cnihook.networks nosuch)"
hook "$tmp/cnihook.json" "$id" creating createRuntime
check "createRuntime of an unknown network fails" test "$rc" != 0
check "its message is on stderr" eval '[[ $err == "cnihook: "*nosuch* ]]'
msg=${err#cnihook: }
msg=${msg%%$'\n'*}
check "the same line is in <stateDir>/cnihook.log, with time, pid and level" \
	in_file "$state/cnihook.log" error "$msg"
check "<stateDir> was made with mode 0700" test "$(stat -c %a "$state")" = 700
check "cnihook.log has mode 0600" test "$(stat -c %a "$state/cnihook.log")" = 600
check "one line per message" \
	test "$(wc -l <"$state/cnihook.log")" = "$(printf '%s\n' "$err" | wc -l)"

# ---------------------------------------------------------------- quiet
echo "# a stage that succeeds opens no file"
quiet=$tmp/quiet-state
config "$quiet" >"$tmp/quiet.json"
id=ok-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1)"
clear_rec
state "$id" creating >"$tmp/creating.json"
state "$id" stopped >"$tmp/stopped.json"
# Both stages in one namespace: the pin is a mount.
run_in "" no_syslog sh -c '"$1" --config "$2" createRuntime <"$3" &&
	"$1" --config "$2" poststop <"$4"' sh "$CNIHOOK" "$tmp/quiet.json" \
	"$tmp/creating.json" "$tmp/stopped.json"
check "createRuntime and poststop succeed, quietly" test "$rc" = 0 -a -z "$out$err"
check "the plugin ran: ADD, then DEL" test "$(calls)" = "fa-ADD fa-DEL"
check "no cnihook.log was made" test ! -e "$quiet/cnihook.log"

# ---------------------------------------------------------------- config error
echo "# a trailing comma in cnihook.json at poststop"
bad=$tmp/bad.json
printf '{\n  "stateDir": "%s",\n  "log": {"level": "warn"},\n}\n' "$tmp/never" >"$bad"
PRIVATE_RUN=1
hook "$bad" "$id" stopped poststop
PRIVATE_RUN=0
where="$bad:4:1: invalid JSON: parse error: invalid object key (must be a string)"
check "poststop fails" test "$rc" = 1
check "stderr names the file, line and column" test "$err" = "cnihook: $where"
check "the line is in /run/cnihook/cnihook.log (the default stateDir)" \
	in_file "$tmp/run-cnihook.log" error "$where"
check "/run/cnihook was made with mode 0700" \
	test "$(cat "$tmp/run-cnihook.ls" 2>/dev/null)" = "700 directory"
check "the stateDir the broken file names is not used" test ! -e "$tmp/never"

echo "# status and list with a broken cnihook.json answer on the terminal only"
for verb in status list; do
	PRIVATE_RUN=1
	run_in "" no_syslog "$CNIHOOK" --config "$bad" "$verb"
	PRIVATE_RUN=0
	check "$verb fails, naming the place" test "$rc" = 1 -a "$err" = "cnihook: $where"
	check "$verb wrote no log file" test ! -e "$tmp/run-cnihook.log"
done

# ---------------------------------------------------------------- parallel
echo "# hooks failing in parallel: each line whole"
par=$tmp/par-state
config "$par" >"$tmp/par.json"
pids=()
for i in $(seq 1 16); do
	bundle "par$i-$uniq" "$(annotations io.cnihook.networks "nosuch$i")"
	state "par$i-$uniq" creating |
		no_syslog "$CNIHOOK" --config "$tmp/par.json" createRuntime >/dev/null 2>&1 &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
check "16 hooks: 16 lines, each well formed, naming its network" eval '
	[ "$(grep -cE "$(line_re error).*\"nosuch[0-9]+\"" "$par/cnihook.log")" = 16 ] &&
	[ "$(wc -l <"$par/cnihook.log")" = 16 ] &&
	[ "$(grep -oE "\"nosuch[0-9]+\"" "$par/cnihook.log" | sort -u | wc -l)" = 16 ]'

# ---------------------------------------------------------------- gc
echo "# gc does not take the log files for containers"
cp "$state/cnihook.log" "$state/cnihook.log.1"
run_in "" no_syslog "$CNIHOOK" --config "$tmp/cnihook.json" --log-level=info gc --dry-run
check "gc --dry-run succeeds" test "$rc" = 0
check "gc names no container \"cnihook.log\" or \"cnihook.log.1\"" \
	not has 'container "cnihook.log' "$out$err"
check "the log files are still there" test -f "$state/cnihook.log" -a -f "$state/cnihook.log.1"

finish
