/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Liveness: whether a container cnihook knows of is provably gone, with the
 * evidence, by one set of rules that gc (cmd/gc.c) applies to every
 * container and an attach (engine/attach.c) to the one that holds what it
 * asks for (a host port). Never "gone" on a doubt: a runtime that keeps a
 * live state for it, a process in its pinned namespace, a namespace its
 * cache entries name that still exists, or anything that cannot be read
 * keeps it.
 */
#ifndef CNIHOOK_STATE_LIVENESS_H
#define CNIHOOK_STATE_LIVENESS_H

#include <stdbool.h>
#include <stddef.h>

#include <cnirt.h>

/* What every verdict reads once: the runtimes' state directories (runc,
 * crun, containerd's runc) and, when a pinned namespace is to be checked,
 * the network namespace of every process. */
struct liveness_world;
struct liveness_world *liveness_world_read(void);
/* The same under `root` (the runtimes' directories and /proc below it: a
 * fake host for the tests); "" is the host. */
struct liveness_world *liveness_world_read_at(const char *root);
void liveness_world_free(struct liveness_world *w);

/* A container as cnihook knows it. */
struct liveness_candidate {
	const char *id;
	bool own;			   /* <stateDir>/<id>/ exists: the hook attached it */
	const cnirt_cache_entry *const *v; /* its cache entries */
	size_t n;
};

/* Is the container provably gone? *evidence (a new string) says why or why
 * not. Gone: no runtime state, or one that is stopped (its init process
 * gone: a stopped container is never started again), and, for the hook's
 * own, no process in its pinned namespace and no namespace its cache
 * entries name left; for another program's, every namespace its entries
 * name (with netns_from_result, also those of its cached result) provably
 * none any more. */
bool liveness_gone(const char *state_dir, bool netns_from_result, struct liveness_world *w,
		   const struct liveness_candidate *c, char **evidence);

#endif
