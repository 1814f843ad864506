/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The attachment record, <stateDir>/<id>/record.json: what a container was
 * (or is being) attached to, written before the first ADD so that a hook
 * killed at any point leaves enough behind for poststop or gc to clean up.
 */
#ifndef CNIHOOK_STATE_RECORD_H
#define CNIHOOK_STATE_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

struct record_att {
	char *network;
	char *ns; /* NPWG namespace, or NULL */
	char *ifname;
	bool is_default;
	char *config;	    /* the network list bytes as used for the ADD */
	char *cap_args;	    /* JSON object text, or NULL */
	char *config_args;  /* NPWG cni-args: JSON object text, or NULL */
	struct kvlist args; /* CNI_ARGS */
};

struct record {
	char *id;
	char *netns;   /* the pin (the hook), or the runtime's namespace (the plugin) */
	char *cluster; /* the CNI plugin: the cluster network whose chain attached, or NULL */
	/* The container it belongs to (the hook; NULL in records of the CNI
	 * plugin and of versions before engine scopes): its OCI bundle, its
	 * process at createRuntime (0: unknown) and its name as users know it
	 * when that is not the id ("<containerd namespace>/<id>"). */
	char *bundle;
	int pid;
	char *name;
	/* The hostname the container's name is given to the dnsname plugin
	 * as (plugin-args.h), so that its DEL removes it; NULL: none. */
	char *hostname;
	struct record_att *v;
	size_t n;
};

/* At layout_record(). */
int record_write(const char *path, const struct record *r, char **err);
/* Missing: 0 with *out NULL. */
int record_read(const char *path, struct record **out, char **err);
void record_free(struct record *r);

/* <stateDir>/<id>.name (layout_name_link()): the container's name as users know it, when that
 * is not its id (a containerd container's "<namespace>/<id>"), for
 * `status` and `list`. A symbolic link whose target is the name: one
 * readlink to show it, nothing to parse or sync (it only names; the record
 * is what counts). Beside the container's directory rather than in it, so
 * that the one listing of the state directory those commands make says
 * which containers have one: no lookup of a link that is not there.
 * (Earlier builds wrote <stateDir>/<id>/name, layout_name_old(): removed
 * with the directory; such a container shows its id until it restarts.) */
int record_name_write(const char *state_dir, const char *id, const char *name, char **err);
/* The name of container `id` of the state directory open as state_fd, or
 * NULL when it has none (or one that does not name it: the name with its
 * '/' made '-' must be the id). One readlinkat(), none for an id without
 * '-'. */
char *record_name_read(int state_fd, const char *id);

#endif
