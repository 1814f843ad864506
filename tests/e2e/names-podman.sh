#!/bin/bash
# tests/e2e/names.sh under podman (cnihook(8), NAMES): the same cases, this engine.
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
NAMES_RT=podman exec bash "$srcdir/tests/e2e/names.sh" "$@"
