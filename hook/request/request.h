/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's request: what its annotations ask of the networks, as
 * the policy allows it, built once (annotations -> policy -> one typed
 * request) and handed down. This is the one door through which a stage or
 * the plugin mode reads a container's or a pod's annotations: the
 * networks, interface names, port mappings (typed, port-mappings.h),
 * addresses, MAC, bandwidth, CNI_ARGS pairs, names settings and pod
 * membership are all in it; JSON is made of it only where a plugin gets it
 * (plugin-args.h).
 */
#ifndef CNIHOOK_REQUEST_REQUEST_H
#define CNIHOOK_REQUEST_REQUEST_H

#include <stdbool.h>

#include "request/annotations.h"
#include "request/policy.h"

struct request {
	/* The attachments and everything else the annotations ask;
	 * sel.n 0: nothing to attach (sel.skip_reason may say why). */
	struct selection sel;
	/* The annotation that selected the networks, for messages; NULL when
	 * none did (defaultNetworks). */
	const char *by;
	/* A podman pod's member (sel.pod_id set): the digest of what its
	 * annotations ask (state/pod-members.h), else NULL. */
	char *digest;
};

/* A container's request from its OCI annotations (ann, which must outlive
 * it), in the one order that keeps a forbidden key from being read: the
 * annotations checked against the policy, parsed, the selection checked.
 * On failure *out is empty and *err says why. */
int request_build(const struct policy *p, const struct kvlist *ann,
		  const struct container_defaults *d, struct request *out, char **err);
/* The same for a pod's annotations as a CNI plugin gets them, with the
 * K8S_POD_* pairs of its CNI_ARGS (annotations_parse_pod()). */
int request_build_pod(const struct policy *p, const struct kvlist *ann, const struct kvlist *pod,
		      struct request *out, char **err);
/* Does any annotation concern cnihook (annotations_select())? */
bool request_asked(const struct kvlist *ann);
/* poststop, where nothing is attached and so nothing is parsed: the pod
 * whose networks the container joined (a podman pod's annotated member's
 * infra container id), else NULL. */
const char *request_joined_pod(const struct kvlist *ann);
void request_free(struct request *r);

#endif
