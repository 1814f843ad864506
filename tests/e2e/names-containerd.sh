#!/bin/bash
# tests/e2e/names.sh under containerd (cnihook(8), NAMES): the same cases, this engine.
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
NAMES_RT=containerd exec bash "$srcdir/tests/e2e/names.sh" "$@"
