#!/bin/bash
# End-to-end tests of the OCI hook under real runtimes; sourced, never run.
#
#   RT=runc; . "$srcdir/tests/harness/runtime-lib.sh"; rt_init runc
#
# runc.sh, crun.sh and podman.sh run the same cases (the rt_case_* functions
# below), containerd.sh some of them and its own, through a small runtime
# layer (rt_start, rt_exec, rt_stop, ...):
# real containers on a busybox rootfs, hooks at createRuntime and poststop
# running cnihook with a cnihook.json of the case's own, Debian's real CNI
# plugins (bridge, host-local, portmap, firewall, tuning) on networks with
# unique names and subnets. After every case nothing of it may be left.
#
# The hook entries are the files cnihook ships, as make generates them in the
# build tree: config/runc-hooks.json (the hooks block of a runc/crun
# config.json) and config/hooks.d/*.json (podman's oci-hooks(5) files). The
# test changes only the hook's path (the shim below, or $CNIHOOK) and adds
# --config FILE after argv[0]; stages, "when" conditions, the other args and
# any other field are the shipped ones (see rt_shipped, cnihook_entry). Two
# cases change more, and say so: rt_case_inferred_stage drops the stage
# argument, rt_case_host_netns makes podman's condition {"always": true}.
#
# Environment:
#   CNIHOOK            the hook (default: BUILD_DIR/hook/cnihook, the libtool
#                      wrapper script, which runtimes execute like any binary)
#   CNI_PLUGIN_DIR     the plugins (default /usr/lib/cni)
#   CNIHOOK_BUSYBOX    a static busybox for the rootfs (default /bin/busybox)
#   CNIHOOK_E2E_SHIM   1 (default): the hook entry is a small /bin/sh shim
#                      that runs nothing but cnihook, with the runtime's
#                      arguments, stdin and environment, and keeps a copy of
#                      its stderr (runc and podman discard a successful hook's
#                      output, crun any hook's), so that the test can print
#                      the hook's own log lines. 0: the hook entry's path is
#                      $CNIHOOK itself (crun then gets the annotation
#                      run.oci.hooks.stderr; with runc and podman the checks
#                      of log lines of successful hooks are left out).
#   CNIHOOK_NO_SKIP=1  a missing runtime or tool fails instead of skipping.
#   abs_top_builddir   the build tree (set by make check), whose config/ holds
#                      the shipped hook files; they must exist there. Unset:
#                      those of the build tree of $CNIHOOK, else the templates
#                      config/*.in of the source tree (see rt_shipped).
#
# What the runtimes on Debian 12 pass to the hooks (seen with a hook that
# logs its input; "…" is the config.json annotations, which every runtime
# copies into the state):
#   runc 1.1.5   createRuntime {"ociVersion":"1.0.2-dev","id":ID,"status":"creating",
#                  "pid":PID,"bundle":B,"annotations":{…}}
#                poststop {"ociVersion":"1.0.2-dev","id":ID,"status":"stopped",
#                  "bundle":B,"annotations":{…}}  (no pid)
#                Runs in runc's mount namespace, cwd = the bundle. Environment:
#                the hook entry's "env" if it has one, else runc's own. stdout and
#                stderr are kept and shown only in runc's error when the hook
#                fails. A failed createRuntime is followed by poststop.
#   crun 1.8.1   createRuntime {"ociVersion":"1.0","id":ID,"pid":PID,"root":"rootfs",
#                  "bundle":B,"status":"created","annotations":{…}}
#                poststop the same with "pid":0 and "status":"stopped".
#                Runs in crun's mount namespace, cwd = the bundle, crun's
#                environment. Hook output goes nowhere unless the annotations
#                run.oci.hooks.stdout/run.oci.hooks.stderr name files; a failed
#                hook shows only "error executing hook `PATH` (exit code: 1)".
#                A failed createRuntime is NOT followed by poststop.
#   podman 4.3.1 (runc) createRuntime: runc runs it, as above, with conmon's
#                environment (HOME, PATH, _OCI_SYNCPIPE, _CONTAINERS_*...);
#                the state carries podman's own annotations too
#                (io.container.manager=libpod, io.kubernetes.cri-o.Created,
#                io.kubernetes.cri-o.TTY, io.podman.annotations.*), and ID is
#                the 64-hex container id, bundle its userdata directory.
#                poststop: podman runs it itself at `podman stop` (or its
#                cleanup process) with an EMPTY environment, in the caller's
#                cwd, state {"ociVersion":"1.0.2-dev","id":ID,"status":"stopped",
#                "bundle":B,"annotations":{…}}. --network none gives config.json
#                {"type":"network"} (a new namespace, no path); --network
#                container:X gives {"type":"network","path":"/proc/PID/ns/net"};
#                --network host no network entry. After a failed createRuntime
#                the container stays "created" and `podman rm -f` runs no
#                poststop. --annotation is parsed as CSV: a value with a comma
#                or a quote must be quoted ("k=[{""name"":""a""}]").
#   containerd 1.6.20 (ctr run -d --config SPEC ID; the shim runs runc 1.1.5)
#                createRuntime: runc runs it, as above, at task start: state
#                {"ociVersion":"1.0.2-dev","id":ID,"status":"creating","pid":PID,
#                "bundle":STATE/io.containerd.runtime.v2.task/NAMESPACE/ID,
#                "annotations":{…}} (ID is the bare container id: the
#                namespace is only in the bundle path), cwd = that bundle,
#                containerd's environment with <opt>/bin first in PATH,
#                LD_LIBRARY_PATH=<opt>/lib and TTRPC_ADDRESS. poststop: runc
#                runs it when the TASK is deleted (`ctr task rm`, or
#                `ctr container rm` of a stopped task), not when its process
#                exits; same state as runc's. A failed createRuntime: ctr
#                prints runc's error with the hook's stderr, poststop runs,
#                and the container (without a task) stays. The spec is taken
#                as it is: --annotation is ignored, each --label k=v becomes
#                an annotation too, no snapshot is made for the root.
set -euo pipefail

srcdir=${abs_top_srcdir:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"

RT=${RT:-}
RT_ROOTFS=
RT_PAGE=
T_NETPREFIX=${T_NETPREFIX:-rt}

# ---------------------------------------------------------------- set-up
# rt_init RUNTIME: check what the runtime needs (skip when missing), guard
# the host state, build the shared rootfs (and the podman image).
rt_init() {
	RT=$1
	require_root
	require_cmd ip jq iptables-save ip6tables-save flock mount umount stat timeout chroot
	case $RT in
	runc) require_cmd runc ;;
	crun) require_cmd crun unshare ;;
	podman) require_cmd podman runc tar ;;
	containerd) require_cmd containerd ctr runc containerd-shim-runc-v2 tar sha256sum setsid ;;
	*) fail "rt_init: unknown runtime $RT" ;;
	esac
	CNIHOOK=${CNIHOOK:-${abs_top_builddir:-$srcdir}/hook/cnihook}
	[ -x "$CNIHOOK" ] || fail "cnihook not found at $CNIHOOK (set CNIHOOK)"
	case $CNIHOOK in /*) ;; *) CNIHOOK=$(cd "$(dirname "$CNIHOOK")" && pwd)/$(basename "$CNIHOOK") ;; esac
	PLUGINDIR=${CNI_PLUGIN_DIR:-/usr/lib/cni}
	local p
	for p in bridge host-local portmap firewall tuning; do
		[ -x "$PLUGINDIR/$p" ] ||
			skip "CNI plugin $PLUGINDIR/$p not found (install containernetworking-plugins)"
	done
	RT_BUSYBOX=${CNIHOOK_BUSYBOX:-/bin/busybox}
	[ -x "$RT_BUSYBOX" ] || skip "no static busybox at $RT_BUSYBOX (install busybox-static)"
	if ldd "$RT_BUSYBOX" >/dev/null 2>&1; then
		skip "$RT_BUSYBOX is not statically linked (install busybox-static)"
	fi

	case $RT in
	podman) rt_check_shipped hooks.d/cnihook-createRuntime.json hooks.d/cnihook-poststop.json ;;
	*) rt_check_shipped runc-hooks.json ;;
	esac

	if [ "$RT" = crun ]; then
		rt_crun_cgroups
	fi

	guard_host_state

	RT_PAGE="cnihook e2e page $uniq"
	RT_ROOTFS=$T_TMP/rootfs
	make_rootfs "$RT_ROOTFS" "$RT_PAGE"

	log "runtime: $RT ($("$RT" --version 2>/dev/null | head -1))"
	log "cnihook: $CNIHOOK"
	log "plugins: $PLUGINDIR"
	log "suffix:  $uniq"
	log "hook entry: $([ "${CNIHOOK_E2E_SHIM:-1}" = 1 ] && echo "shim copying stderr" || echo direct)"

	case $RT in
	podman) pm_init ;;
	containerd) ctd_init ;;
	esac
}

# rt_shipped REL: the shipped integration file config/REL (runc-hooks.json,
# hooks.d/cnihook-createRuntime.json, ...) as make generates it from
# config/REL.in: under make check $abs_top_builddir/config/REL, which must
# exist; else that of the build tree of $CNIHOOK (tests/tools/demo-container.sh);
# else the template $srcdir/config/REL.in itself (its @bindir@ is replaced
# with the hook's path anyway).
rt_shipped() {
	local rel=$1 d
	if [ -n "${abs_top_builddir:-}" ]; then
		[ -f "$abs_top_builddir/config/$rel" ] ||
			fail "no shipped file $abs_top_builddir/config/$rel (make generates it from config/$rel.in)"
		printf '%s\n' "$abs_top_builddir/config/$rel"
		return 0
	fi
	d=$(dirname "$(dirname "${CNIHOOK:-./x}")")/config
	if [ -f "$d/$rel" ]; then
		printf '%s\n' "$d/$rel"
	elif [ -f "$srcdir/config/$rel.in" ]; then
		printf '%s\n' "$srcdir/config/$rel.in"
	else
		fail "no shipped file config/$rel (nor $srcdir/config/$rel.in)"
	fi
}

# rt_check_shipped REL...: the shipped files this runtime uses are there, are
# JSON, and every hook in them runs an absolute path ending in /cnihook (make
# substituted @bindir@; the test replaces the path, so it checks it here).
rt_check_shipped() {
	local rel f
	for rel in "$@"; do
		f=$(rt_shipped "$rel")
		# (The template config/REL.in still says @bindir@.)
		jq -e --arg in "$([[ $f == *.in ]] && echo 1)" '[.. | objects | select(has("path"))
			| .path | select(test("^/([^@]*/)?cnihook$") or
				($in == "1" and . == "@bindir@/cnihook") | not)] | length == 0' "$f" >/dev/null ||
			fail "$f: a hook path is not an absolute path to cnihook: $(jq -c '[.. | objects | .path? // empty]' "$f" 2>&1)"
		log "shipped: $f"
	done
}

# The jq function that turns a hook entry of a shipped file into the test's:
# cnihook_entry(PATH; CONF; STAGES; INFER) sets "path" to PATH and inserts
# "--config", CONF after argv[0]; INFER (true in rt_case_inferred_stage) also
# drops the arguments that are one of STAGES (the entry's stage names). All
# else stays as shipped.
# shellcheck disable=SC2016
RT_JQ_ENTRY='def cnihook_entry($path; $conf; $stages; $infer):
	.path = $path
	| (.args // []) as $a
	| .args = $a[:1] + ["--config", $conf]
		+ ($a[1:] | if $infer then map(select(. as $x | $stages | any(. == $x) | not))
			    else . end);
'

# crun refuses cgroups in hybrid mode (cgroup v1 controllers plus a cgroup2
# mount at /sys/fs/cgroup/unified). crun.sh runs itself in a mount namespace
# of its own (unshare -m); there, and only there, the cgroup2 mount goes.
rt_crun_cgroups() {
	local mine parent
	mine=$(readlink /proc/self/ns/mnt)
	parent=$(readlink "/proc/$PPID/ns/mnt" 2>/dev/null || true)
	if [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
		if [ "${CNIHOOK_IN_CRUN_NS:-}" != 1 ] || [ "$mine" = "$parent" ]; then
			skip "cgroups in hybrid mode, which crun refuses, and no mount namespace of our own to unmount /sys/fs/cgroup/unified in (unshare -m failed)"
		fi
		# Keep the umount in this namespace even where / is shared.
		mount --make-rslave /sys/fs/cgroup
		umount /sys/fs/cgroup/unified || fail "cannot umount /sys/fs/cgroup/unified"
		log "crun: in mount namespace $mine, /sys/fs/cgroup/unified unmounted there"
	fi
}

# make_rootfs DIR [PAGE]: a minimal rootfs: a static busybox with its applets
# as symbolic links, /etc/passwd, and PAGE in /www/index.html.
make_rootfs() {
	local dir=$1 page=${2:-hello}
	mkdir -p "$dir"/{bin,etc,proc,sys,dev,tmp,www,run,var}
	cp "$RT_BUSYBOX" "$dir/bin/busybox"
	# The links in one process (a loop of ln, one per applet, took 12 s on
	# a loaded host): busybox makes them itself, run in DIR, where it has no
	# /proc and so links each one to its argv[0], /bin/busybox.
	chroot "$dir" /bin/busybox --install -s /bin || fail "busybox --install -s in $dir failed"
	[ "$(readlink "$dir/bin/sh")" = /bin/busybox ] || fail "$dir/bin/sh is not a link to /bin/busybox"
	printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$dir/etc/passwd"
	printf 'root:x:0:\nnobody:x:65534:\n' >"$dir/etc/group"
	printf '%s\n' "$page" >"$dir/www/index.html"
	chmod 1777 "$dir/tmp"
}

# ---------------------------------------------------------------- cases
# rt_setup_case LETTER: one network's names (lib.sh's setup_case: NET BR SUB
# GW DIR DATADIR), the case's cnihook.json ($HOOKCONF: confDir, cacheDir and
# stateDir under DIR, log level info on stderr), the hook entry ($HOOKPATH)
# and its log ($HOOKLOG). (podman's hooks.d directory is made by the first
# rt_start of the case.)
rt_setup_case() {
	local l=$1
	RT_BRIDGES=()
	RT_SUBNETS=()
	RT_IDS=()
	RT_LOG_SEEN=0
	setup_case "$l"
	RT_L=$l
	RT_BRIDGES+=("$BR")
	RT_SUBNETS+=("$SUB")
	CACHEDIR=$DIR/cache
	STATEDIR=$DIR/state
	HOOKCONF=$DIR/cnihook.json
	HOOKLOG=$DIR/hook.log
	: >"$HOOKLOG"
	jq -n --arg conf "$DIR/net.d" --arg bin "$PLUGINDIR" --arg cache "$CACHEDIR" \
		--arg state "$STATEDIR" '{confDir: $conf, binDirs: [$bin], cacheDir: $cache,
		stateDir: $state, log: {level: "info", syslog: false}}' >"$HOOKCONF"
	if [ "${CNIHOOK_E2E_SHIM:-1}" = 1 ]; then
		HOOKPATH=$DIR/cnihook-shim
		rt_write_shim "$CNIHOOK"
	else
		HOOKPATH=$CNIHOOK
	fi
	# Safety nets, in case the hook or the runtime failed half-way: pins
	# under the state directory, then the state directory's own mount.
	cleanup_push "umount_under '$STATEDIR'"
	log "  hook config $HOOKCONF"
}

# rt_write_shim HOOK: the shim at $HOOKPATH runs HOOK (the hook under test,
# or a wrapper of it) with the runtime's arguments (after argv[0]), stdin and
# environment; a copy of its stderr goes to the case's log.
rt_write_shim() {
	# No PATH needed: dash has a built-in default for lookups and exports
	# nothing of its own but PWD.
	cat >"$HOOKPATH" <<EOF
#!/bin/sh
e='$DIR/hook-stderr.'\$\$
'$1' "\$@" 2>"\$e"
rc=\$?
{ printf '%s: exit %s\n' "\$*" "\$rc"; sed 's/^/  /' "\$e"; } >>'$HOOKLOG'
cat "\$e" >&2
rm -f "\$e"
exit \$rc
EOF
	chmod 755 "$HOOKPATH"
}

# rt_umount_under DIR: lib.sh's umount_under, by its older name (which
# tests/tools/demo-container.sh and tests/bench/hook.sh use).
rt_umount_under() { umount_under "$@"; }

# rt_add_net NAME BRIDGE SUBNET [KIND [DIR]]: write network NAME (cniVersion
# 1.0.0) to DIR (default: the case's confDir, $DIR/net.d). KIND:
#   full (default)  bridge (capabilities ips; host-local in DATADIR, no routes,
#                   isGateway, no ipMasq) + portmap (portMappings) + firewall
#                   (iptables) + tuning (mac)
#   broken          bridge + host-local, then a plugin type that does not exist
rt_add_net() {
	local name=$1 br=$2 sub=$3 kind=${4:-full} dir=${5:-$DIR/net.d}
	jq -n --arg n "$name" --arg br "$br" --arg sub "$sub.0/24" --arg dd "$DATADIR" \
		--arg kind "$kind" --arg bad "nosuchplugin-$uniq" '
		{cniVersion: "1.0.0", name: $n, plugins: ([
			{type: "bridge", bridge: $br, isGateway: true, ipMasq: false,
			 capabilities: {ips: true},
			 ipam: {type: "host-local", dataDir: $dd, ranges: [[{subnet: $sub}]],
				routes: []}}]
			+ if $kind == "full" then [
				{type: "portmap", capabilities: {portMappings: true}},
				{type: "firewall", backend: "iptables"},
				{type: "tuning", capabilities: {mac: true}}]
			  else [{type: $bad}] end)}' >"$dir/50-$name.conflist"
}

# rt_more_net SUFFIX [KIND]: a further network for the case; sets NET2 BR2
# SUB2 GW2 (named with SUFFIX).
rt_more_net() {
	local s=$1 kind=${2:-full} i
	NET2=$NET-$s
	BR2=cnt$uniq$RT_L$s
	for ((i = 0; i < 20; i++)); do
		SUB2=$(random_subnet)
		[[ " ${RT_SUBNETS[*]} " == *" $SUB2 "* ]] || break
	done
	GW2=$SUB2.1
	RT_BRIDGES+=("$BR2")
	RT_SUBNETS+=("$SUB2")
	cleanup_push "delete_link '$BR2'"
	cleanup_push "purge_iptables '(^|[^0-9])${SUB2//./\\.}\\.'"
	rt_add_net "$NET2" "$BR2" "$SUB2" "$kind"
	log "  network $NET2, bridge $BR2, subnet $SUB2.0/24 ($kind)"
}

# rt_id SUFFIX: a container name for this case.
rt_id() {
	printf 'cnh-%s-%s%s\n' "$uniq" "$RT_L" "${1:-}"
}

# hook_log_complete: does $HOOKLOG get everything the hook writes on stderr
# (the shim, or crun's run.oci.hooks.stderr), not only what runc and podman
# show of a failed hook?
hook_log_complete() {
	[ "${CNIHOOK_E2E_SHIM:-1}" = 1 ] || [ "$RT" = crun ]
}

# rt_hook_log: print what the hook logged since the last call.
rt_hook_log() {
	local n
	n=$(wc -l <"$HOOKLOG")
	if [ "$n" -gt "$RT_LOG_SEEN" ]; then
		tail -n +"$((RT_LOG_SEEN + 1))" "$HOOKLOG" | sed 's/^/    hook| /'
	fi
	RT_LOG_SEEN=$n
}

# RT_INFER_STAGE=1: the hook entries lose their stage argument (the hook
# infers the stage from the state's status); see cnihook_entry.
RT_INFER_STAGE=0
rt_infer_json() {
	if [ "$RT_INFER_STAGE" = 1 ]; then echo true; else echo false; fi
}

# ---------------------------------------------------------------- bundles
# make_bundle DIR ID ANNOTATIONS_JSON [NETNS [COMMAND]]: a runc/crun bundle in
# DIR (config.json from `runc spec`, root = the shared rootfs, read-only).
# NETNS: "" a new network namespace, "host" none (the host's), or a path to
# join. COMMAND (sh -c) defaults to busybox httpd on port 80 serving /www.
# The hooks are the shipped config/runc-hooks.json's (see rt_shipped), each
# entry with path $HOOKPATH and --config $HOOKCONF after argv[0] (see
# cnihook_entry). crun without the shim: the annotation run.oci.hooks.stderr
# sends the hooks' stderr to $HOOKLOG (crun otherwise discards it, even when a
# hook fails).
make_bundle() {
	local dir=$1 id=$2 ann=$3 netns=${4:-} cmd=${5:-httpd -f -p 80 -h /www} shipped
	shipped=$(rt_shipped runc-hooks.json)
	mkdir -p "$dir"
	rm -f "$dir/config.json"
	(cd "$dir" && runc spec --rootless=false) || fail "runc spec failed"
	jq --arg root "$RT_ROOTFS" --arg cmd "$cmd" --argjson ann "$ann" --arg netns "$netns" \
		--arg hook "$HOOKPATH" --arg conf "$HOOKCONF" --arg id "$id" \
		--arg stderr "$([ "$RT" != crun ] || [ "${CNIHOOK_E2E_SHIM:-1}" = 1 ] || echo "$HOOKLOG")" \
		--slurpfile shipped "$shipped" --argjson infer "$(rt_infer_json)" "$RT_JQ_ENTRY"'
		.process.terminal = false
		| .process.args = ["sh", "-c", $cmd]
		| .process.capabilities |= with_entries(.value += ["CAP_NET_RAW"])
		| .root = {path: $root, readonly: true}
		| .hostname = $id
		| .annotations = $ann
		| if $stderr != "" then .annotations["run.oci.hooks.stderr"] = $stderr else . end
		| .linux.namespaces |= (map(select(.type != "network"))
			+ if $netns == "" then [{type: "network"}]
			  elif $netns == "host" then []
			  else [{type: "network", path: $netns}] end)
		| .hooks = ($shipped[0].hooks | with_entries(.key as $s
			| .value |= map(cnihook_entry($hook; $conf; [$s]; $infer))))
		' "$dir/config.json" >"$dir/config.json.new" || fail "make_bundle: jq failed on $shipped"
	mv "$dir/config.json.new" "$dir/config.json"
}

# ---------------------------------------------------------------- podman
pm_init() {
	PM_DIR=$T_TMP/podman
	mkdir -p "$PM_DIR/graph" "$PM_DIR/run" "$PM_DIR/tmp"
	cat >"$PM_DIR/storage.conf" <<EOF
[storage]
driver = "vfs"
graphroot = "$PM_DIR/graph"
runroot = "$PM_DIR/run"
EOF
	cat >"$PM_DIR/containers.conf" <<EOF
[engine]
tmp_dir = "$PM_DIR/tmp"
events_logger = "file"
events_logfile_path = "$PM_DIR/events.log"
EOF
	export CONTAINERS_STORAGE_CONF=$PM_DIR/storage.conf CONTAINERS_CONF=$PM_DIR/containers.conf
	PM_IMAGE=localhost/cnihook-test-$uniq
	# What podman makes outside our storage whatever the configuration
	# says (as root): the image copy's blob-info cache and netavark's run
	# directory. Removed at exit if this script made them.
	local d
	for d in /var/lib/containers /var/lib/containers/cache /run/containers \
		/run/containers/networks; do
		[ -e "$d" ] || cleanup_push "rm -rf '$d'"
	done
	# Last: the storage and what podman mounted in it (registered first,
	# runs after the containers and the image are gone).
	cleanup_push "umount_under '$PM_DIR'"
	cleanup_push "podman rmi -f '$PM_IMAGE'"
	cleanup_push "pm_rm_all"
	tar -C "$RT_ROOTFS" -c . | podman import -q - "$PM_IMAGE" >/dev/null ||
		fail "podman import of the rootfs failed"
	log "podman: image $PM_IMAGE, storage $PM_DIR (vfs), runtime runc"
}

# pm ARGS...: podman with the test's storage, runc, and the case's hooks.d.
pm() {
	podman --runtime runc --hooks-dir "$DIR/hooks.d" "$@"
}

pm_rm_all() {
	local c
	for c in $(podman ps -aq 2>/dev/null); do
		podman --runtime runc rm -f -t 0 "$c"
	done
}

# The oci-hooks(5) files make installs in podman's hooks directory (hooks_DATA
# in Makefile.am).
PM_HOOK_FILES=(cnihook-createRuntime.json cnihook-poststop.json)

# pm_hooks_dir [always]: the shipped config/hooks.d files (see rt_shipped) in
# $DIR/hooks.d, under their own names, each hook with path $HOOKPATH and
# --config $HOOKCONF after argv[0] (see cnihook_entry); their "when" and
# "stages" as shipped. always: "when" becomes {"always": true} (for
# defaultNetworks, which apply to containers without a selection annotation).
pm_hooks_dir() {
	local f shipped
	mkdir -p "$DIR/hooks.d"
	for f in "${PM_HOOK_FILES[@]}"; do
		shipped=$(rt_shipped "hooks.d/$f")
		jq --arg path "$HOOKPATH" --arg conf "$HOOKCONF" --arg always "${1:-}" \
			--argjson infer "$(rt_infer_json)" "$RT_JQ_ENTRY"'
			.stages as $st
			| .hook |= cnihook_entry($path; $conf; $st; $infer)
			| if $always == "always" then .when = {always: true} else . end
			' "$shipped" >"$DIR/hooks.d/$f" || fail "pm_hooks_dir: jq failed on $shipped"
	done
}

# ---------------------------------------------------------------- containerd
# ctd_init: a containerd of the test's own (Debian's 1.6), started here and
# stopped by its pid at exit: root, state, sockets and the opt plugin's
# directory under $T_TMP/containerd, the CRI plugin disabled (it would want
# CNI networks of its own), a containerd namespace named after $uniq. The
# image is the busybox rootfs as an OCI image archive built here (one layer,
# config, manifest, index, sha256 digests), `ctr image import`ed, then
# mounted with `ctr image mount`: `ctr run --config` takes the spec as it is
# and makes no snapshot, so the spec's root is that mount.
#
# What containerd makes outside its root and state whatever its
# configuration says: runc's root /run/containerd/runc/NAMESPACE (the shim's
# default), the shims' sockets in /run/containerd/s, ctr's default FIFO
# directory /run/containerd/fifo (the test gives ctr its own), and
# /run/containerd itself. The namespace's directory is removed at exit; the
# others only if this script made them and they are empty (another containerd
# may use them).
CTD_DIR=
CTD_PID=
ctd_init() {
	local d
	CTD_DIR=$T_TMP/containerd
	# A unix socket's path has at most 107 bytes.
	if [ $((${#CTD_DIR} + 32)) -gt 107 ]; then
		CTD_DIR=$(mktemp -d /tmp/cnihook-ctd.XXXXXX)
		cleanup_push "umount_under '$CTD_DIR'; rm -rf '$CTD_DIR'"
	fi
	CTD_SOCK=$CTD_DIR/containerd.sock
	CTD_NS=cnihook-$uniq
	mkdir -p "$CTD_DIR/fifo"
	cat >"$CTD_DIR/config.toml" <<EOT
version = 2
root = "$CTD_DIR/root"
state = "$CTD_DIR/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$CTD_SOCK"
[ttrpc]
  address = "$CTD_SOCK.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$CTD_DIR/opt"
EOT
	for d in /run/containerd /run/containerd/s /run/containerd/runc /run/containerd/fifo; do
		[ -e "$d" ] || cleanup_push "rmdir '$d' 2>/dev/null || true"
	done
	cleanup_push "rm -rf '/run/containerd/runc/$CTD_NS'"
	# Last: stop containerd, then unmount what it (or the image mount) left
	# under its directory; $T_TMP itself goes after.
	cleanup_push ctd_stop
	# A session of its own: a ^C (or a harness's signal to our process
	# group) must leave it alive until the cleanups below have deleted the
	# containers through it; setsid execs it, so $! is containerd itself.
	setsid containerd --config "$CTD_DIR/config.toml" </dev/null >"$CTD_DIR/containerd.log" 2>&1 &
	CTD_PID=$!
	wait_for 100 ctd_ready ||
		fail "containerd did not start: $(tail -5 "$CTD_DIR/containerd.log")"
	# Then the containers (whatever a case left) and the image's mount.
	cleanup_push "ctd images unmount --rm '$CTD_DIR/rootfs'"
	cleanup_push ctd_rm_all
	ctd_image
	log "containerd: pid $CTD_PID, socket $CTD_SOCK, namespace $CTD_NS, image $CTD_IMAGE at $RT_ROOTFS"
}

# ctd ARGS...: ctr talking to the test's containerd, in the test's namespace.
ctd() {
	ctr --address "$CTD_SOCK" --namespace "$CTD_NS" "$@"
}

ctd_ready() {
	[ -d "/proc/$CTD_PID" ] || fail "containerd exited: $(tail -5 "$CTD_DIR/containerd.log")"
	ctd version >/dev/null 2>&1
}

# ctd_stop: SIGTERM, up to 5 s, then SIGKILL; only the containerd started
# here (kill_child checks that the pid is still our child).
ctd_stop() {
	[ -n "$CTD_PID" ] || return 0
	if [ -d "/proc/$CTD_PID" ]; then
		kill -TERM "$CTD_PID" 2>/dev/null
		wait_for 50 ctd_exited
		kill_child "$CTD_PID"
		wait "$CTD_PID" 2>/dev/null
	fi
	CTD_PID=
	umount_under "$CTD_DIR"
}
ctd_exited() { ! kill -0 "$CTD_PID" 2>/dev/null; }

# ctd_blob FILE: move FILE into the image layout's blobs under its sha256
# digest; prints the digest.
ctd_blob() {
	local sum
	sum=$(sha256sum "$1") || fail "sha256sum $1"
	sum=${sum%% *}
	mv "$1" "$CTD_DIR/image/blobs/sha256/$sum"
	printf 'sha256:%s\n' "$sum"
}

# ctd_image: the OCI image archive of $RT_ROOTFS (one uncompressed layer),
# imported and mounted read-only at $CTD_DIR/rootfs, which becomes RT_ROOTFS.
ctd_image() {
	local img=$CTD_DIR/image layer config manifest arch
	CTD_IMAGE=localhost/cnihook-test:$uniq
	case $(uname -m) in
	x86_64) arch=amd64 ;;
	aarch64) arch=arm64 ;;
	*) arch=$(uname -m) ;;
	esac
	mkdir -p "$img/blobs/sha256"
	tar -C "$RT_ROOTFS" --numeric-owner --owner=0 --group=0 -cf "$CTD_DIR/layer.tar" . ||
		fail "tar of the rootfs failed"
	layer=$(ctd_blob "$CTD_DIR/layer.tar")
	jq -cn --arg arch "$arch" --arg layer "$layer" '{architecture: $arch, os: "linux",
		config: {Cmd: ["sh"]}, rootfs: {type: "layers", diff_ids: [$layer]}}' \
		>"$CTD_DIR/config.json"
	config=$(ctd_blob "$CTD_DIR/config.json")
	jq -cn --arg c "$config" --argjson cs "$(stat -c %s "$img/blobs/${config/://}")" \
		--arg l "$layer" --argjson ls "$(stat -c %s "$img/blobs/${layer/://}")" '
		{schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
		 config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $c, size: $cs},
		 layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $l, size: $ls}]}' \
		>"$CTD_DIR/manifest.json"
	manifest=$(ctd_blob "$CTD_DIR/manifest.json")
	jq -cn --arg m "$manifest" --argjson ms "$(stat -c %s "$img/blobs/${manifest/://}")" \
		--arg arch "$arch" --arg name "$CTD_IMAGE" '
		{schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json",
		 manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json",
			digest: $m, size: $ms, platform: {architecture: $arch, os: "linux"},
			annotations: {"io.containerd.image.name": $name,
				"org.opencontainers.image.ref.name": ($name | sub(".*:"; ""))}}]}' \
		>"$img/index.json"
	printf '{"imageLayoutVersion":"1.0.0"}\n' >"$img/oci-layout"
	tar -C "$img" -cf "$CTD_DIR/image.tar" . || fail "tar of the image layout failed"
	ctd image import "$CTD_DIR/image.tar" >"$CTD_DIR/import.out" 2>&1 ||
		fail "ctr image import failed: $(cat "$CTD_DIR/import.out")"
	mkdir -p "$CTD_DIR/rootfs"
	ctd image mount "$CTD_IMAGE" "$CTD_DIR/rootfs" >>"$CTD_DIR/import.out" 2>&1 ||
		fail "ctr image mount failed: $(cat "$CTD_DIR/import.out")"
	[ -x "$CTD_DIR/rootfs/bin/busybox" ] || fail "no bin/busybox in the mounted image"
	RT_ROOTFS=$CTD_DIR/rootfs
}

# ctd_run NAME SPEC OUT: `ctr run -d --config SPEC NAME`; the spec carries
# the hooks and the annotations (with --config, ctr ignores --annotation and
# takes the root, process and namespaces from the spec as they are).
ctd_run() {
	ctd run -d --null-io --fifo-dir "$CTD_DIR/fifo" --config "$2" "$1" </dev/null >"$3" 2>&1
}

# ctd_task_status NAME: the task's status as `ctr task ls` says (running,
# stopped, created, ...), "notask" for a container without one, else "gone".
ctd_task_status() {
	local st
	st=$(ctd task ls 2>/dev/null | awk -v n="$1" 'NR > 1 && $1 == n { print tolower($3) }')
	if [ -n "$st" ]; then
		printf '%s\n' "$st"
	elif ctd container info "$1" >/dev/null 2>&1; then
		echo notask
	else
		echo gone
	fi
}

# ctd_task_is NAME STATUS
ctd_task_is() { [ "$(ctd_task_status "$1")" = "$2" ]; }

# ctd_force_remove NAME: kill the task, delete it (poststop runs) and the
# container, whatever state they are in.
ctd_force_remove() {
	ctd task kill -s SIGKILL "$1" >/dev/null 2>&1 || true
	wait_for 30 not ctd_task_is "$1" running || true
	ctd task rm -f "$1" >/dev/null 2>&1 || true
	ctd container rm "$1" >/dev/null 2>&1 || true
}

# ctd_nothing_left: containerd holds no container or task of ours, no shim of
# our namespace runs, nothing is mounted under containerd's state directory.
ctd_nothing_left() {
	local c
	checking "containerd: no container, task, shim or mount of namespace $CTD_NS left"
	c=$(ctd container ls -q) || fail "ctr container ls failed"
	[ -z "$c" ] || fail "containers left: $c"
	c=$(ctd task ls -q) || fail "ctr task ls failed"
	[ -z "$c" ] || fail "tasks left: $c"
	c=$(pgrep -af -- "-namespace $CTD_NS( |\$)" || true)
	[ -z "$c" ] || fail "shims left: $c"
	! grep -F -- " $CTD_DIR/state/" /proc/self/mountinfo || fail "mounts left (above)"
	ok "none"
}

ctd_rm_all() {
	local c
	for c in $(ctd container ls -q 2>/dev/null); do ctd_force_remove "$c"; done
}

# ---------------------------------------------------------------- runtime layer
# RT_NAME[CID]: the OCI id of a container whose CID is not its id (containerd)
declare -A RT_BUNDLE=() RT_ANN=() RT_OUT=() RT_NAME=()

# rt_cmd ARGS...: the runtime's CLI (podman: pm).
rt_cmd() {
	case $RT in
	podman) pm "$@" ;;
	*) "$RT" "$@" ;;
	esac
}

# rt_start NAME ANNOTATIONS_JSON [NETMODE [COMMAND]]: create and start a
# container; NETMODE "" (its own namespace), "host", "join:CONTAINER" or, with
# podman, "net:NETWORK" (a network of podman's own) or "pod:POD" (a member of
# a pod of podman's). Sets
# RT_CID, the container's CNI_CONTAINERID, the hook's name for it (runc/crun:
# NAME; containerd: <namespace>-NAME, as the namespace $CTD_NS is in the
# bundle's path; podman: the 64-hex id). Returns the runtime's status; its output is in
# $DIR/NAME.out (and printed when it failed).
rt_start() {
	local name=$1 ann=$2 mode=${3:-} cmd=${4:-httpd -f -p 80 -h /www} netns='' rc=0 out
	out=$DIR/$name.out
	RT_CID=$name
	case $RT in
	runc | crun | containerd)
		case $mode in
		"") ;;
		host) netns=host ;;
		join:*) netns=/proc/$(rt_pid "${mode#join:}")/ns/net ;;
		esac
		make_bundle "$DIR/bundle-$name" "$name" "$ann" "$netns" "$cmd"
		if [ "$RT" = containerd ]; then
			# The bundle the hook sees is containerd's, made from the
			# spec (the config.json of our bundle directory); its path
			# names the namespace, which the hook puts in the id.
			RT_CID=$CTD_NS-$name
			RT_NAME[$RT_CID]=$name
			RT_BUNDLE[$RT_CID]=$CTD_DIR/state/io.containerd.runtime.v2.task/$CTD_NS/$name
			cleanup_push "ctd_force_remove '$name'"
			ctd_run "$name" "$DIR/bundle-$name/config.json" "$out" || rc=$?
		else
			RT_BUNDLE[$name]=$DIR/bundle-$name
			cleanup_push "$RT delete --force '$name'"
			# The container inherits stdio (no terminal): not a pipe of ours.
			"$RT" run -d --bundle "$DIR/bundle-$name" "$name" </dev/null >"$out" 2>&1 || rc=$?
		fi
		;;
	podman)
		local a=() kv net=none
		[ -d "$DIR/hooks.d" ] || pm_hooks_dir
		# podman parses --annotation as CSV (a comma splits, a quote
		# must be doubled inside a quoted field): quote every one.
		while IFS= read -r kv; do a+=(--annotation "$kv"); done \
			< <(jq -r 'to_entries[] | "\"\(.key)=\(.value | gsub("\""; "\"\""))\""' <<<"$ann")
		local where=()
		case $mode in
		host) net=host ;;
		join:*) net=container:${mode#join:} ;;
		net:*) net=${mode#net:} ;; # a network of podman's own
		pod:*) net= ;;             # a member of a podman pod
		esac
		if [ -n "$net" ]; then where=(--network "$net"); else where=(--pod "${mode#pod:}"); fi
		# With the case's hooks.d: podman runs poststop.
		cleanup_push "pm rm -f -t 0 '$name'"
		pm run -d --name "$name" "${where[@]}" --cap-add NET_RAW \
			--ulimit nofile=20000:20000 --ulimit nproc=32768:32768 \
			"${a[@]}" "$PM_IMAGE" sh -c "$cmd" </dev/null >"$out" 2>&1 || rc=$?
		RT_CID=$(podman inspect -f '{{.Id}}' "$name" 2>/dev/null) || RT_CID=
		[ -n "$RT_CID" ] || RT_CID=$name
		RT_BUNDLE[$RT_CID]=$(dirname "$(podman inspect -f '{{.OCIConfigPath}}' "$name" 2>/dev/null || echo /nonexistent/x)")
		;;
	esac
	RT_ANN[$RT_CID]=$ann
	RT_OUT[$RT_CID]=$out
	RT_IDS+=("$RT_CID")
	if [ "$rc" != 0 ]; then
		printf '    %s| %s\n' "$RT" "$(cat "$out")"
	fi
	rt_hook_log
	return "$rc"
}

# rt_start_ok DESCRIPTION NAME ANNOTATIONS_JSON [NETMODE [COMMAND]]
rt_start_ok() {
	local desc=$1
	shift
	checking "$desc"
	rt_start "$@" || fail "$desc: $RT could not start container $1"
	ok "$desc: container $RT_CID is running"
}

# rt_exec NAME CMD...
rt_exec() {
	local n=$1
	shift
	case $RT in
	containerd)
		ctd task exec --fifo-dir "$CTD_DIR/fifo" --exec-id "x$RANDOM$RANDOM" "$n" "$@" </dev/null
		;;
	*) rt_cmd exec "$n" "$@" </dev/null ;;
	esac
}

# rt_pid NAME: the container's pid on the host.
rt_pid() {
	local p
	case $RT in
	podman) p=$(podman inspect -f '{{.State.Pid}}' "$1") ;;
	containerd) p=$(ctd task ls | awk -v n="$1" 'NR > 1 && $1 == n { print $2 }') ;;
	*) p=$("$RT" state "$1" | jq -r .pid) ;;
	esac
	if [ -z "$p" ] || [ "$p" = 0 ]; then fail "no pid for container $1"; fi
	printf '%s\n' "$p"
}

# rt_status NAME: the runtime's status (created, running, stopped, ...) or
# "gone".
rt_status() {
	case $RT in
	podman) podman inspect -f '{{.State.Status}}' "$1" 2>/dev/null || echo gone ;;
	containerd) ctd_task_status "$1" ;;
	*) { "$RT" state "$1" 2>/dev/null || echo '{"status":"gone"}'; } | jq -r .status ;;
	esac
}

# rt_stop NAME: kill the container and delete it (the runtime runs the
# poststop hooks); fails if the runtime does.
rt_stop() {
	local n=$1 i out=$DIR/$1.stop
	checking "stop and delete container $n ($RT runs poststop)"
	case $RT in
	podman)
		pm stop -t 0 "$n" >"$out" 2>&1 || fail "podman stop $n: $(cat "$out")"
		pm rm "$n" >>"$out" 2>&1 || fail "podman rm $n: $(cat "$out")"
		;;
	containerd)
		# `ctr container rm` deletes the stopped task (poststop runs
		# then) and the container.
		ctd task kill -s SIGKILL "$n" >"$out" 2>&1 || fail "ctr task kill $n: $(cat "$out")"
		wait_for 50 ctd_task_is "$n" stopped ||
			fail "task $n is $(rt_status "$n") after SIGKILL"
		ctd container rm "$n" >>"$out" 2>&1 || fail "ctr container rm $n: $(cat "$out")"
		;;
	*)
		"$RT" kill "$n" KILL >"$out" 2>&1 || fail "$RT kill $n: $(cat "$out")"
		for ((i = 0; i < 50; i++)); do
			[ "$(rt_status "$n")" != running ] && break
			sleep 0.1
		done
		"$RT" delete "$n" >>"$out" 2>&1 || fail "$RT delete $n: $(cat "$out")"
		;;
	esac
	rt_hook_log
	[ "$(rt_status "$n")" = gone ] || fail "container $n still exists after delete"
	ok "container $n stopped and deleted"
}

# rt_force_remove NAME: remove a container whatever its state (a failed start).
rt_force_remove() {
	case $RT in
	podman) pm rm -f -t 0 "$1" >/dev/null 2>&1 || true ;;
	containerd) ctd_force_remove "$1" ;;
	*) "$RT" delete --force "$1" >/dev/null 2>&1 || true ;;
	esac
	rt_hook_log
}

# rt_poststop_state CID: the state JSON this runtime gives the poststop hook
# (see the report in tests/e2e: runc leaves out pid, crun gives pid 0).
rt_poststop_state() {
	local cid=$1 id=${RT_NAME[$1]:-$1}
	case $RT in
	crun)
		jq -cn --arg id "$id" --arg b "${RT_BUNDLE[$cid]}" --argjson a "${RT_ANN[$cid]}" \
			'{ociVersion: "1.0", id: $id, pid: 0, root: "rootfs", bundle: $b,
			  status: "stopped", annotations: $a}'
		;;
	*)
		jq -cn --arg id "$id" --arg b "${RT_BUNDLE[$cid]}" --argjson a "${RT_ANN[$cid]}" \
			'{ociVersion: "1.0.2-dev", id: $id, status: "stopped", bundle: $b,
			  annotations: $a}'
		;;
	esac
}

# ---------------------------------------------------------------- checks
# container_addr NAME IFNAME: the first IPv4 CIDR of IFNAME, seen from inside.
container_addr() {
	rt_exec "$1" ip -4 -o addr show dev "$2" | awk '$3 == "inet" { print $4; exit }'
}

# container_mac NAME IFNAME
container_mac() {
	rt_exec "$1" cat "/sys/class/net/$2/address"
}

# hook_status ID: `cnihook status --json ID` (the network-status JSON).
hook_status() {
	"$CNIHOOK" --config "$HOOKCONF" status --json "$1"
}

# assert_attached_to NAME CID NETWORK IFNAME SUBNET: IFNAME in the container
# has an address of SUBNET that host-local leased to CID; prints the address.
assert_attached_to() {
	local n=$1 cid=$2 net=$3 ifn=$4 sub=$5 cidr ip
	cidr=$(container_addr "$n" "$ifn") || true
	[[ $cidr == "$sub".*/24 ]] ||
		fail "$ifn in $n has no address of $sub.0/24: $(rt_exec "$n" ip -o addr 2>&1)"
	ip=${cidr%/24}
	[ -f "$DATADIR/$net/$ip" ] || fail "no host-local lease $DATADIR/$net/$ip"
	grep -qF -- "$cid" "$DATADIR/$net/$ip" ||
		fail "lease $DATADIR/$net/$ip does not name $cid: $(cat "$DATADIR/$net/$ip")"
	[ -f "$CACHEDIR/results/$net-$cid-$ifn" ] ||
		fail "no cache file $CACHEDIR/results/$net-$cid-$ifn: $(ls "$CACHEDIR/results" 2>&1)"
	printf '%s\n' "$ip"
}

# assert_pinned CID NAME: <stateDir>/<id>/netns is a bind mount of the
# container's network namespace, and the attachment record exists.
assert_pinned() {
	local cid=$1 n=$2 pin want got
	pin=$STATEDIR/$cid/netns
	checking "the hook pinned the container's namespace at $pin and wrote its record"
	grep -qF " $pin " /proc/self/mountinfo || fail "$pin is not a mount point"
	want=$(readlink "/proc/$(rt_pid "$n")/ns/net")
	got="net:[$(stat -L -c %i "$pin")]"
	[ "$want" = "$got" ] || fail "the pin is $got, the container's namespace $want"
	[ -f "$STATEDIR/$cid/record.json" ] || fail "no $STATEDIR/$cid/record.json"
	ok "pinned ($got), record written"
}

# http_get URL: the body, with curl if present, else busybox wget (busybox
# 1.35's wget crashes with -T: timeout(1) bounds it instead).
http_get() {
	if command -v curl >/dev/null 2>&1; then
		curl -sf --max-time 3 "$1" 2>/dev/null
	else
		timeout 3 "$RT_BUSYBOX" wget -q -O - "$1" 2>/dev/null
	fi
}

# page_is URL TEXT: GET URL returns TEXT.
page_is() { [ "$(http_get "$1")" = "$2" ]; }

# assert_page URL: the page the rootfs serves comes back.
assert_page() {
	local url=$1 got='' i
	checking "GET $url returns the container's page"
	for ((i = 0; i < 30; i++)); do
		got=$(http_get "$url") || true
		[ -z "$got" ] || break
		sleep 0.2
	done
	[ "$got" = "$RT_PAGE" ] || fail "GET $url: got \"$got\", want \"$RT_PAGE\""
	ok "GET $url: $got"
}

# assert_left_alone CID: the hook attached nothing for CID.
assert_left_alone() {
	local cid=$1
	[ ! -e "$STATEDIR/$cid/netns" ] || fail "the hook pinned a namespace for $cid"
	[ -z "$(find "$CACHEDIR" -type f -name "*-$cid-*" 2>/dev/null)" ] ||
		fail "cache files for $cid: $(find "$CACHEDIR" -type f -name "*-$cid-*")"
	! grep -rqF -- "$cid" "$DATADIR" 2>/dev/null || fail "a lease names $cid: $(grep -rlF -- "$cid" "$DATADIR")"
	! iptables-save | grep -qF -- "$cid" || fail "iptables rules name $cid"
}

# rt_nothing_left_for ID...: what the hook keeps per container is gone.
rt_nothing_left_for() {
	local id f bad=0
	checking "no state, lock, pin, port reservation or cache file of $*"
	for id in "$@"; do
		if [ -e "$STATEDIR/$id" ]; then
			printf 'left: %s\n' "$(find "$STATEDIR/$id")" >&2
			bad=1
		fi
		if [ -e "$STATEDIR/$id.lock" ]; then
			printf 'left: %s\n' "$STATEDIR/$id.lock" >&2
			bad=1
		fi
		f=$(find "$CACHEDIR" -type f -name "*-$id-*" 2>/dev/null)
		if [ -n "$f" ]; then
			printf 'left: cache file(s) %s\n' "$f" >&2
			bad=1
		fi
		if [ -d "$STATEDIR/ports" ] && grep -rlF -- "$id" "$STATEDIR/ports" >&2; then
			printf 'left: host port reservation(s) above name %s\n' "$id" >&2
			bad=1
		fi
	done
	if awk -v d="$STATEDIR/" 'index($5, d) == 1 { print; found = 1 } END { exit !found }' \
		/proc/self/mountinfo >&2; then
		printf 'left: mount(s) under %s (above)\n' "$STATEDIR" >&2
		bad=1
	fi
	[ "$bad" = 0 ] || fail "the hook left something for $* (see above)"
	ok "nothing of the hook left"
}

# rt_teardown_and_check: after the case's containers are gone: no port on the
# case's bridges, no lease (only last_reserved_ip* and lock may stay in the
# dataDir), nothing of the hook; delete the bridges (the bridge plugin keeps
# them by design); then lib.sh's assert_nothing_left.
rt_teardown_and_check() {
	local a=() x f
	rt_nothing_left_for "${RT_IDS[@]}"
	checking "no port left on ${RT_BRIDGES[*]}, no lease in $DATADIR"
	for x in "${RT_BRIDGES[@]}"; do
		[ -z "$(ip -o link show master "$x" 2>/dev/null)" ] ||
			fail "links left on $x: $(ip -o link show master "$x")"
	done
	f=$(find "$DATADIR" -type f ! -name 'last_reserved_ip*' ! -name lock -print)
	[ -z "$f" ] || fail "host-local files left: $f"
	ok "bridges empty, no lease"
	for x in "${RT_BRIDGES[@]}"; do delete_link "$x"; done
	for x in "${RT_IDS[@]}"; do a+=(--id "$x"); done
	for x in "${RT_SUBNETS[@]}"; do a+=(--subnet "$x"); done
	for x in "${RT_BRIDGES[@]}"; do a+=(--link "$x"); done
	assert_nothing_left "${a[@]}" --datadir "$DATADIR" --cachedir "$CACHEDIR"
}

# rt_start_attached LETTER: the case's network (rt_setup_case LETTER,
# rt_add_net) and one container on it, $(rt_id), with a port mapping (host
# port RT_PORT to 80), checked attached; the hook's id for it in RT_CID.
rt_start_attached() {
	local id
	rt_setup_case "$1"
	rt_add_net "$NET" "$BR" "$SUB"
	id=$(rt_id)
	RT_PORT=$((20000 + RANDOM % 10001))
	rt_start_ok "start $id with io.cnihook.networks=$NET io.cnihook.ports=$RT_PORT:80" "$id" \
		"$(annotations io.cnihook.networks "$NET" io.cnihook.ports "$RT_PORT:80")"
	assert_attached_to "$id" "$RT_CID" "$NET" eth0 "$SUB" >/dev/null
}

# ---------------------------------------------------------------- the cases
# 1. One network with a port mapping: the container sees eth0 with its
# address and pings the gateway; the host reaches httpd inside through
# 127.0.0.1:HOSTPORT; network-status, pin, record, lease and cache file are
# there; after the runtime deleted the container, nothing is left.
rt_case_one_network() {
	local id port ip st
	rt_setup_case a
	rt_add_net "$NET" "$BR" "$SUB"
	id=$(rt_id)
	port=$((20000 + RANDOM % 10001))
	rt_start_ok "start $id with io.cnihook.networks=$NET io.cnihook.ports=$port:80" \
		"$id" "$(annotations io.cnihook.networks "$NET" io.cnihook.ports "$port:80")"
	local cid=$RT_CID

	checking "eth0 inside the container has an address of $SUB.0/24 leased to $cid"
	ip=$(assert_attached_to "$id" "$cid" "$NET" eth0 "$SUB")
	ok "eth0 has $ip (lease and cache file present)"

	checking "cnihook status --json $cid"
	st=$(hook_status "$cid") || fail "cnihook status $cid failed"
	printf '    status| %s\n' "$(jq -c . <<<"$st")"
	jq -e --arg n "$NET" --arg ip "$ip" 'length == 1 and .[0].name == $n and
		.[0].interface == "eth0" and (.[0].ips | index($ip) != null) and
		(.[0].mac | test("^[0-9a-f]{2}(:[0-9a-f]{2}){5}$"))' <<<"$st" >/dev/null ||
		fail "network-status does not describe $NET/eth0/$ip"
	ok "network-status names $NET, eth0, $ip"
	checking "it is $STATEDIR/$cid/network-status.json; the table names $NET too"
	[ "$(jq -cS . <<<"$st")" = "$(jq -cS . "$STATEDIR/$cid/network-status.json")" ] ||
		fail "status --json differs from $(cat "$STATEDIR/$cid/network-status.json")"
	st=$("$CNIHOOK" --config "$HOOKCONF" status "$cid") || fail "cnihook status $cid failed"
	printf '%s\n' "$st" | sed 's/^/    status| /'
	grep -F -- "$NET" <<<"$st" | grep -qF -- "$ip" || fail "the table has no line with $NET and $ip"
	ok "same"

	assert_pinned "$cid" "$id"

	checking "the container pings the gateway $GW"
	rt_exec "$id" ping -c1 -W2 "$GW" >/dev/null || fail "no reply from $GW inside $id"
	ok "gateway answers"
	checking "the host pings the container at $ip"
	ping_once "$ip" || fail "no reply from $ip"
	ok "container answers"

	checking "portmap rules name $cid and send $port to $ip:80"
	assert_portmap "$cid" "$port" "$ip"
	ok "portmap rules present"
	assert_page "http://127.0.0.1:$port/"
	assert_page "http://$ip:80/"

	rt_stop "$id"
	rt_teardown_and_check
}

# 2. Two networks from the NPWG JSON form: eth0 with a MAC (tuning's mac
# capability), eth1 with a static IP (the ips capability, declared by bridge,
# read by host-local) and an NPWG namespace.
rt_case_two_networks() {
	local id mac static ip0 ip1 st sel
	rt_setup_case b
	rt_add_net "$NET" "$BR" "$SUB"
	rt_more_net 2
	id=$(rt_id)
	mac=$(printf '0a:58:%02x:%02x:%02x:%02x' $((RANDOM % 256)) $((RANDOM % 256)) \
		$((RANDOM % 256)) $((RANDOM % 256)))
	static=$SUB2.$((100 + RANDOM % 100))
	sel=$(jq -cn --arg a "$NET" --arg b "$NET2" --arg mac "$mac" --arg ip "$static/24" \
		'[{name: $a, mac: $mac}, {name: $b, namespace: "e2e", ips: [$ip]}]')
	rt_start_ok "start $id with k8s.v1.cni.cncf.io/networks=$sel" \
		"$id" "$(annotations k8s.v1.cni.cncf.io/networks "$sel")"
	local cid=$RT_CID

	checking "eth0: an address of $SUB.0/24, MAC $mac"
	ip0=$(assert_attached_to "$id" "$cid" "$NET" eth0 "$SUB")
	[ "$(container_mac "$id" eth0)" = "$mac" ] ||
		fail "eth0 has MAC $(container_mac "$id" eth0), want $mac"
	ok "eth0 has $ip0 and $mac"
	checking "eth1: the static address $static"
	ip1=$(assert_attached_to "$id" "$cid" "$NET2" eth1 "$SUB2")
	[ "$ip1" = "$static" ] || fail "eth1 has $ip1, want $static"
	ok "eth1 has $ip1"

	checking "the container pings both gateways"
	rt_exec "$id" ping -c1 -W2 "$GW" >/dev/null || fail "no reply from $GW"
	rt_exec "$id" ping -c1 -W2 "$GW2" >/dev/null || fail "no reply from $GW2"
	ok "$GW and $GW2 answer"

	checking "cnihook status --json $cid lists both attachments in order"
	st=$(hook_status "$cid") || fail "cnihook status $cid failed"
	printf '    status| %s\n' "$(jq -c . <<<"$st")"
	jq -e --arg a "$NET" --arg b "e2e/$NET2" --arg mac "$mac" --arg ip0 "$ip0" \
		--arg ip1 "$static" 'length == 2 and
		.[0].name == $a and .[0].interface == "eth0" and .[0].mac == $mac and
		(.[0].ips | index($ip0) != null) and
		.[1].name == $b and .[1].interface == "eth1" and (.[1].ips | index($ip1) != null)' \
		<<<"$st" >/dev/null || fail "network-status does not describe both attachments"
	ok "network-status: $NET eth0 $mac $ip0, e2e/$NET2 eth1 $static"

	rt_stop "$id"
	rt_teardown_and_check
}

# 3. The second network fails (its chain has a plugin that does not exist,
# after bridge and host-local succeeded): the container does not start, the
# runtime's error carries the hook's message, and the first network is rolled
# back.
rt_case_failing_network() {
	local id st
	rt_setup_case c
	rt_add_net "$NET" "$BR" "$SUB"
	rt_more_net x broken
	id=$(rt_id)
	checking "start $id with io.cnihook.networks=$NET,$NET2 fails"
	if rt_start "$id" "$(annotations io.cnihook.networks "$NET,$NET2" \
		io.cnihook.ports "$((20000 + RANDOM % 10001)):80")"; then
		fail "$RT started the container although $NET2 cannot be attached"
	fi
	ok "$RT did not start it"
	local cid=$RT_CID
	checking "the error names the network and the missing plugin"
	grep -q "nosuchplugin-$uniq" "${RT_OUT[$cid]}" "$HOOKLOG" ||
		fail "neither $RT's output nor the hook's log names nosuchplugin-$uniq"
	grep -q "$NET2" "${RT_OUT[$cid]}" "$HOOKLOG" || fail "the error does not name $NET2"
	ok "named"
	checking "the container is not running"
	st=$(rt_status "$id")
	[ "$st" != running ] || fail "container $id is running"
	ok "status: $st"
	rt_force_remove "$id"
	rt_teardown_and_check
}

# 3b. Bad annotations (a port out of range, a network that does not exist)
# are refused before any plugin runs: the container does not start, the
# error names the annotation, and the bridge was never even created. So is a
# host port another container holds (the error names the holder).
rt_case_bad_annotation() {
	local k id ann pat
	rt_setup_case k
	rt_add_net "$NET" "$BR" "$SUB"
	for k in p n; do
		case $k in
		p)
			ann=$(annotations io.cnihook.networks "$NET" io.cnihook.ports "8080:99999")
			pat='io\.cnihook\.ports.*99999'
			;;
		n)
			ann=$(annotations io.cnihook.networks "$NET,$NET-nonet")
			pat="io\\.cnihook\\.networks.*$NET-nonet"
			;;
		esac
		id=$(rt_id "$k")
		checking "start $id with $(jq -c . <<<"$ann") fails"
		if rt_start "$id" "$ann"; then
			fail "$RT started $id"
		fi
		grep -Eq -- "$pat" "${RT_OUT[$RT_CID]}" "$HOOKLOG" ||
			fail "the error does not match /$pat/"
		! ip link show "$BR" >/dev/null 2>&1 || fail "bridge $BR exists: a plugin ran"
		ok "refused before any plugin ran"
		rt_force_remove "$id"
	done

	local port a cida
	port=$((20000 + RANDOM % 10001))
	a=$(rt_id a)
	rt_start_ok "start $a with io.cnihook.ports=$port:80" "$a" \
		"$(annotations io.cnihook.networks "$NET" io.cnihook.ports "$port:80")"
	cida=$RT_CID
	checking "the hook reserved host port $port for $cida"
	grep -rqF -- "$cida" "$STATEDIR/ports" 2>/dev/null ||
		fail "no reservation under $STATEDIR/ports names $cida"
	ok "reserved"
	id=$(rt_id b)
	checking "start $id asking for the same host port $port fails, naming $a's id"
	if rt_start "$id" "$(annotations io.cnihook.networks "$NET" io.cnihook.ports "$port:8080")" \
		"" "sleep 1000"; then
		fail "$RT started $id"
	fi
	grep -q -- "$port.*$cida\|$cida.*$port" "${RT_OUT[$RT_CID]}" "$HOOKLOG" ||
		fail "the error does not name port $port and $cida"
	[ "$(ip -o link show master "$BR" | wc -l)" = 1 ] ||
		fail "want only $a's port on $BR: $(ip -o link show master "$BR")"
	ok "refused before any plugin ran"
	rt_force_remove "$id"
	assert_page "http://127.0.0.1:$port/"
	rt_stop "$a"
	rt_teardown_and_check
}

# 3c. A host port that a service of the host listens on (the finding:
# python3 -m http.server PORT --bind 127.0.0.1, then a container with
# io.cnihook.ports=PORT:80 took its traffic) is refused before any plugin
# runs, naming the port and the process; the service keeps answering. The
# same port on another address of the host (the bridge's gateway address)
# is mapped by the real portmap and serves the container's page there,
# while 127.0.0.1:PORT stays the host's.
rt_case_host_service() {
	local id port spid page i ip
	rt_setup_case h
	rt_add_net "$NET" "$BR" "$SUB"
	page="host service $uniq"
	mkdir -p "$DIR/www"
	printf '%s\n' "$page" >"$DIR/www/index.html"
	checking "a host service: python3 -m http.server on 127.0.0.1"
	# A free port in 31000-32499: below the ephemeral ports, away from
	# the 20000-30000 the other cases map.
	for ((i = 0; i < 20; i++)); do
		port=$((31000 + RANDOM % 1500))
		/usr/bin/python3 -m http.server "$port" --bind 127.0.0.1 --directory "$DIR/www" \
			>"$DIR/http.log" 2>&1 &
		spid=$!
		cleanup_push "kill $spid 2>/dev/null; wait $spid 2>/dev/null"
		wait_for 30 page_is "http://127.0.0.1:$port/" "$page" && break
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null || true
		spid=
	done
	[ -n "$spid" ] || fail "python3 -m http.server did not start: $(cat "$DIR/http.log")"
	ok "serving on 127.0.0.1:$port (pid $spid)"

	id=$(rt_id)
	checking "start $id with io.cnihook.ports=$port:80 fails, naming the port and pid $spid"
	if rt_start "$id" "$(annotations io.cnihook.networks "$NET" io.cnihook.ports "$port:80")"; then
		fail "$RT started $id"
	fi
	grep -qF -- "annotation \"io.cnihook.ports\": host port $port/tcp on 127.0.0.1 is in use on the host by pid $spid (python3)" \
		"${RT_OUT[$RT_CID]}" "$HOOKLOG" || fail "the error does not name port $port and pid $spid"
	! ip link show "$BR" >/dev/null 2>&1 || fail "bridge $BR exists: a plugin ran"
	ok "refused before any plugin ran"
	rt_force_remove "$id"
	checking "the host service still answers on 127.0.0.1:$port"
	page_is "http://127.0.0.1:$port/" "$page" || fail "it does not"
	ok "it does"

	id=$(rt_id b)
	rt_start_ok "start $id with io.cnihook.ports=$GW:$port:80 (another host address)" "$id" \
		"$(annotations io.cnihook.networks "$NET" io.cnihook.ports "$GW:$port:80")"
	ip=$(assert_attached_to "$id" "$RT_CID" "$NET" eth0 "$SUB")
	checking "portmap rules send $port to $ip:80"
	assert_portmap "$RT_CID" "$port" "$ip"
	ok "portmap rules present"
	assert_page "http://$GW:$port/"
	checking "127.0.0.1:$port is still the host service"
	page_is "http://127.0.0.1:$port/" "$page" || fail "it is not"
	ok "it is"
	rt_stop "$id"
	rt_teardown_and_check
}

# 4a. poststop again, by hand, after the runtime ran it: succeeds, changes
# nothing.
rt_case_poststop_twice() {
	local id cid
	rt_start_attached d
	id=$(rt_id) cid=$RT_CID
	rt_stop "$id"
	rt_nothing_left_for "$cid"
	checking "cnihook poststop by hand with the same state"
	capture "$CNIHOOK" --config "$HOOKCONF" poststop <<<"$(rt_poststop_state "$cid")"
	[ "$RC" = 0 ] || fail "poststop again: status $RC: $ERR"
	[ -z "$OUT" ] || fail "poststop printed on stdout: $OUT"
	ok "poststop again: status 0"
	checking "cnihook poststop by hand, stage from the state's status"
	capture "$CNIHOOK" --config "$HOOKCONF" <<<"$(rt_poststop_state "$cid")"
	[ "$RC" = 0 ] || fail "poststop (inferred) again: status $RC: $ERR"
	ok "status 0"
	rt_teardown_and_check
}

# 4b. The state directory of the container vanished while it ran (a reboot
# of /run, an operator): poststop finds the attachments in the cache.
rt_case_state_removed() {
	local id cid
	rt_start_attached e
	id=$(rt_id) cid=$RT_CID
	checking "remove $STATEDIR/$cid (unmount the pin first, as a reboot would)"
	umount_under "$STATEDIR/$cid"
	rm -rf "${STATEDIR:?}/$cid" "$STATEDIR/$cid.lock"
	[ ! -e "$STATEDIR/$cid" ] || fail "could not remove $STATEDIR/$cid"
	[ -f "$CACHEDIR/results/$NET-$cid-eth0" ] || fail "no cache file to fall back on"
	ok "state gone, cache file $NET-$cid-eth0 remains"
	rt_stop "$id"
	rt_teardown_and_check
}

# 4c. A container joining another container's network namespace (its
# config.json names /proc/<pid of the first>/ns/net) is left alone: its start
# and stop do not touch the first container's attachment.
rt_case_join() {
	local a b cida cidb ip ann port
	rt_setup_case f
	rt_add_net "$NET" "$BR" "$SUB"
	a=$(rt_id a)
	b=$(rt_id b)
	port=$((20000 + RANDOM % 10001))
	ann=$(annotations io.cnihook.networks "$NET" io.cnihook.ports "$port:80")
	rt_start_ok "start $a" "$a" "$ann"
	cida=$RT_CID
	ip=$(assert_attached_to "$a" "$cida" "$NET" eth0 "$SUB")
	rt_start_ok "start $b in the namespace of $a, same annotations" "$b" "$ann" \
		"join:$a" "sleep 1000"
	cidb=$RT_CID
	checking "$b sees $a's eth0 ($ip) and the hook left $b alone"
	[ "$(container_addr "$b" eth0)" = "$ip/24" ] ||
		fail "$b does not see $ip on eth0: $(rt_exec "$b" ip -o addr 2>&1)"
	assert_left_alone "$cidb"
	ok "left alone"
	rt_stop "$b"
	checking "$a's attachment is intact after $b stopped"
	[ "$(assert_attached_to "$a" "$cida" "$NET" eth0 "$SUB")" = "$ip" ] ||
		fail "$a's address changed"
	rt_exec "$a" ping -c1 -W2 "$GW" >/dev/null || fail "no reply from $GW in $a"
	ok "eth0 $ip, lease, cache file, gateway reachable"
	assert_pinned "$cida" "$a"
	assert_portmap "$cida" "$port" "$ip"
	assert_page "http://127.0.0.1:$port/"
	rt_stop "$a"
	rt_teardown_and_check
}

# 4d. Containers that are not a pod's sandbox (CRI-O's and containerd's
# annotations) are left alone although they carry a selection annotation.
rt_case_left_alone() {
	local n cid k
	rt_setup_case g
	rt_add_net "$NET" "$BR" "$SUB"
	for k in crio:io.kubernetes.cri-o.ContainerType ctrd:io.kubernetes.cri.container-type; do
		n=$(rt_id "${k%%:*}")
		k=${k#*:}
		rt_start_ok "start $n with $k=container, io.cnihook.networks=$NET" "$n" \
			"$(annotations "$k" container io.cnihook.networks "$NET")" "" "sleep 1000"
		cid=$RT_CID
		checking "$n has no eth0, the hook attached nothing"
		! rt_exec "$n" ip link show eth0 >/dev/null 2>&1 || fail "$n has an eth0"
		assert_left_alone "$cid"
		ok "left alone"
		rt_stop "$n"
	done
	rt_teardown_and_check
}

# 4e. A container without a network namespace of its own (it shares the
# host's) is never attached (cnihook(8), cnihook-annotations(7)): with a
# selection annotation the hook fails, so that the container does not start
# and the mistake is seen; with networks from defaultNetworks only, it is left
# alone and starts.
rt_case_host_netns() {
	local n cid
	rt_setup_case h
	rt_add_net "$NET" "$BR" "$SUB"
	n=$(rt_id a)
	checking "start $n in the host's network namespace with io.cnihook.networks=$NET fails"
	if rt_start "$n" "$(annotations io.cnihook.networks "$NET")" host "sleep 1000"; then
		fail "$RT started $n: the hook did not refuse to attach the host's namespace"
	fi
	cid=$RT_CID
	grep -q 'io.cnihook.networks.*host' "${RT_OUT[$cid]}" "$HOOKLOG" ||
		fail "the error does not name the annotation and the host"
	assert_left_alone "$cid"
	ok "refused, nothing attached"
	rt_force_remove "$n"

	checking "with defaultNetworks [$NET] and no annotation"
	jq --arg n "$NET" '.defaultNetworks = [$n]' "$HOOKCONF" >"$HOOKCONF.new"
	mv "$HOOKCONF.new" "$HOOKCONF"
	# podman runs hooks.d entries on their "when" condition: an engine that
	# relies on defaultNetworks runs the hook for every container.
	[ "$RT" != podman ] || pm_hooks_dir always
	ok "hook configuration updated"
	n=$(rt_id b)
	rt_start_ok "start $n in the host's network namespace, no annotation" "$n" '{}' host \
		"sleep 1000"
	cid=$RT_CID
	checking "the hook attached nothing for $n and said why"
	assert_left_alone "$cid"
	if hook_log_complete; then
		grep -q "$cid.*host's network namespace" "$HOOKLOG" ||
			fail "the hook's log does not say that $cid shares the host's namespace"
		ok "left alone, the log says why"
	else
		ok "left alone ($RT discarded the hook's log lines: not checked)"
	fi
	rt_stop "$n"

	n=$(rt_id c)
	rt_start_ok "start $n in a namespace of its own, no annotation: defaultNetworks apply" \
		"$n" '{}'
	cid=$RT_CID
	checking "$n has eth0 on $NET"
	assert_attached_to "$n" "$cid" "$NET" eth0 "$SUB" >/dev/null
	ok "attached"
	rt_stop "$n"
	rt_teardown_and_check
}

# 5. Hook entries without a stage argument: the hook infers it from the
# state's status (runc says "creating" at createRuntime, crun "created";
# both "stopped" at poststop).
rt_case_inferred_stage() {
	local id cid port ip
	rt_setup_case i
	RT_INFER_STAGE=1
	rt_add_net "$NET" "$BR" "$SUB"
	id=$(rt_id)
	port=$((20000 + RANDOM % 10001))
	rt_start_ok "start $id, hook args without a stage" "$id" \
		"$(annotations io.cnihook.networks "$NET" io.cnihook.ports "$port:80")"
	cid=$RT_CID
	checking "eth0 has an address of $SUB.0/24"
	ip=$(assert_attached_to "$id" "$cid" "$NET" eth0 "$SUB")
	ok "eth0 has $ip"
	assert_page "http://127.0.0.1:$port/"
	rt_stop "$id"
	rt_teardown_and_check
}

# 6. A container whose process exits by itself: runc and crun run poststop
# at `delete`; podman's cleanup process (conmon's exit command) runs it as
# soon as the container exited, with no podman command of ours involved.
# (The process ends when the test kills it from the host, once the checks
# inside it are done: a timed exit raced them on a loaded machine.)
rt_case_exits() {
	local id cid i
	rt_setup_case j
	rt_add_net "$NET" "$BR" "$SUB"
	id=$(rt_id)
	rt_start_ok "start $id" "$id" "$(annotations io.cnihook.networks "$NET")" "" "sleep 1000"
	cid=$RT_CID
	checking "eth0 has an address of $SUB.0/24"
	assert_attached_to "$id" "$cid" "$NET" eth0 "$SUB" >/dev/null
	ok "attached"
	checking "the container's process ends (SIGKILL from the host, not through $RT)"
	kill -KILL "$(rt_pid "$id")" || fail "cannot kill the process of $id"
	ok "killed"
	checking "the container exits"
	for ((i = 0; i < 100; i++)); do
		case $(rt_status "$id") in stopped | exited) break ;; esac
		sleep 0.1
	done
	case $(rt_status "$id") in stopped | exited) ;; *) fail "still $(rt_status "$id")" ;; esac
	ok "$(rt_status "$id")"
	if [ "$RT" = podman ]; then
		checking "podman's cleanup ran poststop by itself"
		for ((i = 0; i < 100; i++)); do
			[ -e "$STATEDIR/$cid" ] || [ -e "$CACHEDIR/results/$NET-$cid-eth0" ] || break
			sleep 0.1
		done
		rt_hook_log
		[ ! -e "$CACHEDIR/results/$NET-$cid-eth0" ] || fail "no poststop after 10 s"
		ok "detached"
		rt_nothing_left_for "$cid"
		pm rm "$id" >/dev/null
	else
		checking "$RT delete $id runs poststop"
		"$RT" delete "$id" >"$DIR/$id.stop" 2>&1 || fail "$RT delete: $(cat "$DIR/$id.stop")"
		rt_hook_log
		ok "deleted"
	fi
	rt_teardown_and_check
}

# 7. podman: the shipped hooks.d files' "when" conditions select. They
# match k8s.v1.cni.cncf.io/networks and every io.cnihook.* key. With
# defaultNetworks [NET] in cnihook.json, a hook run for a container without
# such a key would attach it to NET: so a container with none, or with a
# key that only contains one (the regexp's anchors, its escaped dots), must
# get no cnihook entry in its config.json, no hook run (the shim's log), no
# interface but lo, and no state. One with io.cnihook.networks gets the
# entry, both stages run and eth0 is attached; so does one with only
# io.cnihook.ports (a single-purpose key: the first default network gets
# the mapping); one with only a misspelt key (io.cnihook.port) reaches the
# hook too, which decides, and so does one with the prefix in another case,
# which the hook refuses. (k8s.v1.cni.cncf.io/networks selects in case 2.)
rt_case_pm_selection() {
	local n cid k ann seen cfg port
	rt_setup_case l
	rt_add_net "$NET" "$BR" "$SUB"
	jq --arg n "$NET" '.defaultNetworks = [$n]' "$HOOKCONF" >"$HOOKCONF.new"
	mv "$HOOKCONF.new" "$HOOKCONF"
	pm_hooks_dir
	for k in none suffix prefix dots; do
		case $k in
		none) ann='{}' ;;
		suffix) ann=$(annotations k8s.v1.cni.cncf.io/networks.off "$NET") ;;
		prefix) ann=$(annotations x-k8s.v1.cni.cncf.io/networks "$NET" x.io.cnihook.networks "$NET") ;;
		dots) ann=$(annotations ioXcnihookXnetworks "$NET" io.cnihook "$NET") ;;
		esac
		n=$(rt_id "$k")
		seen=$(wc -l <"$HOOKLOG")
		rt_start_ok "start $n with annotations $(jq -c . <<<"$ann")" "$n" "$ann" "" "sleep 1000"
		cid=$RT_CID
		checking "podman selected no cnihook entry for $n: not in its config.json, not run"
		cfg=${RT_BUNDLE[$cid]}/config.json
		[ -f "$cfg" ] || fail "no config.json for $n at $cfg"
		jq -e --arg p "$HOOKPATH" '[.hooks // {} | .[][] | select(.path == $p)] | length == 0' \
			"$cfg" >/dev/null || fail "$cfg has a hook entry for $HOOKPATH: $(jq -c .hooks "$cfg")"
		if [ "${CNIHOOK_E2E_SHIM:-1}" = 1 ]; then
			[ "$(wc -l <"$HOOKLOG")" = "$seen" ] ||
				fail "the hook ran for $n: $(tail -n +"$((seen + 1))" "$HOOKLOG")"
		fi
		[ "$(rt_exec "$n" ip -o link | awk -F': ' '$2 != "lo"' | wc -l)" = 0 ] ||
			fail "$n has links besides lo: $(rt_exec "$n" ip -o link)"
		assert_left_alone "$cid"
		if [ -e "$STATEDIR/$cid" ] || [ -e "$STATEDIR/$cid.lock" ]; then
			fail "the hook left state for $cid: $(ls -d "$STATEDIR/$cid"*)"
		fi
		ok "no entry, no run, only lo, no state"
		rt_stop "$n"
		if [ "${CNIHOOK_E2E_SHIM:-1}" = 1 ]; then
			checking "no poststop ran for $n"
			[ "$(wc -l <"$HOOKLOG")" = "$seen" ] ||
				fail "the hook ran for $n: $(tail -n +"$((seen + 1))" "$HOOKLOG")"
			ok "none"
		fi
	done

	for k in sel ports; do
		n=$(rt_id "$k")
		port=$((20000 + RANDOM % 10001))
		case $k in
		sel) ann=$(annotations io.cnihook.networks "$NET") ;;
		ports) ann=$(annotations io.cnihook.ports "$port:80") ;;
		esac
		seen=$(wc -l <"$HOOKLOG")
		rt_start_ok "start $n with annotations $(jq -c . <<<"$ann")" "$n" "$ann"
		cid=$RT_CID
		rt_pm_assert_hooked "$n" "$cid" "$seen"
		checking "the hook attached eth0 of $n to $NET"
		assert_attached_to "$n" "$cid" "$NET" eth0 "$SUB" >/dev/null
		ok "attached"
		if [ "$k" = ports ]; then
			assert_page "http://127.0.0.1:$port/"
		fi
		rt_stop "$n"
		rt_pm_assert_ran "$n" "$seen" poststop
	done

	# A misspelt key: podman runs the hook, which refuses it or ignores it
	# (then NET, the default network, is attached); either way nothing is
	# left once the container is gone. The prefix in another case
	# (IO.CNIHOOK.Networks) reaches the hook too, and is refused by name.
	for k in typo case; do
		n=$(rt_id "$k")
		case $k in
		typo) ann=$(annotations io.cnihook.port "$((20000 + RANDOM % 10001)):80") ;;
		case) ann=$(annotations IO.CNIHOOK.Networks "$NET") ;;
		esac
		seen=$(wc -l <"$HOOKLOG")
		checking "start $n with only $(jq -c . <<<"$ann")"
		rt_start "$n" "$ann" "" "sleep 1000" || true
		ok "podman says: $(tr '\n' ' ' <"$DIR/$n.out" | cut -c1-300)"
		if [ "$k" = typo ]; then
			rt_pm_assert_hooked "$n" "$RT_CID" "$seen" '[0-9]+'
		else
			rt_pm_assert_hooked "$n" "$RT_CID" "$seen" '[1-9][0-9]*'
			checking "$n refused, the key named"
			grep -qF -- 'annotation "IO.CNIHOOK.Networks": unknown key' "$DIR/$n.out" "$HOOKLOG" ||
				fail "no refusal naming IO.CNIHOOK.Networks (podman's output above)"
			ok "refused"
		fi
		if [ "$(rt_status "$n")" = running ]; then
			rt_stop "$n"
		else
			rt_force_remove "$n"
		fi
	done
	rt_teardown_and_check
}

# rt_pm_assert_hooked NAME CID SEEN [RC]: podman put the createRuntime entry
# in NAME's config.json and (with the shim) the hook ran after line SEEN of
# $HOOKLOG, with exit status RC (a regexp; default 0).
rt_pm_assert_hooked() {
	local n=$1 cid=$2 seen=$3 rc=${4:-0} cfg
	checking "podman put the createRuntime entry in $n's config.json and ran it"
	cfg=${RT_BUNDLE[$cid]}/config.json
	jq -e --arg p "$HOOKPATH" '[.hooks.createRuntime // [] | .[] | select(.path == $p)] | length == 1' \
		"$cfg" >/dev/null || fail "$cfg has no createRuntime entry for $HOOKPATH: $(jq -c .hooks "$cfg")"
	rt_pm_assert_ran "$n" "$seen" createRuntime "$rc"
	ok "selected, run"
}

# rt_pm_assert_ran NAME SEEN STAGE [RC]: (with the shim) the hook ran STAGE
# after line SEEN of $HOOKLOG, with exit status RC (a regexp; default 0).
rt_pm_assert_ran() {
	local n=$1 seen=$2 stage=$3 rc=${4:-0}
	[ "${CNIHOOK_E2E_SHIM:-1}" = 1 ] || return 0
	tail -n +"$((seen + 1))" "$HOOKLOG" | grep -Eq " $stage: exit ($rc)\$" ||
		fail "the shim logged no $stage run (exit $rc) for $n"
}

# 8. cnihook.json broken while a container runs (a trailing comma,
# then stop): the runtime's poststop fails, and the hook's message, naming
# the file, line and column, is in the log a host without syslog has, the
# default /run/cnihook/cnihook.log (the built-in stateDir, as the file's own
# is unknown). For poststop the shim runs the hook where no syslog socket
# takes a line and /run/cnihook is a private tmpfs, whose log it copies to
# $DIR/fallback.log. Once the file is fixed, poststop by hand detaches.
rt_case_broken_config() {
	local id cid n where i
	# Whatever CNIHOOK_E2E_SHIM says: the hook is reached through the shim,
	# which is rewritten below (never $CNIHOOK itself).
	CNIHOOK_E2E_SHIM=1 rt_start_attached m
	[ "$HOOKPATH" = "$DIR/cnihook-shim" ] || fail "no shim: $HOOKPATH"
	id=$(rt_id) cid=$RT_CID
	: >"$DIR/empty"
	cat >"$DIR/private-poststop" <<EOF
#!/bin/sh
case " \$* " in
*" poststop "*) ;;
*) exec '$CNIHOOK' "\$@" ;;
esac
exec unshare -m --propagation private sh -c '
	for p in /dev/log /run/systemd/journal/socket; do
		if [ -e "\$p" ] || [ -L "\$p" ]; then mount --bind "$DIR/empty" "\$p" || exit 125; fi
	done
	if [ -d /run/cnihook ]; then mount -t tmpfs tmpfs /run/cnihook
	else mount -t tmpfs tmpfs /run; fi || exit 125
	"\$@"
	rc=\$?
	cp /run/cnihook/cnihook.log "$DIR/fallback.log"
	exit \$rc' sh '$CNIHOOK' "\$@"
EOF
	chmod 755 "$DIR/private-poststop"
	rt_write_shim "$DIR/private-poststop"
	checking "a trailing comma in $HOOKCONF"
	cp "$HOOKCONF" "$HOOKCONF.good"
	n=$(wc -l <"$HOOKCONF.good")
	{
		head -n $((n - 2)) "$HOOKCONF.good"
		printf '%s,\n}\n' "$(sed -n "$((n - 1))p" "$HOOKCONF.good")"
	} >"$HOOKCONF"
	! jq . "$HOOKCONF" >/dev/null 2>&1 || fail "the broken file is valid JSON"
	where="$HOOKCONF:$n:1: invalid JSON: parse error: invalid object key (must be a string)"
	ok "line $n is the } after the comma"
	checking "stop $id: the runtime's poststop fails"
	case $RT in
	podman)
		pm stop -t 0 "$id" >"$DIR/$id.stop" 2>&1
		pm rm "$id" >>"$DIR/$id.stop" 2>&1
		;;
	*)
		"$RT" kill "$id" KILL >"$DIR/$id.stop" 2>&1
		for ((i = 0; i < 50; i++)); do
			[ "$(rt_status "$id")" != running ] && break
			sleep 0.1
		done
		"$RT" delete "$id" >>"$DIR/$id.stop" 2>&1
		;;
	esac
	# podman may run poststop from its cleanup process: wait for the log.
	for ((i = 0; i < 100; i++)); do
		[ -s "$DIR/fallback.log" ] && break
		sleep 0.1
	done
	rt_hook_log
	grep -qF -- "poststop: exit 1" "$HOOKLOG" || fail "poststop did not fail (hook log above)"
	ok "poststop exited 1"
	checking "the hook's line, with file, line and column, is in /run/cnihook/cnihook.log"
	grep -qF -- "cnihook: $where" "$HOOKLOG" || fail "not on the hook's stderr: $where"
	if ! grep -qE -- "^[0-9-]{10}T[0-9:.]{15}Z cnihook\[[0-9]+\]: error: " "$DIR/fallback.log" ||
		! grep -qF -- "error: $where" "$DIR/fallback.log"; then
		fail "not in the fallback log: $(cat "$DIR/fallback.log" 2>/dev/null)"
	fi
	ok "$(head -n 1 "$DIR/fallback.log")"
	[ "$(rt_status "$id")" = gone ] || rt_force_remove "$id"
	checking "the attachment is left (engines do not run poststop twice)"
	[ -f "$CACHEDIR/results/$NET-$cid-eth0" ] || fail "no cache file: was it detached?"
	ok "cache file $NET-$cid-eth0 remains"
	checking "fixed, poststop by hand detaches (cnihook.json(5), ERRORS)"
	mv "$HOOKCONF.good" "$HOOKCONF"
	capture "$CNIHOOK" --config "$HOOKCONF" poststop <<<"$(rt_poststop_state "$cid")"
	[ "$RC" = 0 ] || fail "poststop by hand: status $RC: $ERR"
	ok "detached"
	rt_teardown_and_check
}

rt_run_all() {
	run_case "1. one network: address, gateway, port mapping to httpd ($RT)" rt_case_one_network
	run_case "2. two networks from the NPWG JSON form, MAC and static IP ($RT)" rt_case_two_networks
	run_case "3. a failing second network: no start, the first rolled back ($RT)" rt_case_failing_network
	run_case "3. bad annotations, a host port in use: refused before any plugin runs ($RT)" \
		rt_case_bad_annotation
	run_case "3. a host port a host service listens on: refused, the service unharmed ($RT)" \
		rt_case_host_service
	run_case "4. poststop twice ($RT)" rt_case_poststop_twice
	run_case "4. poststop with the state directory removed ($RT)" rt_case_state_removed
	run_case "4. a container joining another's namespace is left alone ($RT)" rt_case_join
	run_case "4. non-sandbox CRI containers are left alone ($RT)" rt_case_left_alone
	run_case "4. host's network namespace: refused with an annotation, left alone by defaultNetworks ($RT)" \
		rt_case_host_netns
	run_case "5. hook entries without a stage: inferred from the state ($RT)" \
		rt_case_inferred_stage
	run_case "6. a container that exits by itself ($RT)" rt_case_exits
	run_case "8. cnihook.json broken at poststop: logged with its place where a host without syslog keeps it ($RT)" \
		rt_case_broken_config
	if [ "$RT" = podman ]; then
		run_case "7. the shipped hooks.d conditions: NPWG and io.cnihook.* keys, no others ($RT)" \
			rt_case_pm_selection
	fi
	# A suite's own cases (runc.sh: two runc roots).
	if declare -F rt_own_cases >/dev/null; then
		rt_own_cases
	fi
	log "--- whole script"
	assert_nothing_left
	finish
}
