#!/bin/bash
# tests/e2e/names.sh under crun (cnihook(8), NAMES): the same cases, this engine.
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
NAMES_RT=crun exec bash "$srcdir/tests/e2e/names.sh" "$@"
