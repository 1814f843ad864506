#!/bin/bash
# cnihook as an OCI hook under crun: the cases of runtime-lib.sh.
#
# This machine mounts cgroups in hybrid mode, which crun refuses. So the whole
# script runs in a mount namespace of its own (unshare -m), where
# /sys/fs/cgroup/unified is unmounted; every case goes from `crun run` to
# `crun delete` in that one namespace, and the pins the hook makes there are
# visible only there (the checks run there too).
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ "${CNIHOOK_IN_CRUN_NS:-}" != 1 ] && [ "$(id -u)" = 0 ] &&
	command -v crun >/dev/null 2>&1 && command -v unshare >/dev/null 2>&1 &&
	unshare -m true 2>/dev/null; then
	export CNIHOOK_IN_CRUN_NS=1
	exec unshare -m --propagation unchanged "$BASH" "$0" "$@"
fi
. "$srcdir/tests/harness/runtime-lib.sh"
rt_init crun
rt_run_all
