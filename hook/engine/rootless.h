/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine run for rootless podman (cnihook(8), ROOTLESS): the user's
 * rootless network namespace made at the first container and removed
 * after the last, a stage's engine call run in a child inside it, the
 * port forwarders (host/rootless-netns.h, host/port-forwarder.h).
 *
 * A step that fails returns -1 and its message; a child that fails hands
 * its message back on a pipe and the parent returns it. The entry points
 * below return the failure (*err) for their caller to report once; *err
 * is left NULL when the failure was that of the engine call run in the
 * child, which reported it there, as every engine call does (engine.h).
 * The healing every stage starts with logs its own events (what it
 * started again, collected or stopped), each once.
 */
#ifndef CNIHOOK_ENGINE_ROOTLESS_H
#define CNIHOOK_ENGINE_ROOTLESS_H

#include <stdbool.h>

#include "conf/hookconf.h"
#include "host/rootless-netns.h"
#include "request/annotations.h"

/* The hook runs in a user namespace other than the host's: the user's
 * directories (state/layout.h) replace cnihook.json's stateDir and
 * cacheDir. 0 when they do; -1 when the user has none (*why: what is
 * missing). */
int rootless_configure(struct hook_config *cfg, struct rootless_user *u, char **why);
/* The same for a user on the host (not in a user namespace): the
 * directories of the process's own uid (status and list as the user). */
int rootless_configure_host_user(struct hook_config *cfg, struct rootless_user *u, char **why);

/* What a stage runs inside the rootless namespace: 0; or -1 with *err,
 * the failure, handed back to the parent; or -1 with *err NULL when it
 * ran an engine call, which reported its failure. */
typedef int (*rootless_fn)(void *data, char **err);

struct rootless_call {
	const struct hook_config *cfg;
	struct rootless_user *user;
	const char *id;		/* the container's, for the log */
	const char *attachment; /* whose networks: the container's id, or its pod's */
	const char *stage;
	const char *status_path; /* attach: the attachment's network status */
	/* The attachments, other than `id`'s, that gc would find gone,
	 * detached and logged (the stage's, cmd/gc.h); NULL: none. */
	int (*collect_gone)(const struct hook_config *cfg, const char *id, const char *stage);
};

/* Every stage first heals, under the user's lock: the attachments gc
 * would find gone (a poststop missed) are collected, and slirp4netns, the
 * user's watch (host/rootless-watch.h) and the forwarders of live
 * attachments are started again when they are not running (each
 * logged).
 *
 * Attach: the namespace made if needed (and slirp4netns started), the
 * attachment's ports taken on the host, `attach` run in a child inside the
 * namespace, then the forwarder started; `detach` undoes `attach` when
 * the forwarder cannot start. A pod's member that finds the pod attached
 * already joins it: no ports, no forwarder of its own. */
int rootless_attach(const struct rootless_call *c, struct selection *sel, rootless_fn attach,
		    rootless_fn detach, void *data, char **err);
/* Detach: `detach` run in a child inside the namespace, then the
 * attachment's forwarder stopped once the attachment is gone (a pod's,
 * at its last member); after the user's last container, the namespace
 * torn down. */
int rootless_detach(const struct rootless_call *c, rootless_fn detach, void *data, char **err);

/* What rootless_gc() did besides gc itself, for its caller to print; gc
 * (its child) sees strays and had_none too. */
struct rootless_gc_outcome {
	int strays;    /* helpers stopped that served a namespace that is gone */
	bool had_none; /* the user had no directory: nothing to collect */
	bool gc_ran;   /* gc was started in its child */
};
/* `podman unshare cnihook gc`: the strays stopped, then gc (which exits
 * 1 when it failed; it prints and logs its own) run in a child inside the
 * namespace, the forwarders of containers it tore down stopped, and after
 * the user's last container the namespace torn down. 0, 1 when gc
 * failed, -1 (*err) when it could not run. */
int rootless_gc(const struct rootless_call *c, rootless_fn gc, void *data,
		struct rootless_gc_outcome *out, char **err);

/* `podman unshare cnihook reload`: what a stage heals first (the
 * attachments gc would find gone collected, slirp4netns, the user's watch
 * and the forwarders of live attachments started again when they are not
 * running). 0, or -1 (*err) when the user's lock cannot be taken. */
int rootless_reload(const struct rootless_call *c, char **err);

#endif
