#!/bin/bash
# Hostile input: what a container's author, a runtime or an
# operator can hand cnihook must be refused before any plugin runs, with one
# clear line that names the field or annotation and the problem, and must
# leave the host (links, addresses, routes, rules, iptables, the CNI
# directories) and our own temp tree exactly as they were.
#
# Driven here:
# - the hook, createRuntime and poststop, with OCI states made by hand on its
#   stdin, bundles with a config.json of our own and a real network
#   namespace (ip netns add) as the container's namespace;
# - the CLI, cnihook add/del/validate, with CNI_CONTAINERID, CNI_IFNAME,
#   CNI_ARGS, CAP_ARGS and network names as arguments.
# The networks are made of copies of the recording fake plugin
# (tests/plugins/fakeplugin): "runs no plugin" means that no recording
# appears in $bin/rec. Bait is laid where a path traversal would land (a
# network configuration beside confDir and in a subdirectory of it, files and
# directories where "../../etc/x" leads from the state and cache
# directories, scripts where a plugin "type" of "../../bin/sh" or "a/b" leads
# from the plugin directory and from the working directory, each writing a
# marker file when run).
#
# Every case checks: exit status non-zero (and not a crash: below 128); one
# line on stderr, "cnihook: ...", printable ASCII only, at most 1024 bytes
# (a 10 MB input must not come back on the terminal or in syslog); the line
# names what the case says; no plugin recording; no marker; and our temp
# tree (every file with its size and mtime, every directory, every mount
# under it) unchanged. Around the whole run, the host is compared before
# and after (see host_snapshot below).
#
# Checks are often eval'd single-quoted strings, expanded when run.
# shellcheck disable=SC2016
set -uo pipefail
: "${CNIHOOK:?}" "${FAKEPLUGIN:?}"

srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
tap_init "network namespaces, mounts" ip jq mount umount

tmp=$T_TMP
NS=cnihook-hs-$uniq # the containers' network namespace
NSPATH=/run/netns/$NS

# ---------------------------------------------------------------- host snapshot
# host_snapshot DIR: what of the host cnihook or a plugin it ran by mistake
# could change, one file per aspect. Counters are left out (iptables-save
# without -c, the [packets:bytes] of the chain lines and the "#" comment
# lines with their dates removed) and so are modification times (ls
# --time-style=+), since they change on their own. The traversal targets
# that the hostile names would reach from the default directories
# (/run/cnihook/../../etc/x = /etc/x, /var/lib/cni/results/../../x, ...) are
# listed by existence.
host_snapshot() {
	local d=$1 p
	mkdir -p "$d"
	ip -o link show >"$d/link" 2>&1
	ip -o addr show >"$d/addr" 2>&1
	ip route show table all >"$d/route4" 2>&1
	ip -6 route show table all >"$d/route6" 2>&1
	ip rule show >"$d/rule4" 2>&1
	ip -6 rule show >"$d/rule6" 2>&1
	for p in iptables ip6tables; do
		if command -v "$p-save" >/dev/null 2>&1; then
			"$p-save" 2>&1 | sed -e '/^#/d' -e 's/^\(:[^ ]* [^ ]*\) \[[0-9]*:[0-9]*\]$/\1/'
		else
			echo "($p-save not installed)"
		fi >"$d/$p"
	done
	for p in /etc/cni/net.d /var/lib/cni /run/netns /run/cnihook; do
		if [ -e "$p" ]; then ls -laR --time-style=+ "$p" 2>&1; else echo "$p: absent"; fi
	done >"$d/dirs"
	for p in /etc/x /etc/x.lock /etc/a /run/x /run/x.lock /run/a /var/lib/x /var/lib/a \
		/var/x /x /x.lock /etc/cni/x /etc/cni/x.conflist /etc/cni/net.d/a /bin/a \
		/run/cnihook/a; do
		[ -e "$p" ] || [ -L "$p" ] && echo "present: $p"
	done >"$d/targets"
	# What cnihook could have written (its default directories) since the
	# stamp; /run/lock, /run/systemd and the rest of /run and /etc belong
	# to other processes of this shared host.
	for p in /etc/cni /var/lib/cni /run/cnihook; do
		[ -e "$p" ] && find "$p" -xdev -newer "$tmp/stamp" -print 2>/dev/null
	done | sort >"$d/newer"
}
# The lines of a snapshot that could be ours: they name our suffix, our temp
# dir, a hostile name of this test, or an address or label the fake plugins
# or the hostile values would give. Used only when a whole file differs,
# since other test suites may be adding and removing links, routes and
# iptables rules on this host at the same time.
OURS_RE=''
ours() { grep -E -- "$OURS_RE" "$1" 2>/dev/null; }
compare_host() { # compare_host ASPECT DESCRIPTION
	local a=$1 what=$2 fb fa
	if cmp -s "$tmp/host.before/$a" "$tmp/host.after/$a"; then
		tap_ok "host unchanged: $what"
		return
	fi
	fb=$(ours "$tmp/host.before/$a")
	fa=$(ours "$tmp/host.after/$a")
	if [ "$fb" = "$fa" ]; then
		tap_ok "host unchanged: $what (other changes, none of ours: concurrent processes)"
		diff "$tmp/host.before/$a" "$tmp/host.after/$a" | grep '^[<>]' | head -20 |
			sed 's/^/#   unrelated: /'
	else
		tap_not_ok "host unchanged: $what" \
			"$(diff <(printf '%s\n' "$fb") <(printf '%s\n' "$fa") | grep '^[<>]' | head -40)"
	fi
}

touch "$tmp/stamp"
sleep 0.01
host_snapshot "$tmp/host.before"

# ---------------------------------------------------------------- setup
# $tmp/r/s/{state,cache}: "../../etc/x" from there is $tmp/r/etc/x (bait).
bin=$tmp/bin conf=$tmp/net.d state=$tmp/r/s/state cache=$tmp/r/s/cache
mkdir -p "$bin" "$conf" "$tmp/bundles" "$tmp/run" "$tmp/r/s" "$tmp/nsdir" "$tmp/markers"
for p in fa fb fc trap; do cp "$FAKEPLUGIN" "$bin/$p"; done
netlist() { # netlist DIR NAME PLUGIN-JSON...
	local dir=$1 name=$2
	shift 2
	printf '%s\n' "$@" | jq -s --arg n "$name" '{cniVersion: "1.0.0", name: $n, plugins: .}' \
		>"$dir/$name.conflist"
}
netlist "$conf" net1 '{"type":"fa"}'
netlist "$conf" net2 '{"type":"fb"}'
netlist "$conf" all '{"type":"fc","capabilities":{"portMappings":true,"mac":true,"ips":true,"bandwidth":true}}'
# Bait networks: "../x" from confDir is $tmp/x.conflist, "a/b" is $conf/a/b.conflist.
netlist "$tmp" x '{"type":"trap"}'
mkdir -p "$conf/a"
netlist "$conf/a" b '{"type":"trap"}'
# Bait where "../../etc/x" leads from the state and cache directories.
mkdir -p "$tmp/r/etc/x" "$state/a/b" "$cache/results"
echo bait >"$tmp/r/etc/x/keep"
echo bait >"$tmp/r/etc/x.lock"
echo bait >"$state/a/b/keep"
echo bait >"$state/a/b.lock"

# A script that would record that it ran: marker FILE NAME
marker() {
	mkdir -p "$(dirname "$1")"
	printf '#!/bin/sh\necho ran >>"%s/%s"\n' "$tmp/markers" "$2" >"$1"
	chmod 755 "$1"
}
no_marker() { [ -z "$(ls -A "$tmp/markers")" ]; }

cfg=$tmp/cnihook.json
jq -n --arg c "$conf" --arg b "$bin" --arg k "$cache" --arg s "$state" \
	'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, log: {syslog: false}}' >"$cfg"
# A policy that allows io.cnihook.netns below $tmp/nsdir only.
cfg_ns=$tmp/cnihook-netns.json
jq --arg d "$tmp/nsdir" '. + {policy: {allowedFields: ["portMappings", "mac", "ips",
	"bandwidth", "args", "infinibandGUID", "netns", "dns"], netnsPrefixes: [$d]}}' "$cfg" >"$cfg_ns"

new_netns "$NS"

# The CLI's environment; CNIHOOK_CONFIG so that it reads no host file.
export NETCONFPATH=$conf CNI_PATH=$bin CNI_CACHE_DIR=$cache CNIHOOK_CONFIG=$cfg
unset CNI_CONTAINERID CNI_ARGS CAP_ARGS CNI_IFNAME CNI_COMMAND CNI_NETNS

# run STDIN-FILE CMD...: rc, out, err (stdin from the file, /dev/null for none)
run() {
	local in=$1
	shift
	"$@" <"$in" >"$tmp/run/out" 2>"$tmp/run/err"
	rc=$?
	out=$(head -c 100000 "$tmp/run/out")
	err=$(head -c 100000 "$tmp/run/err")
	err_bytes=$(wc -c <"$tmp/run/err")
	err_lines=$(wc -l <"$tmp/run/err")
}
HOOKWRAP=() # a command the hook runs under (unshare ..., see netns below)
hookf() { run "$1" "${HOOKWRAP[@]}" "$CNIHOOK" --config "${CFG:-$cfg}" "${@:2}"; }
cnihook_cli() { run /dev/null "$CNIHOOK" "$@"; }

# Our temp tree: every non-directory with its size and mtime, every
# directory, and the mounts under $tmp; not our own run/ outputs, the
# plugins' recordings (checked apart) nor the host snapshots.
tree_sig() {
	find "$tmp" \( -path "$tmp/run" -o -path "$bin/rec" -o -path "$tmp/host.*" \
		-o -path "$tmp/stamp" -o -path "$tmp/big" \) -prune -o \
		! -type d -printf '%y %m %s %T@ %p\n' -o -type d -printf 'd %m %p/\n' | sort
	awk -v p="$tmp/" 'index($5, p) == 1 {print "mount " $5}' /proc/self/mountinfo | sort
}
BEFORE=''
snap() { rm -rf "$bin/rec"; BEFORE=$(tree_sig); }
tree_same() { [ "$(tree_sig)" = "$BEFORE" ]; }
tree_diff() { diff <(printf '%s\n' "$BEFORE") <(tree_sig) | grep '^[<>]' | head -20; }
# line_problem: what is wrong with the last stderr as one clear line: it
# must be one line, "cnihook: ...", printable ASCII only (a hostile byte is
# written \xNN, cnihook-annotations(7) ERRORS), at most 1024 bytes, and not
# YAJL's verbose error (the input echoed after a run of spaces with a
# "(right here) ------^" pointer: a multi-line picture flattened to one).
line_problem() {
	if [ "$err_lines" != 1 ]; then
		echo "stderr has $err_lines lines, not one"
	elif [ "$err_bytes" -gt 1024 ]; then
		echo "stderr has $err_bytes bytes"
	elif [[ $err != "cnihook: "* ]]; then
		echo "stderr does not start with \"cnihook: \""
	elif LC_ALL=C grep -q '[^ -~]' <<<"$err"; then
		echo "stderr has bytes other than printable ASCII (shown as M-... or ^...)"
	elif [[ $err == *"(right here)"* || $err == *"          "* ]]; then
		echo "stderr is YAJL's verbose error picture, flattened"
	fi
}

# refused NAME PATTERN...: the last run failed cleanly (see the top),
# naming every PATTERN, ran no plugin and changed nothing.
refused() {
	local name=$1 p why=''
	shift
	[ "$rc" != 0 ] || why+="exit status 0; "
	[ "$rc" -lt 128 ] || why+="exit status $rc (a signal?); "
	p=$(line_problem)
	[ -z "$p" ] || why+="$p; "
	for p in "$@"; do has "$p" "$err" || why+="stderr does not name '$p'; "; done
	no_plugin_ran || why+="a plugin ran: $(all_calls); "
	no_marker || why+="a marker was written: $(ls "$tmp/markers"); "
	tree_same || why+="the temp tree changed: $(tree_diff); "
	if [ -z "$why" ]; then
		tap_ok "$name: $err"
	else
		tap_not_ok "$name" "$why"
	fi
	# whatever a case left, the next starts clean
	rm -rf "$bin/rec" "$tmp/markers"/*
	BEFORE=''
}
# harmless NAME: the last run ran no plugin and changed nothing; its exit
# status may be 0 (a poststop of a container that was never attached), but
# if it failed, it said so cleanly.
harmless() {
	local name=$1 why=''
	[ "$rc" -lt 128 ] || why+="exit status $rc (a signal?); "
	[ "$rc" = 0 ] || [ -z "$(line_problem)" ] || why+="$(line_problem); "
	no_plugin_ran || why+="a plugin ran: $(all_calls); "
	no_marker || why+="a marker was written: $(ls "$tmp/markers"); "
	tree_same || why+="the temp tree changed: $(tree_diff); "
	if [ -z "$why" ]; then tap_ok "$name (status $rc)"; else tap_not_ok "$name" "$why"; fi
	rm -rf "$bin/rec" "$tmp/markers"/*
}

# hook_ann NAME ANNOTATIONS-JSON PATTERN...: a bundle with these annotations;
# createRuntime is refused naming every PATTERN; poststop after it is harmless.
n_case=0
hook_ann() {
	local name=$1 a=$2 id
	shift 2
	n_case=$((n_case + 1))
	id=c$n_case-$uniq
	bundle "$id" "$a"
	state "$id" creating >"$tmp/run/st.create"
	state "$id" stopped >"$tmp/run/st.stop"
	snap
	local before=$BEFORE
	hookf "$tmp/run/st.create" createRuntime
	refused "hook createRuntime: $name" "createRuntime: " "$@"
	BEFORE=$before
	hookf "$tmp/run/st.stop" poststop
	harmless "... poststop after it"
}
# hook_state NAME STATE-FILE PATTERN...: createRuntime and poststop of this
# state (status rewritten by sed) are both refused naming every PATTERN.
hook_state() {
	local name=$1 f=$2
	shift 2
	sed 's/"status":"creating"/"status":"stopped"/' "$f" >"$tmp/run/st.stop"
	snap
	hookf "$f" createRuntime
	refused "hook createRuntime: $name" "createRuntime: " "$@"
	snap
	hookf "$tmp/run/st.stop" poststop
	refused "hook poststop: $name" "poststop: " "$@"
}
# cli_case NAME PATTERN... -- ENV-ASSIGNMENT... -- CLI-ARGS...: cnihook CLI-ARGS
# with that environment is refused naming every PATTERN
cli_case() {
	local name=$1
	shift
	local pats=() envs=()
	while [ "$1" != -- ]; do pats+=("$1"); shift; done
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	snap
	run /dev/null env "${envs[@]}" "$CNIHOOK" "$@"
	refused "cli $*: $name" "${pats[@]}"
}

# ---------------------------------------------------------------- controls
# Without these the refusals below would prove nothing: the same setup with
# good input runs the plugins.
echo "# controls: good input runs the plugins"
id=good-$uniq
bundle "$id" "$(annotations io.cnihook.networks all io.cnihook.ports 8080:80 io.cnihook.mac \
	02:00:00:00:00:01 io.cnihook.ips 10.0.0.1/24)"
state "$id" creating >"$tmp/run/good.create"
state "$id" stopped >"$tmp/run/good.stop"
rm -rf "$bin/rec"
hookf "$tmp/run/good.create" createRuntime
check "control: hook createRuntime with good annotations runs the plugin" \
	eval '[ "$rc" = 0 ] && [ "$(all_calls)" = "fc-ADD" ]'
rm -rf "$bin/rec"
hookf "$tmp/run/good.stop" poststop
check "control: hook poststop runs its DEL" eval '[ "$rc" = 0 ] && [ "$(all_calls)" = "fc-DEL" ]'
rm -rf "$bin/rec"
cnihook_cli add net1 "$NSPATH"
check "control: cnihook add net1 runs the plugin" eval '[ "$rc" = 0 ] && [ "$(all_calls)" = "fa-ADD" ]'
cnihook_cli del net1 "$NSPATH"
check "control: cnihook del net1 too" eval '[ "$rc" = 0 ] && [ "$(all_calls)" = "fa-ADD fa-DEL" ]'
rm -rf "$bin/rec"
check "control: the state directory exists (made by the first attach)" test -d "$state"

# ---------------------------------------------------------------- container id
echo "# container id: path traversal, slash, leading dot, 300 bytes"
long_id=$(head -c 300 /dev/zero | tr '\0' a)
bundle "good-bundle-$uniq" "$(annotations io.cnihook.networks net1)"
for hid in "../../etc/x" "a/b" ".x" "$long_id"; do
	short=${hid:0:20}
	jq -cn --arg id "$hid" --arg b "$tmp/bundles/good-bundle-$uniq" \
		'{ociVersion: "1.0.2", id: $id, status: "creating", bundle: $b}' >"$tmp/run/st"
	hook_state "container id \"$short\"" "$tmp/run/st" 'container id' "\"$short"
	cli_case "CNI_CONTAINERID=\"$short\"" 'container id' "\"$short" -- \
		CNI_CONTAINERID="$hid" -- add net1 "$NSPATH"
	cli_case "CNI_CONTAINERID=\"$short\"" 'container id' "\"$short" -- \
		CNI_CONTAINERID="$hid" -- del net1 "$NSPATH"
done

# ---------------------------------------------------------------- interface
echo "# interface names: ../x, a/b, eth0:1, 16 bytes, ."
for ifn in "../x" "a/b" "eth0:1" "abcdefghijklmnop" "."; do
	hook_ann "NPWG \"interface\": \"$ifn\"" \
		"$(annotations k8s.v1.cni.cncf.io/networks "$(jq -cn --arg i "$ifn" '[{name: "net1", interface: $i}]')")" \
		'annotation "k8s.v1.cni.cncf.io/networks"' "$ifn"
	hook_ann "short form net1@$ifn" "$(annotations io.cnihook.networks "net1@$ifn")" \
		'annotation "io.cnihook.networks"' "$ifn"
	cli_case "CNI_IFNAME=\"$ifn\"" 'interface name' "\"$ifn\"" -- CNI_IFNAME="$ifn" -- \
		add net1 "$NSPATH"
	cli_case "CNI_IFNAME=\"$ifn\"" 'interface name' "\"$ifn\"" -- CNI_IFNAME="$ifn" -- \
		del net1 "$NSPATH"
done

# ---------------------------------------------------------------- network name
echo "# network names: ../x (bait: \$tmp/x.conflist), a/b (bait: \$conf/a/b.conflist)"
for net in "../x" "a/b"; do
	hook_ann "NPWG \"name\": \"$net\"" \
		"$(annotations k8s.v1.cni.cncf.io/networks "$(jq -cn --arg n "$net" '[{name: $n}]')")" \
		'annotation "k8s.v1.cni.cncf.io/networks"' "$net"
	# The short form is [NAMESPACE/]NAME: "a/b" is namespace "a", network
	# "b", which does not exist in confDir (only the bait in a subdirectory).
	if [ "$net" = a/b ]; then want=('network "b" not found'); else want=("$net"); fi
	hook_ann "short form \"$net\"" "$(annotations io.cnihook.networks "$net")" \
		'annotation "io.cnihook.networks"' "${want[@]}"
	for op in add del validate; do
		if [ "$op" = validate ]; then set -- "$net"; else set -- "$net" "$NSPATH"; fi
		cli_case "network \"$net\"" "\"$net\"" -- X=1 -- "$op" "$@"
	done
done

# ---------------------------------------------------------------- netns
echo "# io.cnihook.netns pointing at the host"
ln -s /proc/1/ns/net "$tmp/hostlink"
for p in /proc/1/ns/net /proc/self/ns/net "$tmp/hostlink"; do
	hook_ann "io.cnihook.netns=${p/#$tmp/\$tmp}, default policy" \
		"$(annotations io.cnihook.networks net1 io.cnihook.netns "$p")" \
		'annotation "io.cnihook.netns"' "\"$p\"" 'refused by policy.allowedFields'
done
# The hook compares a namespace with the one of process 1 (the host's). Where
# this test may not look at process 1 (a container without CAP_SYS_PTRACE
# over it), the hook refuses every io.cnihook.netns ("cannot tell whether it
# is the host's"), which would make the cases below pass for that reason
# alone: there, they run in a pid namespace of their own (unshare -p
# --mount-proc, a private mount namespace too), whose process 1 is in this
# test's network namespace: the host's, as far as the hook can tell.
HOOKWRAP=()
if ! stat -L /proc/1/ns/net >/dev/null 2>&1; then
	if unshare -m -p -f --mount-proc true 2>/dev/null; then
		HOOKWRAP=(unshare -m -p -f --mount-proc)
		echo "# /proc/1/ns/net is not readable here: the hook runs in a pid namespace of its own below"
	else
		echo "# /proc/1/ns/net is not readable here and unshare -p fails: the refusals below prove less"
	fi
fi
# With a policy that allows namespaces below $tmp/nsdir: symbolic links
# there to the host's namespace (directly, through /proc/self and through
# another link), a bind mount of the hook's own namespace (this test's, the
# host's) there, and the /proc paths themselves.
ln -s /proc/1/ns/net "$tmp/nsdir/host"
ln -s /proc/self/ns/net "$tmp/nsdir/self"
ln -s "$tmp/hostlink" "$tmp/nsdir/link2"
touch "$tmp/nsdir/bound" "$tmp/nsdir/good"
mount --bind /proc/self/ns/net "$tmp/nsdir/bound"
mount --bind "$NSPATH" "$tmp/nsdir/good"
CFG=$cfg_ns
# The control: our own namespace bind-mounted below $tmp/nsdir is attached
# and detached (one wrapper run, since the pin lives in its mount namespace).
id=nsgood-$uniq
bundle "$id" "$(annotations io.cnihook.networks net1 io.cnihook.netns "$tmp/nsdir/good")"
state "$id" creating >"$tmp/run/st.create"
state "$id" stopped >"$tmp/run/st.stop"
rm -rf "$bin/rec"
run /dev/null "${HOOKWRAP[@]}" bash -c '"$1" --config "$2" createRuntime <"$3" 2>"$5.err"; echo $? >"$5.rc"
	"$1" --config "$2" poststop <"$4"' _ "$CNIHOOK" "$CFG" "$tmp/run/st.create" "$tmp/run/st.stop" \
	"$tmp/run/ctl"
check "control: with the policy, a namespace bind-mounted below the allowed directory is attached" \
	eval '[ "$(cat "$tmp/run/ctl.rc")" = 0 ] && [ ! -s "$tmp/run/ctl.err" ] &&
		grep -qx "CNI_NETNS=$state/$id/netns" "$(ls "$bin"/rec/*-fa-ADD.env 2>/dev/null | head -1)"'
check "control: ... and detached" eval '[ "$rc" = 0 ] && [ "$(all_calls)" = "fa-ADD fa-DEL" ]'
rm -rf "$bin/rec"
for p in "$tmp/nsdir/host" "$tmp/nsdir/self" "$tmp/nsdir/link2" "$tmp/nsdir/bound" \
	/proc/1/ns/net /proc/self/ns/net; do
	hook_ann "io.cnihook.netns=${p/#$tmp/\$tmp}, policy allowing \$tmp/nsdir" \
		"$(annotations io.cnihook.networks net1 io.cnihook.netns "$p")" \
		'annotation "io.cnihook.netns"' "\"$p\"" 'policy.netnsPrefixes'
done
CFG=$cfg
# The container's own namespace being the host's: the config.json path
# (runc joins it: the container shares the host's namespace) or, without a
# path, /proc/PID/ns/net of a state's pid 1. The hook must not put the host
# on a network: cnihook(8), cnihook-annotations(7)
# "CONTAINERS LEFT ALONE" (a container sharing the host's namespace is never
# attached; with a selection annotation the hook fails).
host_ns_case() { # host_ns_case NAME NETNS-PATH|new [PID]
	local name=$1
	n_case=$((n_case + 1))
	id=c$n_case-$uniq
	bundle "$id" "$(annotations io.cnihook.networks net1)" "$2"
	state "$id" creating ${3:+"$3"} >"$tmp/run/st"
	snap
	hookf "$tmp/run/st" createRuntime
	refused "hook createRuntime: $name" "$id createRuntime: "
	if [ "$rc" = 0 ]; then # it attached: detach, so that the rest starts clean
		state "$id" stopped >"$tmp/run/st"
		hookf "$tmp/run/st" poststop
		rm -rf "$bin/rec"
	fi
}
for p in /proc/1/ns/net /proc/self/ns/net "$tmp/hostlink" "$tmp/nsdir/bound"; do
	host_ns_case "config.json network namespace path ${p/#$tmp/\$tmp} (the host's)" "$p"
done
host_ns_case "state pid 1, config.json network namespace without a path (the host's)" new 1
HOOKWRAP=()

# ---------------------------------------------------------------- deep JSON
echo "# 100,000-deep nested JSON"
deep=$(head -c 100000 /dev/zero | tr '\0' '[')$(head -c 100000 /dev/zero | tr '\0' ']')
printf '%s' "$deep" >"$tmp/run/deep.state"
hook_state "a state of 100,000 nested lists" "$tmp/run/deep.state" 'OCI state' 'nested'
printf '{"ociVersion":"1.0.2","id":"deep-%s","status":"creating","bundle":"%s","annotations":{"x":%s}}' \
	"$uniq" "$tmp/bundles/good-bundle-$uniq" "$deep" >"$tmp/run/deep.state"
hook_state "a state with 100,000-deep annotations" "$tmp/run/deep.state" 'OCI state' 'nested'
# In the annotation: 200,000 bytes, above the 64 KiB limit, so refused for its
# size; 30,000 deep (60,000 bytes) is within the size and must be refused for
# its depth.
hook_ann "k8s.v1.cni.cncf.io/networks 100,000 deep" \
	"{\"k8s.v1.cni.cncf.io/networks\":\"$deep\"}" 'annotation "k8s.v1.cni.cncf.io/networks"' \
	'larger than policy.maxAnnotationSize'
deep30=$(head -c 30000 /dev/zero | tr '\0' '[')$(head -c 30000 /dev/zero | tr '\0' ']')
hook_ann "k8s.v1.cni.cncf.io/networks 30,000 deep" \
	"$(annotations k8s.v1.cni.cncf.io/networks "$deep30")" 'annotation "k8s.v1.cni.cncf.io/networks"' \
	'nested'
hook_ann "io.cnihook.ports 30,000 deep" \
	"$(annotations io.cnihook.networks all io.cnihook.ports "$deep30")" 'annotation "io.cnihook.ports"' \
	'nested'
# CAP_ARGS: an environment string is at most 128 KiB, so 65,000 deep (and
# closed), and 100,000 opening brackets (never closed).
cli_case "CAP_ARGS 65,000 deep" 'capability arguments' 'deeper than' -- \
	CAP_ARGS="{\"portMappings\":$(head -c 65000 /dev/zero | tr '\0' '[')$(head -c 65000 /dev/zero | tr '\0' ']')}" \
	-- add all "$NSPATH"
cli_case "CAP_ARGS 100,000 open brackets" 'capability arguments' -- \
	CAP_ARGS="{\"portMappings\":$(head -c 100000 /dev/zero | tr '\0' '[')" -- add all "$NSPATH"
# A network configuration file: refused naming the file, never run.
mkdir -p "$tmp/cf/deep"
printf '{"cniVersion":"1.0.0","name":"deep","plugins":[{"type":"fa","x":%s}]}' "$deep" \
	>"$tmp/cf/deep/10-deep.conflist"
cli_case "a 100,000-deep network configuration" "10-deep.conflist" -- \
	NETCONFPATH="$tmp/cf/deep" -- validate
cli_case "a 100,000-deep network configuration" "10-deep.conflist" -- \
	NETCONFPATH="$tmp/cf/deep" -- validate deep
cli_case "a 100,000-deep network configuration" "10-deep.conflist" -- \
	NETCONFPATH="$tmp/cf/deep" -- add deep "$NSPATH"
# config.json itself
n_case=$((n_case + 1))
id=c$n_case-$uniq
mkdir -p "$tmp/bundles/$id"
printf '{"ociVersion":"1.0.2","annotations":{"io.cnihook.networks":"net1"},"x":%s}' "$deep" \
	>"$tmp/bundles/$id/config.json"
state "$id" creating >"$tmp/run/st"
snap
hookf "$tmp/run/st" createRuntime
refused "hook createRuntime: a 100,000-deep config.json" "$tmp/bundles/$id/config.json" 'nested'
# HOOK.md: every failure reads "cnihook: <id> createRuntime: ..."; the id is
# known once the state is read, before config.json is.
"$CNIHOOK" --config "$cfg" createRuntime <"$tmp/run/st" >/dev/null 2>"$tmp/run/err2"
check "an error in config.json names the container id (\"cnihook: <id> createRuntime: ...\")" \
	grep -qF "$id createRuntime: " "$tmp/run/err2"

# ---------------------------------------------------------------- size
echo "# 10 MB"
mkdir -p "$tmp/big"
head -c 10000000 /dev/zero | tr '\0' a >"$tmp/big/a"
n_case=$((n_case + 1))
id=c$n_case-$uniq
mkdir -p "$tmp/bundles/$id"
{
	printf '{"ociVersion":"1.0.2","linux":{"namespaces":[{"type":"network","path":"%s"}]},' "$NSPATH"
	printf '"annotations":{"io.cnihook.networks":"net1,'
	cat "$tmp/big/a"
	printf '"}}'
} >"$tmp/bundles/$id/config.json"
state "$id" creating >"$tmp/run/st"
snap
hookf "$tmp/run/st" createRuntime
refused "hook createRuntime: a 10 MB io.cnihook.networks in config.json" "$id createRuntime: " \
	'annotation "io.cnihook.networks"' 'maxAnnotationSize'
{
	printf '{"ociVersion":"1.0.2","id":"big-%s","status":"creating","bundle":"%s",' \
		"$uniq" "$tmp/bundles/good-bundle-$uniq"
	printf '"annotations":{"io.cnihook.networks":"net1","org.example.pad":"'
	cat "$tmp/big/a"
	printf '"}}'
} >"$tmp/big/state"
hook_state "a 10 MB OCI state" "$tmp/big/state" 'OCI state' 'MiB'
{
	printf '{"ociVersion":"1.0.2","id":"big-%s","status":"creating","bundle":"%s",' \
		"$uniq" "$tmp/bundles/good-bundle-$uniq"
	printf '"annotations":{"k8s.v1.cni.cncf.io/networks":"'
	head -c 500000 "$tmp/big/a"
	printf '"}}'
} >"$tmp/big/state"
snap
hookf "$tmp/big/state" createRuntime
refused "hook createRuntime: a 500 kB annotation in the state" 'annotation "k8s.v1.cni.cncf.io/networks"' \
	'maxAnnotationSize'
rm -rf "$tmp/big"

# ---------------------------------------------------------------- UTF-8, NUL
echo "# invalid UTF-8, NUL bytes"
b=$tmp/bundles/good-bundle-$uniq
printf '{"ociVersion":"1.0.2","id":"u\xff-%s","status":"creating","bundle":"%s"}' "$uniq" "$b" \
	>"$tmp/run/st"
hook_state "invalid UTF-8 in the state's id" "$tmp/run/st" 'OCI state' 'UTF'
printf '{"ociVersion":"1.0.2","id":"u-%s","status":"creating","bundle":"%s","annotations":{"io.cnihook.networks":"net\xc0\xae1"}}' \
	"$uniq" "$b" >"$tmp/run/st"
snap
hookf "$tmp/run/st" createRuntime
refused "hook createRuntime: invalid UTF-8 (overlong) in a state annotation" "u-$uniq createRuntime: " \
	'annotation "io.cnihook.networks"' 'UTF-8'
snap
sed 's/"status":"creating"/"status":"stopped"/' "$tmp/run/st" >"$tmp/run/st.stop"
hookf "$tmp/run/st.stop" poststop
harmless "hook poststop: ... (annotations are not read at poststop)"
# config.json with raw invalid bytes in a network name
n_case=$((n_case + 1))
id=c$n_case-$uniq
bundle "$id" "$(annotations io.cnihook.networks NETNAME)"
sed -i "s/NETNAME/net\xff1/" "$tmp/bundles/$id/config.json"
state "$id" creating >"$tmp/run/st"
snap
hookf "$tmp/run/st" createRuntime
refused "hook createRuntime: invalid UTF-8 in a network name (config.json)" \
	"$tmp/bundles/$id/config.json" 'UTF'
# a lone surrogate escape decodes to no valid UTF-8
hook_ann "a lone surrogate (\\ud800) in a network name" \
	'{"io.cnihook.networks":"net\ud8001"}' 'io.cnihook.networks'
cli_case "invalid UTF-8 in the network name argument" 'network' -- X=1 -- add $'net\xff1' "$NSPATH"
cli_case "invalid UTF-8 in the network name argument" 'network' -- X=1 -- del $'net\xff1' "$NSPATH"
cli_case "invalid UTF-8 in CAP_ARGS" 'capability arguments' 'UTF8' -- CAP_ARGS=$'{"mac":"\xff"}' -- add all "$NSPATH"
cli_case "invalid UTF-8 and no '=' in CNI_ARGS" 'CNI_ARGS' -- CNI_ARGS=$'\xff' -- add net1 "$NSPATH"
printf '{"ociVersion":"1.0.2","id":"n-%s\0","status":"creating","bundle":"%s"}' "$uniq" "$b" \
	>"$tmp/run/st"
hook_state "a raw NUL in the state" "$tmp/run/st" 'OCI state' 'NUL'
printf '{"ociVersion":"1.0.2","id":"n-%s\\u0000x","status":"creating","bundle":"%s"}' "$uniq" "$b" \
	>"$tmp/run/st"
hook_state "an escaped NUL (\\u0000) in the state's id" "$tmp/run/st" 'OCI state' 'NUL'
hook_ann "an escaped NUL (\\u0000) in an NPWG name" \
	'{"k8s.v1.cni.cncf.io/networks":"[{\"name\":\"net1\\u0000x\"}]"}' \
	'annotation "k8s.v1.cni.cncf.io/networks"' 'NUL'
hook_ann "an escaped NUL (\\u0000) in io.cnihook.networks" \
	'{"io.cnihook.networks":"net1\u0000x"}' 'config.json' 'NUL'

# ---------------------------------------------------------------- duplicate keys
echo "# duplicate keys"
printf '{"ociVersion":"1.0.2","id":"d-%s","id":"../../etc/x","status":"creating","bundle":"%s"}' \
	"$uniq" "$b" >"$tmp/run/st"
hook_state "duplicate key \"id\" in the state" "$tmp/run/st" 'OCI state' 'duplicate' '"id"'
hook_ann "duplicate key in an NPWG object" \
	"$(annotations k8s.v1.cni.cncf.io/networks '[{"name":"net1","name":"net2"}]')" \
	'annotation "k8s.v1.cni.cncf.io/networks"' 'duplicate' '"name"'
hook_ann "duplicate key in io.cnihook.ports (JSON)" \
	"$(annotations io.cnihook.networks all io.cnihook.ports '[{"hostPort":8080,"containerPort":80,"containerPort":81}]')" \
	'annotation "io.cnihook.ports"' 'duplicate' '"containerPort"'
n_case=$((n_case + 1))
id=c$n_case-$uniq
mkdir -p "$tmp/bundles/$id"
printf '{"ociVersion":"1.0.2","annotations":{"io.cnihook.networks":"net1","io.cnihook.networks":"net2"},"linux":{"namespaces":[{"type":"network","path":"%s"}]}}' \
	"$NSPATH" >"$tmp/bundles/$id/config.json"
state "$id" creating >"$tmp/run/st"
snap
hookf "$tmp/run/st" createRuntime
refused "hook createRuntime: duplicate annotation key in config.json" \
	"$tmp/bundles/$id/config.json" 'duplicate' '"io.cnihook.networks"'
cli_case "duplicate key in CAP_ARGS" 'capability arguments' 'duplicate key "mac"' -- \
	CAP_ARGS='{"mac":"02:00:00:00:00:01","mac":"02:00:00:00:00:02"}' -- add all "$NSPATH"
mkdir -p "$tmp/cf/dup"
echo '{"cniVersion":"1.0.0","name":"dup","name":"net1","plugins":[{"type":"fa"}]}' \
	>"$tmp/cf/dup/10-dup.conflist"
for a in "validate" "validate dup" "validate net1" "add dup $NSPATH" "add net1 $NSPATH"; do
	# shellcheck disable=SC2086
	cli_case "a network configuration with \"name\" twice" '10-dup.conflist' -- \
		NETCONFPATH="$tmp/cf/dup" -- $a
done

# ---------------------------------------------------------------- ports
echo "# ports"
for port in 0 65536 -1 1e3 08 ""; do
	hook_ann "io.cnihook.ports container port \"$port\"" \
		"$(annotations io.cnihook.networks all io.cnihook.ports "8080:$port")" \
		'annotation "io.cnihook.ports"' "\"8080:$port\""
	hook_ann "io.cnihook.ports host port \"$port\"" \
		"$(annotations io.cnihook.networks all io.cnihook.ports "$port:80")" \
		'annotation "io.cnihook.ports"' "\"$port:80\""
	# JSON: numbers as written (a raw 08 or an empty value is not JSON at
	# all), and as strings.
	for v in "$port" "\"$port\""; do
		hook_ann "io.cnihook.ports JSON containerPort $v" \
			"$(annotations io.cnihook.networks all io.cnihook.ports \
				"[{\"hostPort\":8080,\"containerPort\":$v}]")" \
			'annotation "io.cnihook.ports"'
	done
done

# ---------------------------------------------------------------- MAC
echo "# MAC addresses"
for mac in zz:00:00:00:00:00 01:00:5e:00:00:01 00:00:00:00:00:00 aa:bb:cc:dd:ee; do
	hook_ann "io.cnihook.mac=$mac" "$(annotations io.cnihook.networks all io.cnihook.mac "$mac")" \
		'annotation "io.cnihook.mac"' "$mac"
	hook_ann "NPWG \"mac\": \"$mac\"" \
		"$(annotations k8s.v1.cni.cncf.io/networks "[{\"name\":\"all\",\"mac\":\"$mac\"}]")" \
		'annotation "k8s.v1.cni.cncf.io/networks"' '"mac"' "$mac"
done

# ---------------------------------------------------------------- CIDR
echo "# addresses"
for cidr in 10.0.0.1/33 10.0.0.256/24 fd00::1/129 10.0.0.1 fe80::1%eth0/64; do
	hook_ann "io.cnihook.ips=$cidr" "$(annotations io.cnihook.networks all io.cnihook.ips "$cidr")" \
		'annotation "io.cnihook.ips"' "$cidr"
	[ "$cidr" = 10.0.0.1 ] && continue # the JSON form allows no prefix
	hook_ann "NPWG \"ips\": [\"$cidr\"]" \
		"$(annotations k8s.v1.cni.cncf.io/networks "[{\"name\":\"all\",\"ips\":[\"$cidr\"]}]")" \
		'annotation "k8s.v1.cni.cncf.io/networks"' '"ips"' "$cidr"
done
hook_ann "NPWG \"default-route\": [\"fe80::1%eth0\"]" \
	"$(annotations k8s.v1.cni.cncf.io/networks '[{"name":"all","default-route":["fe80::1%eth0"]}]')" \
	'annotation "k8s.v1.cni.cncf.io/networks"' '"default-route"'
hook_ann "io.cnihook.ports host IP with a zone" \
	"$(annotations io.cnihook.networks all io.cnihook.ports '[fe80::1%eth0]:8080:80')" \
	'annotation "io.cnihook.ports"' 'fe80::1%eth0'

# ---------------------------------------------------------------- plugin type
echo "# a plugin type with a slash (bait scripts write a marker when run)"
# CNI_PATH is $tmp/p/q/bin: "../../bin/sh" from there is $tmp/p/bin/sh, "a/b"
# is $tmp/p/q/bin/a/b. The CLI runs in $tmp/w/a/b, where the same names lead
# to $tmp/w/a/b/../../bin/sh = $tmp/w/bin/sh and $tmp/w/a/b/a/b.
pbin=$tmp/p/q/bin
mkdir -p "$pbin" "$tmp/w/a/b"
cp "$FAKEPLUGIN" "$pbin/fa"
marker "$tmp/p/bin/sh" "sh-from-binDir"
marker "$pbin/a/b" "a-b-from-binDir"
marker "$tmp/w/bin/sh" "sh-from-cwd"
marker "$tmp/w/a/b/a/b" "a-b-from-cwd"
for t in "../../bin/sh" "a/b"; do
	d=$tmp/cf/type-${t//[^a-z]/}
	mkdir -p "$d"
	jq -n --arg t "$t" '{cniVersion: "1.0.0", name: "tnet", plugins: [{type: "fa"}, {type: $t}]}' \
		>"$d/10-tnet.conflist"
	for a in "validate" "validate tnet" "add tnet $NSPATH" "del tnet $NSPATH"; do
		snap
		# shellcheck disable=SC2086
		(cd "$tmp/w/a/b" && NETCONFPATH=$d CNI_PATH=$pbin "$CNIHOOK" $a) \
			>"$tmp/run/out" 2>"$tmp/run/err" </dev/null
		rc=$? out=$(cat "$tmp/run/out") err=$(cat "$tmp/run/err")
		err_bytes=$(wc -c <"$tmp/run/err") err_lines=$(wc -l <"$tmp/run/err")
		refused "cli $a: plugin type \"$t\"" "$d/10-tnet.conflist" 'field "plugins[1].type"' \
			"must not contain '/'"
	done
	# The hook, with that confDir and binDir.
	jq --arg c "$d" --arg b "$pbin" '. + {confDir: $c, binDirs: [$b]}' "$cfg" >"$tmp/cfg-type.json"
	CFG=$tmp/cfg-type.json
	n_case=$((n_case + 1))
	id=c$n_case-$uniq
	bundle "$id" "$(annotations io.cnihook.networks tnet)"
	state "$id" creating >"$tmp/run/st"
	snap
	(cd "$tmp/w/a/b" && "$CNIHOOK" --config "$CFG" createRuntime) \
		<"$tmp/run/st" >"$tmp/run/out" 2>"$tmp/run/err"
	rc=$? out=$(cat "$tmp/run/out") err=$(cat "$tmp/run/err")
	err_bytes=$(wc -c <"$tmp/run/err") err_lines=$(wc -l <"$tmp/run/err")
	# fakeplugin fa is in $pbin: its recordings go to $pbin/rec
	[ -e "$pbin/rec" ] && { mv "$pbin/rec" "$bin/rec"; }
	refused "hook createRuntime: plugin type \"$t\"" "$id createRuntime: " "$d/10-tnet.conflist" \
		'field "plugins[1].type"' "must not contain '/'"
	CFG=$cfg
done

# ---------------------------------------------------------------- the end
echo "# the host, before and after"
check "the test's temp tree holds no mount but those we made" \
	test -z "$(awk -v p="$tmp/" 'index($5, p) == 1 && $5 !~ /\/nsdir\/(bound|good)$/ &&
		$5 != p "r/s/state"' /proc/self/mountinfo)"
umount_under "$tmp"
ip netns delete "$NS"
check "our network namespace is removed" test ! -e "$NSPATH"
sleep 0.01
host_snapshot "$tmp/host.after"
# The lines that could be ours (see ours above).
OURS_RE="$uniq|$tmp|/x\\b|/x\\.lock|a/b|\\.\\./|eth0:1|abcdefghijklmno"
compare_host link "ip -o link"
compare_host addr "ip -o addr"
compare_host route4 "ip route show table all"
compare_host route6 "ip -6 route show table all"
compare_host rule4 "ip rule"
compare_host rule6 "ip -6 rule"
compare_host iptables "iptables-save (no counters)"
compare_host ip6tables "ip6tables-save (no counters)"
compare_host dirs "ls -laR of /etc/cni/net.d, /var/lib/cni, /run/netns, /run/cnihook"
compare_host targets "no file where the traversals would lead from the default directories"
compare_host newer "nothing newer than the start in /etc/cni, /var/lib/cni, /run/cnihook"

finish
