#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Build the libFuzzer targets, replay the regression inputs and the seed
# corpora, then fuzz each target for SECONDS (default 60; 0: replay only).
#
#     tests/fuzz/run.sh [SECONDS] [BUILD_DIR]
#
# BUILD_DIR is a configured build directory (default: the current directory
# if it is one, else the source tree). Environment:
#   FUZZ_TARGETS  the targets to run (default: all five)
#   FUZZ_JOBS     how many targets fuzz at the same time (default: nproc)
#   FUZZ_ARTIFACTS  where crashing inputs are written
#                 (default: BUILD_DIR/tests/fuzz/artifacts)
#   FUZZ_KEEP_GOING=1  after a crash, start the target again for the time
#                 left (to look for more than one bug in one run)
# Prints the executions, coverage and crashes of every target; exits
# non-zero if any regression input, seed or fuzzed input crashed.
set -uo pipefail

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-60}
if [ -n "${2:-}" ]; then
	builddir=$(cd "$2" && pwd)
elif [ -f config.h ] && [ -f Makefile ]; then
	builddir=$PWD
else
	builddir=$srcdir
fi
[ -f "$builddir/config.h" ] || {
	echo "run.sh: $builddir is not a configured build directory (no config.h)" >&2
	exit 2
}
command -v clang >/dev/null || {
	echo "run.sh: clang is needed (apt-get install clang libclang-rt-14-dev)" >&2
	exit 2
}
case $seconds in '' | *[!0-9]*)
	echo "usage: $0 [SECONDS] [BUILD_DIR]" >&2
	exit 2
	;;
esac

targets=${FUZZ_TARGETS:-fuzz_state fuzz_annotations fuzz_netlist fuzz_result fuzz_cache}
jobs=${FUZZ_JOBS:-$(nproc)}
out=$builddir/tests/fuzz
artifacts=${FUZZ_ARTIFACTS:-$out/artifacts}

make -s -f "$srcdir/tests/fuzz/fuzz.mk" top_srcdir="$srcdir" top_builddir="$builddir" \
	-j"$(nproc)" >/dev/null || {
	echo "run.sh: building the fuzz targets failed" >&2
	exit 1
}

# Scratch space (fuzz_cache's cache directories, corpus copies), on tmpfs
# when there is one.
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
work=$(mktemp -d "$base/cnihook-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

failed=0

# ---------------------------------------------------------------- replay
# Every input that once crashed a target (tests/fuzz/regressions/TARGET/,
# each run on its own so that each failure is reported) and every seed must
# run cleanly.
for t in $targets; do
	n=0 bad=0
	for f in "$srcdir/tests/fuzz/regressions/$t"/*; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		if ! "$out/$t" -runs=1 "$f" >"$work/$t.replay.log" 2>&1; then
			bad=$((bad + 1))
			echo "$t: REGRESSION tests/fuzz/regressions/$t/${f##*/} FAILS:"
			grep -E 'ERROR|SUMMARY|runtime error|invariant broken|^fuzz_' \
				"$work/$t.replay.log" | head -8 | sed 's/^/    /'
		fi
	done
	seeds=()
	for f in "$srcdir/tests/fuzz/corpus/$t"/*; do [ -f "$f" ] && seeds+=("$f"); done
	if [ ${#seeds[@]} -gt 0 ] && ! "$out/$t" -runs=1 "${seeds[@]}" >"$work/$t.replay.log" 2>&1; then
		bad=$((bad + 1))
		echo "$t: a SEED FAILS:"
		grep -E '^Running: |ERROR|SUMMARY|runtime error|invariant broken|^fuzz_' \
			"$work/$t.replay.log" | tail -8 | sed 's/^/    /'
	fi
	echo "$t: replayed $n regression inputs and ${#seeds[@]} seeds: $bad failed"
	[ "$bad" -eq 0 ] || failed=1
done

[ "$seconds" -gt 0 ] || exit $failed

# ---------------------------------------------------------------- fuzz
# Each target on a copy of its corpus (which grows while it runs). With
# FUZZ_KEEP_GOING=1 a target that crashed starts again, on the grown
# corpus, for the time left.
mkdir -p "$artifacts"
fuzz_one() {
	local t=$1 opts=() run=0 left rc
	local deadline=$((SECONDS + seconds))
	mkdir -p "$work/corpus/$t" "$work/tmp-$t"
	cp "$srcdir/tests/fuzz/corpus/$t"/* "$work/corpus/$t/" 2>/dev/null
	[ -f "$srcdir/tests/fuzz/$t.dict" ] && opts+=(-dict="$srcdir/tests/fuzz/$t.dict")
	while left=$((deadline - SECONDS)) && [ "$left" -gt 0 ]; do
		run=$((run + 1))
		TMPDIR=$work/tmp-$t "$out/$t" -max_total_time="$left" -print_final_stats=1 \
			-timeout=30 -max_len=8192 -artifact_prefix="$artifacts/$t-" "${opts[@]}" \
			"$work/corpus/$t" >"$work/$t.log.$run" 2>&1
		rc=$?
		echo "$rc" >>"$work/$t.rcs"
		if [ "$rc" -eq 0 ] || [ "${FUZZ_KEEP_GOING:-0}" != 1 ]; then break; fi
	done
}

running=0
for t in $targets; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	fuzz_one "$t" &
	running=$((running + 1))
done
wait

printf '%-18s %12s %9s %6s %7s %s\n' target executions exec/s cov corpus crashes
for t in $targets; do
	execs=0 crashes=0 cov='?'
	for log in "$work/$t".log.*; do
		[ -f "$log" ] || continue
		n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
		if [ -z "$n" ]; then # killed by a crash: the last status line
			n=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
		fi
		execs=$((execs + ${n:-0}))
		c=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
		cov=${c:-$cov}
	done
	crashes=$(grep -vcx 0 "$work/$t.rcs" 2>/dev/null)
	corp=$(find "$work/corpus/$t" -type f | wc -l)
	printf '%-18s %12s %9s %6s %7s %s\n' "$t" "$execs" "$((execs / seconds))" "$cov" \
		"$corp" "${crashes:-0}"
	if [ "${crashes:-0}" -ne 0 ]; then
		failed=1
		# One report per kind of crash (its first line), with how often
		# it happened and one input.
		for log in "$work/$t".log.*; do
			grep -qE 'Test unit written to' "$log" || continue
			kind=$(grep -m1 -E 'invariant broken|^fuzz_[a-z]+: |ERROR: [A-Za-z]*Sanitizer|runtime error|ERROR: libFuzzer' "$log")
			input=$(grep -oE 'Test unit written to .*' "$log" | sed 's/Test unit written to //')
			printf '%s\t%s\t%s\n' "$kind" "$input" "$log"
		done | sort -t "$(printf '\t')" -k1,1 -s | awk -F '\t' '
			$1 != k { if (k != "") print n "\t" k "\t" f "\t" l; k = $1; f = $2; l = $3; n = 0 }
			{ n++ }
			END { if (k != "") print n "\t" k "\t" f "\t" l }' |
			while IFS=$'\t' read -r n kind input log; do
				echo "---- $t: $n x: $kind"
				echo "     input: $input"
				grep -E '^    #[0-9]+ .* in [A-Za-z_]+ /' "$log" | grep -v 'in fuzzer::' |
					head -4 | sed 's/^    /     /'
			done
	fi
done
[ "$failed" -eq 0 ] || echo "run.sh: FAILED. Crashing inputs are in $artifacts: fix the bug," \
	"then add the input to tests/fuzz/regressions/TARGET/"
exit $failed
