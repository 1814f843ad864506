#!/bin/bash
# cnihook as an OCI hook under runc: real containers (busybox rootfs), the
# hooks of the shipped config/runc-hooks.json (createRuntime and poststop),
# Debian's CNI plugins. The cases are in
# runtime-lib.sh; each one checks that nothing is left after the container.
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/e2e/runtime-lib.sh"
rt_init runc
rt_run_all
