#!/bin/bash
# Docker for the e2e tests; sourced after runtime-lib.sh, never run.
#
# dk_init: a dockerd of the test's own (Debian's docker.io 20.10), never the
# system's: /usr/sbin/dockerd with --iptables=false --ip-forward=false
# --ip-masq=false --bridge=none (nothing of Docker's touches the host's
# firewall or forwarding), its own daemon.json (--config-file), data root,
# exec root, pid file and socket under $DK_DIR; the containerd it starts
# itself then keeps its state, root and sockets under that exec root and
# data root (not the system containerd's /run/containerd/containerd.sock).
# What dockerd makes outside them whatever its flags say: /etc/docker/key.json
# (removed at exit when this script made it) and the shims' sockets in
# /run/containerd/s (gone with the shims). The image is the busybox rootfs
# of runtime-lib.sh, `docker import`ed (no registry). /usr/bin/docker is
# the client (another docker CLI may come first in PATH).
#
#   dk ARGS...        /usr/bin/docker talking to the test's dockerd
#   dk_start ARGS...  start dockerd (extra flags: --live-restore, ...)
#   dk_stop           SIGTERM dockerd and wait; then its containerd
#   dk_kill           SIGKILL dockerd and its containerd (a crash)
#
# dockerd may be stopped and started again inside a case (run_case's
# subshell): its pid is always read from its pid file, and a pid is
# signalled only while its command line names $DK_DIR.
DK_DIR=
DK_IMAGE=
DOCKERD=${DOCKERD:-/usr/sbin/dockerd}
DOCKER_CLI=${DOCKER_CLI:-/usr/bin/docker}

dk_init() {
	require_cmd tar setsid
	[ -x "$DOCKERD" ] || skip "no dockerd at $DOCKERD (apt-get install docker.io)"
	[ -x "$DOCKER_CLI" ] || skip "no docker client at $DOCKER_CLI (apt-get install docker.io)"
	# A unix socket's path has at most 107 bytes: a short directory.
	DK_DIR=$(mktemp -d /tmp/cnihook-dk.XXXXXX)
	cleanup_push "umount_under '$DK_DIR'; rm -rf '$DK_DIR'"
	[ -e /etc/docker/key.json ] || cleanup_push "rm -f /etc/docker/key.json"
	[ -e /etc/docker ] || cleanup_push "rmdir /etc/docker 2>/dev/null || true"
	echo '{}' >"$DK_DIR/daemon.json"
	cleanup_push dk_stop
	cleanup_push dk_rm_all
}

# dk ARGS...: the docker client on the test's daemon.
dk() {
	DOCKER_HOST=unix://$DK_DIR/docker.sock DOCKER_CONFIG=$DK_DIR/cli "$DOCKER_CLI" "$@"
}

# dk_ours FILE: the pid in FILE, when that process runs with $DK_DIR in
# its command line (dockerd's pid file, its containerd's).
dk_ours() {
	local p
	p=$(cat "$1" 2>/dev/null) || return 0
	tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -qF "$DK_DIR/" && echo "$p"
	return 0
}
dk_dockerd_pid() { dk_ours "$DK_DIR/dockerd.pid"; }
dk_containerd_pid() { dk_ours "$DK_DIR/exec/containerd/containerd.pid"; }
dk_pid_gone() { ! kill -0 "$1" 2>/dev/null; }

dk_ready() {
	[ -d "/proc/$1" ] || fail "dockerd exited: $(tail -5 "$DK_DIR/dockerd.log")"
	dk version >/dev/null 2>&1
}

# dk_start ARGS...: dockerd with the test's directories and ARGS, in a
# session of its own (a ^C must leave it to the cleanups); setsid execs it,
# so $! is dockerd itself. TMPDIR is the test's: what dockerd and the
# containerd it starts write there (containerd.PID.stacks.log, when
# dockerd stops a containerd that does not answer) goes with the test.
dk_start() {
	local p
	[ -z "$(dk_dockerd_pid)" ] || fail "dk_start: dockerd $(dk_dockerd_pid) runs already"
	mkdir -p "$DK_DIR/tmp"
	TMPDIR=$DK_DIR/tmp setsid "$DOCKERD" --config-file "$DK_DIR/daemon.json" --iptables=false --ip-forward=false \
		--ip-masq=false --bridge=none --data-root "$DK_DIR/data" --exec-root "$DK_DIR/exec" \
		--pidfile "$DK_DIR/dockerd.pid" -H "unix://$DK_DIR/docker.sock" "$@" \
		</dev/null >>"$DK_DIR/dockerd.log" 2>&1 &
	p=$!
	wait_for 200 dk_ready "$p" || fail "dockerd did not start: $(tail -5 "$DK_DIR/dockerd.log")"
}

# dk_stop: SIGTERM, up to 20 s, then SIGKILL; then the containerd it
# started, if it outlived it.
dk_stop() {
	local d c
	d=$(dk_dockerd_pid)
	c=$(dk_containerd_pid)
	if [ -n "$d" ]; then
		kill -TERM "$d" 2>/dev/null
		wait_for 200 dk_pid_gone "$d" || kill -KILL "$d" 2>/dev/null || true
	fi
	if [ -n "$c" ] && [ -n "$(dk_containerd_pid)" ]; then
		kill -TERM "$c" 2>/dev/null
		wait_for 50 dk_pid_gone "$c" || kill -KILL "$c" 2>/dev/null || true
	fi
}

# dk_kill: dockerd and its containerd SIGKILLed, as a crash leaves them.
dk_kill() {
	local d c
	d=$(dk_dockerd_pid)
	c=$(dk_containerd_pid)
	[ -z "$d" ] || kill -KILL "$d" 2>/dev/null || true
	[ -z "$c" ] || kill -KILL "$c" 2>/dev/null || true
	[ -z "$d" ] || wait_for 50 dk_pid_gone "$d" || true
	[ -z "$c" ] || wait_for 50 dk_pid_gone "$c" || true
}

# dk_shims: the pids of the shims of our containerd (their command line
# names its socket under our exec root).
dk_shims() {
	local p
	for p in /proc/[0-9]*; do
		tr '\0' ' ' 2>/dev/null <"$p/cmdline" |
			grep -q "^/usr/bin/containerd-shim-runc-v2 .*-address $DK_DIR/exec/" &&
			echo "${p#/proc/}"
	done
	return 0
}

# dk_rm_all: every container of the test's dockerd removed (their
# poststop runs), when it runs.
dk_rm_all() {
	local ids
	[ -n "$(dk_dockerd_pid)" ] || return 0
	ids=$(dk ps -aq 2>/dev/null) || return 0
	[ -z "$ids" ] || dk rm -f $ids >/dev/null 2>&1 || true
}

# dk_image: the rootfs as the image $DK_IMAGE.
dk_image() {
	DK_IMAGE=cnihook-test:$uniq
	tar -C "$RT_ROOTFS" --numeric-owner --owner=0 --group=0 -c . | dk import - "$DK_IMAGE" \
		>/dev/null || fail "docker import of the rootfs failed"
}

# dk_id NAME: the full id of container NAME.
dk_id() {
	dk inspect --format '{{.Id}}' "$1"
}

# dk_pid NAME: its init process on the host (0 when it does not run).
dk_pid() {
	dk inspect --format '{{.State.Pid}}' "$1"
}
