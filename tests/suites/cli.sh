#!/bin/bash
# The operator CLI (cnihook(8)) against recording fake plugins: environment,
# exit codes, the one-line error, the cnitool container id, validate, and
# the damaged cache entries that list and gc report.
# Some checks are eval'd single-quoted strings, expanded when run.
# shellcheck disable=SC2016
set -uo pipefail
: "${CNIHOOK:?}" "${FAKEPLUGIN:?}"

# add, check, del, validate and gc need root (their plugins change the
# host's networking); the checks below that they refuse others run as nobody.
if [ "$(id -u)" != 0 ]; then
	# TAP (tests/harness/lib.sh): a skip, a failure under CNIHOOK_NO_SKIP=1.
	[ "${CNIHOOK_NO_SKIP:-0}" != 1 ] ||
		{ printf 'not ok 1 - would skip (CNIHOOK_NO_SKIP=1): needs root\n1..1\n'; exit 1; }
	echo "1..0 # SKIP needs root (add, check, del, validate and gc refuse other users)"
	exit 0
fi
tmp=$(mktemp -d)
pub=$(mktemp -d)
chmod 755 "$pub"
trap 'rm -rf "$tmp" "$pub"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $1"; }
check() { # check NAME CMD...: the command must succeed
	local name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

bin=$tmp/bin conf=$tmp/net.d
mkdir -p "$bin" "$conf"
for p in alpha beta; do cp "$FAKEPLUGIN" "$bin/$p"; done
cat > "$conf/10-two.conflist" <<'EOF'
{"cniVersion":"1.0.0","name":"two","plugins":[
 {"type":"alpha","capabilities":{"portMappings":true}},
 {"type":"beta","big":12345678901234567890}]}
EOF
cat > "$conf/20-old.conf" <<'EOF'
{"cniVersion":"0.3.1","name":"old","type":"alpha"}
EOF
echo '{"cniVersion":"1.0.0","name":"broken","plugins":[{"type":"a/b"}]}' > "$conf/30-broken.conflist"

export NETCONFPATH=$conf CNI_PATH=$bin CNI_CACHE_DIR=$tmp/cache
unset CNI_CONTAINERID CNI_ARGS CAP_ARGS CNI_IFNAME

# add prints the result and caches it under the cnitool container id.
out=$("$CNIHOOK" add two /run/netns/clitest 2>"$tmp/err")
check "add exits 0" test $? = 0
check "add prints a result" grep -q '"10.99.0.2/24"' <<<"$out"
check "add is quiet on stderr" test ! -s "$tmp/err"
id=cnitool-$(printf %s /run/netns/clitest | sha512sum | cut -c1-20)
check "container id is cnitool's (sha512 of the netns path)" test -f "$tmp/cache/results/two-$id-eth0"
env_file=$(ls "$bin"/rec/*-alpha-ADD.env | head -1)
check "plugin got CNI_CONTAINERID=$id" grep -qx "CNI_CONTAINERID=$id" "$env_file"
check "plugin got CNI_IFNAME=eth0 by default" grep -qx "CNI_IFNAME=eth0" "$env_file"
check "plugin got CNI_PATH" grep -qx "CNI_PATH=$bin" "$env_file"
check "plugin got the caller's PATH" grep -qxF "PATH=$PATH" "$env_file"
check "beta got the big number byte-exact" grep -q '"big":12345678901234567890' "$(ls "$bin"/rec/*-beta-ADD.stdin | head -1)"

# CNI_ARGS, CAP_ARGS, CNI_IFNAME, CNI_CONTAINERID are passed on.
rm -rf "$bin/rec"
CNI_CONTAINERID=ctr1 CNI_IFNAME=net1 CNI_ARGS='A=1;B=two' \
CAP_ARGS='{"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"}],"mac":"x"}' \
	"$CNIHOOK" add two /run/netns/clitest >/dev/null
env_file=$(ls "$bin"/rec/*-alpha-ADD.env | head -1)
check "CNI_ARGS passed" grep -qx "CNI_ARGS=A=1;B=two" "$env_file"
check "CNI_IFNAME passed" grep -qx "CNI_IFNAME=net1" "$env_file"
check "declared capability in runtimeConfig" grep -q '"runtimeConfig":{"portMappings"' "$(ls "$bin"/rec/*-alpha-ADD.stdin | head -1)"
check "undeclared capability not passed" bash -c '! grep -q "\"mac\"" "$0"' "$(ls "$bin"/rec/*-alpha-ADD.stdin | head -1)"
CNI_CONTAINERID=ctr1 CNI_IFNAME=net1 "$CNIHOOK" check two /run/netns/clitest
check "check exits 0" test $? = 0
CNI_CONTAINERID=ctr1 CNI_IFNAME=net1 "$CNIHOOK" del two /run/netns/clitest
check "del exits 0" test $? = 0
check "del removed the cache entry" test ! -e "$tmp/cache/results/two-ctr1-net1"
CNI_CONTAINERID=ctr1 CNI_IFNAME=net1 "$CNIHOOK" del two /run/netns/clitest
check "del twice exits 0" test $? = 0
"$CNIHOOK" del two /run/netns/clitest
check "del of the first attachment" test ! -e "$tmp/cache/results/two-$id-eth0"

# The W3C trace context reaches the plugins, as libcni passes it; nothing
# else of the caller's environment does.
rm -rf "$bin/rec"
TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 TRACESTATE=k=v \
	BAGGAGE=user=1 CNIHOOK_TEST_OTHER=x "$CNIHOOK" add two /run/netns/clitest >/dev/null
env_file=$(ls "$bin"/rec/*-alpha-ADD.env | head -1)
check "TRACEPARENT passed to the plugin" \
	grep -qx "TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" "$env_file"
check "TRACESTATE and BAGGAGE passed" eval 'grep -qx TRACESTATE=k=v "$env_file" && grep -qx BAGGAGE=user=1 "$env_file"'
check "no other variable of the caller's passed" bash -c '! grep -q CNIHOOK_TEST_OTHER "$0"' "$env_file"
"$CNIHOOK" del two /run/netns/clitest

# CNIHOOK_PLUGIN_TIMEOUT (seconds): a plugin that hangs is killed after it;
# a value that is not a number of seconds is warned about and the default
# (60 s) stays.
echo 'sleep-ms=20000' >"$bin/beta.ADD"
start=$(date +%s%N)
CNIHOOK_PLUGIN_TIMEOUT=1 "$CNIHOOK" add two /run/netns/clitest >/dev/null 2>"$tmp/err"
rc=$? ms=$((($(date +%s%N) - start) / 1000000))
check "CNIHOOK_PLUGIN_TIMEOUT=1: the hanging plugin is killed, add fails (${ms} ms)" \
	eval '[ $rc = 1 ] && [ $ms -lt 10000 ] && grep -q "plugin \"beta\"" "$tmp/err"'
check "... and names the timeout" grep -q "timed out after 1000 ms" "$tmp/err"
check "... nothing cached" test -z "$(ls "$tmp/cache/results" 2>/dev/null)"
rm -f "$bin/beta.ADD"
# strtoul would take white space, a sign, and wrap a negative value
for v in soon -0 +60 ' 60' -18446744073709551615 86400; do
	CNIHOOK_PLUGIN_TIMEOUT=$v "$CNIHOOK" add two /run/netns/clitest >/dev/null 2>"$tmp/err"
	rc=$?
	check "CNIHOOK_PLUGIN_TIMEOUT='$v': a warning naming it, and the add goes on" \
		eval '[ $rc = 0 ] && grep -qF "CNIHOOK_PLUGIN_TIMEOUT=\"$v\" is not a number of seconds" "$tmp/err"'
	"$CNIHOOK" del two /run/netns/clitest
done

# Without a PATH (or with an empty one) the plugins get a system default.
for how in "env -u PATH" "env PATH="; do
	rm -rf "$bin/rec"
	$how "$CNIHOOK" add two /run/netns/clitest >/dev/null 2>"$tmp/err"
	env_file=$(ls "$bin"/rec/*-alpha-ADD.env 2>/dev/null | head -1)
	check "$how: the plugin's PATH is the default" \
		grep -qx "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$env_file"
	"$CNIHOOK" del two /run/netns/clitest
done

# Without NETCONFPATH the networks come from the confDir of cnihook.json
# (--config, else CNIHOOK_CONFIG, else the default file), where the hook
# finds them; NETCONFPATH, when set, wins.
mkdir -p "$tmp/empty.d"
printf '{"confDir": "%s"}\n' "$conf" >"$tmp/confdir.json"
printf '{"confDir": "%s"}\n' "$tmp/empty.d" >"$tmp/empty.json"
env -u NETCONFPATH CNIHOOK_CONFIG="$tmp/confdir.json" "$CNIHOOK" add two /run/netns/clitest \
	>/dev/null 2>"$tmp/err"
check "no NETCONFPATH: add finds the network in cnihook.json's confDir" test $? = 0
check "... the entry is cached" test -f "$tmp/cache/results/two-$id-eth0"
env -u NETCONFPATH "$CNIHOOK" --config "$tmp/confdir.json" validate two >"$tmp/out" 2>&1
check "no NETCONFPATH: validate reads the confDir of --config" grep -qF "$conf/10-two.conflist" "$tmp/out"
env -u NETCONFPATH CNIHOOK_CONFIG="$tmp/confdir.json" "$CNIHOOK" del two /run/netns/clitest
check "no NETCONFPATH: del, from the same confDir" test ! -e "$tmp/cache/results/two-$id-eth0"
env -u NETCONFPATH CNIHOOK_CONFIG="$tmp/empty.json" "$CNIHOOK" add two /run/netns/clitest \
	>/dev/null 2>"$tmp/err"
rc=$?
check "no NETCONFPATH, a confDir without the network: add fails naming that directory" \
	eval '[ $rc = 1 ] && grep -qF "network \"two\" not found in $tmp/empty.d" "$tmp/err"'
CNIHOOK_CONFIG="$tmp/empty.json" "$CNIHOOK" validate two >"$tmp/out" 2>&1
check "NETCONFPATH set: it wins over confDir" grep -qF "$conf/10-two.conflist" "$tmp/out"

# Without CNI_CACHE_DIR and CNI_PATH the cache and the plugins are those of
# cnihook.json (cacheDir, binDirs), where the hook caches its attachments:
# check and del of an attachment find its entry there. Set, they win.
mkdir -p "$tmp/private"
jq -n --arg c "$conf" --arg b "$bin" --arg k "$tmp/private/cache" \
	'{confDir: $c, binDirs: [$b], cacheDir: $k}' >"$tmp/paths.json"
rm -rf "$bin/rec"
env -u NETCONFPATH -u CNI_PATH -u CNI_CACHE_DIR "$CNIHOOK" --config "$tmp/paths.json" \
	add two /run/netns/clitest >/dev/null 2>"$tmp/err"
rc=$?
check "no CNI_CACHE_DIR: add caches in cnihook.json's cacheDir" \
	eval 'test $rc = 0 && test -f "$tmp/private/cache/results/two-$id-eth0" &&
		test ! -e "$tmp/cache/results/two-$id-eth0"'
check "no CNI_PATH: the plugins come from binDirs (CNI_PATH=$bin)" \
	grep -qx "CNI_PATH=$bin" "$(ls "$bin"/rec/*-alpha-ADD.env | head -1)"
rm -rf "$bin/rec"
env -u NETCONFPATH -u CNI_PATH -u CNI_CACHE_DIR "$CNIHOOK" --config "$tmp/paths.json" \
	check two /run/netns/clitest 2>"$tmp/err"
rc=$?
check "no CNI_CACHE_DIR: check finds the entry in cacheDir" \
	eval 'test $rc = 0 && grep -q "\"prevResult\"" "$(ls "$bin"/rec/*-alpha-CHECK.stdin | head -1)"'
CNI_CACHE_DIR=$tmp/cache "$CNIHOOK" --config "$tmp/paths.json" check two /run/netns/clitest \
	2>"$tmp/err"
rc=$?
check "CNI_CACHE_DIR set: it wins over cacheDir (no cached result there)" \
	eval '[ $rc = 1 ] && grep -q "no cached result" "$tmp/err"'
env -u NETCONFPATH -u CNI_PATH -u CNI_CACHE_DIR "$CNIHOOK" --config "$tmp/paths.json" \
	del two /run/netns/clitest 2>"$tmp/err"
rc=$?
check "no CNI_CACHE_DIR: del removes the entry from cacheDir" \
	eval 'test $rc = 0 && test ! -e "$tmp/private/cache/results/two-$id-eth0"'

# Failures: one line on stderr naming network, plugin, code, message, details.
printf 'exit=1\nstdout={"cniVersion":"1.0.0","code":7,"msg":"bad bridge","details":"no such thing"}\n' > "$bin/beta.ADD"
"$CNIHOOK" add two /run/netns/clitest >"$tmp/out" 2>"$tmp/err"
check "failed add exits 1" test $? = 1
check "error is one line" test "$(wc -l < "$tmp/err")" = 1
check "error line names everything" grep -qx 'cnihook: add network "two": plugin "beta": CNI error 7: bad bridge (no such thing)' "$tmp/err"
check "failed add prints no result" test ! -s "$tmp/out"
check "failed add left no cache entry" test -z "$(ls "$tmp/cache/results" 2>/dev/null)"
rm -f "$bin/beta.ADD"

"$CNIHOOK" add nosuch /run/netns/clitest 2>"$tmp/err"
check "unknown network exits 1" test $? = 1
check "unknown network is named, broken file reported" grep -q 'network "nosuch" not found.*30-broken.conflist' "$tmp/err"
CNI_ARGS='novalue' "$CNIHOOK" add two /run/netns/clitest 2>"$tmp/err"
check "bad CNI_ARGS exits 1" test $? = 1
check "bad CNI_ARGS is named" grep -q 'CNI_ARGS' "$tmp/err"
# As cnitool: each pair is one non-empty key, one "=", a non-empty value.
for bad in 'A=1;;B=2' 'A=1;' 'K=V=W' '=v' 'k='; do
	CNI_ARGS=$bad "$CNIHOOK" add two /run/netns/clitest 2>"$tmp/err"
	rc=$?
	check "CNI_ARGS='$bad' is refused, naming the pair" \
		eval '[ $rc = 1 ] && grep -q "CNI_ARGS: .* is not a KEY=VALUE pair" "$tmp/err"'
done
CNI_CONTAINERID=../../etc "$CNIHOOK" del two /run/netns/clitest 2>"$tmp/err"
check "path traversal in the container id is refused" test $? = 1
check "refusal names the container id" grep -q 'container id "../../etc"' "$tmp/err"
CNI_IFNAME=a/b "$CNIHOOK" add two /run/netns/clitest 2>"$tmp/err"
check "bad interface name is refused" grep -q 'interface name "a/b"' "$tmp/err"
CAP_ARGS='[1]' "$CNIHOOK" add two /run/netns/clitest 2>"$tmp/err"
check "CAP_ARGS that is not an object is refused" grep -q 'capability arguments' "$tmp/err"
"$CNIHOOK" add two 2>/dev/null
check "missing argument exits 2" test $? = 2
"$CNIHOOK" frobnicate 2>/dev/null
check "unknown command exits 2" test $? = 2
# A usage error names the argument at fault.
usage_names() { # usage_names NAME NEEDLE ARGS...: exit 2, NEEDLE on stderr
	local name=$1 needle=$2
	shift 2
	"$CNIHOOK" "$@" >/dev/null 2>"$tmp/err"
	u_rc=$?
	check "$name: exit 2, naming $needle" eval '[ "$u_rc" = 2 ] && grep -qF -- "$needle" "$tmp/err"'
}
usage_names "an extra argument to add" '"extra"' add two /run/netns/clitest extra
usage_names "two networks to validate" '"b"' validate a b
usage_names "an argument to version" '"x"' version x
usage_names "an argument after --version" '"x"' --version x
usage_names "--config without its FILE" '--config: expected a FILE' --config
usage_names "--config= empty" '--config: expected a FILE' --config= list
usage_names "an argument after a stage" '"extra"' createRuntime extra
printf '{,}' >"$tmp/broken.json"
usage_names "an argument after a stage, the configuration broken" '"extra"' \
	--config "$tmp/broken.json" poststop extra
check "no attachment left behind by the failures" test -z "$(ls "$tmp/cache/results" 2>/dev/null)"

# CHECK needs 0.4.0 (a 0.3.1 single-plugin .conf wrapped into a list).
"$CNIHOOK" add old /run/netns/clitest >/dev/null
check "add to a wrapped .conf network" test $? = 0
"$CNIHOOK" check old /run/netns/clitest 2>"$tmp/err"
check "check of a 0.3.1 network exits 1" test $? = 1
check "check of 0.3.1 says why" grep -q 'CNI error 1: CHECK needs a network of version 0.4.0' "$tmp/err"
"$CNIHOOK" del old /run/netns/clitest
check "del of the 0.3.1 network" test $? = 0

# validate
"$CNIHOOK" validate two >"$tmp/out"
check "validate NETWORK" grep -q 'network "two" (version 1.0.0, 2 plugins): ok' "$tmp/out"
"$CNIHOOK" validate >"$tmp/out" 2>"$tmp/err"
check "validate all exits 1 with a broken file" test $? = 1
check "validate all reports the broken file" grep -q '30-broken.conflist' "$tmp/err"
check "validate all still validates the others" test "$(grep -c ': ok$' "$tmp/out")" = 2
echo 'versions=0.4.0' > "$bin/beta.VERSION"
"$CNIHOOK" validate two 2>"$tmp/err"
check "validate names the plugin that lacks the version" grep -q 'plugin "beta": CNI error 1: does not support version 1.0.0' "$tmp/err"

# Damaged cache entries (cnihook(8), OPERATIONS): `list` and `gc` name each
# file of <cacheDir>/results that is not a readable entry, on stderr, with
# its problem; stdout and the exit status stay as they were. They read the
# hook's configuration, not the cnitool environment.
rm -f "$bin/beta.VERSION"
state=$tmp/state results=$tmp/cache/results cfg=$tmp/cnihook.json
mkdir -p "$state"
printf '{"confDir":"%s","binDirs":["%s"],"cacheDir":"%s","stateDir":"%s","log":{"syslog":false},"sandbox":{"enabled":false}}\n' \
	"$conf" "$bin" "$tmp/cache" "$state" >"$cfg"
"$CNIHOOK" add two /run/netns/clitest >/dev/null
check "(an attachment to list)" test -f "$results/two-$id-eth0"
# The AGE column (now followed by GC) may tick between two lists.
no_age() { sed -E 's/ +[0-9]+[smhd]( +|$)/ /; s/"ageSeconds":[0-9]+/"ageSeconds":N/g' "$@"; }
"$CNIHOOK" --config "$cfg" list >"$tmp/list.before" 2>"$tmp/err"
rc=$?
check "list without damage: exit 0, quiet" eval '[ "$rc" = 0 ] && [ ! -s "$tmp/err" ]'
"$CNIHOOK" --config "$cfg" list --json >"$tmp/json.before" 2>/dev/null
printf '{"kind":"cniCacheV1","containerId":"x",' >"$results/two-corrupt-eth0"
: >"$results/two-empty-eth0"
printf '{' >"$results/.two-tmp-eth0.tmpAbCdEf"

"$CNIHOOK" --config "$cfg" list >"$tmp/out" 2>"$tmp/err"
check "list with damaged entries exits 0" test $? = 0
check "list stdout is unchanged" cmp -s <(no_age "$tmp/list.before") <(no_age "$tmp/out")
check "list still shows the good entry" grep -q "^cnitool-.* two .* eth0 " "$tmp/out"
check "list names the corrupt file, its full path and problem" grep -qxE \
	"cnihook: list: damaged cache entry \"$results/two-corrupt-eth0\": invalid JSON near byte [0-9]+: parse error: premature EOF" "$tmp/err"
check "list names the empty file" grep -qxF \
	"cnihook: list: damaged cache entry \"$results/two-empty-eth0\": empty file" "$tmp/err"
check "list reports those two only (not the temp file)" test "$(wc -l <"$tmp/err")" = 2
"$CNIHOOK" --config "$cfg" list --json >"$tmp/out" 2>"$tmp/err2"
rc=$?
check "list --json exits 0, JSON unchanged" eval '[ "$rc" = 0 ] && cmp -s <(no_age "$tmp/json.before") <(no_age "$tmp/out")'
check "list --json reports the same on stderr" cmp -s "$tmp/err" "$tmp/err2"

# gc: a container attached by the hook (its record names network "two" on
# eth0) whose cache entry is corrupt: its teardown, from the record, removes
# the entry, which is then not reported. The two damaged files above name
# no container gc can read: left in place, with a warning. The cnitool
# attachment's namespace does not exist: gone, detached from the cache.
mkdir "$state/ctrrec"
printf '%s\n' '{"version":1,"id":"ctrrec","netns":"","attachments":[{"network":"two","ifname":"eth0","default":true,"config":"{\"cniVersion\":\"1.0.0\",\"name\":\"two\",\"plugins\":[{\"type\":\"alpha\"}]}","cniArgs":[]}]}' \
	>"$state/ctrrec/record.json"
printf '{"kind":' >"$results/two-ctrrec-eth0"
left_in_place='; left in place, as its network configuration and container cannot be read from it: remove it by hand once its container is gone'
"$CNIHOOK" --config "$cfg" --log-level=info gc --dry-run >"$tmp/out" 2>"$tmp/err"
check "gc --dry-run exits 0" test $? = 0
check "gc --dry-run: the corrupt file is left in place" grep -qxE \
	"cnihook: gc: damaged cache entry \"$results/two-corrupt-eth0\": invalid JSON near byte [0-9]+: parse error: premature EOF$left_in_place" "$tmp/err"
check "gc --dry-run: the empty file is left in place" grep -qxF \
	"cnihook: gc: damaged cache entry \"$results/two-empty-eth0\": empty file$left_in_place" "$tmp/err"
check "gc --dry-run: the record's entry would go with its container (info)" grep -qE \
	"^cnihook: gc: damaged cache entry \"$results/two-ctrrec-eth0\": .*; would be removed by the teardown of container \"ctrrec\" \(its record names it\)$" "$tmp/err"
check "gc --dry-run removed nothing" eval '[ -f "$results/two-ctrrec-eth0" ] && [ -f "$results/two-$id-eth0" ] && [ -f "$state/ctrrec/record.json" ]'

"$CNIHOOK" --config "$cfg" gc >"$tmp/out" 2>"$tmp/err"
rc=$?
check "gc exits 0 (damaged entries alone are no failure)" test $rc = 0
check "gc tore down the record's container" eval '[ ! -e "$state/ctrrec" ] && grep -qx "gc: container \"ctrrec\": gone: detached .*" "$tmp/out"'
check "gc tore down the cnitool attachment" test ! -e "$results/two-$id-eth0"
check "the teardown removed the corrupt entry its record names" test ! -e "$results/two-ctrrec-eth0"
check "... and gc does not report it" eval '! grep -q "two-ctrrec-eth0\": .*left in place" "$tmp/err"'
check "gc reports the corrupt file, left in place" grep -qxE \
	"cnihook: gc: damaged cache entry \"$results/two-corrupt-eth0\": invalid JSON near byte [0-9]+: parse error: premature EOF$left_in_place" "$tmp/err"
check "gc reports the empty file, left in place" grep -qxF \
	"cnihook: gc: damaged cache entry \"$results/two-empty-eth0\": empty file$left_in_place" "$tmp/err"
check "gc reports those two only" test "$(grep -c 'damaged cache entry' "$tmp/err")" = 2
check "gc left them in place" test -f "$results/two-corrupt-eth0" -a -f "$results/two-empty-eth0"
rm -f "$results/two-corrupt-eth0" "$results/two-empty-eth0" "$results/.two-tmp-eth0.tmpAbCdEf"

# The sandbox of the plugins the CLI runs (cnihook.json(5), SANDBOX; no
# cnihook.json: the default one). The CLI applies it to itself once and the
# plugin inherits all of it: the default four capabilities only, the
# no_new_privs flag and the seccomp filter (Seccomp: 2).
if [ "$(id -u)" = 0 ] && [ -x "${EVILPLUGIN:-}" ]; then
	cp "$EVILPLUGIN" "$bin/evil"
	echo '{"cniVersion":"1.0.0","name":"evil","plugins":[{"type":"evil"}]}' >"$conf/40-evil.conflist"
	bnd=$(awk '/^CapBnd:/ { print $2 }' /proc/self/status)
	# CAP_DAC_OVERRIDE (1), CAP_NET_ADMIN (12), CAP_NET_RAW (13), CAP_SYS_ADMIN (21)
	keep=$(printf %016x $((0x$bnd & 0x203002)))
	CNIHOOK_CONFIG= "$CNIHOOK" add evil /run/netns/clitest >"$tmp/out" 2>"$tmp/err"
	check "sandboxed plugin: add fails with the plugin's error" test $? = 1
	check "sandboxed plugin: reboot, init_module, finit_module refused, only the default capabilities, no_new_privs, the filter" \
		grep -qF "CNI error 100: reboot:EPERM init_module:EPERM finit_module:EPERM capeff:$keep capbnd:$keep nonewprivs:1 seccomp:2" "$tmp/err"
	check "sandboxed plugin: nothing cached" test ! -e "$tmp/cache/results/evil-$id-eth0"
	rm -f "$conf/40-evil.conflist"
else
	echo "# SKIP sandboxed plugin checks: need root and EVILPLUGIN"
	[ -z "${CNIHOOK_NO_SKIP:-}" ] || not_ok "sandboxed plugin checks skipped under CNIHOOK_NO_SKIP"
fi

"$CNIHOOK" version | grep -q '^CNI spec versions: 0.1.0 0.2.0 0.3.0 0.3.1 0.4.0 1.0.0 1.1.0$'
check "version lists the spec versions" test $? = 0
check "--version prints the same as version" eval 'v=$("$CNIHOOK" --version) && [ -n "$v" ] && [ "$v" = "$("$CNIHOOK" version)" ]'

# status takes a unique prefix of an id (podman shows 12 characters); tables
# cut ids to 12 characters, --no-trunc shows them whole, aligned either way.
a=f3e99e1ae839$(printf '%052d' 1) b=f3e99e1ae839$(printf '%052d' 2) c=0123456789ab$(printf '%052d' 3)
for x in "$a" "$b" "$c"; do
	mkdir -p "$state/$x"
	printf '[{"name":"two","interface":"eth0","ips":["10.99.0.%s/24"],"mac":"aa:bb:cc:dd:ee:ff","default":true}]\n' \
		"${#x}" >"$state/$x/network-status.json"
done
# A lock file of another container is no container with a status.
: >"$state/0123456789ab-other.lock"
"$CNIHOOK" --config "$cfg" status 0123456789ab >"$tmp/out" 2>"$tmp/err"
rc=$?
check "status PREFIX: the one container whose id starts with it" \
	eval '[ $rc = 0 ] && grep -qE "^0123456789ab +two +eth0 +10\.99\.0\.64/24 +aa:bb:cc:dd:ee:ff +yes +own +-$" "$tmp/out" && [ ! -s "$tmp/err" ]'
"$CNIHOOK" --config "$cfg" status --json 0123 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "status --json PREFIX: that container's network-status" \
	eval '[ $rc = 0 ] && cmp -s <(jq -c . "$tmp/out") <(jq -c . "$state/$c/network-status.json")'
"$CNIHOOK" --config "$cfg" status f3e99e1ae839 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "status AMBIGUOUS-PREFIX: an error listing the matches, exit 1" \
	eval '[ $rc = 1 ] && [ ! -s "$tmp/out" ] &&
	      grep -qxF "cnihook: status: \"f3e99e1ae839\" is the start of 2 container ids: $a, $b; give more of it" "$tmp/err"'
"$CNIHOOK" --config "$cfg" status 99999 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "status NO-MATCH: an error, exit 1" \
	eval '[ $rc = 1 ] && grep -qxF "cnihook: status: container \"99999\": no network status (not attached by cnihook; name a container by its id or a prefix of it, podman'"'"'s by podman inspect -f '"'"'{{.Id}}'"'"' NAME, a containerd one as NAMESPACE/ID)" "$tmp/err"'
# A containerd container named by its id alone: the one NAMESPACE-ID of
# the state directory.
mkdir -p "$state/k8s.io-webctr"
printf '[{"name":"two","interface":"eth0","ips":["10.99.0.9/24"],"mac":"aa:bb:cc:dd:ee:09","default":true}]\n' \
	>"$state/k8s.io-webctr/network-status.json"
"$CNIHOOK" --config "$cfg" status webctr >"$tmp/out" 2>"$tmp/err"
rc=$?
check "status ID of a containerd container without its namespace: that container" \
	eval '[ $rc = 0 ] && grep -qE "^k8s\.io-webc[a-z]* +two +eth0 +10\.99\.0\.9/24 " "$tmp/out"'
rm -rf "$state/k8s.io-webctr"
"$CNIHOOK" --config "$cfg" status "$a" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "status FULL-ID still works (the table cuts it to 12)" \
	eval '[ $rc = 0 ] && grep -qE "^f3e99e1ae839 +two +eth0 " "$tmp/out"'
# column_at COLUMN FILE: where each line's field COLUMN starts, distinct values
column_at() { awk -v c="$1" '{ p = 0; s = $0; for (i = 1; i <= c; i++) { m = match(s, /[^ ]+/); p += m; s = substr(s, m + RLENGTH); if (i < c) p += RLENGTH - 1 } print p }' "$2" | sort -u; }
# aligned FILE COLUMNS: fields 2..COLUMNS start at the same place on every line
aligned() {
	local k
	for ((k = 2; k <= $2; k++)); do [ "$(column_at "$k" "$1" | wc -l)" = 1 ] || return 1; done
}
"$CNIHOOK" --config "$cfg" status >"$tmp/out" 2>"$tmp/err"
rc=$?
check "status table: ids cut to 12 characters, columns aligned, nothing on stderr" \
	eval '[ ! -s "$tmp/err" ] && [ "$(grep -c "^f3e99e1ae839 " "$tmp/out")" = 2 ] && ! grep -q "$a" "$tmp/out" &&
	      aligned "$tmp/out" 8'
"$CNIHOOK" --config "$cfg" status --no-trunc >"$tmp/out"
rc=$?
check "status --no-trunc: whole 64-character ids, columns aligned" \
	eval 'grep -q "^$a " "$tmp/out" && grep -q "^$c " "$tmp/out" &&
	      aligned "$tmp/out" 8 &&
	      [ "$(column_at 2 "$tmp/out")" = 67 ]'
CNI_CONTAINERID=$a "$CNIHOOK" add two /run/netns/clitest >/dev/null
"$CNIHOOK" --config "$cfg" list --no-trunc >"$tmp/out"
rc=$?
check "list --no-trunc: a 64-character id whole, columns aligned" \
	eval 'grep -q "^$a " "$tmp/out" && aligned "$tmp/out" 8'
"$CNIHOOK" --config "$cfg" list >"$tmp/out"
rc=$?
check "list: the id cut to 12 characters" eval 'grep -q "^f3e99e1ae839 " "$tmp/out" && ! grep -q "$a" "$tmp/out"'
CNI_CONTAINERID=$a "$CNIHOOK" del two /run/netns/clitest
rm -rf "${state:?}/$a" "${state:?}/$b" "${state:?}/$c" "$state/0123456789ab-other.lock"

# list's IPS: each cached result's addresses as its conversion to 1.0.0
# writes them (list takes those already written so as they are, converts
# the others), none for an invalid result; a containerd container by its
# name. A cache and state directory of their own.
ipd=$tmp/ips ipcfg=$tmp/ips/cnihook.json
mkdir -p "$ipd/cache/results" "$ipd/state/k8s.io-c1"
printf '{"confDir":"%s","binDirs":["%s"],"cacheDir":"%s","stateDir":"%s","log":{"syslog":false},"sandbox":{"enabled":false}}\n' \
	"$conf" "$bin" "$ipd/cache" "$ipd/state" >"$ipcfg"
ln -s k8s.io/c1 "$ipd/state/k8s.io-c1.name"
# A finished attach has its status (one without is shown as unfinished).
echo '[]' >"$ipd/state/k8s.io-c1/network-status.json"
cached() { # cached ID RESULT: an entry of network n, eth0
	printf '{"kind":"cniCacheV1","containerId":"%s","ifName":"eth0","networkName":"n","netns":"/x","result":%s}\n' \
		"$1" "$2" >"$ipd/cache/results/n-$1-eth0"
}
cached k8s.io-c1 '{"cniVersion":"1.1.0","ips":[{"address":"10.0.0.2/24"},{"address":"fd00::2/64"}]}'
cached old '{"cniVersion":"0.2.0","ip6":{"ip":"FD00:0:0:0::5/64"},"ip4":{"ip":"10.1.0.2/16"}}'
cached mapped '{"cniVersion":"0.4.0","ips":[{"version":"4","address":"::ffff:10.9.8.7/120"}]}'
cached zeros '{"cniVersion":"1.0.0","ips":[{"address":"10.0.0.5/024"}]}'
cached badroute '{"cniVersion":"1.0.0","ips":[{"address":"10.0.0.6/24"}],"routes":[{"dst":"x"}]}'
cached badversion '{"cniVersion":"0.4.0","ips":[{"version":"6","address":"10.0.0.7/24"}]}'
"$CNIHOOK" --config "$ipcfg" list --json >"$tmp/out" 2>"$tmp/err"
check "list IPS: as converted to 1.0.0, none for an invalid result" \
	eval '[ "$(jq -c "map({(.containerId): .ips}) | add" "$tmp/out")" = \
	      '"'"'{"badroute":[],"badversion":[],"k8s.io-c1":["10.0.0.2/24","fd00::2/64"],"mapped":["10.9.8.7/24"],"old":["10.1.0.2/16","fd00::5/64"],"zeros":["10.0.0.5/24"]}'"'"' ] &&
	      [ ! -s "$tmp/err" ]'
"$CNIHOOK" --config "$ipcfg" list >"$tmp/out"
check "list: a containerd container by its name, its own (GC column)" \
	grep -qE '^k8s.io/c1 +n +eth0 +10\.0\.0\.2/24,fd00::2/64 +/x +[0-9]+[smhd] +own +-$' "$tmp/out"
check "list: another program's entry naming a namespace" grep -qE '^old +n +eth0 .* netns +-$' "$tmp/out"

# A command that needs root says so and fails, as another user; version
# and --help work for anyone. (The configuration is readable, the state and
# cache directories are not, as on a host: mode 0700.)
if command -v setpriv >/dev/null; then
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$CNIHOOK" "$@"; }
	cp "$cfg" "$pub/cnihook.json"
	chmod 644 "$pub/cnihook.json"
	for args in "add two /run/netns/clitest" "check two /run/netns/clitest" \
		"del two /run/netns/clitest" "validate" "validate two"; do
		# shellcheck disable=SC2086
		nobody $args >"$tmp/out" 2>"$tmp/err"
		rc=$?
		check "as nobody, $args: \"needs root\", exit 1" \
			eval '[ $rc = 1 ] && grep -qx "cnihook: ${args%% *} needs root in the host.s user namespace (.*); it runs as uid 65534" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ]'
	done
	for args in "gc" "gc --dry-run"; do
		# shellcheck disable=SC2086
		nobody --config "$pub/cnihook.json" $args >"$tmp/out" 2>"$tmp/err"
		rc=$?
		check "as nobody, $args: \"needs root\", exit 1" \
			eval '[ $rc = 1 ] && grep -qx "cnihook: gc needs root in the host.s user namespace (.*); it runs as uid 65534" "$tmp/err" && [ ! -s "$tmp/out" ]'
	done
	# Root of a user namespace (podman unshare, rootless podman): uid 0,
	# every capability there, none on the host's network or files.
	# (a copy of the binary: the build tree may be under a directory only
	# root can enter)
	cp "$CNIHOOK" "$pub/cnihook" && chmod 755 "$pub" "$pub/cnihook"
	for args in "gc" "add two /run/netns/clitest"; do
		# shellcheck disable=SC2086
		setpriv --reuid=65534 --regid=65534 --clear-groups unshare --user --map-root-user \
			"$pub/cnihook" --config "$pub/cnihook.json" $args >"$tmp/out" 2>"$tmp/err"
		rc=$?
		check "as root of a user namespace, $args: refused, naming the user namespace, exit 1" \
			eval '[ $rc = 1 ] && grep -q "needs root in the host.s user namespace (.*); it runs as uid 0 of a user namespace (its uid 0 is host uid 65534)" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ]'
	done
	nobody --config "$pub/cnihook.json" status >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "as nobody, status with an unreadable state directory: \"needs root\", exit 1, no table" \
		eval '[ $rc = 1 ] && [ ! -s "$tmp/out" ] && grep -qF "cnihook: status: cannot read the state directory $state: Permission denied (needs root)" "$tmp/err"'
	nobody --config "$pub/cnihook.json" list >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "as nobody, list with an unreadable cache: \"needs root\", exit 1, no table" \
		eval '[ $rc = 1 ] && [ ! -s "$tmp/out" ] && grep -q "^cnihook: list: .*Permission denied (needs root)$" "$tmp/err"'
	check "as nobody, version and --version work" \
		eval 'nobody version | grep -q "^cnihook " && nobody --version | grep -q "^cnihook "'
else
	echo "# SKIP non-root checks: no setpriv"
	[ -z "${CNIHOOK_NO_SKIP:-}" ] || not_ok "non-root checks skipped under CNIHOOK_NO_SKIP"
fi
# libcni 1.3's plugin folders: <confDir>/<network>/ .conf files are appended
# to the .conflist's chain (and to the list the cache holds), unless
# loadOnlyInlinedPlugins is true.
pf=$tmp/pf.d
mkdir -p "$pf/pfnet" "$pf/inl"
echo '{"cniVersion":"1.0.0","name":"pfnet","plugins":[{"type":"alpha"}]}' >"$pf/10-pfnet.conflist"
echo '{"type":"beta","fromFolder":true}' >"$pf/pfnet/10-beta.conf"
echo '{"type":"beta"}' >"$pf/pfnet/20-ignored.json"
echo '{"cniVersion":"1.0.0","name":"inl","loadOnlyInlinedPlugins":true,"plugins":[{"type":"alpha"}]}' \
	>"$pf/20-inl.conflist"
echo '{"type":"beta"}' >"$pf/inl/10-beta.conf"
rm -rf "$bin/rec"
NETCONFPATH=$pf "$CNIHOOK" add pfnet /run/netns/clitest >/dev/null 2>"$tmp/err"
check "plugin folder: add exits 0" test $? = 0
check "plugin folder: alpha then the folder's beta ran ADD" \
	eval '[ "$(cd "$bin/rec" && ls *.stdin | sed "s/^[0-9]*-//")" = "$(printf "alpha-ADD.stdin\nbeta-ADD.stdin")" ]'
check "plugin folder: beta got its folder configuration" grep -q '"fromFolder":true' "$(ls "$bin"/rec/*-beta-ADD.stdin | head -1)"
check "plugin folder: the cache holds the whole chain" \
	eval 'base64 -d <<<"$(sed "s/.*\"config\":\"\([^\"]*\)\".*/\1/" "$tmp/cache/results/pfnet-$id-eth0")" | grep -q fromFolder'
rm -rf "$bin/rec"
NETCONFPATH=$pf "$CNIHOOK" del pfnet /run/netns/clitest 2>"$tmp/err"
check "plugin folder: del exits 0" test $? = 0
check "plugin folder: del ran beta and alpha" eval 'ls "$bin"/rec/*-beta-DEL.stdin "$bin"/rec/*-alpha-DEL.stdin >/dev/null'
rm -rf "$bin/rec"
NETCONFPATH=$pf "$CNIHOOK" add inl /run/netns/clitest >/dev/null 2>"$tmp/err"
check "loadOnlyInlinedPlugins: add exits 0" test $? = 0
check "loadOnlyInlinedPlugins: the folder's beta did not run" eval '! ls "$bin"/rec/*-beta-* >/dev/null 2>&1'
NETCONFPATH=$pf "$CNIHOOK" del inl /run/netns/clitest

"$CNIHOOK" --help | grep -q 'cnihook add|check|del NETWORK NETNS'
check "--help" test $? = 0

echo "# $passed passed, $failed failed"
echo "1..$((passed + failed))"
[ "$failed" = 0 ]
