/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's annotations (cnihook-annotations(7)): which networks to
 * attach, with which interface names and capability arguments. This is input
 * written by whoever creates the container: every byte is validated, and a
 * refusal names the annotation and the problem.
 */
#ifndef CNIHOOK_REQUEST_ANNOTATIONS_H
#define CNIHOOK_REQUEST_ANNOTATIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "request/names-request.h"
#include "request/port-mappings.h"

#define ANN_NPWG_NETWORKS "k8s.v1.cni.cncf.io/networks"
/* Every key with this prefix (any case) must be one of those below: an
 * unknown one is refused, with the nearest known key. */
#define ANN_PREFIX    "io.cnihook."
#define ANN_NETWORKS  ANN_PREFIX "networks"
#define ANN_PORTS     ANN_PREFIX "ports"
#define ANN_MAC	      ANN_PREFIX "mac"
#define ANN_IPS	      ANN_PREFIX "ips"
#define ANN_BANDWIDTH ANN_PREFIX "bandwidth"
#define ANN_ARGS      ANN_PREFIX "args"
#define ANN_NETNS     ANN_PREFIX "netns"
#define ANN_NAME      ANN_PREFIX "name"

/* One requested attachment. JSON members are normalised compact JSON text. */
struct attach_req {
	char *network; /* network name (a valid CNI network name) */
	char *ns;      /* NPWG "namespace", or NULL */
	char *ifname;  /* always set after parsing: named, or eth0, eth1, ... */
	/* The name is cnihook's choice, not the annotation's: the engine may
	 * choose another where the namespace holds another program's
	 * interfaces (net1, net2, ...: engine/attach.c). */
	bool ifname_chosen;
	char **ips; /* CIDRs ("10.1.2.3/24"), n_ips of them */
	size_t n_ips;
	char *mac;		    /* "aa:bb:cc:dd:ee:ff" (lower case), or NULL */
	struct port_mappings ports; /* n 0: none */
	char *bandwidth;	    /* JSON object (CONVENTIONS.md bandwidth), or NULL */
	char *ib_guid;		    /* infiniband GUID, or NULL */
	char *cni_args;		    /* JSON object (NPWG "cni-args"), or NULL */
	char **default_route;	    /* gateway IPs (NPWG "default-route"), n of them */
	size_t n_default_route;
	/* The annotation ports came from when it is not the selection
	 * (ANN_PORTS), or NULL; for messages. */
	const char *ports_key;
};

struct selection {
	struct attach_req *v; /* in order */
	size_t n;
	struct kvlist args; /* io.cnihook.args pairs, in order */
	struct kvlist pod;  /* K8S_POD_NAME, K8S_POD_NAMESPACE, K8S_POD_UID,
			     * K8S_POD_INFRA_CONTAINER_ID from the engine's annotations */
	char *netns;	    /* io.cnihook.netns, or NULL */
	char *name;	    /* io.cnihook.name (a DNS name), or NULL */
	/* Not NULL: leave this container alone, and why (not a pod sandbox). */
	const char *skip_reason;
	/* A member of a podman pod: its pod's infra container id; the networks
	 * are the pod's, attached once in the namespace its members share. */
	char *pod_id;
	/* io.cnihook.dns and its overrides (names-request.h). */
	struct names_request names;
};

/* What a container's annotations are read with: cnihook.json's
 * defaultNetworks, which apply without a selection annotation (none: an
 * empty selection), and the container's OCI id (for
 * K8S_POD_INFRA_CONTAINER_ID when the engine names no sandbox). */
struct container_defaults {
	char *const *networks;
	size_t n_networks;
	const char *container_id;
};

/* Parse a container's annotations. An unknown io.cnihook.* key is refused
 * first, whatever else is set (`annotation "KEY": unknown key; did you
 * mean "io.cnihook.ports"? (known: ...)`). */
int annotations_parse(const struct kvlist *ann, const struct container_defaults *d,
		      struct selection *out, char **err);
/* The same for a pod's annotations as a CNI plugin gets them: no default
 * networks, the K8S_POD_* pairs given (pod, from CNI_ARGS), the
 * interfaces net1, net2, ... unless named. */
int annotations_parse_pod(const struct kvlist *ann, const struct kvlist *pod, struct selection *out,
			  char **err);
/* Does any annotation concern cnihook (the NPWG selection or an
 * io.cnihook.* key, the prefix in any case, as the hook refuses a key
 * it does not know in any case)? Without one a pod is left alone. */
bool annotations_select(const struct kvlist *ann);
/* The annotation that selected the networks (the NPWG key or
 * io.cnihook.networks), for messages; NULL when none did. */
/* The digest (hex) of what the annotations ask of the networks: every
 * io.cnihook.* key and the NPWG selection, with their values, in key
 * order. Two members of a podman pod ask the same when their digests are
 * equal. */
char *annotations_request_digest(const struct kvlist *ann);
const char *annotations_selected_by(const struct kvlist *ann);
void annotations_selection_free(struct selection *s);

#endif
