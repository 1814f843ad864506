#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# The engine test (tests/engine/engine.c: threads, the engine's own child
# reaping, cancellation) under ThreadSanitizer. libcnirt's default spawn path
# (a clone() helper, lib/exec.c) cannot be followed by TSan, so the library is
# compiled here as configure --enable-tsan-spawn does (CNIRT_SPAWN_FORK:
# plugins started with fork()), straight from its sources (common/ and lib/) with the config.h
# of a configured tree (BUILD_DIR, default: the source tree), together with
# the engine test into one program.
#
#     tests/tools/tsan.sh [BUILD_DIR]
#
# CC defaults to gcc; ENGINE_RUNS (default 5) is the runs per thread of each
# process model; the deadline check allows ENGINE_SLACK_MS (default 3000) for
# TSan's slow forks. Any TSan report fails (halt_on_error).
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$srcdir}" && pwd)
cc=${CC:-gcc}
[ -f "$build/config.h" ] || { echo "tsan.sh: no config.h in $build: configure first" >&2; exit 1; }

tmp=$(mktemp -d /tmp/cnihook-tsan.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
echo "tsan.sh: building libcnirt (CNIRT_SPAWN_FORK) and tests/engine/engine with -fsanitize=thread"
# shellcheck disable=SC2046
"$cc" -fsanitize=thread -g -O1 -pthread -DCNIRT_SPAWN_FORK -I"$build" -I"$srcdir/common" \
	-I"$srcdir/lib" $(pkg-config --cflags yajl 2>/dev/null) "$srcdir"/common/*.c "$srcdir"/lib/*.c \
	"$srcdir/tests/engine/engine.c" \
	-o "$tmp/engine" $(pkg-config --libs yajl 2>/dev/null || echo -lyajl)

export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export ENGINE_RUNS=${ENGINE_RUNS:-5}
export ENGINE_SLACK_MS=${ENGINE_SLACK_MS:-3000} # a fork under TSan is slow
echo "tsan.sh: the engine test under ThreadSanitizer (ENGINE_RUNS=$ENGINE_RUNS)"
"$tmp/engine"
echo "tsan.sh: no ThreadSanitizer report"
