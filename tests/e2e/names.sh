#!/bin/bash
# The container's names files (cnihook(8), NAMES) under a real engine: runc
# by default, NAMES_RT=crun|podman|containerd for the others (names.sh runs
# runc; the others as `NAMES_RT=podman tests/e2e/names.sh`, which
# names-crun.sh, names-podman.sh and names-containerd.sh run). Networks whose
# bridge plugin returns `dns` (from its configuration), real containers on the busybox rootfs of runtime-lib.sh.
#
# Every case checks what the container reads in /etc/resolv.conf and
# /etc/hosts, that the rootfs on disk is byte-identical afterwards (cnihook
# mounts over it, never writes it), that the host's mount table never shows
# the container's files, and that nothing is left after the last container.
# The hostile rootfs cases (an /etc linked to the host's, resolv.conf linked
# to a host path, a FIFO, a huge file, a hard link to a host file, a
# read-only bind mount at /etc) give the image's author the writes' target:
# nothing outside the container may change, and the hook may not hang.
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
NAMES_RT=${NAMES_RT:-runc}
if [ "$NAMES_RT" = crun ] && [ "${CNIHOOK_IN_CRUN_NS:-}" != 1 ] && [ "$(id -u)" = 0 ] &&
	command -v crun >/dev/null 2>&1 && unshare -m true 2>/dev/null; then
	export CNIHOOK_IN_CRUN_NS=1
	exec unshare -m --propagation unchanged "$BASH" "$0" "$@"
fi
T_NETPREFIX=nm
. "$srcdir/tests/harness/runtime-lib.sh"

# names_net NAME BRIDGE SUBNET SERVER... : a network (bridge + host-local)
# whose result carries `dns` (the bridge plugin returns its configuration's
# `dns`): nameservers SERVER..., search NAME.names.test, options ndots:2 (no
# SERVER: no dns at all).
names_net() {
	local name=$1 br=$2 sub=$3 dns=null
	shift 3
	if [ $# -gt 0 ]; then
		dns=$(jq -cn --arg n "$name" '{nameservers: $ARGS.positional, search: ["\($n).names.test"],
			options: ["ndots:2"]}' --args "$@")
	fi
	jq -n --arg n "$name" --arg br "$br" --arg sub "$sub.0/24" --arg dd "$DATADIR" --argjson dns "$dns" '
		{cniVersion: "1.0.0", name: $n, plugins: [
			({type: "bridge", bridge: $br, isGateway: true, ipMasq: false,
			  ipam: {type: "host-local", dataDir: $dd, ranges: [[{subnet: $sub}]], routes: []}}
			 + if $dns != null then {dns: $dns} else {} end)]}' \
		>"$DIR/net.d/50-$name.conflist"
}

# rootfs_digest DIR: every path under DIR with its type, mode, size, owner
# and content digest.
rootfs_digest() {
	(cd "$1" && find . -xdev \( -type f -o -type l -o -type d -o -type p \) -printf '%p %y %m %s %U %l\n' | sort &&
		find . -xdev -type f -size -2M -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1
}

# in_container NAME FILE: the file as the container reads it: cat run in
# the container's mount namespace and root (nsenter -m -r on its process,
# the rootfs's own cat), not through the engine's exec: reads that way
# came back without the file's lines twice (under crun, under ctr) while
# the hook had logged the mounts in place. A read that fails says why on
# stderr.
in_container() {
	local out err rc pid
	pid=$(rt_pid "$1") || return 1
	err=$(mktemp "$T_TMP/read.XXXXXX")
	out=$(timeout 10 nsenter -t "$pid" -m -r cat "$2" 2>"$err")
	rc=$?
	[ "$rc" = 0 ] || printf '#   %s: cat %s in its mount namespace: exit %s: %s\n' "$1" "$2" "$rc" "$(tr '\n' ' ' <"$err")" >&2
	rm -f "$err"
	[ -z "$out" ] || printf '%s\n' "$out"
	return "$rc"
}

# names_mounts NAME: what the container's mount table has at /etc (for a
# failure's message).
names_mounts() {
	local p
	p=$(rt_pid "$1" 2>/dev/null) || return 0
	printf '%s mounts at /etc: %s' "$1" "$(awk '$5 ~ /^\/etc/ { print $5, $4 }' "/proc/$p/mountinfo" 2>/dev/null | tr '\n' ';')"
}

# host_mounts_clean: the host's mount table shows no names file of a case.
host_mounts_clean() {
	! grep -E ' /[^ ]*/etc/(resolv\.conf|hosts) ' /proc/self/mountinfo | grep -qF -- "$T_TMP" ||
		fail "the host's mount table shows a names file: $(grep -F -- "$T_TMP" /proc/self/mountinfo | grep /etc/)"
}

# expect_in NAME FILE ERE WHAT: the container's FILE has a line matching
# ERE, else the case fails with WHAT, what it read and its mounts at /etc.
expect_in() {
	local got
	got=$(in_container "$1" "$2") || true
	grep -qE -- "$3" <<<"$got" || fail "$4: read: $got; $(names_mounts "$1")"
}

# names_untouched NAME: the container reads the engine's (or the rootfs's)
# own files: the engine's hosts file, if any, byte-identical; no file of
# cnihook's in the state directory.
names_untouched() {
	local f
	checking "$1 reads its engine's or rootfs's own files; no names file in the state directory"
	! in_container "$1" /etc/resolv.conf 2>/dev/null | grep -q cnihook || fail "resolv.conf written"
	! in_container "$1" /etc/hosts | grep -q cnihook || fail "hosts written"
	if [ "$RT" != podman ]; then
		[ "$(in_container "$1" /etc/resolv.conf)" = "$(cat "$RT_ROOTFS/etc/resolv.conf")" ] &&
			[ "$(in_container "$1" /etc/hosts)" = "$(cat "$RT_ROOTFS/etc/hosts")" ] ||
			fail "the files differ from the rootfs's"
	else
		f=$(jq -r '.mounts[] | select(.destination == "/etc/hosts") | .source' "${RT_BUNDLE[$RT_CID]}/config.json")
		[ "$(in_container "$1" /etc/hosts)" = "$(cat "$f")" ] || fail "hosts differs from podman's $f"
	fi
	[ ! -e "$STATEDIR/$RT_CID/resolv.conf" ] && [ ! -e "$STATEDIR/$RT_CID/hosts" ] ||
		fail "names files in $STATEDIR/$RT_CID"
	ok "nothing written"
}

# The case's cnihook.json with "dns" set to JSON value $1.
set_dns_conf() {
	jq --argjson d "$1" '.dns = $d' "$HOOKCONF" >"$HOOKCONF.new" && mv "$HOOKCONF.new" "$HOOKCONF"
}

# 1. One network with dns: resolv.conf names its server first and its search
# domain and options, then the host's non-loopback servers; /etc/hosts maps
# the container's address to its host name; the rootfs is untouched;
# nothing left.
names_case_one() {
	local id ip before rc hosts
	rt_setup_case a
	names_net "$NET" "$BR" "$SUB" "$GW"
	id=$(rt_id)
	before=$(rootfs_digest "$RT_ROOTFS")
	rt_start_ok "start $id on $NET (dns: $GW)" "$id" "$(annotations io.cnihook.networks "$NET")"
	ip=$(assert_attached_to "$id" "$RT_CID" "$NET" eth0 "$SUB")
	checking "/etc/resolv.conf in $id names $GW first, search $NET.names.test, options ndots:2"
	rc=$(in_container "$id" /etc/resolv.conf) || fail "cannot read /etc/resolv.conf in $id"
	printf '%s\n' "$rc" | sed 's/^/    resolv.conf| /'
	[ "$(grep -m1 '^nameserver' <<<"$rc")" = "nameserver $GW" ] || fail "the first server is not $GW"
	[ "$(grep -c '^nameserver' <<<"$rc")" -le 3 ] || fail "more than 3 servers"
	grep -q "^search $NET.names.test" <<<"$rc" || fail "no search $NET.names.test first"
	grep -q '^options.* ndots:2' <<<"$rc" || fail "no options ndots:2"
	! grep -qE '^nameserver (127\.|::1$)' <<<"$rc" || fail "a loopback server"
	ok "resolv.conf from the result"
	checking "/etc/hosts in $id maps $ip to its host name $id, once"
	hosts=$(in_container "$id" /etc/hosts) || fail "cannot read /etc/hosts in $id"
	printf '%s\n' "$hosts" | sed 's/^/    hosts| /'
	[ "$(grep -cE "^${ip//./\\.}[[:space:]].*\\b$id\\b" <<<"$hosts")" = 1 ] || fail "no single line '$ip ... $id'"
	grep -qE '^127\.0\.0\.1[[:space:]]+localhost' <<<"$hosts" || fail "no localhost line"
	ok "hosts maps $ip to $id"
	host_mounts_clean
	rt_stop "$id"
	if [ "$RT" != podman ]; then
		checking "the rootfs is byte-identical"
		[ "$(rootfs_digest "$RT_ROOTFS")" = "$before" ] || fail "the rootfs changed"
		ok "unchanged"
	fi
	rt_teardown_and_check
}

# 2. A network whose result has no dns: nothing written ("auto"); with
# cnihook.json "dns": "always", both files are written all the same.
names_case_no_dns() {
	local id before rc
	rt_setup_case b
	names_net "$NET" "$BR" "$SUB"
	id=$(rt_id)
	before=$(rootfs_digest "$RT_ROOTFS")
	rt_start_ok "start $id on $NET (no dns)" "$id" "$(annotations io.cnihook.networks "$NET")"
	names_untouched "$id"
	rt_stop "$id"
	set_dns_conf '"always"'
	rt_start_ok "start ${id}x on $NET with cnihook.json dns always" "${id}x" "$(annotations io.cnihook.networks "$NET")"
	checking "${id}x has cnihook's resolv.conf and hosts"
	rc=$(in_container "${id}x" /etc/resolv.conf)
	grep -q cnihook <<<"$rc" || fail "no resolv.conf of cnihook's: $rc"
	expect_in "${id}x" /etc/hosts "${id}x" "no hosts line for ${id}x"
	ok "written"
	rt_stop "${id}x"
	if [ "$RT" != podman ]; then
		checking "the rootfs is byte-identical"
		[ "$(rootfs_digest "$RT_ROOTFS")" = "$before" ] || fail "the rootfs changed"
		ok "unchanged"
	fi
	rt_teardown_and_check
}

# 3. io.cnihook.dns=off: nothing written; cnihook.json {"resolvConf": "off"}
# leaves resolv.conf alone and writes hosts; io.cnihook.dns-servers replaces
# the servers.
names_case_off() {
	local id rc
	rt_setup_case c
	names_net "$NET" "$BR" "$SUB" "$GW"
	id=$(rt_id)
	rt_start_ok "start $id with io.cnihook.dns=off" "$id" \
		"$(annotations io.cnihook.networks "$NET" io.cnihook.dns off)"
	names_untouched "$id"
	rt_stop "$id"
	set_dns_conf '{"resolvConf": "off"}'
	rt_start_ok "start ${id}h with cnihook.json dns.resolvConf off" "${id}h" \
		"$(annotations io.cnihook.networks "$NET")"
	checking "${id}h: resolv.conf the rootfs's, hosts cnihook's"
	! in_container "${id}h" /etc/resolv.conf | grep -q cnihook || fail "resolv.conf was written"
	expect_in "${id}h" /etc/hosts "${id}h" "no hosts line"
	ok "as set"
	rt_stop "${id}h"
	set_dns_conf '"auto"'
	rt_start_ok "start ${id}s with io.cnihook.dns-servers=192.0.2.53 dns-search=x.test" "${id}s" \
		"$(annotations io.cnihook.networks "$NET" io.cnihook.dns-servers 192.0.2.53 io.cnihook.dns-search x.test)"
	checking "${id}s: the annotation's server and search domain only"
	rc=$(in_container "${id}s" /etc/resolv.conf)
	[ "$(grep '^nameserver' <<<"$rc")" = "nameserver 192.0.2.53" ] || fail "servers: $rc"
	[ "$(grep '^search' <<<"$rc")" = "search x.test" ] || fail "search: $rc"
	ok "overridden"
	rt_stop "${id}s"
	rt_teardown_and_check
}

# 4. Two networks with dns: the servers in attachment order, deduplicated,
# at most 3; both search domains.
names_case_two() {
	local id rc
	rt_setup_case d
	names_net "$NET" "$BR" "$SUB" "$GW" 192.0.2.1
	rt_more_net two
	names_net "$NET2" "$BR2" "$SUB2" "$GW2" 192.0.2.1 192.0.2.2
	id=$(rt_id)
	rt_start_ok "start $id on $NET,$NET2" "$id" "$(annotations io.cnihook.networks "$NET,$NET2")"
	checking "resolv.conf: $GW 192.0.2.1 $GW2 (3 of 4), search of both"
	rc=$(in_container "$id" /etc/resolv.conf)
	printf '%s\n' "$rc" | sed 's/^/    resolv.conf| /'
	[ "$(grep '^nameserver' <<<"$rc" | awk '{print $2}' | tr '\n' ' ')" = "$GW 192.0.2.1 $GW2 " ] ||
		fail "servers not in order"
	grep -q "^search $NET.names.test $NET2.names.test" <<<"$rc" || fail "search"
	ok "in order, 3"
	checking "hosts maps both addresses"
	[ "$(in_container "$id" /etc/hosts | grep -v '^127\.' | grep -c "\\b$id\\b")" = 2 ] ||
		fail "want two lines naming $id"
	ok "two"
	rt_stop "$id"
	rt_teardown_and_check
}

# The rootfs's own files (runtime-lib.sh's rootfs, podman's image and
# containerd's are made of it), which the cases compare with: an empty
# resolv.conf, a localhost line.
eval "rtlib_$(declare -f make_rootfs)"
make_rootfs() {
	rtlib_make_rootfs "$@"
	: >"$1/etc/resolv.conf"
	printf '127.0.0.1\tlocalhost\n' >"$1/etc/hosts"
}

# Extra jq for config.json (a case's mounts or user namespace): make_bundle
# of runtime-lib.sh, then NAMES_JQ applied.
NAMES_JQ=
eval "rtlib_$(declare -f make_bundle)"
make_bundle() {
	rtlib_make_bundle "$@"
	[ -z "$NAMES_JQ" ] || { jq "$NAMES_JQ" "$1/config.json" >"$1/config.json.new" &&
		mv "$1/config.json.new" "$1/config.json"; } || fail "make_bundle: $NAMES_JQ"
}

# 5. A read-only rootfs (root.readonly) without /etc/hosts: the hook creates
# the mount point, as the runtime creates its own before it makes the rootfs
# read-only, and both files are mounted; the container starts.
names_case_readonly() {
	local id root
	rt_setup_case e
	names_net "$NET" "$BR" "$SUB" "$GW"
	root=$DIR/rootfs
	cp -a "$RT_ROOTFS" "$root" && rm "$root/etc/hosts"
	id=$(rt_id)
	RT_ROOTFS=$root rt_start_ok "start $id, read-only rootfs without /etc/hosts" "$id" \
		"$(annotations io.cnihook.networks "$NET")"
	checking "resolv.conf and hosts written; hosts's mount point created empty in the rootfs"
	expect_in "$id" /etc/resolv.conf "^nameserver $GW" "resolv.conf not written"
	expect_in "$id" /etc/hosts "# cnihook: this container" "hosts not written"
	[ -f "$root/etc/hosts" ] && [ ! -s "$root/etc/hosts" ] || fail "$root/etc/hosts: not an empty file"
	! rt_exec "$id" sh -c 'echo x >/etc/x' 2>/dev/null || fail "the rootfs is writable"
	ok "as said"
	rt_stop "$id"
	rt_teardown_and_check
}

# 6. A user namespace: cnihook's file belongs to the container's root (its
# uid_map's host id), so the container's root owns what it reads; it lives
# on a tmpfs of its own, none in the state directory.
names_case_userns() {
	local id root
	rt_setup_case f
	names_net "$NET" "$BR" "$SUB" "$GW"
	root=$DIR/rootfs
	cp -a "$RT_ROOTFS" "$root" && chown -R 100000:100000 "$root"
	# The container's root (host uid 100000) must reach its rootfs.
	chmod o+x "$T_TMP" "$DIR"
	id=$(rt_id)
	NAMES_JQ='.linux.namespaces += [{type: "user"}] | .linux.uidMappings = [{containerID: 0, hostID: 100000, size: 65536}]
		| .linux.gidMappings = [{containerID: 0, hostID: 100000, size: 65536}]
		| .mounts |= map(select(.destination != "/sys" and .type != "cgroup"))' \
	RT_ROOTFS=$root rt_start_ok "start $id in a user namespace (root = host uid 100000)" "$id" \
		"$(annotations io.cnihook.networks "$NET")"
	checking "the container's root owns /etc/resolv.conf and /etc/hosts; nothing in the state directory"
	[ ! -e "$STATEDIR/$RT_CID/resolv.conf" ] || fail "$STATEDIR/$RT_CID/resolv.conf exists"
	[ "$(rt_exec "$id" stat -c %u /etc/hosts)" = 0 ] || fail "not root's inside"
	expect_in "$id" /etc/resolv.conf "^nameserver $GW" "resolv.conf"
	ok "owned by the container's root"
	rt_stop "$id"
	rt_teardown_and_check
}

# 7. podman restart: the engine's /etc/hosts (userdata/hosts, bind-mounted)
# rewritten in place, one block after a restart; resolv.conf (podman writes
# none with --network none) bind-mounted.
names_case_restart() {
	local id hosts f
	rt_setup_case g
	names_net "$NET" "$BR" "$SUB" "$GW"
	id=$(rt_id)
	rt_start_ok "start $id" "$id" "$(annotations io.cnihook.networks "$NET")"
	f=$(jq -r '.mounts[] | select(.destination == "/etc/hosts") | .source' "${RT_BUNDLE[$RT_CID]}/config.json")
	checking "podman's own hosts file $f holds one block"
	[ "$(grep -c '^# cnihook: end' "$f")" = 1 ] || fail "$(cat "$f")"
	ok "one block"
	checking "podman restart $id"
	pm restart -t 0 "$id" >/dev/null 2>&1 || fail "podman restart failed"
	rt_hook_log
	ok "restarted"
	checking "still one block, the container's new address in it"
	hosts=$(in_container "$id" /etc/hosts)
	printf '%s\n' "$hosts" | sed 's/^/    hosts| /'
	[ "$(grep -c '^# cnihook: end' <<<"$hosts")" = 1 ] || fail "blocks: $(grep -c '^# cnihook: end' <<<"$hosts")"
	# The address, podman's host name (the short id) and the container's
	# name: none of the host's own names that podman copied.
	[ "$(grep -A1 '^# cnihook: this' <<<"$hosts" | tail -1 | awk '{print NF}')" = 3 ] ||
		fail "the block's line names more than the container"
	expect_in "$id" /etc/resolv.conf "^nameserver $GW" "resolv.conf"
	ok "one block"
	rt_stop "$id"
	rt_teardown_and_check
}

# 8. ctr: the task killed and deleted (poststop), then started again (a new
# createRuntime): one block, and the files mounted again.
names_case_ctr_restart() {
	local id hosts out
	rt_setup_case h
	out=$DIR/restart.out
	names_net "$NET" "$BR" "$SUB" "$GW"
	id=$(rt_id)
	rt_start_ok "start $id" "$id" "$(annotations io.cnihook.networks "$NET")"
	checking "ctr task kill, task delete, task start $id"
	ctd task kill -s SIGKILL "$id" >"$out" 2>&1 || fail "ctr task kill: $(cat "$out")"
	wait_for 50 ctd_task_is "$id" stopped || fail "task $id is $(rt_status "$id")"
	ctd task delete "$id" >>"$out" 2>&1 || fail "ctr task delete: $(cat "$out")"
	ctd task start -d --null-io --fifo-dir "$CTD_DIR/fifo" "$id" </dev/null >>"$out" 2>&1 ||
		fail "ctr task start: $(cat "$out")"
	wait_for 50 ctd_task_is "$id" running || fail "task $id is $(rt_status "$id")"
	rt_hook_log
	ok "started again"
	checking "one block in /etc/hosts, resolv.conf names $GW"
	hosts=$(in_container "$id" /etc/hosts) || fail "cannot read /etc/hosts in $id"
	printf '%s\n' "$hosts" | sed 's/^/    hosts| /'
	[ "$(grep -c '^# cnihook: end' <<<"$hosts")" = 1 ] || fail "blocks: $(grep -c '^# cnihook: end' <<<"$hosts")"
	expect_in "$id" /etc/resolv.conf "^nameserver $GW" "resolv.conf"
	ok "one block"
	host_mounts_clean
	rt_stop "$id"
	rt_teardown_and_check
}

# host_files_digest: the host's own names files and the baits.
host_files_digest() {
	cat /etc/resolv.conf /etc/hosts "$T_TMP/bait" "$T_TMP/bait-hosts" "$T_TMP"/shared/* 2>/dev/null | sha256sum
	ls -la /etc/resolv.conf /etc/hosts
	# a mount of cnihook's in the host's shared directory (h7, h8)
	grep -F -- " $T_TMP/shared/" /proc/self/mountinfo || true
}

# A directory of the host's that is a shared mount, as every mount is on a
# systemd host: a volume of it with rshared propagation is a peer of it.
shared_host_dir() {
	[ -d "$T_TMP/shared" ] && return 0
	mkdir -p "$T_TMP/shared"
	printf 'bait\n' >"$T_TMP/shared/target"
	printf 'nameserver 192.0.2.1\n' >"$T_TMP/shared/resolv.conf"
	printf '127.0.0.1 bait\n' >"$T_TMP/shared/hosts"
	cleanup_push "umount -l '$T_TMP/shared' 2>/dev/null || true"
	mount --bind "$T_TMP/shared" "$T_TMP/shared" && mount --make-shared "$T_TMP/shared" ||
		fail "cannot make $T_TMP/shared a shared mount"
}

# hostile_case LETTER DESCRIPTION SETUP [JQ]: a rootfs of the case's own,
# SETUP run in it (cwd = the rootfs), JQ on config.json: the container must
# start within 15 s, nothing of the host's or the baits may change, no
# file may appear where a link points, and nothing is left afterwards.
hostile_case() {
	local l=$1 desc=$2 setup=$3 jqx=${4:-} id root before t0
	rt_setup_case "$l"
	names_net "$NET" "$BR" "$SUB" "$GW"
	root=$DIR/rootfs
	cp -a "$RT_ROOTFS" "$root"
	printf 'bait\n' >"$T_TMP/bait"
	printf '127.0.0.1 bait\n' >"$T_TMP/bait-hosts"
	(cd "$root" && eval "$setup") || fail "setting up the rootfs: $setup"
	before=$(host_files_digest)
	id=$(rt_id)
	t0=$SECONDS
	NAMES_JQ=".root.readonly = false${jqx:+ | $jqx}" RT_ROOTFS=$root \
		rt_start_ok "start $id: $desc" "$id" "$(annotations io.cnihook.networks "$NET")"
	checking "within 15 s; the host's files and the baits unchanged; nothing created outside"
	[ $((SECONDS - t0)) -le 15 ] || fail "took $((SECONDS - t0)) s"
	[ "$(host_files_digest)" = "$before" ] || fail "changed: $(host_files_digest)"
	[ ! -e "$root$T_TMP/bait" ] || fail "created $root$T_TMP/bait"
	host_mounts_clean
	grep -A1 'not written' "$HOOKLOG" | sed 's/^/    log| /' || true
	ok "unharmed"
	rt_stop "$id"
	rt_teardown_and_check
}

names_hostile_cases() {
	run_case "h1. /etc a symbolic link to the host's /etc ($RT)" hostile_case h1 \
		"/etc -> /etc" 'rm -rf etc && ln -s /etc etc'
	run_case "h2. /etc/resolv.conf a symbolic link to a host path ($RT)" hostile_case h2 \
		"resolv.conf -> host path" 'rm -f etc/resolv.conf && ln -s "$T_TMP/bait" etc/resolv.conf'
	run_case "h3. /etc/resolv.conf a FIFO ($RT)" hostile_case h3 \
		"resolv.conf a FIFO" 'rm -f etc/resolv.conf && mkfifo etc/resolv.conf'
	run_case "h4. /etc/hosts a huge (sparse, 4 GiB) file ($RT)" hostile_case h4 \
		"hosts 4 GiB" 'truncate -s 4G etc/hosts'
	run_case "h5. /etc/hosts a hard link to a host file ($RT)" hostile_case h5 \
		"hosts a hard link" 'rm -f etc/hosts && ln "$T_TMP/bait-hosts" etc/hosts'
	run_case "h6. /etc a read-only bind mount without the files (a volume: left alone) ($RT)" hostile_case h6 \
		"/etc read-only bind" 'mkdir -p "$DIR/etc-ro"' \
		".mounts += [{destination: \"/etc\", type: \"bind\", source: \"$T_TMP/h6/etc-ro\", options: [\"rbind\", \"ro\"]}]"
	shared_host_dir
	run_case "h7. rootfsPropagation rshared, an rshared volume, resolv.conf a link onto it (left alone) ($RT)" \
		hostile_case h7 "link onto a shared volume" 'rm -f etc/resolv.conf && mkdir -p vol && ln -s /vol/target etc/resolv.conf' \
		".linux.rootfsPropagation = \"rshared\" | .mounts += [{destination: \"/vol\", type: \"bind\", source: \"$T_TMP/shared\", options: [\"rbind\", \"rshared\"]}]"
	run_case "h8. rootfsPropagation shared, the host's shared directory at /etc (left alone) ($RT)" \
		hostile_case h8 "a shared host directory at /etc" ':' \
		".linux.rootfsPropagation = \"shared\" | .mounts += [{destination: \"/etc\", type: \"bind\", source: \"$T_TMP/shared\", options: [\"rbind\"]}]"
}

require_cmd nsenter timeout
rt_init "$NAMES_RT"
run_case "1. one network with dns: resolv.conf and hosts ($RT)" names_case_one
run_case "2. no dns: nothing written; \"always\": written ($RT)" names_case_no_dns
run_case "3. io.cnihook.dns=off, dns.resolvConf off, dns-servers ($RT)" names_case_off
run_case "4. two networks with dns: order, at most 3 ($RT)" names_case_two
if [ "$RT" != podman ]; then
	run_case "5. a read-only rootfs without /etc/hosts ($RT)" names_case_readonly
fi
if [ "$RT" = runc ]; then
	run_case "6. a user namespace ($RT)" names_case_userns
	names_hostile_cases
fi
if [ "$RT" = podman ]; then
	run_case "7. podman restart: one block ($RT)" names_case_restart
fi
if [ "$RT" = containerd ]; then
	run_case "8. ctr task started again: one block ($RT)" names_case_ctr_restart
fi
log "--- whole script"
assert_nothing_left
finish
