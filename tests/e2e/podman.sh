#!/bin/bash
# cnihook as an OCI hook under podman (with runc): the cases of
# runtime-lib.sh. podman reads the oci-hooks(5) files of a hooks.d directory
# the test writes (path = the hook, args with --config), puts the
# createRuntime hook in config.json and runs poststop itself. Storage is the
# test's own (vfs, under its temp dir); the image is the busybox rootfs,
# imported.
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/e2e/runtime-lib.sh"
rt_init podman
rt_run_all
