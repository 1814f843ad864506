/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The attachment record, <stateDir>/<id>/record.json: what a container was
 * (or is being) attached to, written before the first ADD so that a hook
 * killed at any point leaves enough behind for poststop or gc to clean up.
 */
#ifndef CNIHOOK_RECORD_H
#define CNIHOOK_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct record_att {
	char *network;
	char *ns; /* NPWG namespace, or NULL */
	char *ifname;
	bool is_default;
	char *config;	   /* the network list bytes as used for the ADD */
	char *cap_args;	   /* JSON object text, or NULL */
	char *config_args; /* NPWG cni-args: JSON object text, or NULL */
	struct kv *args;
	size_t n_args;
};

struct record {
	char *id;
	char *netns;   /* the pin (the hook), or the runtime's namespace (the plugin) */
	char *cluster; /* the CNI plugin: the cluster network whose chain attached, or NULL */
	struct record_att *v;
	size_t n;
};

/* <stateDir>/<id>/record.json */
char *record_path(const char *state_dir, const char *id);
int record_write(const char *path, const struct record *r, char **err);
/* Missing: 0 with *out NULL. */
int record_read(const char *path, struct record **out, char **err);
void record_free(struct record *r);

#endif
