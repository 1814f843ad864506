#!/bin/bash
# cnihook as a user installs it: `make install` of this build into the
# system with its defaults (cnihook in $(bindir), cnihook.json and the
# network "cnihook" in $(sysconfdir)/cnihook, the oci-hooks(5) files in
# /usr/share/containers/oci/hooks.d, the gc units in systemd's directory),
# then podman with NO --hooks-dir: it finds the hook where it looks by
# itself, and the hook runs with the installed configuration (the default
# confDir, cacheDir /var/lib/cni, stateDir /run/cnihook). Beside it, a
# network that podman manages with its own CNI backend, with a container of
# its own, must be left untouched. The installed CLI finds the networks
# with no NETCONFPATH. Then `make uninstall`, and every file and directory
# the install made is removed, even on failure, and checked gone.
#
# It installs into the system, so it skips (fails under CNIHOOK_NO_SKIP=1)
# when any file the install would write exists already (cnihook installed
# on this host: not to be overwritten or removed), and when this build
# installs its hooks.d files where podman does not look by default (a
# configure --with-hooks-dir elsewhere, as distcheck does).
#
# podman runs as in podman.sh (runtime-lib.sh): runc, the test's own vfs
# storage and containers.conf, the busybox rootfs imported as an image.
# Its CNI backend keeps its network configurations in a directory of the
# test's (network_config_dir): /etc/cni/net.d belongs to the host. The
# bridge podman chose is renamed to one of the test's before first use
# (podman 4.3 has no --interface-name), so that concurrent tests cannot
# pick the same one.
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
T_NETPREFIX=inst
. "$srcdir/tests/harness/runtime-lib.sh"
. "$srcdir/tests/harness/rootless-lib.sh"
. "$srcdir/tests/harness/docker-lib.sh"

# podman as a user runs it: no --hooks-dir (rt_exec, rt_stop and
# rt_status use pm).
pm() {
	podman --runtime runc "$@"
}

# make in the build tree, as a command of its own (not a sub-make of make
# check: no job server, no variables of the caller's make).
inst_make() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u DESTDIR \
		make -C "$INST_BUILD" "$@"
}

# inst_plan: install into a staging directory (DESTDIR) to learn what the
# install writes: INST_FILES (every file and symbolic link, as installed
# paths), INST_DIRS (the directories it would make, deepest first),
# INST_HOOKSDIR, INST_BIN (the hook path of the hooks.d files), INST_ETC
# ($(sysconfdir)/cnihook). Skips when the install would touch what exists.
inst_plan() {
	local stage=$T_TMP/stage f d
	INST_BUILD=${abs_top_builddir:-$(cd "$(dirname "$CNIHOOK")/.." && pwd)}
	[ -f "$INST_BUILD/Makefile" ] || skip "no build tree with a Makefile at $INST_BUILD"
	inst_make install DESTDIR="$stage" >"$T_TMP/stage.log" 2>&1 ||
		fail "make install DESTDIR=$stage failed: $(tail -20 "$T_TMP/stage.log")"
	f=$(cd "$stage" && find . -name cnihook-createRuntime.json -path '*/hooks.d/*')
	[ -n "$f" ] || fail "make install wrote no hooks.d/cnihook-createRuntime.json"
	f=${f#.}
	INST_HOOKSDIR=${f%/*}
	[ "$INST_HOOKSDIR" = /usr/share/containers/oci/hooks.d ] ||
		skip "this build installs its oci-hooks(5) files in $INST_HOOKSDIR, not in /usr/share/containers/oci/hooks.d, the one directory podman reads by default"
	INST_BIN=$(jq -r .hook.path "$stage$f")
	f=$(cd "$stage" && find . -path '*/cnihook/cnihook.json')
	[ -n "$f" ] || fail "make install wrote no \$(sysconfdir)/cnihook/cnihook.json"
	f=${f#.}
	INST_ETC=${f%/*}
	mapfile -t INST_FILES < <(cd "$stage" && find . ! -type d | sed 's/^\.//' | sort)
	for f in "${INST_FILES[@]}"; do
		if [ -e "$f" ] || [ -L "$f" ]; then
			skip "cnihook is installed on this host ($f exists): this test installs it and removes it after, and leaves an existing installation alone"
		fi
	done
	INST_DIRS=()
	while IFS= read -r d; do
		[ -e "$d" ] || INST_DIRS+=("$d")
	done < <(cd "$stage" && find . -mindepth 1 -type d | sed 's/^\.//' |
		awk '{ print length($0), $0 }' | sort -rn | cut -d' ' -f2-)
	log "install: ${#INST_FILES[@]} files; hooks in $INST_HOOKSDIR, hook $INST_BIN, configuration in $INST_ETC"
	log "install: new directories: ${INST_DIRS[*]:-none}"
}

# inst_remove: what the install made goes (the safety net; the case runs
# make uninstall and checks): its files, then its directories, deepest first.
inst_remove() {
	local f d
	for f in "${INST_FILES[@]}"; do rm -f "$f"; done
	for d in "${INST_DIRS[@]}"; do rmdir "$d" 2>/dev/null || true; done
}

# inst_left: print what of the install is still there.
inst_left() {
	local f d
	for f in "${INST_FILES[@]}"; do
		if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\n' "$f"; fi
	done
	for d in "${INST_DIRS[@]}"; do
		if [ -e "$d" ]; then printf '%s/\n' "$d"; fi
	done
}

# inst_uninstall: make uninstall, the safety net, and nothing of the
# install left.
inst_uninstall() {
	checking "make uninstall"
	inst_make uninstall >"$DIR/uninstall.log" 2>&1 ||
		fail "make uninstall failed: $(tail -20 "$DIR/uninstall.log")"
	inst_remove
	[ -z "$(inst_left)" ] || fail "left: $(inst_left)"
	ok "all gone"
}

# inst_dir_made DIR: DIR goes at exit if it does not exist now and is empty
# then.
inst_dir_made() {
	[ -e "$1" ] || cleanup_push "rmdir '$1' 2>/dev/null || true"
}

# The state directory the installed hook makes (and bind-mounts on itself)
# goes at exit if this script made it and nothing is in it but empty
# directories.
inst_forget_state_dir() {
	[ ! -e /run/cnihook ] || return 0
	cleanup_push "inst_drop_state_dir"
}
inst_drop_state_dir() {
	[ -d /run/cnihook ] || return 0
	[ -z "$(find /run/cnihook -mindepth 1 ! -type d -print -quit)" ] || return 0
	awk '$5 ~ "^/run/cnihook/." { f = 1 } END { exit f }' /proc/self/mountinfo || return 0
	umount_under /run/cnihook
	find /run/cnihook -depth -type d -empty -delete
}

# sum FILE...: their sha256 sums (a file that is missing says so).
sum() {
	local f
	for f in "$@"; do
		if [ -e "$f" ]; then sha256sum "$f"; else echo "missing $f"; fi
	done
}

inst_case() {
	local port cid c pmc pmnet pmbr pmsub pmfile pmid pmip pmentry pmlease before after ip ns out d
	rt_setup_case a
	# Runs with the installed configuration: the case's cnihook.json is
	# not used, the cache and state are the system's.
	CACHEDIR=/var/lib/cni
	STATEDIR=/run/cnihook

	checking "make install with this build's defaults"
	inst_forget_state_dir
	for d in /var/lib/cni/results /var/lib/cni/networks /var/lib/cni; do inst_dir_made "$d"; done
	# The hook's index of the cache's port mappings (docs/architecture.md,
	# "Indexes") is written beside the cache: removed if this case made it.
	[ -e /var/lib/cni/cnihook-ports.index ] ||
		cleanup_push "rm -f /var/lib/cni/cnihook-ports.index /var/lib/cni/.cnihook-ports.index.tmp* /var/lib/cni/cnihook-ports.held /var/lib/cni/.cnihook-ports.held.tmp*"
	inst_make install >"$DIR/install.log" 2>&1 ||
		fail "make install failed: $(tail -20 "$DIR/install.log")"
	[ -z "$(for f in "${INST_FILES[@]}"; do [ -e "$f" ] || [ -L "$f" ] || echo "$f"; done)" ] ||
		fail "make install did not write everything the staged install did"
	"$INST_BIN" version >/dev/null || fail "the installed $INST_BIN does not run"
	ok "installed: $INST_BIN, $INST_HOOKSDIR/cnihook-{createRuntime,poststop}.json, $INST_ETC/{cnihook.json,net.d/10-cnihook.conflist}"

	checking "the default confDir is cnihook's own $INST_ETC/net.d, not /etc/cni/net.d"
	out=$("$INST_BIN" --help)
	grep -qF "$INST_ETC/net.d" <<<"$out" || fail "--help names no $INST_ETC/net.d: $out"
	[ "$INST_ETC/net.d" != /etc/cni/net.d ] || fail "the confDir is podman's, CRI-O's and containerd's"
	[ -f "$INST_ETC/net.d/10-cnihook.conflist" ] || fail "no $INST_ETC/net.d/10-cnihook.conflist"
	ok "yes, with the network cnihook in it"

	# The case's network, in the installed confDir: unique bridge and
	# subnet (the shipped cnihook0 and 10.89.0.0/24 may be in use).
	rt_add_net "$NET" "$BR" "$SUB" full "$INST_ETC/net.d"
	cleanup_push "rm -f '$INST_ETC/net.d/50-$NET.conflist'"

	checking "podman's own CNI network beside it (podman network create, CNI backend)"
	pmnet=$NET-pm
	pmbr=cnp$uniq
	while :; do
		pmsub=$(random_subnet)
		[ "$pmsub" = "$SUB" ] || break
	done
	mkdir -p "$PM_DIR/cni.d"
	cat >>"$PM_DIR/containers.conf" <<EOF
[network]
network_backend = "cni"
network_config_dir = "$PM_DIR/cni.d"
EOF
	cleanup_push "delete_link '$pmbr'"
	cleanup_push "purge_iptables '(^|[^0-9])${pmsub//./\\.}\\.'"
	cleanup_push "pm network rm -f '$pmnet'"
	forget_new_lease_dir "/var/lib/cni/networks/$pmnet"
	pm network create --internal --disable-dns --subnet "$pmsub.0/24" "$pmnet" >/dev/null ||
		fail "podman network create failed"
	pmfile=$PM_DIR/cni.d/$pmnet.conflist
	[ -f "$pmfile" ] || fail "podman wrote no $pmfile: $(ls "$PM_DIR/cni.d")"
	jq --arg br "$pmbr" '(.plugins[] | select(.type == "bridge")).bridge = $br' "$pmfile" \
		>"$pmfile.new" && mv "$pmfile.new" "$pmfile"
	[ "$(pm info --format '{{.Host.NetworkBackend}}')" = cni ] || fail "podman's backend is not cni"
	pmc=$(rt_id pm)
	cleanup_push "pm rm -f -t 0 '$pmc'"
	pm run -d --name "$pmc" --network "$pmnet" --ulimit nofile=20000:20000 \
		--ulimit nproc=32768:32768 "$PM_IMAGE" sleep 1000 >"$DIR/$pmc.out" 2>&1 ||
		fail "podman run on $pmnet: $(cat "$DIR/$pmc.out")"
	pmid=$(podman inspect -f '{{.Id}}' "$pmc")
	pmip=$(container_addr "$pmc" eth0)
	[[ $pmip == "$pmsub".*/24 ]] || fail "$pmc has no address of $pmsub.0/24: $pmip"
	pmip=${pmip%/24}
	pmentry=/var/lib/cni/results/$pmnet-$pmid-eth0
	pmlease=/var/lib/cni/networks/$pmnet/$pmip
	[ -f "$pmentry" ] && [ -f "$pmlease" ] || fail "no cache entry $pmentry or lease $pmlease"
	before=$(sum "$pmfile" "$pmentry" "$pmlease")
	ok "network $pmnet (bridge $pmbr, $pmsub.0/24), container $pmc at $pmip"

	checking "podman network ls lists $pmnet, and no network of cnihook"
	out=$(pm network ls --format '{{.Name}}')
	grep -qx -- "$pmnet" <<<"$out" || fail "podman network ls: no $pmnet: $out"
	! grep -qxE -- "cnihook|$NET" <<<"$out" || fail "podman lists cnihook's networks: $out"
	ok "$(tr '\n' ' ' <<<"$out")"

	c=$(rt_id)
	port=$((20000 + RANDOM % 10001))
	checking "podman run (no --hooks-dir) $c with io.cnihook.networks=$NET io.cnihook.ports=$port:80"
	cleanup_push "pm rm -f -t 0 '$c'"
	pm run -d --name "$c" --network none --cap-add NET_RAW --ulimit nofile=20000:20000 \
		--ulimit nproc=32768:32768 --annotation "io.cnihook.networks=$NET" \
		--annotation "io.cnihook.ports=$port:80" "$PM_IMAGE" httpd -f -p 80 -h /www \
		</dev/null >"$DIR/$c.out" 2>&1 || fail "podman run $c: $(cat "$DIR/$c.out")"
	cid=$(podman inspect -f '{{.Id}}' "$c")
	RT_IDS+=("$cid")
	jq -e --arg p "$INST_BIN" '[.hooks.createRuntime // [] | .[] | select(.path == $p)] | length == 1' \
		"$(podman inspect -f '{{.OCIConfigPath}}' "$c")" >/dev/null ||
		fail "podman did not take the installed createRuntime hook"
	ok "running, with the installed hook $INST_BIN"

	checking "eth0 of $c: an address of $SUB.0/24, cached in /var/lib/cni, pinned in /run/cnihook"
	ip=$(assert_attached_to "$c" "$cid" "$NET" eth0 "$SUB")
	[ -f "/run/cnihook/$cid/record.json" ] || fail "no /run/cnihook/$cid/record.json"
	ok "$ip"
	assert_page "http://127.0.0.1:$port/"
	checking "the installed cnihook status (no --config) shows it"
	"$INST_BIN" status --json "$cid" | jq -e --arg n "$NET" '.[0].name == $n' >/dev/null ||
		fail "cnihook status $cid: $("$INST_BIN" status "$cid" 2>&1)"
	ok "network $NET"

	checking "the installed CLI with no NETCONFPATH validates the networks of $INST_ETC/net.d"
	out=$(env -u NETCONFPATH -u CNI_PATH -u CNI_CACHE_DIR "$INST_BIN" validate 2>&1) ||
		fail "cnihook validate: $out"
	grep -qF "$INST_ETC/net.d/10-cnihook.conflist: network \"cnihook\"" <<<"$out" ||
		fail "validate did not find the network cnihook: $out"
	grep -qF "network \"$NET\"" <<<"$out" || fail "validate did not find $NET: $out"
	ok "$(tr '\n' ' ' <<<"$out")"
	checking "cnihook add/del $NET on a namespace, no NETCONFPATH (the README's commands)"
	ns=inst$uniq
	new_netns "$ns"
	env -u NETCONFPATH -u CNI_PATH -u CNI_CACHE_DIR "$INST_BIN" add "$NET" "/run/netns/$ns" \
		>"$DIR/add.out" 2>&1 || fail "cnihook add: $(cat "$DIR/add.out")"
	jq -e --arg s "$SUB." '.ips[0].address | startswith($s)' "$DIR/add.out" >/dev/null ||
		fail "cnihook add printed no address of $SUB.0/24: $(cat "$DIR/add.out")"
	env -u NETCONFPATH -u CNI_PATH -u CNI_CACHE_DIR "$INST_BIN" del "$NET" "/run/netns/$ns" \
		>"$DIR/del.out" 2>&1 || fail "cnihook del: $(cat "$DIR/del.out")"
	ip netns delete "$ns"
	ok "added and deleted"

	rt_stop "$c"
	rt_nothing_left_for "$cid"
	checking "no port left on $BR, no lease in $DATADIR"
	[ -z "$(ip -o link show master "$BR" 2>/dev/null)" ] || fail "links left on $BR"
	[ -z "$(find "$DATADIR" -type f ! -name 'last_reserved_ip*' ! -name lock -print)" ] ||
		fail "host-local files left: $(find "$DATADIR" -type f)"
	ok "none"
	delete_link "$BR"

	checking "podman's network and container untouched: file, cache entry, lease, address"
	after=$(sum "$pmfile" "$pmentry" "$pmlease")
	[ "$before" = "$after" ] || fail "changed: before $before; after $after"
	[ "$(container_addr "$pmc" eth0)" = "$pmip/24" ] || fail "$pmc lost $pmip"
	out=$(pm network ls --format '{{.Name}}' 2>&1) || fail "podman network ls failed: $out"
	grep -qx -- "$pmnet" <<<"$out" || fail "podman lost $pmnet: podman network ls says: $out"
	ok "the same"
	checking "podman removes its own container and network, as before"
	pm rm -f -t 0 "$pmc" >/dev/null || fail "podman rm $pmc"
	[ ! -e "$pmentry" ] && [ ! -e "$pmlease" ] || fail "podman left $pmentry or $pmlease"
	pm network rm "$pmnet" >/dev/null || fail "podman network rm $pmnet"
	delete_link "$pmbr"
	ok "gone"
	assert_nothing_left --id "$cid" --id "$pmid" --subnet "$SUB" --subnet "$pmsub" \
		--link "$BR" --link "$pmbr" --datadir "$DATADIR"

	checking "make uninstall removes every file the install wrote"
	rm -f "$INST_ETC/net.d/50-$NET.conflist"
	inst_make uninstall >"$DIR/uninstall.log" 2>&1 ||
		fail "make uninstall failed: $(tail -20 "$DIR/uninstall.log")"
	out=$(for f in "${INST_FILES[@]}"; do [ ! -e "$f" ] && [ ! -L "$f" ] || echo "$f"; done)
	[ -z "$out" ] || fail "left by make uninstall: $out"
	ok "all gone"
	inst_remove
	checking "nothing of the install is left, the directories it made included"
	out=$(inst_left)
	[ -z "$out" ] || fail "left: $out"
	ok "nothing"
}

# ---------------------------------------------------------------- rootless
# Rootless podman as a user meets it once `make install` is done: a user of
# the test's (tests/harness/rootless-lib.sh), podman with no --hooks-dir
# (it reads the installed entries from its own directory) and a hook with
# no --config (the installed cnihook.json and its network cnihook, whose
# bridge cnihook0 and 10.89.0.0/24 live in the user's namespace, not the
# host's). The container gets an address of 10.89.0.0/24 and its name in
# /etc/hosts; its published port serves on the host's 127.0.0.1; the
# installed gc finds nothing to do through podman unshare; after the
# container nothing is left (no /run/user/UID/cnihook, no process of the
# user's, nothing on the host).
inst_rootless_case() {
	local c cid port out got i st
	rt_setup_case r
	checking "make install with this build's defaults"
	cleanup_push "inst_make uninstall >/dev/null 2>&1; inst_remove"
	inst_make install >"$DIR/install.log" 2>&1 ||
		fail "make install failed: $(tail -20 "$DIR/install.log")"
	ok "installed"

	rl_user_setup
	RL_PODMAN_ARGS=()
	rl_image "localhost/cnihook-inst-rootless:$uniq" sh httpd sleep cat
	echo hello >"$U/rootfs/www/index.html"
	c=rl$uniq
	port=$((20000 + RANDOM % 10001))
	checking "rootless podman run (no --hooks-dir) $c with io.cnihook.networks=cnihook io.cnihook.ports=127.0.0.1:$port:80"
	out=$(rl_pm run -d --name "$c" --network none --annotation io.cnihook.networks=cnihook \
		--annotation "io.cnihook.ports=127.0.0.1:$port:80" "localhost/cnihook-inst-rootless:$uniq" \
		sh -c 'echo hello >/www/index.html; exec httpd -f -p 80 -h /www' 2>&1) ||
		fail "podman run $c as $RL_USER: $out"
	cid=$(tail -n 1 <<<"$out")
	st=$RUNDIR/cnihook/state/$cid/network-status.json
	jq -e '.[0].ips[0] | startswith("10.89.0.")' "$st" >/dev/null 2>&1 ||
		fail "no address of 10.89.0.0/24 in $st: $(cat "$st" 2>&1)"
	ok "running: $(jq -r '.[0].ips[0]' "$st"), in the user's namespace"
	checking "its /etc/hosts is podman's, untouched; its port serves on 127.0.0.1:$port"
	# (the shipped network's result has no dns: "auto" writes nothing)
	out=$(rl_pm exec "$c" cat /etc/hosts 2>&1) || fail "podman exec $c cat /etc/hosts: $out"
	grep -q "$c" <<<"$out" && ! grep -q '^# cnihook:' <<<"$out" ||
		fail "/etc/hosts is not podman's own: $out"
	for ((i = 0; i < 30; i++)); do
		got=$(http_get "http://127.0.0.1:$port/") && [ "$got" = hello ] && break
		sleep 0.2
	done
	[ "$got" = hello ] || fail "GET http://127.0.0.1:$port/: got \"$got\""
	ok "hello"
	checking "podman unshare cnihook gc (the installed one, its defaults): $c is running, nothing to do"
	out=$(rl_pm unshare "$INST_BIN" gc 2>&1) || fail "podman unshare cnihook gc: $out"
	[ -d "$RUNDIR/cnihook/state/$cid" ] || fail "gc took $c's attachment: $out"
	ok "$(tr '\n' ' ' <<<"$out")"
	checking "podman rm $c: nothing of the user's left"
	rl_pm rm -f -t 0 "$c" >/dev/null 2>&1 || fail "podman rm $c"
	[ ! -e "$RUNDIR/cnihook" ] || fail "left: $(ls -R "$RUNDIR/cnihook" 2>&1)"
	# (slirp4netns, killed, not waited for, takes tens of milliseconds
	# to exit: a second is given to it)
	for ((i = 0; i < 10; i++)); do
		out=$(ps -u "$RL_USER" -o pid=,stat=,comm= | awk '$2 !~ /^Z/' |
			grep -E 'cnihook|slirp4netns|dnsmasq' || true)
		[ -n "$out" ] || break
		sleep 0.1
	done
	[ -z "$out" ] || fail "processes left: $out"
	ok "none"
	assert_nothing_left --id "$cid"

	inst_uninstall
}

# ---------------------------------------------------------------- quick starts
# The README's quick starts, as a user runs them once `make install` is done
# (README.md, "Quick start"; tests/suites/docs.sh checks that every line of
# them is a line of this script, so they cannot drift): the installed hook,
# its network cnihook (bridge cnihook0, 10.89.0.0/24), host port 8080,
# containers named web under runc, containerd (a containerd of the test's
# own, in its own namespace), podman with its CNI backend, then netavark
# beside a network of podman's own on 10.90.0.0/24 (the test's storage, with
# the busybox image tagged as the README pulls it), Docker (qs_docker).
# Between the README's
# lines the test checks what they did; each block's output goes to a file
# of the case. cnihook(8)'s EXAMPLES of a pod, of list and gc, and of the
# CLI alone run here too.

# qs_fetch: the README's fetch. qs_page WHAT: it says hello (the container's
# httpd may take a moment to listen).
qs_fetch() {
	curl http://127.0.0.1:8080/index.html
}
qs_page() {
	local i got=''
	checking "$1: curl http://127.0.0.1:8080/index.html says hello"
	for ((i = 0; i < 30; i++)); do
		got=$(qs_fetch 2>/dev/null) && [ "$got" = hello ] && break
		sleep 0.2
	done
	[ "$got" = hello ] || fail "$1: GET http://127.0.0.1:8080/index.html: got \"$got\""
	ok "hello"
}
# qs_status ID WHAT: the installed cnihook (on PATH, as the README runs it)
# shows the network cnihook for the container.
qs_status() {
	checking "$2: the installed cnihook status shows the network cnihook"
	cnihook status --json "$1" | jq -e '.[0].name == "cnihook"' >/dev/null ||
		fail "cnihook status $1: $(cnihook status "$1" 2>&1)"
	ok "yes"
}
# qs_conf BACKEND: the test's podman configuration with BACKEND, runc and
# the ulimits this machine's runc needs (the README's podman takes no
# option for them).
qs_conf() {
	mkdir -p "$PM_DIR/qs-$1.d"
	cat >"$DIR/qs-$1.conf" <<EOT
[engine]
tmp_dir = "$PM_DIR/tmp"
events_logger = "file"
events_logfile_path = "$PM_DIR/events.log"
runtime = "runc"
[network]
network_backend = "$1"
network_config_dir = "$PM_DIR/qs-$1.d"
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
EOT
	export CONTAINERS_CONF=$DIR/qs-$1.conf
	[ "$(podman info --format '{{.Host.NetworkBackend}}')" = "$1" ] || fail "podman does not use $1"
}

# qs_docker: the README's Docker block on a dockerd of the test's own
# (docker-lib.sh): its steps on the host's system become the test's:
# apt-get checks that docker.io is installed, tee writes the test's
# daemon.json, systemctl restart docker starts the test's dockerd with it,
# docker is /usr/bin/docker on that dockerd; the image busybox is the
# test's rootfs, tagged so.
qs_docker() {
	local cid out
	dk_init
	apt-get() { dpkg-query -W -f '${Status}' docker.io 2>/dev/null | grep -q 'install ok installed'; }
	tee() { command tee "$DK_DIR/daemon.json"; }
	systemctl() {
		[ "$*" = "restart docker" ] || fail "systemctl $*: not the README's"
		dk_start
	}
	docker() { dk "$@"; }
	{
		apt-get install -y docker.io
		echo '{"runtimes": {"cnihook": {"path": "/usr/local/bin/cnihook-runtime"}}}' | tee /etc/docker/daemon.json
		systemctl restart docker
	} </dev/null >"$DIR/qs-docker.out" 2>&1 || fail "the README's Docker set-up: $(cat "$DIR/qs-docker.out")"
	unset -f apt-get tee systemctl
	dk_image
	dk tag "$DK_IMAGE" busybox || fail "docker tag"
	{
		docker run -d --name web --runtime cnihook --network none -e io.cnihook.networks=cnihook \
		    -e io.cnihook.ports=8080:80 busybox sh -c 'echo hello >/index.html && exec httpd -f -p 80 -h /'
	} </dev/null >>"$DIR/qs-docker.out" 2>&1 || fail "the README's docker run: $(cat "$DIR/qs-docker.out")"
	cid=$(dk_id web)
	qs_page docker
	checking "docker: cnihook status names moby/${cid:0:12}"
	out=$(
		cnihook status "moby/$(docker inspect --format '{{.Id}}' web)" # Docker's containerd namespace
	) || fail "cnihook status of web: $out"
	grep -q "^moby/${cid:0:12} .* cnihook " <<<"$out" || fail "cnihook status: $out"
	ok "$(tail -1 <<<"$out")"
	{
		docker rm -f web # poststop: detached
	} </dev/null >>"$DIR/qs-docker.out" 2>&1 || fail "docker rm -f web: $(cat "$DIR/qs-docker.out")"
	rt_nothing_left_for "moby-$cid"
	unset -f docker
	dk_stop
}

qs_case() {
	local cid out d
	rt_setup_case q
	CACHEDIR=/var/lib/cni
	STATEDIR=/run/cnihook
	[ -z "$(ip -o link show cnihook0 2>/dev/null)" ] ||
		skip "the bridge cnihook0 exists: the README's network is in use on this host"
	! ip -4 route show | grep -q '^10\.89\.0\.' ||
		skip "10.89.0.0/24 is routed on this host: the README's network would collide"
	! ip -4 route show | grep -q '^10\.90\.0\.' ||
		skip "10.90.0.0/24 is routed on this host: the README's podman network would collide"
	[ -z "$(ss -Hlnt 'sport = :8080')" ] || skip "host port 8080 is in use: the README maps it"
	! runc state web >/dev/null 2>&1 || skip "a runc container web exists"
	[ ! -e /run/cnihook/web ] || skip "/run/cnihook/web exists"
	[ "$INST_ETC" = /usr/local/etc/cnihook ] || skip "this build installs in $INST_ETC, the README in /usr/local"
	[ ! -e /run/netns/demo ] || skip "a network namespace demo exists: cnihook(8)'s CLI example makes one"
	# As a user's shell: the CLI takes its defaults from the installed
	# cnihook.json.
	unset NETCONFPATH CNI_PATH CNI_CACHE_DIR CNIHOOK_CONFIG

	checking "make install with this build's defaults (the README's /usr/local)"
	inst_forget_state_dir
	for d in /var/lib/cni/results /var/lib/cni/networks /var/lib/cni; do inst_dir_made "$d"; done
	[ -e /var/lib/cni/cnihook-ports.index ] ||
		cleanup_push "rm -f /var/lib/cni/cnihook-ports.index /var/lib/cni/.cnihook-ports.index.tmp* /var/lib/cni/cnihook-ports.held /var/lib/cni/.cnihook-ports.held.tmp*"
	cleanup_push "inst_make uninstall >/dev/null 2>&1; inst_remove"
	inst_make install >"$DIR/install.log" 2>&1 ||
		fail "make install failed: $(tail -20 "$DIR/install.log")"
	[ -f /usr/local/share/doc/cnihook/examples/runc-hooks.json ] ||
		fail "no /usr/local/share/doc/cnihook/examples/runc-hooks.json"
	ok "installed"
	PATH=/usr/local/bin:$PATH
	cleanup_push "delete_link cnihook0"
	cleanup_push "purge_iptables '(^|[^0-9])10\\.89\\.0\\.'"
	forget_new_lease_dir /var/lib/cni/networks/cnihook
	cd "$DIR"

	log "README: runc"
	cleanup_push "runc delete -f web >/dev/null 2>&1 || true"
	{
		mkdir -p web/rootfs/bin && cp /bin/busybox web/rootfs/bin/ && cd web
		echo hello >rootfs/index.html
		runc spec
		jq --slurpfile h /usr/local/share/doc/cnihook/examples/runc-hooks.json '.hooks = $h[0].hooks
		    | .annotations = {"io.cnihook.networks": "cnihook", "io.cnihook.ports": "8080:80"}
		    | .process.terminal = false | .process.args = ["/bin/busybox", "httpd", "-f", "-p", "80", "-h", "/"]' \
		    config.json >c.json && mv c.json config.json
		runc run -d web
	} </dev/null >"$DIR/qs-runc.out" 2>&1 || fail "the README's runc block: $(cat "$DIR/qs-runc.out")"
	qs_page runc
	{
		cnihook status web
	} >>"$DIR/qs-runc.out" 2>&1 || fail "cnihook status web failed"
	qs_status web runc
	# A firewall reload drops the container's DNAT rule: cnihook reload
	# re-applies the shipped network (it declares the ips capability) with
	# the same address, and the page is served again.
	checking "the shipped network: cnihook reload after web's DNAT rule is flushed keeps its address"
	rule=$(iptables-save -t nat | grep -E -- '^-A CNI-DN-.* --dport 8080 .*-j DNAT --to-destination 10\.89\.0\.[0-9]+:80$' || true)
	[ "$(wc -l <<<"$rule")" = 1 ] && [ -n "$rule" ] || fail "not one DNAT rule of web: $rule"
	before=$(cnihook status --json web | jq -c '[.[].ips]')
	# shellcheck disable=SC2086 # the rule's words, as iptables-save wrote them
	iptables -t nat -D ${rule#-A }
	out=$(cnihook reload web 2>&1) || fail "cnihook reload web: $out"
	grep -q '^reload: container "web" network "cnihook" interface eth0: reloaded' <<<"$out" ||
		fail "cnihook reload web: $out"
	after=$(cnihook status --json web | jq -c '[.[].ips]')
	[ "$before" = "$after" ] || fail "web's addresses changed: $before, then $after"
	ok "reloaded, $after"
	qs_page "runc, after reload"
	{
		runc delete -f web # poststop: detached, nothing left
	} </dev/null >>"$DIR/qs-runc.out" 2>&1 || fail "runc delete -f web: $(cat "$DIR/qs-runc.out")"
	rt_nothing_left_for web

	log "README: containerd, with the same bundle"
	ctd_init
	export CONTAINERD_ADDRESS=$CTD_SOCK CONTAINERD_NAMESPACE=$CTD_NS
	{
		jq --arg root "$PWD/rootfs" '.root.path = $root' config.json >web.json
		ctr run -d --config web.json web
	} </dev/null >"$DIR/qs-ctr.out" 2>&1 || fail "the README's ctr block: $(cat "$DIR/qs-ctr.out")"
	qs_page containerd
	checking "containerd: cnihook list names $CTD_NS/web"
	out=$(
		cnihook list
	) || fail "cnihook list failed"
	grep -qF "$CTD_NS/web" <<<"$out" || fail "cnihook list: $out"
	ok "yes"
	{
		ctr task rm -f web && ctr container rm web # poststop: detached
	} </dev/null >>"$DIR/qs-ctr.out" 2>&1 || fail "ctr task rm, container rm: $(cat "$DIR/qs-ctr.out")"
	rt_nothing_left_for "$CTD_NS-web"
	cd "$DIR"

	log "README: podman, CNI backend"
	qs_conf cni
	podman tag "$PM_IMAGE" docker.io/library/busybox >/dev/null || fail "podman tag"
	cleanup_push "podman rmi -f docker.io/library/busybox >/dev/null 2>&1"
	cleanup_push "podman rm -f -t 0 web >/dev/null 2>&1"
	{
		podman run -d --name web --network none --annotation io.cnihook.networks=cnihook \
		    --annotation io.cnihook.ports=8080:80 docker.io/library/busybox \
		    sh -c 'echo hello >/index.html && exec httpd -f -p 80 -h /'
	} </dev/null >"$DIR/qs-podman.out" 2>&1 || fail "the README's podman block: $(cat "$DIR/qs-podman.out")"
	cid=$(podman inspect -f '{{.Id}}' web)
	qs_page "podman (CNI backend)"
	{
		cnihook status "$(podman inspect --format '{{.Id}}' web)"
	} >>"$DIR/qs-podman.out" 2>&1 || fail "cnihook status of web failed"
	qs_status "$cid" "podman (CNI backend)"
	checking "cnihook(8)'s list and gc --dry-run: gc keeps the running web"
	{
		cnihook list # every attachment of the cache, whoever made it
		cnihook gc --dry-run # what gc would collect, with the evidence
	} </dev/null >"$DIR/qs-gc.out" 2>&1
	grep -F "\"$cid\": kept" "$DIR/qs-gc.out" >/dev/null ||
		grep -F "\"${cid:0:12}\": kept" "$DIR/qs-gc.out" >/dev/null ||
		fail "gc --dry-run does not keep $cid: $(cat "$DIR/qs-gc.out")"
	ok "kept"
	{
		podman rm -f web # poststop: detached
	} </dev/null >>"$DIR/qs-podman.out" 2>&1 || fail "podman rm -f web: $(cat "$DIR/qs-podman.out")"
	rt_nothing_left_for "$cid"

	log "cnihook(8): a podman pod"
	cleanup_push "podman pod rm -f p >/dev/null 2>&1"
	{
		podman pod create --network none --name p
		podman run -d --pod p --annotation io.cnihook.networks=cnihook docker.io/library/busybox sleep 1d
	} </dev/null >"$DIR/qs-pod.out" 2>&1 || fail "cnihook(8)'s pod block: $(cat "$DIR/qs-pod.out")"
	cid=$(podman pod inspect p --format '{{.InfraContainerID}}')
	{
		cnihook status "$(podman pod inspect p --format '{{.InfraContainerID}}')"
	} >>"$DIR/qs-pod.out" 2>&1 || fail "cnihook status of the pod: $(cat "$DIR/qs-pod.out")"
	qs_status "$cid" "podman pod"
	{
		podman pod rm -f p # the last member stopped: detached
	} </dev/null >>"$DIR/qs-pod.out" 2>&1 || fail "podman pod rm -f p: $(cat "$DIR/qs-pod.out")"
	rt_nothing_left_for "$cid"

	log "README: podman, netavark, beside a network of podman's own"
	qs_conf netavark
	cleanup_push "podman network rm -f web-net >/dev/null 2>&1"
	cleanup_push "purge_iptables '(^|[^0-9])10\\.90\\.0\\.'"
	{
		podman network create --internal --disable-dns --subnet 10.90.0.0/24 web-net
	} </dev/null >"$DIR/qs-netavark.out" 2>&1 || fail "podman network create: $(cat "$DIR/qs-netavark.out")"
	# Its bridge gets a name of the test's before first use: other suites'
	# podman may pick netavark's next name at the same time.
	jq --arg br "qsn$uniq" '.network_interface = $br' "$PM_DIR/qs-netavark.d/web-net.json" \
		>"$DIR/web-net.json" && mv "$DIR/web-net.json" "$PM_DIR/qs-netavark.d/web-net.json" ||
		fail "renaming web-net's bridge"
	cleanup_push "delete_link qsn$uniq"
	{
		podman run -d --name web --network web-net --annotation io.cnihook.networks=cnihook \
		    docker.io/library/busybox sleep 1d
	} </dev/null >>"$DIR/qs-netavark.out" 2>&1 || fail "the README's netavark block: $(cat "$DIR/qs-netavark.out")"
	cid=$(podman inspect -f '{{.Id}}' web)
	checking "netavark: net1 is cnihook's (10.89.0.0/24), eth0 podman's (10.90.0.0/24)"
	out=$(
		podman exec web ip -o -4 addr show net1 # cnihook's address, 10.89.0.0/24
	) || fail "podman exec web ip: $out"
	grep -q ' 10\.89\.0\.' <<<"$out" || fail "net1: $out"
	podman exec web ip -o -4 addr show eth0 | grep -q ' 10\.90\.0\.' ||
		fail "eth0: $(podman exec web ip -o -4 addr 2>&1)"
	ok "$out"
	{
		cnihook status "$(podman inspect --format '{{.Id}}' web)"
	} >>"$DIR/qs-netavark.out" 2>&1 || fail "cnihook status of web failed"
	qs_status "$cid" "podman (netavark)"
	{
		podman rm -f web && podman network rm web-net
	} </dev/null >>"$DIR/qs-netavark.out" 2>&1 || fail "podman rm, network rm: $(cat "$DIR/qs-netavark.out")"
	rt_nothing_left_for "$cid"

	log "README: Docker, through cnihook-runtime"
	qs_docker

	log "cnihook(8): the CLI alone, as cnitool"
	cleanup_push "ip netns del demo 2>/dev/null || true"
	{
		ip netns add demo
		export CAP_ARGS='{"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"}]}'
		cnihook add cnihook /run/netns/demo
		cnihook check cnihook /run/netns/demo
		cnihook del cnihook /run/netns/demo # with the same CAP_ARGS
		ip netns del demo
	} </dev/null >"$DIR/qs-cli.out" 2>&1 || fail "cnihook(8)'s CLI block: $(cat "$DIR/qs-cli.out")"
	unset CAP_ARGS
	checking "cnihook add printed an address of 10.89.0.0/24"
	grep -q '"address": *"10\.89\.0\.' "$DIR/qs-cli.out" || fail "$(cat "$DIR/qs-cli.out")"
	ok "yes"
	delete_link "qsn$uniq"
	delete_link cnihook0
	assert_nothing_left --id web --id "$CTD_NS-web" --id "$cid" --subnet 10.89.0 --subnet 10.90.0 \
		--link cnihook0 --link "qsn$uniq" --datadir /var/lib/cni/networks

	inst_uninstall
}

rt_init podman
inst_plan
cleanup_push inst_remove
run_case "an installed cnihook under podman without --hooks-dir, beside podman's CNI network" inst_case
run_case "the README's quick starts, line for line: runc, containerd, podman (CNI, netavark), Docker" qs_case
run_case "rootless podman with the installed hook and defaults, no --hooks-dir, no --config" inst_rootless_case
log "--- whole script"
inst_remove
checking "nothing of the install is left after the cleanups"
out=$(inst_left)
[ -z "$out" ] || fail "left: $out"
ok "nothing"
assert_nothing_left
finish
