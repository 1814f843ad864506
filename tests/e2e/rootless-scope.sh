#!/bin/bash
# The rootless user's helpers in scopes of their own (cnihook(8), ROOTLESS:
# "Where the user's systemd manager runs"): a user of the test's own gets
# a systemd user manager (systemd --user, in a cgroup delegated to the
# user in every hierarchy, with an empty /run/systemd/system of its own
# mount namespace so that it runs where PID 1 is not systemd), and runs
# podman 4 (runc, vfs, --network none) from cgroups of that subtree
# (whence the manager moves a process itself; from a login session's
# scope it would ask the system manager, which this host does not run):
# container c1 from cgroup c1.leaf, c2 from c2.leaf, each with a bridge
# and portmap network and a published port. Checks:
#   - slirp4netns, the user's watch and each forwarder sit in a scope of
#     their own, cnihook-UID-PID.scope, which systemctl --user lists;
#   - every process of c1.leaf killed (what stopping c1's unit does):
#     slirp4netns, the watch and c2's forwarder live on, and c2's port
#     still serves;
#   - after the last container, no cnihook scope is left (collected with
#     their processes) and nothing of cnihook's is left for the user;
#   - a container started from outside the subtree (whence the manager
#     cannot move a process without a system manager to ask) serves all
#     the same, its three helpers where they were started, each with a
#     warning in the log.
# ok never fails, so that `A && ok ... || not_ok ...` is an if-then-else.
# shellcheck disable=SC2015
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
. "$srcdir/tests/harness/rootless-lib.sh"

require_root "to create a user with subordinate ids and a cgroup delegated to it"
require_cmd podman runc jq slirp4netns setpriv unshare systemctl
CNIHOOK=${CNIHOOK:-${abs_top_builddir:-$srcdir}/hook/cnihook}
[ -x "$CNIHOOK" ] || fail "cnihook not found at $CNIHOOK (set CNIHOOK)"
PLUGINDIR=${CNI_PLUGIN_DIR:-/usr/lib/cni}
require_plugins bridge host-local portmap
BUSYBOX=${CNIHOOK_BUSYBOX:-/bin/busybox}
[ -x "$BUSYBOX" ] || skip "no static busybox at $BUSYBOX (busybox-static)"
SYSTEMD=/lib/systemd/systemd
[ -x "$SYSTEMD" ] || skip "no systemd at $SYSTEMD"
# The hierarchies a cgroup is made in: the unified one (cgroup2), and
# systemd's named one on a hybrid host.
CG=()
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
	CG=(/sys/fs/cgroup)
else
	[ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ] ||
		skip "no cgroup2 hierarchy at /sys/fs/cgroup or /sys/fs/cgroup/unified"
	CG=(/sys/fs/cgroup/unified)
	[ ! -e /sys/fs/cgroup/systemd/cgroup.procs ] || CG+=(/sys/fs/cgroup/systemd)
fi

guard_host_state
log "cnihook: $CNIHOOK"
log "suffix:  $uniq"

rl_user_setup
cp "$CNIHOOK" "$U/cnihook"
chmod 0755 "$U/cnihook"
as_user() { rl_as_user "$@"; }

# ------------------------------------------------------------ the manager
SUB=cnihook-sc$uniq
# Every process left in the subtree killed, then its cgroups removed
# (deepest first).
cg_remove() {
	local h i
	for ((i = 0; i < 50; i++)); do
		[ -n "$(cat "${CG[0]}/$SUB"/{,*/,*/*/,*/*/*/}cgroup.procs 2>/dev/null)" ] || break
		cat "${CG[0]}/$SUB"/{,*/,*/*/,*/*/*/}cgroup.procs 2>/dev/null | xargs -r kill -9 2>/dev/null
		sleep 0.1
	done
	for h in "${CG[@]}"; do
		[ -d "$h/$SUB" ] && find "$h/$SUB" -depth -type d -exec rmdir {} \;
	done
}
for h in "${CG[@]}"; do
	mkdir "$h/$SUB" || fail "mkdir $h/$SUB"
	chown -R "$RL_USER:$RL_USER" "$h/$SUB"
done
cleanup_push cg_remove
mkdir -p "$T_TMP/run-systemd/system"
# The manager, by its pid: SIGTERM, then SIGKILL.
mgr_stop() {
	local i
	[ -n "${MGR:-}" ] && kill -0 "$MGR" 2>/dev/null || return 0
	kill "$MGR"
	for ((i = 0; i < 50; i++)); do
		kill -0 "$MGR" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -9 "$MGR"
}
# In a mount namespace of its own: /run/systemd/system there, so that
# systemd --user runs; the manager's cgroup the user's subtree.
cat >"$T_TMP/manager.sh" <<EOF
#!/bin/sh
for h in ${CG[*]}; do echo \$\$ >"\$h/$SUB/cgroup.procs" || exit 1; done
mount --bind '$T_TMP/run-systemd' /run/systemd || exit 1
exec setpriv --reuid $RL_UID --regid $RL_UID --init-groups env -i HOME='$U/home' \
	XDG_RUNTIME_DIR='$RUNDIR' $SYSTEMD --user
EOF
chmod 0755 "$T_TMP/manager.sh"
unshare -m --propagation private "$T_TMP/manager.sh" >"$T_TMP/manager.log" 2>&1 &
MGR=$!
cleanup_push mgr_stop
PRIVATE=$RUNDIR/systemd/private
for ((i = 0; i < 100; i++)); do
	[ -S "$PRIVATE" ] && break
	kill -0 "$MGR" 2>/dev/null || break
	sleep 0.1
done
[ -S "$PRIVATE" ] || fail "the user's manager did not start ($(tail -n 5 "$T_TMP/manager.log"))"
log "the user's manager: pid $MGR, $PRIVATE"
user_ctl() { rl_as_user systemctl --user "$@"; }
# The manager's cnihook scopes, one a line (or what systemctl said).
scopes() {
	local out
	out=$(user_ctl list-units --all --no-legend --plain 'cnihook-*.scope' 2>&1) ||
		{ echo "systemctl --user failed: $out"; return; }
	awk '{print $1}' <<<"$out" | sort
}

# Leaf cgroups of the subtree, where the user's podman commands run.
for l in c1 c2; do
	for h in "${CG[@]}"; do
		mkdir "$h/$SUB/$l.leaf"
		chown -R "$RL_USER:$RL_USER" "$h/$SUB/$l.leaf"
	done
done
# in_leaf LEAF CMD...: CMD in cgroup LEAF of the subtree.
in_leaf() {
	local l=$1
	shift
	(
		for h in "${CG[@]}"; do echo "$BASHPID" >"$h/$SUB/$l.leaf/cgroup.procs"; done
		"$@"
	)
}

# ---------------------------------------------------------------- network
NET=rs$uniq
SUBNET=$(random_subnet)
mkdir -p "$U/net.d" "$U/bin" "$U/hooks.d"
jq -n --arg n "$NET" --arg s "$SUBNET.0/24" '{cniVersion: "1.0.0", name: $n, plugins: [
	{type: "bridge", bridge: $n, isGateway: true,
	 ipam: {type: "host-local", ranges: [[{subnet: $s}]]}},
	{type: "portmap", capabilities: {portMappings: true}}]}' >"$U/net.d/10-$NET.conflist"
for p in bridge host-local portmap; do ln -s "$PLUGINDIR/$p" "$U/bin/$p"; done
jq -n --arg c "$U/net.d" --arg b "$U/bin" \
	'{confDir: $c, binDirs: [$b], log: {level: "info"}}' >"$U/cnihook.json"
rl_hook_entries "${abs_top_builddir:-$srcdir}/config/hooks.d" "$U/hooks.d" "$U/cnihook" "$U/cnihook.json"
chmod -R a+rX "$U/net.d" "$U/bin" "$U/hooks.d" "$U/cnihook.json"
RL_PODMAN_ARGS=(--hooks-dir "$U/hooks.d")
pm() { rl_pm "$@"; }

IMAGE=localhost/cnihook-rscope:$uniq
rl_image "$IMAGE" sh httpd sleep
P1=$((20000 + RANDOM % 5000))
P2=$((P1 + 5000))
DIR=$RUNDIR/cnihook
serve() { printf 'mkdir -p /www; echo %s >/www/index.html; exec httpd -f -p 80 -h /www' "$1"; }
pid_of() { cut -d ' ' -f 1 "$1" 2>/dev/null; }
alive() { [ -n "$1" ] && [ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
# in_scope WHAT PID: PID's cgroup is cnihook-UID-PID.scope, which the
# manager lists.
in_scope() {
	local what=$1 pid=$2 name=cnihook-$RL_UID-$2.scope cg
	cg=$(cat "/proc/$pid/cgroup" 2>&1 || true)
	grep -q "/$name\$" <<<"$cg" && grep -qx "$name" <<<"$(scopes)" &&
		ok "$what (pid $pid) is in $name, which the user's manager lists" ||
		not_ok "$what (pid $pid) is in $name, which the user's manager lists" \
			"cgroup: $cg; scopes: $(scopes); log: $(rl_log | tail -n 5)"
}
run_c() { # run_c NAME PORT: a container serving NAME on PORT, from its leaf
	in_leaf "$1" rl_pm run -d --name "$1$uniq" --network none --annotation "io.cnihook.networks=$NET" \
		--annotation "io.cnihook.ports=127.0.0.1:$2:80" "$IMAGE" sh -c "$(serve "$1")"
}

# ----------------------------------------------------------------- checks
out=$(run_c c1 "$P1" 2>&1) || fail "podman run c1: $out $(rl_log | tail -n 5)"
id1=$(pm inspect -f '{{.Id}}' "c1$uniq")
got=$(rl_host_get "$P1" 2>&1) || true
[ "$got" = c1 ] && ok "c1 serves on port $P1" || not_ok "c1 serves on port $P1" "$got"
slirp=$(pid_of "$DIR/slirp4netns.pid")
watch=$(pid_of "$DIR/watch.pid")
fwd1=$(pid_of "$DIR/forwarders/$id1")
in_scope slirp4netns "$slirp"
in_scope "the user's watch" "$watch"
in_scope "c1's forwarder" "$fwd1"
! grep -q 'not in a systemd scope' <<<"$(rl_log)" && ok "no warning of a scope in the log" ||
	not_ok "no warning of a scope in the log" "$(grep 'scope' <<<"$(rl_log)")"

out=$(run_c c2 "$P2" 2>&1) || fail "podman run c2: $out $(rl_log | tail -n 5)"
id2=$(pm inspect -f '{{.Id}}' "c2$uniq")
fwd2=$(pid_of "$DIR/forwarders/$id2")
in_scope "c2's forwarder" "$fwd2"

# What stopping c1's unit does: every process of its cgroup killed.
for ((i = 0; i < 50; i++)); do
	mapfile -t c1procs <"${CG[0]}/$SUB/c1.leaf/cgroup.procs"
	[ "${#c1procs[@]}" -gt 0 ] || break
	kill -9 "${c1procs[@]}" 2>/dev/null || true
	sleep 0.1
done
log "c1.leaf emptied: its conmon and container killed"
sleep 0.5
alive "$slirp" && alive "$watch" && alive "$fwd2" &&
	ok "c1's cgroup killed: slirp4netns, the watch and c2's forwarder live on" ||
	not_ok "c1's cgroup killed: slirp4netns, the watch and c2's forwarder live on" \
		"$(rl_helpers)"
got=$(rl_host_get "$P2" 2>&1) || true
[ "$got" = c2 ] && ok "c2 still serves on port $P2" || not_ok "c2 still serves on port $P2" "$got"

out=$(pm rm -f -t 0 "c1$uniq" 2>&1) || log "podman rm -f c1: $out"
out=$(pm rm -f -t 0 "c2$uniq" 2>&1) || fail "podman rm -f c2: $out"
for ((i = 0; i < 50; i++)); do
	[ -z "$(scopes)" ] && [ -z "$(rl_helpers)" ] && break
	sleep 0.1
done
left=$(scopes)
[ -z "$left" ] && ok "after the last container, no cnihook scope is left" ||
	not_ok "after the last container, no cnihook scope is left" "$left"
[ ! -e "$DIR" ] && ok "no $DIR" || not_ok "no $DIR" "$(ls -laR "$DIR" 2>&1)"
procs=$(rl_helpers)
[ -z "$procs" ] && ok "no forwarder, slirp4netns or cnihook process of the user's" ||
	not_ok "no forwarder, slirp4netns or cnihook process of the user's" "$procs"

# From outside the user's subtree (the test's own cgroup), the manager
# cannot move a helper (it would ask the system manager, which this host
# does not run): each runs where it was started, with a warning.
out=$(pm run -d --name "c3$uniq" --network none --annotation "io.cnihook.networks=$NET" \
	--annotation "io.cnihook.ports=127.0.0.1:$P1:80" "$IMAGE" sh -c "$(serve c3)" 2>&1) ||
	fail "podman run c3: $out $(rl_log | tail -n 5)"
got=$(rl_host_get "$P1" 2>&1) || true
warned=$(grep -c 'not in a systemd scope of its own' <<<"$(rl_log)" || true)
[ "$got" = c3 ] && [ "$warned" = 3 ] &&
	ok "outside the user's subtree: c3 serves on port $P1, with a warning for each of its 3 helpers" ||
	not_ok "outside the user's subtree: c3 serves on port $P1, with a warning for each of its 3 helpers" \
		"GET: $got; warnings: $warned; $(grep scope <<<"$(rl_log)")"
log "$(grep -m 1 'not in a systemd scope' <<<"$(rl_log)")"
out=$(pm rm -f -t 0 "c3$uniq" 2>&1) || fail "podman rm -f c3: $out"
# (slirp4netns, killed by the teardown and not waited for, takes tens of
# milliseconds to exit: a second is given to it)
for ((i = 0; i < 10; i++)); do
	[ -z "$(rl_helpers)" ] && break
	sleep 0.1
done
[ ! -e "$DIR" ] && [ -z "$(rl_helpers)" ] && ok "after c3, nothing of cnihook's is left" ||
	not_ok "after c3, nothing of cnihook's is left" "$(rl_helpers)"

assert_nothing_left --subnet "$SUBNET" --link "$NET"
finish
