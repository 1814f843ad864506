#!/bin/bash
# Docker through cnihook-runtime (cnihook(8), ENGINES): Docker writes no
# hooks and, before 24, passes no annotations; `--runtime cnihook` runs
# cnihook-runtime, which copies the container's io.cnihook.* environment
# entries into config.json's annotations, appends cnihook's hooks and runs
# runc. A dockerd of the test's own (docker-lib.sh: --iptables=false
# --bridge=none, its own data root, exec root and socket, the busybox
# rootfs imported as its image), the case's network and cnihook.json
# (runtime-lib.sh), CNIHOOK_CONFIG in dockerd's environment, which reaches
# the runtime through containerd and its shim. Then containerd with the
# same binary as its runc (`ctr run --runc-binary`): a spec with no hooks,
# the environment entries only.
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
T_NETPREFIX=dk
. "$srcdir/tests/harness/runtime-lib.sh"
. "$srcdir/tests/harness/docker-lib.sh"

# dk_run NAME ARGS...: `docker run -d --runtime cnihook --name NAME ARGS`
# with the case's network asked in the environment; the output in $out.
dk_run() {
	local n=$1
	shift
	out=$(dk run -d --runtime cnihook --name "$n" -e "io.cnihook.networks=$NET" "$@" 2>&1)
}

# dk_serve: the image's command for a page on port 80.
DK_HTTPD=(httpd -f -p 80 -h /www)

# dk_attached NAME IFNAME: the IPv4 address of the container's IFNAME.
dk_attached() {
	dk exec "$1" ip -4 -o addr show dev "$2" | awk '$3 == "inet" { sub("/.*", "", $4); print $4; exit }'
}

dk_status_lists() {
	"$CNIHOOK" --config "$HOOKCONF" status | grep -q "^moby/${1:0:12} "
}

dk_running_again() {
	[ "$(dk_pid "$1")" != 0 ] && [ "$(dk_pid "$1")" != "$2" ] &&
		page_is "http://127.0.0.1:$3/" "$RT_PAGE"
}

# 1. --network none: the environment's networks, port, static IP and MAC
# and names; status says moby/<id>; stop, start, restart, kill, rm -f.
case_lifecycle() {
	local id ip sub4 port=$((20000 + RANDOM % 9000)) f
	sub4=$SUB.$((10 + RANDOM % 200))
	checking "docker run --runtime cnihook --network none with io.cnihook.* in the environment"
	dk_run web --network none --hostname web -e "io.cnihook.ports=$port:80" \
		-e "io.cnihook.ips=$sub4/24" -e io.cnihook.mac=02:00:0a:00:00:2a \
		-e io.cnihook.dns=always -e io.cnihook.dns-servers=10.9.9.9 "$DK_IMAGE" "${DK_HTTPD[@]}" ||
		fail "docker run: $out"
	id=$(dk_id web)
	[ "$(dk_attached web eth0)" = "$sub4" ] || fail "eth0: $(dk exec web ip -o addr 2>&1)"
	[ "$(dk exec web cat /sys/class/net/eth0/address)" = 02:00:0a:00:00:2a ] || fail "MAC"
	ok "eth0 $sub4, MAC 02:00:0a:00:00:2a"
	assert_page "http://127.0.0.1:$port/"
	checking "cnihook status lists moby/${id:0:12}; the bundle's config.json has the hooks"
	dk_status_lists "$id" || fail "$("$CNIHOOK" --config "$HOOKCONF" status 2>&1)"
	f=$DK_DIR/exec/containerd/daemon/io.containerd.runtime.v2.task/moby/$id/config.json
	jq -e --arg h "$CNIHOOK" '.annotations["io.cnihook.ports"] != null
		and ([.hooks.createRuntime[], .hooks.poststop[] | select(.path == $h)] | length == 2)
		and (.hooks.prestart | length == 1)' "$f" >/dev/null || fail "$f: $(jq -c '.hooks, .annotations' "$f")"
	ok "yes; Docker's own prestart hook kept"
	checking "names: Docker's resolv.conf and hosts under its data root, rewritten in place"
	grep -qx 'nameserver 10.9.9.9' "$DK_DIR/data/containers/$id/resolv.conf" ||
		fail "resolv.conf: $(cat "$DK_DIR/data/containers/$id/resolv.conf")"
	dk exec web cat /etc/hosts | grep -q "^$sub4[[:space:]]web$" || fail "hosts: $(dk exec web cat /etc/hosts)"
	dk exec web cat /etc/resolv.conf | grep -qx 'nameserver 10.9.9.9' || fail "the container's resolv.conf"
	ok "both name the container's address and servers"
	checking "docker stop detaches; docker start attaches again with the same address"
	dk stop -t 1 web >/dev/null || fail "docker stop"
	rt_nothing_left_for "moby-$id"
	dk start web >/dev/null || fail "docker start"
	[ "$(dk_attached web eth0)" = "$sub4" ] || fail "after start: $(dk exec web ip -o addr 2>&1)"
	assert_page "http://127.0.0.1:$port/"
	checking "docker restart, then docker kill: detached"
	dk restart -t 1 web >/dev/null || fail "docker restart"
	assert_page "http://127.0.0.1:$port/"
	dk kill web >/dev/null || fail "docker kill"
	wait_for 50 dk_pid_is_zero web || fail "web still runs after docker kill"
	rt_nothing_left_for "moby-$id"
	dk start web >/dev/null || fail "docker start after kill"
	assert_page "http://127.0.0.1:$port/"
	dk rm -f web >/dev/null || fail "docker rm -f"
	rt_nothing_left_for "moby-$id"
}
dk_pid_is_zero() { [ "$(dk_pid "$1")" = 0 ]; }

# 2. A container that asks for nothing runs as runc alone would run it: no
# hook in its config.json, nothing attached; and the runtime run by hand
# on a bundle leaves the file byte for byte.
case_untouched() {
	local id f sum
	checking "docker run --runtime cnihook without io.cnihook.*: no hook, nothing attached"
	out=$(dk run -d --runtime cnihook --name plain --network none "$DK_IMAGE" sleep 60 2>&1) ||
		fail "docker run: $out"
	id=$(dk_id plain)
	f=$DK_DIR/exec/containerd/daemon/io.containerd.runtime.v2.task/moby/$id/config.json
	jq -e '(.hooks.createRuntime // [] | length == 0) and (.hooks.poststop // [] | length == 0)
		and ([.annotations // {} | keys[] | select(startswith("io.cnihook."))] | length == 0)' \
		"$f" >/dev/null || fail "$f: $(jq -c '.hooks, .annotations' "$f")"
	assert_left_alone "moby-$id"
	dk rm -f plain >/dev/null
	ok "none"
	checking "cnihook-runtime create on a bundle that asks for nothing: config.json byte for byte"
	mkdir -p "$DIR/plain"
	(cd "$DIR/plain" && runc spec) || fail "runc spec"
	jq --arg root "$RT_ROOTFS" '.root = {path: $root, readonly: true} | .process.terminal = false
		| .process.args = ["sleep", "60"]' "$DIR/plain/config.json" >"$DIR/plain/c.json"
	mv "$DIR/plain/c.json" "$DIR/plain/config.json"
	sum=$(sha256sum <"$DIR/plain/config.json")
	cleanup_push "runc --root '$DIR/runc' delete -f plain-$uniq >/dev/null 2>&1 || true"
	CNIHOOK_CONFIG=$HOOKCONF "$DK_RUNTIME" --root "$DIR/runc" create --bundle "$DIR/plain" \
		"plain-$uniq" >"$DIR/plain.out" 2>&1 </dev/null || fail "create: $(cat "$DIR/plain.out")"
	[ "$(sha256sum <"$DIR/plain/config.json")" = "$sum" ] || fail "config.json changed"
	CNIHOOK_CONFIG=$HOOKCONF "$DK_RUNTIME" --root "$DIR/runc" delete -f "plain-$uniq" ||
		fail "delete through the wrapper"
	ok "the same bytes; create and delete passed through to runc"
}

# 3. Beside a network of Docker's own: Docker's eth0, cnihook's net1.
case_beside() {
	local psub id
	psub=$(random_subnet)
	checking "docker network create --internal on $psub.0/24; a container on it and on $NET"
	dk network create --internal --subnet "$psub.0/24" \
		-o "com.docker.network.bridge.name=dkb$uniq" "dnet-$uniq" >/dev/null ||
		fail "docker network create"
	cleanup_push "dk network rm 'dnet-$uniq' >/dev/null 2>&1 || true"
	dk_run beside --network "dnet-$uniq" "$DK_IMAGE" "${DK_HTTPD[@]}" || fail "docker run: $out"
	id=$(dk_id beside)
	[[ "$(dk_attached beside net1)" == "$SUB".* ]] || fail "net1: $(dk exec beside ip -o addr 2>&1)"
	dk exec beside ip -4 -o addr show dev eth0 | grep -qF " $psub." ||
		fail "Docker's eth0: $(dk exec beside ip -o addr 2>&1)"
	ok "eth0 on $psub.0/24 (Docker's), net1 on $SUB.0/24 (cnihook's)"
	dk rm -f beside >/dev/null || fail "docker rm -f"
	dk network rm "dnet-$uniq" >/dev/null || fail "docker network rm"
	rt_nothing_left_for "moby-$id"
}

# 4. A malformed entry is refused at create with the annotation's line; a
# mistyped command leaves nothing in the way of the corrected run (its
# static address free again).
case_refused() {
	local ip=$SUB.$((210 + RANDOM % 40)) port=$((20000 + RANDOM % 9000)) id
	checking "io.cnihook.ports=80:eighty: docker run fails with the annotation's message"
	! dk_run bad --network none -e io.cnihook.ports=80:eighty "$DK_IMAGE" "${DK_HTTPD[@]}" ||
		fail "docker run succeeded"
	grep -qF 'cnihook-runtime: ' <<<"$out" &&
		grep -qF 'annotation "io.cnihook.ports": "80:eighty": container port "eighty" is not a decimal number' <<<"$out" ||
		fail "docker run said: $out"
	id=$(dk_id bad)
	assert_left_alone "moby-$id"
	dk rm -f bad >/dev/null
	ok "$(grep -o 'cnihook-runtime: .*' <<<"$out" | head -1)"
	checking "a mistyped command with a static address fails; nothing of it is left"
	! dk_run typo --network none -e "io.cnihook.ips=$ip/24" -e "io.cnihook.ports=$port:80" \
		"$DK_IMAGE" htttpd -f || fail "docker run of htttpd succeeded"
	id=$(dk_id typo)
	rt_nothing_left_for "moby-$id"
	! grep -rqF -- "$id" "$DATADIR" || fail "a lease names it"
	dk rm -f typo >/dev/null
	ok "nothing"
	checking "the corrected run gets the address and the port"
	dk_run typo --network none -e "io.cnihook.ips=$ip/24" -e "io.cnihook.ports=$port:80" \
		"$DK_IMAGE" "${DK_HTTPD[@]}" || fail "docker run: $out"
	id=$(dk_id typo)
	[ "$(dk_attached typo eth0)" = "$ip" ] || fail "eth0: $(dk exec typo ip -o addr 2>&1)"
	assert_page "http://127.0.0.1:$port/"
	dk rm -f typo >/dev/null
	rt_nothing_left_for "moby-$id"
}

# 5. --restart always: the container's process killed on the host, Docker
# starts it again, attached again.
case_restart_always() {
	local port=$((20000 + RANDOM % 9000)) pid id
	dk_run always --restart always --network none -e "io.cnihook.ports=$port:80" "$DK_IMAGE" \
		"${DK_HTTPD[@]}" || fail "docker run: $out"
	id=$(dk_id always)
	dk_attached always eth0 >/dev/null
	assert_page "http://127.0.0.1:$port/"
	checking "SIGKILL to its process: Docker restarts it, the page is served again"
	pid=$(dk_pid always)
	kill -KILL "$pid"
	wait_for 150 dk_running_again always "$pid" "$port" ||
		fail "not served again: $(dk ps -a --format '{{.Names}} {{.Status}}')"
	ok "restarted (pid $(dk_pid always)), attached"
	dk rm -f always >/dev/null
	rt_nothing_left_for "moby-$id"
}

# 6. dockerd restarted with --live-restore: the container keeps its network
# through the restart, and docker stop detaches it afterwards.
case_live_restore() {
	local port=$((20000 + RANDOM % 9000)) id
	dk_stop
	dk_start --add-runtime "cnihook=$DK_RUNTIME" --live-restore
	dk_run live --network none -e "io.cnihook.ports=$port:80" "$DK_IMAGE" "${DK_HTTPD[@]}" ||
		fail "docker run: $out"
	id=$(dk_id live)
	dk_attached live eth0 >/dev/null
	checking "dockerd stopped and started again with --live-restore: still attached"
	dk_stop
	page_is "http://127.0.0.1:$port/" "$RT_PAGE" || fail "not served while dockerd is down"
	dk_start --add-runtime "cnihook=$DK_RUNTIME" --live-restore
	assert_page "http://127.0.0.1:$port/"
	dk_status_lists "$id" || fail "status: $("$CNIHOOK" --config "$HOOKCONF" status 2>&1)"
	dk stop -t 1 live >/dev/null || fail "docker stop"
	rt_nothing_left_for "moby-$id"
	dk rm -f live >/dev/null
	dk_stop
	dk_start --add-runtime "cnihook=$DK_RUNTIME"
}

# 7. dockerd and its containerd SIGKILLed, then the container's process:
# nothing runs poststop; cnihook gc collects it. Then the shims are
# stopped and dockerd started again removes the container.
case_gc() {
	local id pid s
	dk_run crash --network none "$DK_IMAGE" "${DK_HTTPD[@]}" || fail "docker run: $out"
	id=$(dk_id crash)
	dk_attached crash eth0 >/dev/null
	pid=$(dk_pid crash)
	checking "dockerd killed: gc keeps the container while its process lives"
	dk_kill
	"$CNIHOOK" --config "$HOOKCONF" gc >"$DIR/gc1.out" 2>&1 || fail "gc: $(cat "$DIR/gc1.out")"
	[ -f "$STATEDIR/moby-$id/record.json" ] || fail "gc collected a live container: $(cat "$DIR/gc1.out")"
	ok "kept"
	checking "its process killed: gc collects it"
	kill -KILL "$pid"
	wait_for 50 dk_pid_gone "$pid" || fail "pid $pid lives"
	"$CNIHOOK" --config "$HOOKCONF" gc >"$DIR/gc2.out" 2>&1 || fail "gc: $(cat "$DIR/gc2.out")"
	rt_nothing_left_for "moby-$id"
	for s in $(dk_shims); do kill -KILL "$s" 2>/dev/null || true; done
	dk_start --add-runtime "cnihook=$DK_RUNTIME"
	dk rm -f crash >/dev/null || fail "docker rm -f after the restart"
	rt_nothing_left_for "moby-$id"
}

# 8. containerd with the same binary as its runc: `ctr run --runc-binary`,
# a spec without hooks, the networks in the environment.
case_containerd() {
	local spec=$DIR/ctr.json port=$((20000 + RANDOM % 9000)) id=ctr-$uniq
	ctd_init
	make_bundle "$DIR/ctr-bundle" "$id" '{}'
	jq --arg net "$NET" --arg p "$port" 'del(.hooks) | .annotations = {}
		| .process.env += ["io.cnihook.networks=" + $net, "io.cnihook.ports=" + $p + ":80"]' \
		"$DIR/ctr-bundle/config.json" >"$spec"
	checking "ctr run --runc-binary cnihook-runtime: attached, port served"
	ctd run -d --null-io --fifo-dir "$CTD_DIR/fifo" --runc-binary "$DK_RUNTIME" --config "$spec" \
		"$id" </dev/null >"$DIR/ctr.out" 2>&1 || fail "ctr run: $(cat "$DIR/ctr.out")"
	assert_page "http://127.0.0.1:$port/"
	"$CNIHOOK" --config "$HOOKCONF" status | grep -q "^$CTD_NS/$id " ||
		fail "status: $("$CNIHOOK" --config "$HOOKCONF" status 2>&1)"
	ok "served; status lists $CTD_NS/$id"
	RT=containerd rt_stop "$id"
	rt_nothing_left_for "$CTD_NS-$id"
}

rt_init runc
dk_init
rt_setup_case a
rt_add_net "$NET" "$BR" "$SUB"
export CNIHOOK_CONFIG=$HOOKCONF
DK_RUNTIME=$DK_DIR/cnihook-runtime
ln -s "$CNIHOOK" "$DK_RUNTIME"
dk_start --add-runtime "cnihook=$DK_RUNTIME"
dk_image
log "dockerd: pid $(dk_dockerd_pid), $(dk version --format '{{.Server.Version}}'), $DK_DIR"
run_case "1. --network none: ports, static IP and MAC, names; stop, start, restart, kill, rm -f" \
	case_lifecycle
run_case "2. a container that asks for nothing is left untouched" case_untouched
run_case "3. beside Docker's own network: cnihook's net1" case_beside
run_case "4. a malformed entry refused; a failed start leaves nothing in the way" case_refused
run_case "5. --restart always after a kill" case_restart_always
run_case "6. dockerd restarted with --live-restore" case_live_restore
run_case "7. gc after dockerd is killed" case_gc
run_case "8. containerd: cnihook-runtime as ctr run --runc-binary" case_containerd
log "--- whole script"
dk_rm_all
dk_stop
rt_teardown_and_check
finish
