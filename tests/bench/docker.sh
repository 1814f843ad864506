#!/bin/bash
# What cnihook-runtime costs a `docker run` (docs/benchmarks.md, "Docker:
# cnihook-runtime's own CPU time"). Not a test: it prints figures and exits
# 0 whatever they are (and also when it cannot run: not root, no docker).
#
#   tests/bench/docker.sh BUILD_DIR
#
# A dockerd of the script's own (tests/harness/docker-lib.sh) runs
# `docker run --rm IMAGE true` ROUNDS times in each variant, taking turns:
#
#   R  --runtime clock: Docker runs tests/bench/runtime-clock directly as its
#      runtime; what it records is its own exec's CPU time, the floor
#   W  --runtime cnihook: cnihook-runtime, whose cnihook.json "runtime" is
#      runtime-clock, for a container that asks for nothing (config.json
#      read, left alone)
#   N  as W, the container asking for a network (-e io.cnihook.networks=NET,
#      a bridge + host-local network): config.json edited and written
#
# runtime-clock records, for each runtime command of the run (create,
# start, delete, ...), the CPU time its process had used when it started:
# under W and N that is cnihook-runtime's own (execve keeps the process),
# then it execs runc. The figures: per command and variant the median CPU
# time in microseconds and the calls per `docker run`; per variant the
# median sum per run; and cnihook-runtime's own cost per run, W - R and
# N - R. The hook's own run under N (its plugins) is not in these figures.
#
# Environment (all optional): ROUNDS (20), WARMUP (2), CNI_PLUGIN_DIR,
# CNIHOOK_BUSYBOX, TMPDIR.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=${abs_top_srcdir:-$(cd "$here/../.." && pwd)}
builddir=${1:-${abs_top_builddir:-}}
if [ -z "$builddir" ] || [ ! -d "$builddir" ]; then
	echo "usage: $0 BUILD_DIR   (the top of a build tree where make check built tests/bench/runtime-clock)" >&2
	exit 2
fi
builddir=$(cd "$builddir" && pwd)
ROUNDS=${ROUNDS:-20}
WARMUP=${WARMUP:-2}
CLOCK=$builddir/tests/bench/runtime-clock
CNIHOOK=$builddir/hook/cnihook
T_NETPREFIX=bd
export abs_top_builddir=$builddir
. "$srcdir/tests/harness/runtime-lib.sh"
. "$srcdir/tests/harness/docker-lib.sh"

# A benchmark: whatever happened (a skip, a failed check), clean up and exit 0.
t_on_exit() {
	local rc=$?
	trap - EXIT
	run_cleanups
	[ "$rc" = 0 ] || echo "note: the benchmark ended early (status $rc); figures above, if any"
	exit 0
}
trap t_on_exit EXIT

[ -x "$CLOCK" ] || skip "no $CLOCK (make check, or make tests/bench/runtime-clock)"
rt_init runc
dk_init
rt_setup_case a
rt_add_net "$NET" "$BR" "$SUB"
jq --arg c "$CLOCK" '.runtime = $c' "$HOOKCONF" >"$HOOKCONF.new" && mv "$HOOKCONF.new" "$HOOKCONF"
export CNIHOOK_CONFIG=$HOOKCONF CNIHOOK_BENCH_LOG=$T_TMP/clock.log
ln -s "$CNIHOOK" "$DK_DIR/cnihook-runtime"
dk_start --add-runtime "cnihook=$DK_DIR/cnihook-runtime" --add-runtime "clock=$CLOCK"
dk_image

# one VARIANT ROUND: a docker run, its wall time and runtime-clock's lines
# appended to $T_TMP/results ("VARIANT ROUND COMMAND US", "VARIANT ROUND
# wall MS"); ROUND 0: untimed.
one() {
	local v=$1 r=$2 a t0 t1
	case $v in
	R) a=(--runtime clock) ;;
	W) a=(--runtime cnihook) ;;
	N) a=(--runtime cnihook -e "io.cnihook.networks=$NET") ;;
	esac
	: >"$CNIHOOK_BENCH_LOG"
	t0=$(date +%s%N)
	dk run --rm --network none "${a[@]}" "$DK_IMAGE" true >/dev/null 2>"$T_TMP/run.err" ||
		fail "docker run ($v): $(cat "$T_TMP/run.err")"
	t1=$(date +%s%N)
	# The last command (delete) may still be on its way when run returns.
	sleep 0.2
	[ "$r" != 0 ] || return 0
	awk -v v="$v" -v r="$r" '{ print v, r, $1, $2 }' "$CNIHOOK_BENCH_LOG" >>"$T_TMP/results"
	echo "$v $r wall $(((t1 - t0) / 1000000))" >>"$T_TMP/results"
}

variants=(R W N)
for ((i = 0; i < WARMUP; i++)); do for v in "${variants[@]}"; do one "$v" 0; done; done
for ((r = 1; r <= ROUNDS; r++)); do
	for ((k = 0; k < ${#variants[@]}; k++)); do
		one "${variants[(r + k) % ${#variants[@]}]}" "$r"
	done
done
rt_nothing_left_for $(ls "$STATEDIR" 2>/dev/null | grep '^moby-' | grep -v '\.' || true)

echo "docker run --rm IMAGE true, $ROUNDS rounds; $(dk version --format '{{.Server.Version}}'), runc $(runc --version | head -1 | cut -d' ' -f3)"
python3 - "$T_TMP/results" "$ROUNDS" <<'PY'
import statistics as st, sys, collections
rows = [l.split() for l in open(sys.argv[1])]
rounds = int(sys.argv[2])
per = collections.defaultdict(list)      # (variant, command) -> [us]
total = collections.defaultdict(lambda: collections.defaultdict(int))  # variant -> round -> us
wall = collections.defaultdict(list)
for v, r, c, x in rows:
    if c == 'wall':
        wall[v].append(int(x))
        continue
    per[(v, c)].append(int(x))
    total[v][r] += int(x)
cmds = sorted({c for (_, c) in per}, key=lambda c: ['create', 'start', 'state', 'kill', 'delete'].index(c) if c in ['create', 'start', 'state', 'kill', 'delete'] else 9)
print('%-8s' % 'command' + ''.join('%16s' % ('%s us (calls)' % v) for v in 'RWN'))
for c in cmds:
    cells = []
    for v in 'RWN':
        x = per.get((v, c), [])
        cells.append('%16s' % ('%d (%.1f)' % (st.median(x), len(x) / rounds) if x else '-'))
    print('%-8s' % c + ''.join(cells))
med = {v: st.median(total[v].values()) for v in 'RWN'}
print('%-8s' % 'per run' + ''.join('%16s' % ('%d' % med[v]) for v in 'RWN'))
print('%-8s' % 'wall ms' + ''.join('%16s' % ('%d' % st.median(wall[v])) for v in 'RWN'))
print('cnihook-runtime per docker run, CPU: %.2f ms asking for nothing (W - R), %.2f ms asking for a network (N - R)'
      % ((med['W'] - med['R']) / 1000, (med['N'] - med['R']) / 1000))
PY
