#!/bin/bash
# Rootless podman killed in the middle of a container's createRuntime
# (cnihook(8), ROOTLESS: "Every stage of a rootless container first
# collects the user's attachments that gc would find gone"): a user of the
# test's own runs podman 4 (runc, vfs, --network none) with a bridge and
# portmap network; the network's portmap is a wrapper that, at the ADD of a
# container marked by a trigger file, tells the test where it is and waits.
# The test then kills with SIGKILL what an OOM kill or a stray kill would
# take (no poststop of anyone's runs for it):
#   k1  the container's conmon;
#   k2  its `podman run`;
#   k3  both;
# then lets the hook and the runtime's create finish, and the user does
# what a user does next: `podman rm -f` of the container (where podman
# lost it with its `podman run` and the runtime still holds it created,
# the runtime's own delete, as podman would have run it) and a new
# container d on the same host port. Each time:
#   - d starts and its port serves d (the killed start's attachment and
#     forwarder do not hold the port: collected first, or detached by the
#     poststop that `podman rm -f` ran);
#   - after d is removed, nothing of cnihook's is left for the user: no
#     /run/user/UID/cnihook, no forwarder, slirp4netns or cnihook process,
#     no lease, no mount in podman's mount namespace.
# The log says which way each killed container went.
# ok never fails, so that `A && ok ... || not_ok ...` is an if-then-else.
# shellcheck disable=SC2015
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
. "$srcdir/tests/harness/rootless-lib.sh"

require_root "to create a user with subordinate ids"
require_cmd podman runc jq nsenter slirp4netns ss
CNIHOOK=${CNIHOOK:-${abs_top_builddir:-$srcdir}/hook/cnihook}
[ -x "$CNIHOOK" ] || fail "cnihook not found at $CNIHOOK (set CNIHOOK)"
PLUGINDIR=${CNI_PLUGIN_DIR:-/usr/lib/cni}
require_plugins bridge host-local portmap
BUSYBOX=${CNIHOOK_BUSYBOX:-/bin/busybox}
[ -x "$BUSYBOX" ] || skip "no static busybox at $BUSYBOX (busybox-static)"

guard_host_state
log "cnihook: $CNIHOOK"
log "suffix:  $uniq"

rl_user_setup
cp "$CNIHOOK" "$U/cnihook"
chmod 0755 "$U/cnihook"
as_user() { rl_as_user "$@"; }

# ---------------------------------------------------------------- network
NET=rk$uniq
SUBNET=$(random_subnet)
mkdir -p "$U/net.d" "$U/bin" "$U/hooks.d" "$U/sig"
jq -n --arg n "$NET" --arg s "$SUBNET.0/24" '{cniVersion: "1.0.0", name: $n, plugins: [
	{type: "bridge", bridge: $n, isGateway: true,
	 ipam: {type: "host-local", ranges: [[{subnet: $s}]]}},
	{type: "portmap", capabilities: {portMappings: true}}]}' >"$U/net.d/10-$NET.conflist"
for p in bridge host-local; do ln -s "$PLUGINDIR/$p" "$U/bin/$p"; done
# portmap's wrapper: at the first ADD while sig/trigger exists, it writes
# the pid of its nearest conmon ancestor and the container's id to
# sig/at-add, waits for
# sig/go (at most 30 s), then runs the real portmap; anything else runs
# the real portmap at once.
cat >"$U/bin/portmap" <<EOF
#!/bin/sh
if [ "\$CNI_COMMAND" = ADD ] && [ -e '$U/sig/trigger' ]; then
	rm -f '$U/sig/trigger'
	p=\$PPID
	while [ "\$p" -gt 1 ] && [ "\$(cat /proc/\$p/comm)" != conmon ]; do
		p=\$(cut -d ' ' -f 4 /proc/\$p/stat)
	done
	echo "\$p \$CNI_CONTAINERID" >'$U/sig/at-add.tmp' && mv '$U/sig/at-add.tmp' '$U/sig/at-add'
	i=0
	while [ ! -e '$U/sig/go' ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
fi
exec '$PLUGINDIR/portmap' "\$@"
EOF
chmod 0755 "$U/bin/portmap"
jq -n --arg c "$U/net.d" --arg b "$U/bin" \
	'{confDir: $c, binDirs: [$b], log: {level: "info"}}' >"$U/cnihook.json"
rl_hook_entries "${abs_top_builddir:-$srcdir}/config/hooks.d" "$U/hooks.d" "$U/cnihook" "$U/cnihook.json"
chown -R "$RL_USER" "$U/sig"
chmod -R a+rX "$U/net.d" "$U/bin" "$U/hooks.d" "$U/cnihook.json"
RL_PODMAN_ARGS=(--hooks-dir "$U/hooks.d")
pm() { rl_pm "$@"; }

IMAGE=localhost/cnihook-rkilled:$uniq
rl_image "$IMAGE" sh httpd sleep
PORT=$((20000 + RANDOM % 10001))
DIR=$RUNDIR/cnihook
serve() { printf 'mkdir -p /www; echo %s >/www/index.html; exec httpd -f -p 80 -h /www' "$1"; }
host_get() { rl_host_get "$PORT"; }
user_clean() {
	local procs mounts pause
	[ ! -e "$DIR" ] && ok "$1: no $DIR" || not_ok "$1: no $DIR" "$(ls -laR "$DIR" 2>&1)"
	procs=$(rl_helpers_left)
	[ -z "$procs" ] && ok "$1: no forwarder, slirp4netns or cnihook process of the user's" ||
		not_ok "$1: no forwarder, slirp4netns or cnihook process of the user's" "$procs"
	pause=$(cat "$RUNDIR/libpod/tmp/pause.pid" 2>/dev/null || true)
	if [ -n "$pause" ]; then
		mounts=$(nsenter -t "$pause" -m grep -F "$DIR" /proc/self/mountinfo || true)
		[ -z "$mounts" ] && ok "$1: no mount under $DIR in podman's mount namespace" ||
			not_ok "$1: no mount under $DIR in podman's mount namespace" "$mounts"
	fi
}
# podman_run_pid NAME: the pid of the user's `podman ... run ... --name
# NAME` (the test's own, by its unique name).
podman_run_pid() {
	ps -u "$RL_USER" -o pid=,args= | awk -v n="--name $1 " '$2 ~ /podman$/ && index($0, n) && / run / {print $1}'
}

# killed CASE WHAT: a container named CASE-uniq, killed at its portmap ADD
# (WHAT: conmon, podman or both), removed by the user; then d on its port.
killed() {
	local c=$1 what=$2 name=$1$uniq conmon prun bg i out got id rc left collected
	rm -f "$U/sig/"*
	: >"$U/sig/trigger"
	chown "$RL_USER" "$U/sig/trigger"
	pm run -d --name "$name" --network none --annotation "io.cnihook.networks=$NET" \
		--annotation "io.cnihook.ports=127.0.0.1:$PORT:80" "$IMAGE" sh -c "$(serve "$c")" \
		>"$T_TMP/run-$c.out" 2>&1 &
	bg=$!
	for ((i = 0; i < 300; i++)); do
		[ -s "$U/sig/at-add" ] && break
		sleep 0.1
	done
	[ -s "$U/sig/at-add" ] || fail "$c: the hook never reached portmap's ADD ($(cat "$T_TMP/run-$c.out"))"
	read -r conmon id <"$U/sig/at-add"
	prun=$(podman_run_pid "$name")
	[ "$(cat "/proc/$conmon/comm" 2>/dev/null)" = conmon ] || fail "$c: no conmon above the hook (found $conmon)"
	[ -n "$prun" ] || fail "$c: no podman run of $name running"
	case $what in
	conmon) kill -9 "$conmon" ;;
	podman) kill -9 "$prun" ;;
	both) kill -9 "$conmon" "$prun" ;;
	esac
	: >"$U/sig/go"
	set +e
	wait "$bg"
	rc=$?
	set -e
	log "$c: killed $what (conmon $conmon, podman $prun) at portmap's ADD; podman run exited $rc"
	# The runtime's create, and the hook under it, go on without podman and
	# conmon: the user's `podman rm -f` comes after them, as it would.
	for ((i = 0; i < 300; i++)); do
		pgrep -u "$RL_UID" -f -- " create .*$id" >/dev/null || break
		sleep 0.1
	done
	((i < 300)) || fail "$c: runc create of $id still runs after 30 s"
	log "$c: the runtime's create ended $((i / 10)).$((i % 10)) s after the kill"
	out=$(pm rm -f -t 0 "$name" 2>&1) || log "$c: podman rm -f: $out"
	# A container podman lost with its `podman run` lives on in the
	# runtime (created, its init waiting): alive to gc, rightly. The user
	# removes it as podman would have (its runtime's delete).
	if pm unshare runc --root "$RUNDIR/runc" state "$id" >/dev/null 2>&1; then
		log "$c: podman forgot the container, the runtime still has it: runc delete --force"
		out=$(pm unshare runc --root "$RUNDIR/runc" delete --force "$id" 2>&1) ||
			fail "$c: runc delete --force $id: $out"
	fi
	left=no
	if [ -d "$DIR/state/$id" ]; then
		left=yes
		log "$c: after its removal, the attachment is still there (no poststop ran)"
	else
		log "$c: after its removal, the attachment is gone (its poststop ran)"
	fi
	out=$(pm run -d --name "d$name" --network none --annotation "io.cnihook.networks=$NET" \
		--annotation "io.cnihook.ports=127.0.0.1:$PORT:80" "$IMAGE" sh -c "$(serve "d$c")" 2>&1) || true
	got=$(host_get 2>&1) || true
	collected=no
	! grep -q "collected container \"$id\" first: gone without its poststop" <<<"$(rl_log)" || collected=yes
	[ "$got" = "d$c" ] && [ ! -e "$DIR/state/$id" ] && [ "$left" = "$collected" ] &&
		ok "$c: $what killed during createRuntime, the container removed: the next start $([ "$collected" = yes ] && echo "collects it first and ")takes port $PORT" ||
		not_ok "$c: $what killed during createRuntime: the next start takes port $PORT" \
			"left: $left, collected: $collected; run d: $out; GET: $got; state: $(ls "$DIR/state" 2>&1)$(rl_log | tail -n 8)"
	pm rm -f -t 0 "d$name" >/dev/null 2>&1 || fail "podman rm d$name"
	user_clean "$c, after d"
}

killed k1 conmon
killed k2 podman
killed k3 both

assert_nothing_left --subnet "$SUBNET" --link "$NET"
finish
