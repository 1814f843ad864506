#!/bin/bash
# A rootless podman user for the tests that need one (tests/e2e/rootless.sh,
# tests/e2e/installed.sh), sourced after lib.sh:
#
#   rl_user_setup   a user of the test's own (cnirl<suffix>) with 65536
#                   subordinate uids and gids after every range the files
#                   name, its runtime directory /run/user/UID (mode 0700),
#                   rw on /dev/net/tun by an ACL entry where the device is
#                   not open to all (Debian's udev gives it 0666; without
#                   udev it is 0600), and a directory $U of its own in
#                   T_TMP. All of it removed by the cleanups, podman's
#                   containers and pause process first (by its pid), then
#                   whatever of the user's still runs (rl_kill_left).
#   rl_as_user CMD  CMD as the user, with what a login gives (HOME, the
#                   runtime directory, a user's PATH without sbin) and
#                   nothing else.
#   rl_pm ARGS      rootless podman (runc, vfs, cgroupfs, the file events
#                   backend), with RL_PODMAN_ARGS (an array: say
#                   --hooks-dir DIR there, or nothing for podman's own).
#   rl_image NAME APPLET...  the static busybox ($BUSYBOX, else
#                   $CNIHOOK_BUSYBOX, else /bin/busybox) with APPLETs (and the files
#                   the caller put in $U/rootfs), imported by the user as
#                   NAME.
#   rl_hook_entries FROM TO BIN CONF  the shipped oci-hooks(5) entries of
#                   FROM (a build's config/hooks.d) written in TO, running
#                   BIN with --config CONF.
#   rl_host_get PORT  GET / on the host's 127.0.0.1:PORT: the body.
#   rl_log          the user's log (/run/user/UID/cnihook.log).
#   rl_helpers      the user's cnihook, slirp4netns and dnsmasq processes,
#                   zombies aside ("PID STAT COMM" lines).
#   rl_helpers_left  the same, after up to a second for them to exit (the
#                   last teardown kills slirp4netns and does not wait: its
#                   exit, the kernel removing tap0, may take a moment).
# Sets RL_USER, RL_UID, RUNDIR, U.

RL_PODMAN_ARGS=()

# A free range of 65536 subordinate ids: after every range the files name.
rl_sub_start() {
	local end
	end=$(cat /etc/subuid /etc/subgid 2>/dev/null |
		awk -F: 'BEGIN {m = 300000} {e = $2 + $3; if (e > m) m = e} END {print m}')
	echo $(((end / 65536 + 1) * 65536))
}

rl_as_user() {
	(cd "$U" && runuser -u "$RL_USER" -- env -i HOME="$U/home" XDG_RUNTIME_DIR="$RUNDIR" \
		PATH=/usr/local/bin:/usr/bin:/bin "$@")
}

rl_pm() {
	rl_as_user podman --runtime runc --storage-driver vfs --cgroup-manager cgroupfs \
		--events-backend file "${RL_PODMAN_ARGS[@]}" "$@"
}

# podman's pause process holds the user's namespaces: stopped by its pid at
# the end, after the containers, and only while that pid is still a process
# of the user's (never a pid reused by another); then the storage (the
# subordinate ids' files) goes with T_TMP.
rl_stop_pause() {
	local pid i
	pid=$(cat "$RUNDIR/libpod/tmp/pause.pid" 2>/dev/null) || return 0
	[ "$(stat -c %u "/proc/$pid" 2>/dev/null)" = "$RL_UID" ] || return 0
	kill "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
}

# Whatever of the user's still runs when the test ends (a failed check
# left it: a helper of a build under test, the conmon that waits for it)
# is the test's own: every process of the user it made, killed by its pid
# so that the user can be removed.
rl_kill_left() {
	local pids p i
	pids=$(ps -u "$RL_UID" -o pid= 2>/dev/null) || return 0
	[ -n "$pids" ] || return 0
	for p in $pids; do kill -9 "$p" 2>/dev/null || true; done
	for ((i = 0; i < 50; i++)); do
		ps -u "$RL_UID" -o stat= 2>/dev/null | grep -q -v '^Z' || return 0
		sleep 0.1
	done
}

rl_user_setup() {
	local sub lk
	require_cmd podman runc useradd userdel runuser newuidmap newgidmap setfacl
	RL_USER=cnirl$uniq
	useradd -M -d /nonexistent -s /bin/sh "$RL_USER" || fail "useradd $RL_USER"
	cleanup_push "userdel '$RL_USER'; sed -i '/^$RL_USER:/d' /etc/subuid /etc/subgid"
	RL_UID=$(id -u "$RL_USER")
	cleanup_push rl_kill_left
	# What rootless podman makes of its own outside the user's directories
	# (its lock in /dev/shm; its fallbacks in /tmp): removed at the end
	# unless it was there before (another user of this uid's, long gone).
	local f
	for f in "/dev/shm/libpod_rootless_lock_$RL_UID" "/tmp/containers-user-$RL_UID" \
		"/tmp/podman-run-$RL_UID"; do
		[ -e "$f" ] || cleanup_push "rm -rf '$f'"
	done
	# Two tests making users at once (make -j2) must not pick one range:
	# the pick and the append under a lock on /etc/subuid.
	[ -e /etc/subuid ] || : >>/etc/subuid
	exec {lk}</etc/subuid
	flock "$lk"
	sub=$(rl_sub_start)
	printf '%s:%s:65536\n' "$RL_USER" "$sub" >>/etc/subuid
	printf '%s:%s:65536\n' "$RL_USER" "$sub" >>/etc/subgid
	exec {lk}>&-
	RUNDIR=/run/user/$RL_UID
	[ ! -e "$RUNDIR" ] || fail "$RUNDIR exists already"
	install -d -o "$RL_USER" -g "$RL_USER" -m 0700 "$RUNDIR"
	cleanup_push "rm -rf '$RUNDIR'"
	log "user $RL_USER (uid $RL_UID), subordinate ids $sub-$((sub + 65535))"
	# slirp4netns opens /dev/net/tun as the user.
	if [ -c /dev/net/tun ] && ! runuser -u "$RL_USER" -- test -r /dev/net/tun -a -w /dev/net/tun; then
		setfacl -m "u:$RL_UID:rw" /dev/net/tun || fail "setfacl /dev/net/tun"
		cleanup_push "setfacl -x 'u:$RL_UID' /dev/net/tun"
		log "/dev/net/tun: rw for $RL_USER by an ACL entry, for this test"
	fi
	# The user's files: T_TMP is root's; the user gets a directory in it.
	chmod 0711 "$T_TMP"
	U=$T_TMP/user
	install -d -o "$RL_USER" -g "$RL_USER" -m 0755 "$U" "$U/home"
	cleanup_push rl_stop_pause
	cleanup_push "rl_pm rm -af -t 0"
}

rl_image() {
	local name=$1 a
	shift
	mkdir -p "$U/rootfs/bin" "$U/rootfs/www"
	cp "${BUSYBOX:-${CNIHOOK_BUSYBOX:-/bin/busybox}}" "$U/rootfs/bin/busybox"
	for a in "$@"; do ln -sf busybox "$U/rootfs/bin/$a"; done
	tar -C "$U/rootfs" -c . | rl_as_user podman --storage-driver vfs --cgroup-manager cgroupfs \
		--events-backend file import -q - "$name" >/dev/null || fail "podman import failed"
}

rl_hook_entries() {
	local from=$1 to=$2 bin=$3 conf=$4 f
	mkdir -p "$to"
	for f in cnihook-createRuntime.json cnihook-poststop.json; do
		jq --arg p "$bin" --arg c "$conf" \
			'.hook.path = $p | .hook.args = .hook.args[:1] + ["--config", $c] + .hook.args[1:]' \
			"$from/$f" >"$to/$f" || fail "rl_hook_entries: $from/$f"
	done
}

rl_host_get() {
	# shellcheck disable=SC2016
	timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf "GET / HTTP/1.0\r\n\r\n" >&3 &&
		sed "1,/^\r\{0,1\}$/d" <&3' _ "$1"
}

rl_log() { cat "$RUNDIR/cnihook.log" 2>/dev/null; }

rl_helpers() {
	ps -u "$RL_USER" -o pid=,stat=,comm= | awk '$2 !~ /^Z/' | grep -E 'cnihook|slirp4netns|dnsmasq' || true
}

rl_helpers_left() {
	local i procs
	for ((i = 0; i < 10; i++)); do
		procs=$(rl_helpers)
		[ -n "$procs" ] || break
		sleep 0.1
	done
	printf '%s' "$procs"
}
