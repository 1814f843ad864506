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
# after poststop nothing of cnihook's is left. A hook killed between a
# names file's temp file and its rename: gc removes the temp file.
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
check "c1: the files are cnihook's in the state directory, mounted read-only" \
	eval '[ -f "$state/c1/resolv.conf" ] && ! nsenter -t "$PID" -m sh -c "echo x >>$ROOT/etc/hosts" 2>/dev/null'
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
EXTRA_JQ='.root.readonly = true' container c4 'rm etc/hosts'
hook c4 creating
check "c4: read-only rootfs without /etc/hosts: left alone, one warning; resolv.conf mounted" \
	eval '[ "$rc" = 0 ] && has "/etc/hosts not written (left alone): /etc/hosts is missing and the rootfs is read-only" "$err" &&
		[ ! -e "$ROOT/etc/hosts" ] && inside resolv.conf | grep -q 10.250.77.1'
stop c4
container c5 '' -U
hook c5 creating
check "c5: user namespace: cnihook's file owned by the container's root (host 100000)" \
	eval '[ "$rc" = 0 ] && [ "$(stat -c %u:%g "$state/c5/hosts")" = 100000:100000 ] &&
		inside hosts | grep -q c5'
stop c5

# ---------------------------------------------------------------- torn write
# The hook SIGKILLed between a names file's temp file and its rename (the
# fault point CNIHOOK_TEST_KILL_BEFORE_RENAME, common/file.c): gc keeps the
# live container and removes the temp file at once; poststop the rest.
for f in resolv.conf hosts; do
	container "t-$f" ''
	CNIHOOK_TEST_KILL_BEFORE_RENAME="$state/*/$f" hook "t-$f" creating
	check "t-$f: the hook killed itself before the rename of its $f (status $rc)" \
		eval '[ "$rc" = 137 ] && ls -A "$state/t-$f" | grep -q "^\.$f\.tmp\.cnihook\."'
	out=$("$CNIHOOK" --config "$cfg" gc 2>&1)
	check "t-$f: gc keeps the live container, removes the temp file: $out" \
		eval 'has "container \"t-$f\": kept" "$out" && [ -d "$state/t-$f" ] &&
			! ls -A "$state/t-$f" | grep -q "\.tmp\.cnihook\."'
	stop "t-$f"
done

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
	eval '[ "$rc" = 0 ] && has "cannot be created" "$err" && [ -z "$(ls -A "$tmp/h6/etc-ro")" ] &&
		[ "$(host_files)" = "$HOST_BEFORE" ]'
stop h6
assert_nothing_left --cachedir "$cache"
finish
