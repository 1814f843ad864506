/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `cnihook gc`: tear down the attachments whose container is provably gone,
 * from their cached config and arguments; remove stale pins, state
 * directories, locks and port reservations; then, for networks of version
 * 1.1.0, the spec's GC verb with cni.dev/valid-attachments.
 *
 * Proof of death, per kind of entry (cnihook(8), "gc"): a container that a
 * runtime keeps state for is alive. One the hook attached (its directory in
 * the state directory) is gone when no process lives in its pinned
 * namespace and no other namespace its cache entries name exists. An
 * attachment of another program is gone only when every one of its cache
 * entries names a network namespace and none of those is one any more (the
 * path is missing, or is no network namespace); with no namespace named it
 * is kept, unless netns_from_result lets the sandbox paths of its cached
 * result stand in for the missing field.
 */
#ifndef CNIHOOK_CMD_GC_H
#define CNIHOOK_CMD_GC_H

#include <stdbool.h>

#include "conf/hookconf.h"

struct gc_options {
	bool dry_run;		/* say what would be done, do nothing */
	bool netns_from_result; /* --netns-from-result */
	/* Root of a rootless user's namespace, the user's directories in cfg
	 * (engine/rootless.h): no root of the host's needed. */
	bool rootless;
};

/* Returns the exit status. Prints each container's verdict and its evidence
 * on stdout. */
int gc_run(const struct hook_config *cfg, const struct gc_options *o);

/* Before a rootless stage (engine/rootless.h): the hook's own attachments,
 * other than `id`'s, that gc would find gone (their poststop missed: a
 * runtime or engine killed), detached; each is logged. Returns how many. */
int gc_collect_gone(const struct hook_config *cfg, const char *id, const char *stage);

#endif
