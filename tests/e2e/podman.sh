#!/bin/bash
# cnihook as an OCI hook under podman (with runc): the cases of
# runtime-lib.sh, and one more: the shipped "when" conditions select (a
# container without a selection annotation gets no hook). podman reads the
# oci-hooks(5) files of a hooks.d directory of the test's: the shipped
# config/hooks.d files of the build tree, with path = the hook and --config
# added, all else as shipped. It puts the createRuntime hook in config.json
# and runs poststop itself. Storage is the test's own (vfs, under its temp
# dir); the image is the busybox rootfs, imported.
set -euo pipefail
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/harness/runtime-lib.sh"
rt_init podman
rt_run_all
