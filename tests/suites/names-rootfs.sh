#!/bin/bash
# The names files put in place in a container's rootfs (cnihook(8), NAMES;
# names/rootfs-file.c), without a runtime: a "container" is a sleep in a
# mount and network namespace of its own (unshare), its bundle a config.json
# of our own, its network a fake plugin (tests/plugins/fakeplugin) whose
# result carries `dns` and an address; cnihook runs createRuntime and
# poststop with hand-made OCI states.
#
# The hostile cases give the image's author the write's target: /etc a
# symbolic link to the host's /etc, /etc/resolv.conf a link to a host path,
# a FIFO, a huge file, a hard link to a host file, a read-only bind mount at
# /etc. Each checks: the hook exits 0 within 15 s (a file it cannot put in
# place is a warning, the container keeps its networks); the host's
# /etc/resolv.conf and /etc/hosts and the baits are unchanged; nothing is
# created where a link points; the host's mount table shows no names file;
# after poststop nothing of cnihook's is left.
#
# Then what must never reach the host (cnihook(8), NAMES): a target on a
# volume shared with the host (through a link, or a host directory at
# /etc), a rootfs that is itself a shared mount, an engine-looking file
# mounted read-only or from a user's volume, a user-namespace container
# that remounts its file writable and appends to it, a rootfs whose file
# system is read-only; and what a plugin's result may bring (loopback
# servers, strange search domains) and io.cnihook.name in the hosts block.
# shellcheck disable=SC2016
set -uo pipefail
: "${CNIHOOK:?}" "${FAKEPLUGIN:?}"

srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
tap_init "mount namespaces" unshare nsenter jq mount umount mkfifo truncate sha256sum

tmp=$T_TMP
bin=$tmp/bin conf=$tmp/net.d state=$tmp/state cache=$tmp/cache
mkdir -p "$bin" "$conf" "$state" "$cache"
cp "$FAKEPLUGIN" "$bin/fdns"
jq -n '{cniVersion: "1.0.0", interfaces: [{name: "eth0", sandbox: "/proc/1/ns/net"}],
	ips: [{address: "10.250.77.2/24", interface: 0}],
	dns: {nameservers: ["10.250.77.1"], search: ["fake.test"], options: ["ndots:2"]}}' >"$tmp/result.json"
printf 'stdout-file=%s\n' "$tmp/result.json" >"$bin/fdns.ADD"
jq -n '{cniVersion: "1.0.0", name: "ndns", plugins: [{type: "fdns"}]}' >"$conf/ndns.conflist"
cfg=$tmp/cnihook.json
jq -n --arg c "$conf" --arg b "$bin" --arg k "$cache" --arg s "$state" \
	'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, log: {syslog: false},
	  sandbox: {enabled: false}}' >"$cfg"
cleanup_push "umount_under '$state'"
printf 'bait\n' >"$tmp/bait"
printf '127.0.0.1 bait\n' >"$tmp/bait-hosts"

# host_files: the host's own names files and the baits, with their inodes.
host_files() {
	sha256sum /etc/resolv.conf /etc/hosts "$tmp/bait" "$tmp/bait-hosts" 2>&1
	stat -c '%n %i %s %h' /etc/resolv.conf /etc/hosts "$tmp/bait" "$tmp/bait-hosts" 2>&1
}

# container ID SETUP [UNSHARE-ARGS...]: a rootfs $tmp/ID/rootfs with etc/ and
# empty resolv.conf and hosts, SETUP run in it (cwd = the rootfs), a sleep in
# new mount and network namespaces (PID), a bundle (config.json with
# $EXTRA_JQ applied). UNSHARE-ARGS -U: a user namespace too, whose root is
# host uid and gid 100000.
container() {
	local id=$1 setup=$2
	shift 2
	ROOT=$tmp/$id/rootfs
	mkdir -p "$ROOT/etc"
	: >"$ROOT/etc/resolv.conf"
	printf '127.0.0.1 localhost\n' >"$ROOT/etc/hosts"
	(cd "$ROOT" && eval "$setup") || echo "setup failed: $setup" >&2
	unshare -m -n --propagation private "$@" sleep 600 &
	PID=$!
	SLEEPERS+=("$PID")
	wait_for 50 eval '[ "$(readlink /proc/$PID/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ]'
	if [ "${1:-}" = -U ]; then # the container's root is host uid and gid 100000
		echo '0 100000 65536' >"/proc/$PID/uid_map"
		echo '0 100000 65536' >"/proc/$PID/gid_map"
	fi
	jq -n --arg r "$ROOT" --arg h "$id" --arg n ndns '{ociVersion: "1.0.2", root: {path: $r},
		hostname: $h, linux: {namespaces: [{type: "network"}, {type: "mount"}]},
		annotations: {"io.cnihook.networks": $n}}' | jq "${EXTRA_JQ:-.}" >"$tmp/$id/config.json"
}
# hook ID STATUS: createRuntime ("creating") or poststop ("stopped"); rc, out, err
hook() {
	local stage=createRuntime
	[ "$2" = creating ] || stage=poststop
	out=$(jq -n --arg id "$1" --arg s "$2" --argjson pid "$PID" --arg b "$tmp/$1" \
		'{ociVersion: "1.0.2", id: $id, status: $s, pid: $pid, bundle: $b}' |
		timeout 30 "$CNIHOOK" --config "$cfg" "$stage" 2>"$tmp/err")
	rc=$?
	err=$(cat "$tmp/err")
}
inside() { nsenter -t "$PID" -m cat "$ROOT/etc/$1"; }
host_mounts_clean() { ! grep -qE " $tmp/[^ ]*/etc(/resolv\.conf|/hosts)? " /proc/self/mountinfo; }
stop() { # stop ID: poststop, then the sleep goes
	hook "$1" stopped
	check "$1: poststop exits 0" test "$rc" = 0
	kill_child "$PID"
	check "$1: nothing of cnihook's left" eval '[ -z "$(ls -A "$state" | grep -v "^ports$")" ]'
}

# ---------------------------------------------------------------- the plain case
container c1 ''
digest=$( (cd "$ROOT" && find . -printf '%p %y %s %i\n' | sort; sha256sum etc/*) | sha256sum)
t0=$SECONDS
hook c1 creating
check "c1: createRuntime exits 0, quiet" eval '[ "$rc" = 0 ] && [ -z "$err" ]'
check "c1: the container reads the result's server first, search, options" \
	eval 'inside resolv.conf | grep -q "^nameserver 10.250.77.1$" &&
		inside resolv.conf | grep -q "^search fake.test" && inside resolv.conf | grep -q "^options ndots:2"'
check "c1: the container's hosts maps 10.250.77.2 to c1" \
	eval 'inside hosts | grep -qE "^10\.250\.77\.2[[:space:]]+c1$"'
check "c1: the files are cnihook's on a tmpfs of their own, mounted read-only, none in the state directory" \
	eval '[ ! -e "$state/c1/resolv.conf" ] && ! nsenter -t "$PID" -m sh -c "echo x >>$ROOT/etc/hosts" 2>/dev/null &&
		[ "$(nsenter -t "$PID" -m findmnt -n -o FSTYPE "$ROOT/etc/hosts")" = tmpfs ]'
check "c1: the host sees the rootfs's own files, and no mount" \
	eval '[ ! -s "$ROOT/etc/resolv.conf" ] && host_mounts_clean'
check "c1: the rootfs on disk is unchanged" \
	eval '[ "$( (cd "$ROOT" && find . -printf "%p %y %s %i\n" | sort; sha256sum etc/*) | sha256sum)" = "$digest" ]'
stop c1

# ---------------------------------------------------------------- settings
printf 'stdout-file=%s\n' "$tmp/nodns.json" >"$bin/fdns.ADD"
jq 'del(.dns)' "$tmp/result.json" >"$tmp/nodns.json"
container c2 ''
hook c2 creating
check "c2: a result without dns: nothing written" \
	eval '[ "$rc" = 0 ] && [ -z "$(inside resolv.conf)" ] && [ ! -e "$state/c2/resolv.conf" ]'
stop c2
printf 'stdout-file=%s\n' "$tmp/result.json" >"$bin/fdns.ADD"
EXTRA_JQ='.annotations["io.cnihook.dns"] = "off"' container c3 ''
hook c3 creating
check "c3: io.cnihook.dns=off: nothing written" \
	eval '[ "$rc" = 0 ] && [ -z "$(inside resolv.conf)" ] && [ ! -e "$state/c3/hosts" ]'
stop c3
# root.readonly: the runtime makes the rootfs read-only after
# createRuntime, and creates its own mount points first; so does the hook.
EXTRA_JQ='.root.readonly = true' container c4 'rm etc/hosts etc/resolv.conf'
hook c4 creating
check "c4: root.readonly without the files: both created empty and mounted over, quiet" \
	eval '[ "$rc" = 0 ] && [ -z "$err" ] && [ -f "$ROOT/etc/hosts" ] && [ ! -s "$ROOT/etc/hosts" ] &&
		inside hosts | grep -q c4 && inside resolv.conf | grep -q 10.250.77.1'
stop c4
container c5 '' -U
hook c5 creating
check "c5: user namespace: cnihook's file owned by the container's root (host 100000)" \
	eval '[ "$rc" = 0 ] && [ "$(nsenter -t "$PID" -m stat -c %u:%g "$ROOT/etc/hosts")" = 100000:100000 ] &&
		inside hosts | grep -q c5'
# The container's root holds CAP_SYS_ADMIN in its own user namespace: it
# can remount its file writable, and then append no more than the page its
# tmpfs has; no file of the host changes or grows. (Its root, host uid
# 100000, must be able to walk to its rootfs, as under a runtime.)
chmod 711 "$tmp"
nsenter -t "$PID" -U -m sh -c \
	"mount -o remount,bind,rw '$ROOT/etc/resolv.conf' && head -c 20971520 /dev/zero >>'$ROOT/etc/resolv.conf'" \
	>"$tmp/c5.out" 2>&1
check "c5: remounted writable from its user namespace, 20 MiB appended: refused past a page, nothing on the host grew" \
	eval 'grep -q "No space left on device" "$tmp/c5.out" &&
		[ "$(nsenter -t "$PID" -m stat -c %s "$ROOT/etc/resolv.conf")" -le 8192 ] &&
		[ -z "$(find "$state" "$tmp/c5" -type f -size +64k)" ] && [ ! -s "$ROOT/etc/resolv.conf" ]'
sed 's/^/#   /' "$tmp/c5.out"
stop c5
EXTRA_JQ='.annotations["io.cnihook.name"] = "webname"' container c6 ''
hook c6 creating
check "c6: io.cnihook.name is in the hosts block (a network without dnsname)" \
	eval '[ "$rc" = 0 ] && inside hosts | grep -qE "^10\.250\.77\.2[[:space:]].*webname"'
stop c6

# ---------------------------------------------------------------- hostile rootfs
hostile() { # hostile ID DESCRIPTION SETUP [WANT-IN-ERR]
	local id=$1 what=$2 setup=$3 want=${4:-}
	container "$id" "$setup"
	HOST_BEFORE=$(host_files)
	t0=$SECONDS
	hook "$id" creating
	check "$id ($what): createRuntime exits 0 within 15 s" \
		eval '[ "$rc" = 0 ] && [ $((SECONDS - t0)) -le 15 ]'
	[ -z "$want" ] || check "$id ($what): the warning says \"$want\"" has "$want" "$err"
	check "$id ($what): the host's files and the baits unchanged; nothing made outside; no host mount" \
		eval '[ "$(host_files)" = "$HOST_BEFORE" ] && [ ! -e "$ROOT$tmp/bait" ] && host_mounts_clean'
	stop "$id"
}
hostile h1 "/etc a link to the host's /etc" 'rm -rf etc && ln -s /etc etc' \
	"/etc/resolv.conf not written (left alone)"
hostile h2 "resolv.conf a link to a host path" \
	'rm etc/resolv.conf && ln -s "$tmp/bait" etc/resolv.conf' "/etc/resolv.conf not written (left alone)"
hostile h3 "resolv.conf a FIFO" 'rm etc/resolv.conf && mkfifo etc/resolv.conf' \
	"not a regular file"
hostile h4 "hosts a 4 GiB sparse file" 'truncate -s 4G etc/hosts'
check "h4: the huge file was mounted over, never read" eval '[ "$(stat -c %s "$ROOT/etc/hosts")" = 4294967296 ]'
hostile h5 "hosts a hard link to a host file" 'rm etc/hosts && ln "$tmp/bait-hosts" etc/hosts'
# h6: /etc a read-only bind mount (in the container's namespace only)
# without the files: nothing can be created there.
container h6 'rm etc/resolv.conf etc/hosts'
HOST_BEFORE=$(host_files)
mkdir -p "$tmp/h6/etc-ro"
nsenter -t "$PID" -m mount --bind -o ro "$tmp/h6/etc-ro" "$ROOT/etc"
hook h6 creating
check "h6 (read-only bind mount at /etc): exits 0, left alone, nothing created" \
	eval '[ "$rc" = 0 ] && has "/etc is on another mount than the rootfs" "$err" && [ -z "$(ls -A "$tmp/h6/etc-ro")" ] &&
		[ "$(host_files)" = "$HOST_BEFORE" ]'
stop h6

# ---------------------------------------------------------------- never the host's
# A directory of the "host" shared with the containers as a volume: a shared
# mount of its own, so that a mount under it in any namespace that has a
# peer of it appears in the host's too (as every mount does on a systemd
# host, or with podman's -v SRC:DST:rshared).
hostdir=$tmp/hostdir
mkdir -p "$hostdir"
printf 'bait\n' >"$hostdir/target"
printf 'nameserver 192.0.2.1\n' >"$hostdir/resolv.conf"
printf '127.0.0.1 localhost\n' >"$hostdir/hosts"
cleanup_push "umount -l '$hostdir' 2>/dev/null || true"
mount --bind "$hostdir" "$hostdir" && mount --make-shared "$hostdir"
hostdir_files() { sha256sum "$hostdir"/*; stat -c '%n %i %s' "$hostdir"/*; }
no_host_mount() { ! awk -v d="$1" '$5 ~ "^" d "/" {f=1} END {exit !f}' /proc/self/mountinfo; }
# shared_container ID SETUP IN-NS: a container whose namespace keeps the host's
# propagation (the shared volume a peer of the host's); its rootfs a private
# mount of its own; IN-NS run in its mount namespace (ROOT, hostdir set).
shared_container() {
	container "$1" "$2" --propagation unchanged
	local top
	top=$(findmnt -n -o TARGET -T "$ROOT")
	nsenter -t "$PID" -m sh -c "mount --make-private '$top' && mount --bind '$ROOT' '$ROOT' &&
		mount --make-private '$ROOT' && $3" || echo "set-up in $1's namespace failed" >&2
}
shared_case() { # shared_case ID DESCRIPTION WANT-IN-ERR
	HOST_BEFORE=$(hostdir_files) WANT=$3
	hook "$1" creating
	check "$1 ($2): exits 0, left alone: \"$3\"" eval '[ "$rc" = 0 ] && has "$WANT" "$err"'
	check "$1 ($2): the host's directory unchanged, no mount there on the host" \
		eval '[ "$(hostdir_files)" = "$HOST_BEFORE" ] && no_host_mount "$hostdir"'
	stop "$1"
	check "$1: after poststop, no mount of cnihook's anywhere on the host" no_host_mount "$hostdir"
}
shared_container s1 'mkdir vol && rm etc/resolv.conf && ln -s /vol/target etc/resolv.conf' \
	"mount --bind '$hostdir' '$tmp/s1/rootfs/vol'"
shared_case s1 "resolv.conf a link onto a volume shared with the host" \
	"/etc/resolv.conf resolves onto another mount than the rootfs's"
shared_container s2 '' "mount --bind '$hostdir' '$tmp/s2/rootfs/etc'"
shared_case s2 "a host directory shared-mounted at /etc" "/etc is on another mount than the rootfs's"
# s3: the rootfs itself a shared mount, a peer of the host's (rootfsPropagation
# shared): a mount on it would appear in the host's rootfs directory.
container s3 '' --propagation unchanged
kill_child "$PID"
mount --bind "$ROOT" "$ROOT" && mount --make-shared "$ROOT"
cleanup_push "umount -l '$ROOT' 2>/dev/null || true"
unshare -m -n --propagation unchanged sleep 600 &
PID=$!
SLEEPERS+=("$PID")
wait_for 50 eval '[ "$(readlink /proc/$PID/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ]'
hook s3 creating
check "s3 (the rootfs a shared mount, a peer of the host's): left alone, says why" \
	eval '[ "$rc" = 0 ] && has "the rootfs is a shared mount" "$err"'
check "s3: no mount on the host's rootfs directory" no_host_mount "$ROOT"
stop s3
umount -l "$ROOT"

# ---------------------------------------------------------------- engine files
# config.json mounts a file at /etc/hosts: rewritten in place only when it
# is the engine's own writable per-container file.
engine_case() { # engine_case ID SOURCE OPTIONS-JSON WANT (rewritten | left alone: TEXT)
	local id=$1 src=$2 opts=$3 want=$4
	mkdir -p "$(dirname "$src")"
	printf '127.0.0.1 localhost\n' >"$src"
	local before
	before=$(sha256sum "$src")
	EXTRA_JQ=".mounts = [{destination: \"/etc/hosts\", type: \"bind\", source: \"$src\", options: $opts}]" \
		container "$id" ''
	hook "$id" creating
	if [ "$want" = rewritten ]; then
		check "$id: the engine's writable file rewritten in place" \
			eval '[ "$rc" = 0 ] && grep -q "# cnihook: this container" "$src"'
	else
		check "$id: left alone: \"$want\"; the file unchanged" \
			eval '[ "$rc" = 0 ] && has "$want" "$err" && [ "$(sha256sum "$src")" = "$before" ]'
	fi
	stop "$id"
}
engine_case e1 "$tmp/vols/e1/hosts" '["rbind", "ro"]' "read-only at /etc/hosts"
engine_case e2 "$tmp/vols/e2/hosts" '["rbind"]' "not the engine's own file of the container"
engine_case e3 "$tmp/store/overlay-containers/e3/userdata/hosts" '["rbind", "ro"]' "read-only at /etc/hosts"
engine_case e4 "$tmp/store/overlay-containers/e4/userdata/hosts" '["rbind", "rprivate"]' rewritten
engine_case e5 "$tmp/docker/containers/e5/hosts" '["rbind"]' rewritten
# A file system that is read-only on the host: left alone.
mkdir -p "$tmp/rofs/containers/e6"
printf '127.0.0.1 localhost\n' >"$tmp/rofs/containers/e6/hosts"
mount --bind "$tmp/rofs" "$tmp/rofs" && mount -o remount,bind,ro "$tmp/rofs"
cleanup_push "umount -l '$tmp/rofs' 2>/dev/null || true"
EXTRA_JQ=".mounts = [{destination: \"/etc/hosts\", type: \"bind\", source: \"$tmp/rofs/containers/e6/hosts\", options: [\"rbind\"]}]" \
	container e6 ''
hook e6 creating
check "e6: the engine's file on a read-only file system: left alone" \
	eval '[ "$rc" = 0 ] && has "its file system is read-only" "$err"'
stop e6
umount -l "$tmp/rofs"

# ---------------------------------------------------------------- read-only file system
# A rootfs whose file system is read-only (not root.readonly): nothing can be
# created there, the missing file is left alone; the other is mounted.
container r1 'rm etc/hosts'
nsenter -t "$PID" -m sh -c "mount --bind '$ROOT' '$ROOT' && mount -o remount,bind,ro '$ROOT'"
hook r1 creating
check "r1: the rootfs's file system read-only, /etc/hosts missing: left alone, says why" \
	eval '[ "$rc" = 0 ] && has "/etc/hosts is missing and the rootfs'"'"'s file system is read-only" "$err" &&
		inside resolv.conf | grep -q 10.250.77.1'
stop r1

# ---------------------------------------------------------------- what a result brings
jq '.dns = {nameservers: ["127.0.0.1", "::1", "0.0.0.0", "::ffff:127.0.0.1", "::", "10.250.77.1"],
	search: ["ok.test", "caf\u00e9.test", "a b", "s2.test", "s3.test", "s4.test", "s5.test", "s6.test", "s7.test"],
	options: ["ndots:2", "evil\nnameserver 1.2.3.4", "edns0"]}' "$tmp/result.json" >"$tmp/loop.json"
printf 'stdout-file=%s\n' "$tmp/loop.json" >"$bin/fdns.ADD"
container d1 ''
hook d1 creating
check "d1: a result's loopback and unspecified servers dropped, its own kept" \
	eval '[ "$rc" = 0 ] && [ "$(inside resolv.conf | grep -c ^nameserver)" -ge 1 ] &&
		! inside resolv.conf | grep -qE "^nameserver (127\.|::1$|0\.0\.0\.0|::ffff:127|::$)" &&
		inside resolv.conf | grep -q "^nameserver 10.250.77.1$"'
check "d1: the result's search list: ASCII domains only, at most 6; options checked" \
	eval 'inside resolv.conf | grep -qx "search ok.test s2.test s3.test s4.test s5.test s6.test" &&
		inside resolv.conf | grep -q "^options ndots:2 edns0" && ! inside resolv.conf | grep -q 1.2.3.4'
stop d1
EXTRA_JQ='.annotations["io.cnihook.dns-servers"] = "127.0.0.1"' container d2 ''
hook d2 creating
check "d2: an annotation's loopback server is the user's choice: written" \
	eval '[ "$rc" = 0 ] && inside resolv.conf | grep -qx "nameserver 127.0.0.1"'
stop d2
printf 'stdout-file=%s\n' "$tmp/result.json" >"$bin/fdns.ADD"
assert_nothing_left --cachedir "$cache"
finish
