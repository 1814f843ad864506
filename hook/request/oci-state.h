/* SPDX-License-Identifier: Apache-2.0 */
/* The OCI state on stdin (runtime-spec 1.0 to 1.2) and the bundle's config.json. */
#ifndef CNIHOOK_REQUEST_OCI_STATE_H
#define CNIHOOK_REQUEST_OCI_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/util.h"

struct oci_state {
	char *oci_version;
	char *id;		   /* validated as a container id */
	char *status;		   /* "creating", "created", "running", "stopped", ... */
	pid_t pid;		   /* 0 when absent (runc at poststop) or 0 (crun) */
	char *bundle;		   /* absolute path, or NULL */
	struct kvlist annotations; /* from the state, else from config.json */
	/* From <bundle>/config.json (when readable): */
	bool has_config;
	bool netns_in_config; /* linux.namespaces has a "network" entry */
	char *netns_path;     /* its "path", or NULL (a new namespace) */
	char *hostname;	      /* its "hostname", or NULL */
	/* The container's identity (cnihook(8), "CONTAINER IDENTITY"): an id
	 * is unique only within its engine's scope. containerd's namespace
	 * is the one scope the state shows (in the bundle's path); podman,
	 * CRI-O and Kubernetes ids are unique on the host. */
	char *scope; /* containerd's namespace, or NULL */
	char *key;   /* CNI_CONTAINERID and the state directory's name:
		      * "<scope>-<id>", else the id */
	char *name;  /* the container as users name it: "<scope>/<id>", else the id */
};

/* Parse the state JSON (at most 1 MiB); then, if the bundle's config.json
 * can be read, take the network namespace from it and the annotations when
 * the state carries none. A missing config.json is not an error at
 * poststop (need_config false); at attach time it is. */
/* The containerd namespace a bundle path names (a new string), or NULL:
 * containerd makes a task's bundle <state>/io.containerd.runtime.<v>/<ns>/<id>
 * (v2.task in 1.x, v1.linux for the old shim). */
char *oci_state_containerd_namespace(const char *bundle, const char *id);
int oci_state_parse(const char *buf, size_t len, bool need_config, struct oci_state **out,
		    char **err);
/* The two halves of oci_state_parse: the state alone, then config.json (so
 * that a caller knows the container's id when config.json is refused). */
int oci_state_parse_state(const char *buf, size_t len, struct oci_state **out, char **err);
int oci_state_load_config(struct oci_state *s, bool need_config, char **err);
void oci_state_free(struct oci_state *s);

#endif
