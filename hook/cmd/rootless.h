/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hook's stages for rootless podman (cnihook(8), ROOTLESS): the
 * user's rootless network namespace made at the first container and
 * removed after the last, the engine run in it, the port forwarders
 * (host/rootless-netns.h, host/port-forwarder.h).
 */
#ifndef CNIHOOK_CMD_ROOTLESS_H
#define CNIHOOK_CMD_ROOTLESS_H

#include "conf/hookconf.h"
#include "host/rootless-netns.h"
#include "request/annotations.h"

/* The hook runs in a user namespace other than the host's: the user's
 * directories replace cnihook.json's stateDir and cacheDir. 0 when they
 * do; -1 when the user has none (*why: what is missing). */
int rootless_configure(struct hook_config *cfg, struct rootless_user *u, char **why);
/* The same for a user on the host (not in a user namespace): the
 * directories of the process's own uid (status and list as the user). */
int rootless_configure_host_user(struct hook_config *cfg, struct rootless_user *u, char **why);
/* For status: the user's slirp4netns and watch, running or MISSING, a
 * line each on stdout (nothing when the user has no directory). */
void rootless_print_helpers(const struct rootless_user *u);

/* What a stage runs inside the rootless namespace: 0 or -1 (it has logged
 * its failure). */
typedef int (*rootless_fn)(void *data);

struct rootless_call {
	const struct hook_config *cfg;
	struct rootless_user *user;
	const char *id;		/* the container's, for the log */
	const char *attachment; /* whose networks: the container's id, or its pod's */
	const char *stage;
	const char *status_path; /* attach: the attachment's network status */
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
		    rootless_fn detach, void *data);
/* Detach: `detach` run in a child inside the namespace, then the
 * attachment's forwarder stopped once the attachment is gone (a pod's,
 * at its last member); after the user's last container, the namespace
 * torn down. */
int rootless_detach(const struct rootless_call *c, rootless_fn detach, void *data);

/* `podman unshare cnihook gc`: gc (which returns an exit status) run in a
 * child inside the namespace, the forwarders of containers it tore down
 * stopped, and after the user's last container the namespace torn down.
 * Returns the exit status. */
int rootless_gc(const struct rootless_call *c, rootless_fn gc, void *data);

/* `podman unshare cnihook reload`: what a stage heals first (the
 * attachments gc would find gone collected, slirp4netns, the user's watch
 * and the forwarders of live attachments started again when they are not
 * running). Returns the exit status. */
int rootless_reload(const struct rootless_call *c);

#endif
