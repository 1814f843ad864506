#!/bin/bash
# The operator CLI (cnihook(8)) against recording fake plugins: environment,
# exit codes, the one-line error, the cnitool container id, validate.
set -uo pipefail
: "${CNIHOOK:?}" "${FAKEPLUGIN:?}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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

"$CNIHOOK" version | grep -q '^CNI spec versions: 0.1.0 0.2.0 0.3.0 0.3.1 0.4.0 1.0.0 1.1.0$'
check "version lists the spec versions" test $? = 0
"$CNIHOOK" --help | grep -q 'cnihook add|check|del NETWORK NETNS'
check "--help" test $? = 0

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
