/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `cnihook gc`: tear down the attachments whose container is gone (no
 * process in its namespace, no runtime state), from their cached config and
 * arguments; remove stale pins, state directories, locks and port
 * reservations; then, for networks of version 1.1.0, the spec's GC verb with
 * cni.dev/valid-attachments.
 */
#ifndef CNIHOOK_GC_H
#define CNIHOOK_GC_H

#include <stdbool.h>

#include "hookconf.h"

/* Returns the exit status. dry_run: say what would be done, do nothing. */
int gc_run(const struct hook_config *cfg, bool dry_run);

#endif
