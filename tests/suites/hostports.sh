#!/bin/bash
# A host port in use on the host is refused: real
# listeners of the test in the host's network namespace (TCP and UDP, IPv4
# and IPv6, one address and every address; SCTP when the kernel has it),
# then the hook at createRuntime with a port mapping, run with recording
# fake plugins. An overlapping mapping is refused before any plugin runs,
# with a message naming the port, the listener's address and its process;
# the listener still answers; nothing is left. A mapping on another host
# IP, another family or another protocol is not refused.
# Checks are often eval'd single-quoted strings, expanded when run.
# shellcheck disable=SC2016
set -uo pipefail
: "${CNIHOOK:?}" "${FAKEPLUGIN:?}"

srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/lib.sh"
PY=/usr/bin/python3
tap_init "mounts, network namespaces" ip jq "$PY"

tmp=$T_TMP
NS=cnihook-hp-$uniq
NSPATH=/run/netns/$NS
bin=$tmp/bin conf=$tmp/net.d cache=$tmp/cache state=$tmp/state
mkdir -p "$bin" "$conf" "$tmp/bundles" "$tmp/run"
for p in fa fb; do cp "$FAKEPLUGIN" "$bin/$p"; done
printf '%s\n' '{"type":"fa","capabilities":{"portMappings":true}}' '{"type":"fb"}' |
	jq -s '{cniVersion: "1.0.0", name: "pm", plugins: .}' >"$conf/pm.conflist"
cfg=$tmp/cnihook.json
jq -n --arg c "$conf" --arg b "$bin" --arg k "$cache" --arg s "$state" \
	'{confDir: $c, binDirs: [$b], cacheDir: $k, stateDir: $s, log: {syslog: false}}' >"$cfg"
new_netns "$NS"

attach() { run_in "$(state "$1" creating)" "$CNIHOOK" --config "$cfg" createRuntime; }
poststop() { run_in "$(state "$1" stopped)" "$CNIHOOK" --config "$cfg" poststop; }
# The pins of a failed run, then the state directory, which the hook made
# a shared mount point.
unmount_state() {
	local d k
	for d in "$state"/*/; do [ ! -d "$d" ] || unmount_pin "${d}netns"; done
	for ((k = 0; k < 10; k++)); do ! is_mount "$state" || umount "$state"; done
}
cleanup_push unmount_state

# ---------------------------------------------------------------- listeners
# A host service: binds PROTO on ADDR (family 4 or 6) to a free port in
# 31000-32499 (below the ephemeral ports, away from the 20000-30000 the
# e2e tests map), writes the port to READY, then answers every connection
# or datagram with "host-service". V6ONLY=1 sets IPV6_V6ONLY.
cat >"$tmp/listen.py" <<'EOF'
import os, random, socket, sys
proto, fam, addr, ready = sys.argv[1:5]
family = socket.AF_INET6 if fam == "6" else socket.AF_INET
kind = {"tcp": socket.SOCK_STREAM, "udp": socket.SOCK_DGRAM, "sctp": socket.SOCK_STREAM}[proto]
s = socket.socket(family, kind, socket.IPPROTO_SCTP if proto == "sctp" else 0)
if family == socket.AF_INET6 and os.environ.get("V6ONLY") == "1":
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
for _ in range(500):
    port = random.randint(31000, 32499)
    try:
        s.bind((addr, port))
        break
    except OSError:
        continue
else:
    sys.exit("no free port")
if kind == socket.SOCK_STREAM:
    s.listen(8)
with open(ready + ".tmp", "w") as f:
    f.write(str(port))
os.rename(ready + ".tmp", ready)
while True:
    if kind == socket.SOCK_STREAM:
        c, _ = s.accept()
        c.sendall(b"host-service\n")
        c.close()
    else:
        d, a = s.recvfrom(100)
        s.sendto(b"host-service\n", a)
EOF
# A client: prints what the service at ADDR PORT answers.
cat >"$tmp/ask.py" <<'EOF'
import socket, sys
proto, addr, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
family = socket.AF_INET6 if ":" in addr else socket.AF_INET
if proto == "udp":
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.settimeout(2)
    s.sendto(b"hello", (addr, port))
    print(s.recvfrom(100)[0].decode().strip())
else:
    s = socket.create_connection((addr, port), timeout=2)
    print(s.recv(100).decode().strip())
EOF

# listen PROTO FAMILY ADDR: start a service; LPID and PORT are its pid and
# port. Its ready file is a name of its own (never an earlier service's),
# and it must still run once it is ready.
LPID='' PORT=''
listen() {
	local ready
	ready=$(mktemp -u "$tmp/run/ready-$1-$2-XXXXXX")
	"$PY" "$tmp/listen.py" "$1" "$2" "$3" "$ready" 2>"$ready.err" &
	LPID=$!
	SLEEPERS+=("$LPID")
	wait_for 50 test -s "$ready" || { cat "$ready.err" >&2; return 1; }
	PORT=$(cat "$ready")
	kill -0 "$LPID" 2>/dev/null || { echo "# the service $LPID ($*) is gone: $(cat "$ready.err")" >&2; return 1; }
}
# stop_listener: the last service started goes.
stop_listener() { kill_child "$LPID"; }
# answers PROTO ADDR PORT: the service there answers.
answers() { [ "$("$PY" "$tmp/ask.py" "$@" 2>/dev/null)" = host-service ]; }

# ---------------------------------------------------------------- checks
# refused NAME ANNOTATION-KEY ANNOTATION-VALUE MESSAGE: attach is refused
# with exactly MESSAGE after "cnihook: ID createRuntime: ", no plugin ran,
# nothing is left.
n=0
refused() {
	local name=$1 key=$2 value=$3 msg=$4 good=1 sel=()
	id=hp$((n += 1))-$uniq
	[ "$key" = k8s.v1.cni.cncf.io/networks ] || sel=(io.cnihook.networks pm)
	bundle "$id" "$(annotations "${sel[@]}" "$key" "$value")"
	clear_rec
	attach "$id"
	[ "$rc" != 0 ] || good=0
	one_line || good=0
	[ "$err" = "cnihook: $id createRuntime: $msg" ] || good=0
	no_plugin_ran || good=0
	[ -z "$(left "$id")" ] || good=0
	if [ "$good" = 1 ]; then tap_ok "$name: $err"; else tap_not_ok "$name" "want: $msg"; fi
}
# accepted NAME ANNOTATION-VALUE: io.cnihook.ports=VALUE attaches (the
# plugins ran ADD); poststop then leaves nothing.
accepted() {
	local name=$1 value=$2 good=1
	id=hp$((n += 1))-$uniq
	bundle "$id" "$(annotations io.cnihook.networks pm io.cnihook.ports "$value")"
	clear_rec
	attach "$id"
	[ "$rc" = 0 ] && [ -z "$err" ] && [ "$(calls)" = "fa-ADD fb-ADD" ] || good=0
	if [ "$good" = 1 ]; then tap_ok "$name"; else tap_not_ok "$name"; fi
	poststop "$id"
	check_gone "... and poststop left nothing" "$id"
}
# in_use PORT/PROTO ADDR: the message for the last service started.
in_use() {
	printf 'annotation "%s": host port %s on %s is in use on the host by pid %s (python3)' \
		"${KEY:-io.cnihook.ports}" "$1" "$2" "$LPID"
}
still_answers() { check "the host service on $2 still answers" answers "$1" "$2" "$PORT"; }

echo "# the finding: TCP on 127.0.0.1 (python3 -m http.server --bind 127.0.0.1)"
listen tcp 4 127.0.0.1
check "the host service answers before" answers tcp 127.0.0.1 "$PORT"
refused "PORT:80 (every address) is refused" io.cnihook.ports "$PORT:80" \
	"$(in_use "$PORT/tcp" 127.0.0.1)"
still_answers tcp 127.0.0.1
refused "127.0.0.1:PORT:80 is refused" io.cnihook.ports "127.0.0.1:$PORT:80" \
	"$(in_use "$PORT/tcp" 127.0.0.1)"
refused "0.0.0.0:PORT:80 (every IPv4 address) is refused" io.cnihook.ports "0.0.0.0:$PORT:80" \
	"$(in_use "$PORT/tcp" 127.0.0.1)"
refused "the JSON form is refused" io.cnihook.ports \
	"[{\"hostPort\":$PORT,\"containerPort\":80,\"protocol\":\"TCP\"}]" \
	"$(in_use "$PORT/tcp" 127.0.0.1)"
refused "NPWG portMappings: the message names that annotation" \
	k8s.v1.cni.cncf.io/networks \
	"[{\"name\":\"pm\",\"portMappings\":[{\"hostPort\":$PORT,\"containerPort\":80}]}]" \
	"$(KEY=k8s.v1.cni.cncf.io/networks in_use "$PORT/tcp" 127.0.0.1)"
refused "one overlapping mapping among others is refused" io.cnihook.ports \
	"[::1]:$PORT:80,$PORT:53/udp,127.0.0.1:$PORT:81" "$(in_use "$PORT/tcp" 127.0.0.1)"
accepted "127.0.0.2:PORT:80 (another host IP) is not refused" "127.0.0.2:$PORT:80"
accepted "[::1]:PORT:80 (IPv6) is not refused" "[::1]:$PORT:80"
accepted "[::]:PORT:80 (every IPv6 address) is not refused" "[::]:$PORT:80"
accepted "PORT:80/udp (another protocol) is not refused" "$PORT:80/udp"
accepted "PORT+1:80 (another port) is not refused" "$((PORT + 1)):80"
still_answers tcp 127.0.0.1
stop_listener
accepted "once the host service is gone, PORT:80 is not refused" "$PORT:80"

echo "# TCP on ::1"
listen tcp 6 ::1
refused "PORT:80 is refused" io.cnihook.ports "$PORT:80" "$(in_use "$PORT/tcp" ::1)"
refused "[::1]:PORT:80 is refused" io.cnihook.ports "[::1]:$PORT:80" "$(in_use "$PORT/tcp" ::1)"
refused "[::]:PORT:80 is refused" io.cnihook.ports "[::]:$PORT:80" "$(in_use "$PORT/tcp" ::1)"
accepted "127.0.0.1:PORT:80 (IPv4) is not refused" "127.0.0.1:$PORT:80"
accepted "0.0.0.0:PORT:80 (every IPv4 address) is not refused" "0.0.0.0:$PORT:80"
still_answers tcp ::1
stop_listener

echo "# TCP on 0.0.0.0"
listen tcp 4 0.0.0.0
refused "PORT:80 is refused" io.cnihook.ports "$PORT:80" "$(in_use "$PORT/tcp" 0.0.0.0)"
refused "127.0.0.3:PORT:80 (any IPv4 address) is refused" io.cnihook.ports \
	"127.0.0.3:$PORT:80" "$(in_use "$PORT/tcp" 0.0.0.0)"
accepted "[::1]:PORT:80 (IPv6) is not refused" "[::1]:$PORT:80"
still_answers tcp 127.0.0.1
stop_listener

v6only=$(cat /proc/sys/net/ipv6/bindv6only)
echo "# TCP on :: (net.ipv6.bindv6only=$v6only)"
listen tcp 6 ::
refused "PORT:80 is refused" io.cnihook.ports "$PORT:80" "$(in_use "$PORT/tcp" ::)"
refused "[::1]:PORT:80 is refused" io.cnihook.ports "[::1]:$PORT:80" "$(in_use "$PORT/tcp" ::)"
if [ "$v6only" = 0 ]; then
	refused "127.0.0.1:PORT:80 is refused (the socket takes IPv4 too)" io.cnihook.ports \
		"127.0.0.1:$PORT:80" "$(in_use "$PORT/tcp" ::)"
	still_answers tcp 127.0.0.1
else
	accepted "127.0.0.1:PORT:80 is not refused (bindv6only=1)" "127.0.0.1:$PORT:80"
fi
still_answers tcp ::1
stop_listener

echo "# UDP on 127.0.0.1"
listen udp 4 127.0.0.1
check "the host service answers before" answers udp 127.0.0.1 "$PORT"
refused "PORT:53/udp is refused" io.cnihook.ports "$PORT:53/udp" "$(in_use "$PORT/udp" 127.0.0.1)"
refused "127.0.0.1:PORT:53/udp is refused" io.cnihook.ports "127.0.0.1:$PORT:53/udp" \
	"$(in_use "$PORT/udp" 127.0.0.1)"
accepted "PORT:53 (TCP) is not refused" "$PORT:53"
accepted "127.0.0.2:PORT:53/udp is not refused" "127.0.0.2:$PORT:53/udp"
still_answers udp 127.0.0.1
stop_listener

echo "# UDP on 0.0.0.0"
listen udp 4 0.0.0.0
refused "PORT:53/udp is refused" io.cnihook.ports "$PORT:53/udp" "$(in_use "$PORT/udp" 0.0.0.0)"
accepted "[::1]:PORT:53/udp is not refused" "[::1]:$PORT:53/udp"
still_answers udp 127.0.0.1
stop_listener

echo "# UDP on ::1"
listen udp 6 ::1
refused "[::1]:PORT:53/udp is refused" io.cnihook.ports "[::1]:$PORT:53/udp" \
	"$(in_use "$PORT/udp" ::1)"
accepted "127.0.0.1:PORT:53/udp is not refused" "127.0.0.1:$PORT:53/udp"
still_answers udp ::1
stop_listener

echo "# UDP on ::"
listen udp 6 ::
refused "PORT:53/udp is refused" io.cnihook.ports "$PORT:53/udp" "$(in_use "$PORT/udp" ::)"
still_answers udp ::1
stop_listener

echo "# a connected UDP socket (a client) does not hold its port"
"$PY" -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
s.connect(("127.0.0.1", 9))
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(60)' "$tmp/run/client" &
LPID=$!
SLEEPERS+=("$LPID")
wait_for 50 test -s "$tmp/run/client"
PORT=$(cat "$tmp/run/client")
accepted "PORT:53/udp is not refused" "$PORT:53/udp"
stop_listener

echo "# SCTP"
if "$PY" -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_SCTP)' \
	2>/dev/null; then
	listen sctp 4 127.0.0.1
	refused "PORT:80/sctp is refused" io.cnihook.ports "$PORT:80/sctp" \
		"$(in_use "$PORT/sctp" 127.0.0.1)"
	accepted "PORT:80 (TCP) is not refused" "$PORT:80"
	stop_listener
else
	echo "# not tested: this kernel has no SCTP (no socket(IPPROTO_SCTP), no /proc/net/sctp);" \
		"tests/unit/test_hostports reads /proc/net/sctp/eps text"
fi

echo "# nothing left"
check "the state directory holds nothing (an empty ports/ at most)" \
	test -z "$(find "$state" -mindepth 1 ! -path "$state/ports" 2>/dev/null)"
check "the cache holds no result" test -z "$(ls -A "$cache/results" 2>/dev/null)"
t_kill_sleepers
check "no listener of ours is left" eval '! kill -0 "$LPID" 2>/dev/null'

finish
